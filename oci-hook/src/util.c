// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - error reporting, bounded reads, roots, small parsers. */
#include "util.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int hook_fail(struct hook_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (errnum && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(errnum));
	err->code = errnum ? errnum : EINVAL;
	return -1;
}

int hook_fail_prefix(struct hook_err *err, const char *fmt, ...)
{
	char prefix[ERR_MSG_MAX], old[ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s%s", prefix, old);
	if (!err->code)
		err->code = EINVAL;
	return -1;
}

void roots_default(struct hook_roots *r)
{
	memset(r, 0, sizeof(*r));
	strcpy(r->cgroup, "/sys/fs/cgroup");
	strcpy(r->sys, "/sys");
	strcpy(r->proc, "/proc");
	strcpy(r->dev, "/dev");
	strcpy(r->config_dir, "/etc/ioweight/conf.d");
	strcpy(r->systemd_socket, "/run/systemd/private");
}

int roots_set(char *dst, const char *val, const char *what, struct hook_err *err)
{
	size_t n = strlen(val);

	if (n == 0 || val[0] != '/')
		return hook_fail(err, 0, "%s: `%s` must be an absolute path", what, val);
	if (n >= PATH_MAX)
		return hook_fail(err, 0, "%s: path too long", what);
	if (path_has_dot_component(val))
		return hook_fail(err, 0, "%s: `%s` must not contain `.` or `..` components", what, val);
	memcpy(dst, val, n + 1);
	/* "/x/" and "/x" must compose the same way with "/file" */
	while (n > 1 && dst[n - 1] == '/')
		dst[--n] = '\0';
	return 0;
}

int read_fd_bounded(int fd, size_t max, const char *what, char **out, size_t *len,
		    struct hook_err *err)
{
	size_t cap = 4096, n = 0;
	_cleanup_free_ char *buf = malloc(cap + 1);

	if (!buf)
		return hook_fail(err, ENOMEM, "%s", what);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > max)
				return hook_fail(err, 0, "%s: larger than the %zu byte limit", what, max);
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				return hook_fail(err, ENOMEM, "%s", what);
			buf = nb;
		}
		r = TEMP_FAILURE_RETRY(read(fd, buf + n, cap - n));
		if (r < 0)
			return hook_fail(err, errno, "%s: cannot read", what);
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max)
			return hook_fail(err, 0, "%s: larger than the %zu byte limit", what, max);
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n))
		return hook_fail(err, 0, "%s: contains a NUL byte", what);
	*out = steal_ptr(&buf);
	if (len)
		*len = n;
	return 0;
}

int read_file_bounded(const char *path, size_t max, char **out, size_t *len,
		      struct hook_err *err)
{
	_cleanup_close_ int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY));

	if (fd < 0)
		return hook_fail(err, errno, "cannot open %s", path);
	return read_fd_bounded(fd, max, path, out, len, err);
}

int parse_long_range(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int path_join(char *dst, size_t dstlen, const char *a, const char *b, struct hook_err *err)
{
	int n;

	/* "/" + "/x" must not become "//x" */
	if (a[0] == '/' && a[1] == '\0')
		a = "";
	n = snprintf(dst, dstlen, "%s%s%s", a, (b[0] == '/' || !b[0]) ? "" : "/", b);
	if (n < 0 || (size_t)n >= dstlen)
		return hook_fail(err, ENAMETOOLONG, "path %s/%s", a, b);
	return 0;
}

bool path_has_dot_component(const char *p)
{
	const char *c = p;

	while (*c) {
		const char *e = strchrnul(c, '/');
		size_t l = (size_t)(e - c);

		if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return true;
		if (l == 0 && c != p)
			return true;
		if (!*e)
			break;
		c = e + 1;
	}
	return false;
}

void str_escape(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!outlen)
		return;
	for (const unsigned char *c = (const unsigned char *)in; *c; c++) {
		if (*c >= 0x20 && *c < 0x7f && *c != '\\') {
			if (o + 1 >= outlen)
				break;
			out[o++] = (char)*c;
		} else {
			if (o + 4 >= outlen)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*c >> 4];
			out[o++] = hex[*c & 0xf];
		}
	}
	out[o] = '\0';
}

char *str_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int sb_append(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (sb->len + (size_t)n + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 256;
		char *nb;

		while (cap < sb->len + (size_t)n + 1)
			cap *= 2;
		nb = realloc(sb->buf, cap);
		if (!nb)
			return -1;
		sb->buf = nb;
		sb->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}
