// SPDX-License-Identifier: GPL-2.0-or-later
/* install.c - runtime wiring with dry-run, idempotence and exact uninstall. */
#include "install.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#define WRAPPER_PATH "/usr/local/sbin/ioweight-runc"
#define CTRD_CONFIG "/etc/containerd/config.toml"
#define CTRD_DROPIN_DIR "/etc/containerd/conf.d"
#define CTRD_DROPIN CTRD_DROPIN_DIR "/ioweight.toml"
#define CTRD_IMPORT CTRD_DROPIN_DIR "/*.toml"
/* the directory podman and CRI-O read by default (hooks_dir) */
#define HOOKSD_DIR "/usr/share/containers/oci/hooks.d"
#define HOOKSD_FILE HOOKSD_DIR "/ioweight-hook.json"

/* Annotation patterns containerd's CRI passes from the pod/container to the
 * OCI spec; without them the hook never sees pod annotations. */
#define PASS_ANNOTATIONS "\"ioweight.dev/*\", \"blockio.resources.beta.kubernetes.io/*\", \"io.kubernetes.cri.blockio-class\""

struct change {
	char path[PATH_MAX];
	char *old;		/* NULL: absent */
	size_t old_len;
	char *new_;		/* NULL: delete (uninstall) */
	mode_t mode;
	bool restore_backup;	/* uninstall: put path.ioweight-orig back */
	const char *what;
};

static int sfmt(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sfmt(char **out, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(out, fmt, ap);
	va_end(ap);
	if (r < 0)
		*out = NULL;
	return r < 0 ? -1 : 0;
}

static int read_opt(const char *path, char **buf, size_t *len, struct hook_err *err)
{
	*buf = NULL;
	*len = 0;
	if (read_file_bounded(path, 1 << 20, buf, len, err) < 0) {
		if (err->code == ENOENT) {
			*buf = NULL;
			return 0;
		}
		return -1;
	}
	return 0;
}

static bool quotable(const char *s)
{
	/* paths go into a shell script in single quotes and into TOML/JSON strings */
	return s[0] == '/' && !strpbrk(s, "'\"\\\n\r\t");
}

static int wrapper_text(const struct install_opts *o, char **out)
{
	return sfmt(out,
		    "#!/bin/sh\n"
		    "# " INSTALL_MARKER ": runc with the ioweight prestart hook added on create.\n"
		    "# Remove with `ioweight-hook install --runtime ... --uninstall`.\n"
		    "exec '%s' runc-wrapper --runc '%s' --hook '%s' -- \"$@\"\n",
		    o->hook, o->runc, o->hook);
}

/* CRI's runc runtime through our wrapper, with the annotations passed on */
#define RUNC_TABLES \
	"[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n" \
	"  runtime_type = \"io.containerd.runc.v2\"\n" \
	"  pod_annotations = [" PASS_ANNOTATIONS "]\n" \
	"  container_annotations = [" PASS_ANNOTATIONS "]\n" \
	"\n" \
	"[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n" \
	"  BinaryName = \"" WRAPPER_PATH "\"\n"

static int dropin_text(char **out)
{
	return sfmt(out,
		    "# " INSTALL_MARKER ": CRI pods run through runc with the ioweight prestart hook.\n"
		    "# Remove with `ioweight-hook install --runtime containerd --uninstall`.\n"
		    "version = 2\n"
		    "\n" RUNC_TABLES);
}

static int hooksd_text(const struct install_opts *o, char **out)
{
	return sfmt(out,
		    "{\n"
		    "  \"version\": \"1.0.0\",\n"
		    "  \"hook\": {\n"
		    "    \"path\": \"%s\",\n"
		    "    \"args\": [\"ioweight-hook\", \"prestart\"],\n"
		    "    \"timeout\": 10\n"
		    "  },\n"
		    "  \"when\": {\n"
		    "    \"annotations\": {\n"
		    "      \"^(ioweight\\\\.dev/.+|io\\\\.kubernetes\\\\.cri\\\\.blockio-class|blockio\\\\.resources\\\\.beta\\\\.kubernetes\\\\.io/.+)$\": \".*\"\n"
		    "    }\n"
		    "  },\n"
		    "  \"stages\": [\"prestart\"]\n"
		    "}\n",
		    o->hook);
}

/* Is there a top-level (before any [table]) key `name`? Returns the line. */
static const char *toplevel_key(const char *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[')
			return NULL;
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '=' || p[n] == '\t'))
			return l;
	}
	return NULL;
}

int install_containerd_config(const char *old, char **out, bool *use_dropin, struct hook_err *err)
{
	const char *imp, *ver, *at;
	size_t off;

	*out = NULL;
	*use_dropin = true;
	if (!old)
		return sfmt(out, "# " INSTALL_MARKER ": created this file; --uninstall removes it.\n"
				 "version = 2\n"
				 "imports = [\"" CTRD_IMPORT "\"]\n") < 0
			       ? hook_fail(err, ENOMEM, "install") : 0;
	/* containerd merges imported files per plugin section, replacing the
	 * whole section: a drop-in would silently drop the user's CRI settings
	 * (Debian's stock config sets the CNI paths there).  So when the CRI
	 * plugin is configured here, add our tables to this file instead. */
	if (strstr(old, "[plugins.\"io.containerd.grpc.v1.cri\"") || strstr(old, "[plugins.cri")) {
		*use_dropin = false;
		if (strstr(old, "# " INSTALL_MARKER ": added the lines below"))
			return sfmt(out, "%s", old) < 0 ? hook_fail(err, ENOMEM, "install") : 0;
		if (strstr(old, ".runtimes.runc]") || strstr(old, ".runtimes.runc.options]") ||
		    strstr(old, "runtimes.runc ="))
			return hook_fail(err, 0, CTRD_CONFIG " already defines the runc runtime; add to its section: pod_annotations/container_annotations = [" PASS_ANNOTATIONS "] and, under .options, BinaryName = \"" WRAPPER_PATH "\" (then run install --runtime runc-wrapper)");
		return sfmt(out, "%s%s\n# " INSTALL_MARKER ": added the lines below; --uninstall restores the original\n%s",
			    old, old[0] && old[strlen(old) - 1] != '\n' ? "\n" : "", RUNC_TABLES) < 0
			       ? hook_fail(err, ENOMEM, "install") : 0;
	}
	imp = toplevel_key(old, "imports");
	if (imp) {
		const char *eol = strchrnul(imp, '\n'), *close = memchr(imp, ']', (size_t)(eol - imp));

		if (memmem(imp, (size_t)(eol - imp), "\"" CTRD_IMPORT "\"", strlen(CTRD_IMPORT) + 2) ||
		    memmem(imp, (size_t)(eol - imp), "\"" CTRD_DROPIN "\"", strlen(CTRD_DROPIN) + 2))
			return sfmt(out, "%s", old) < 0 ? hook_fail(err, ENOMEM, "install") : 0;
		if (!close)
			return hook_fail(err, 0, CTRD_CONFIG ": `imports` spans several lines; add \"" CTRD_IMPORT "\" to it by hand");
		off = (size_t)(close - old);
		/* append our glob inside the brackets (no comma if the list is empty) */
		{
			const char *open = memchr(imp, '[', (size_t)(close - imp));
			bool empty = open && strspn(open + 1, " \t") == (size_t)(close - open - 1);

			return sfmt(out, "%.*s%s\"" CTRD_IMPORT "\"%s", (int)off, old, empty ? "" : ", ",
				    close) < 0 ? hook_fail(err, ENOMEM, "install") : 0;
		}
	}
	/* no imports yet: add one after `version = ...`, or first if none */
	ver = toplevel_key(old, "version");
	at = ver ? strchrnul(ver, '\n') : old;
	if (ver && *at == '\n')
		at++;
	off = (size_t)(at - old);
	return sfmt(out, "%.*s%s# " INSTALL_MARKER ": added the next line\nimports = [\"" CTRD_IMPORT "\"]\n%s",
		    (int)off, old, (ver && off && old[off - 1] != '\n') ? "\n" : "", at) < 0
		       ? hook_fail(err, ENOMEM, "install") : 0;
}

static void change_free(struct change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].old);
		free(c[i].new_);
	}
}

static void print_lines(FILE *out, const char *s, size_t len, char tag)
{
	const char *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);

		fprintf(out, "%c %.*s\n", tag, (int)l, s);
		s += l + (nl ? 1 : 0);
	}
}

/* A minimal diff: common head and tail lines kept, the middle shown as -/+. */
static void print_diff(FILE *out, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), head = 0, tail = 0;

	while (head < la && head < lb && a[head] == b[head])
		head++;
	while (head > 0 && a[head - 1] != '\n')
		head--;
	while (tail < la - head && tail < lb - head && a[la - 1 - tail] == b[lb - 1 - tail])
		tail++;
	while (tail > 0 && a[la - tail] != '\n' && tail < la - head)
		tail--;
	if (tail > 0 && a[la - tail] == '\n')
		tail--;
	print_lines(out, a, head, ' ');
	print_lines(out, a + head, la - head - tail, '-');
	print_lines(out, b + head, lb - head - tail, '+');
	print_lines(out, a + la - tail, tail, ' ');
}

static int write_atomic(const char *path, const char *data, size_t len, mode_t mode,
			struct hook_err *err)
{
	char tmp[PATH_MAX + 32];
	_cleanup_close_ int fd = -1;

	snprintf(tmp, sizeof(tmp), "%s.ioweight-tmp", path);
	fd = TEMP_FAILURE_RETRY(open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
	if (fd < 0)
		return hook_fail(err, errno, "cannot create %s", tmp);
	if (fchmod(fd, mode) < 0 || TEMP_FAILURE_RETRY(write(fd, data, len)) != (ssize_t)len ||
	    fsync(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return hook_fail(err, e, "cannot write %s", path);
	}
	return 0;
}

static int mkdir_marked(const char *dir, bool dry, FILE *out, struct hook_err *err)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (stat(p, &st) < 0) {
			char m[PATH_MAX + 32];

			fprintf(out, "%s directory %s\n", dry ? "would create" : "create", p);
			if (!dry) {
				_cleanup_close_ int fd = -1;

				if (mkdir(p, 0755) < 0)
					return hook_fail(err, errno, "cannot create %s", p);
				/* remembered so --uninstall removes only what we made */
				snprintf(m, sizeof(m), "%s/" DIR_MARKER, p);
				fd = open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
				if (fd < 0)
					return hook_fail(err, errno, "cannot create %s", m);
			}
		}
		*s = c;
		if (!c)
			break;
	}
	return 0;
}

static void rmdir_marked(const char *dir, const char *prefix, bool dry, FILE *out)
{
	char p[PATH_MAX], m[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s", dir);
	/* innermost first, stop at the first directory we did not create */
	while (strlen(p) > strlen(prefix) + 1) {
		snprintf(m, sizeof(m), "%s/" DIR_MARKER, p);
		if (access(m, F_OK) < 0)
			return;
		fprintf(out, "%s directory %s\n", dry ? "would remove" : "remove", p);
		if (!dry) {
			unlink(m);
			if (rmdir(p) < 0) {
				/* something else lives there now: keep it, and the marker */
				int fd = open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

				if (fd >= 0)
					close(fd);
				return;
			}
		}
		*strrchr(p, '/') = '\0';
	}
}

static int plan_install_file(struct change *c, const char *path, char *text, mode_t mode,
			     const char *what, struct hook_err *err)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->new_ = text;
	c->mode = mode;
	c->what = what;
	if (!text)
		return hook_fail(err, ENOMEM, "install");
	return read_opt(path, &c->old, &c->old_len, err);
}

static int plan_uninstall_file(struct change *c, const char *path, const char *what,
			       struct hook_err *err)
{
	char bak[PATH_MAX + 32];

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->what = what;
	if (read_opt(path, &c->old, &c->old_len, err) < 0)
		return -1;
	snprintf(bak, sizeof(bak), "%s" BACKUP_SUFFIX, path);
	c->restore_backup = access(bak, F_OK) == 0;
	if (!c->restore_backup && c->old && !strstr(c->old, INSTALL_MARKER) &&
	    !strstr(c->old, "\"args\": [\"ioweight-hook\", \"prestart\"]")) {
		/* not ours and nothing to restore: leave it alone */
		free(c->old);
		c->old = NULL;
	}
	return 0;
}

static int apply_change(const struct install_opts *o, struct change *c, FILE *out,
			struct hook_err *err)
{
	char bak[PATH_MAX + 32];
	bool dry = o->dry_run;

	snprintf(bak, sizeof(bak), "%s" BACKUP_SUFFIX, c->path);
	if (o->uninstall) {
		if (c->restore_backup) {
			fprintf(out, "%s %s from %s\n", dry ? "would restore" : "restore", c->path, bak);
			if (!dry && rename(bak, c->path) < 0)
				return hook_fail(err, errno, "cannot restore %s", c->path);
		} else if (c->old) {
			fprintf(out, "%s %s (%s)\n", dry ? "would remove" : "remove", c->path, c->what);
			if (!dry && unlink(c->path) < 0)
				return hook_fail(err, errno, "cannot remove %s", c->path);
		} else {
			fprintf(out, "nothing to undo for %s\n", c->path);
		}
		return 0;
	}
	if (c->old && !strcmp(c->old, c->new_) && c->old_len == strlen(c->new_)) {
		fprintf(out, "unchanged %s (%s)\n", c->path, c->what);
		return 0;
	}
	if (!c->old) {
		fprintf(out, "%s %s (%s, mode %04o):\n", dry ? "would create" : "create", c->path,
			c->what, (unsigned)c->mode);
		print_lines(out, c->new_, strlen(c->new_), '+');
	} else {
		struct stat st;

		fprintf(out, "%s %s (%s; original kept as %s):\n", dry ? "would modify" : "modify",
			c->path, c->what, bak);
		print_diff(out, c->old, c->new_);
		if (stat(c->path, &st) == 0)
			c->mode = st.st_mode & 07777;
	}
	if (dry)
		return 0;
	/* the first install's backup is the original: never overwrite it */
	if (c->old && access(bak, F_OK) < 0) {
		if (link(c->path, bak) < 0 && write_atomic(bak, c->old, c->old_len, c->mode, err) < 0)
			return -1;
	}
	return write_atomic(c->path, c->new_, strlen(c->new_), c->mode, err);
}

int install_run(const struct install_opts *o, FILE *out, struct hook_err *err)
{
	struct change ch[4];
	size_t n = 0;
	char p_wrap[PATH_MAX], p_conf[PATH_MAX], p_drop[PATH_MAX], p_hooks[PATH_MAX];
	char d_drop[PATH_MAX], d_hooks[PATH_MAX], d_wrap[PATH_MAX];
	char *text;
	bool use_dropin = false;
	int ret = -1;

	if (!quotable(o->hook) || !quotable(o->runc))
		return hook_fail(err, 0, "install: --hook-path and --runc must be absolute paths without quotes, backslashes or whitespace control characters");
	snprintf(p_wrap, sizeof(p_wrap), "%s" WRAPPER_PATH, o->prefix);
	snprintf(d_wrap, sizeof(d_wrap), "%s/usr/local/sbin", o->prefix);
	snprintf(p_conf, sizeof(p_conf), "%s" CTRD_CONFIG, o->prefix);
	snprintf(p_drop, sizeof(p_drop), "%s" CTRD_DROPIN, o->prefix);
	snprintf(d_drop, sizeof(d_drop), "%s" CTRD_DROPIN_DIR, o->prefix);
	snprintf(p_hooks, sizeof(p_hooks), "%s" HOOKSD_FILE, o->prefix);
	snprintf(d_hooks, sizeof(d_hooks), "%s" HOOKSD_DIR, o->prefix);

	/* compute every change first: nothing is touched if any step fails */
	if (o->uninstall) {
		if (o->runtime != RT_PODMAN && plan_uninstall_file(&ch[n++], p_wrap, "runc wrapper", err) < 0)
			goto out;
		if (o->runtime == RT_CONTAINERD &&
		    (plan_uninstall_file(&ch[n++], p_drop, "containerd drop-in", err) < 0 ||
		     plan_uninstall_file(&ch[n++], p_conf, "containerd config", err) < 0))
			goto out;
		if (o->runtime == RT_PODMAN && plan_uninstall_file(&ch[n++], p_hooks, "OCI hooks.d entry", err) < 0)
			goto out;
	} else {
		if (o->runtime != RT_PODMAN) {
			if (wrapper_text(o, &text) < 0)
				text = NULL;
			if (plan_install_file(&ch[n++], p_wrap, text, 0755, "runc wrapper", err) < 0)
				goto out;
		}
		if (o->runtime == RT_CONTAINERD) {
			struct change *cf = &ch[n++];

			memset(cf, 0, sizeof(*cf));
			snprintf(cf->path, sizeof(cf->path), "%s", p_conf);
			cf->mode = 0644;
			if (read_opt(p_conf, &cf->old, &cf->old_len, err) < 0 ||
			    install_containerd_config(cf->old, &cf->new_, &use_dropin, err) < 0)
				goto out;
			cf->what = use_dropin ? "containerd config: imports" : "containerd config: runc runtime tables";
			if (use_dropin) {
				if (dropin_text(&text) < 0)
					text = NULL;
				if (plan_install_file(&ch[n++], p_drop, text, 0644, "containerd drop-in", err) < 0)
					goto out;
			}
		}
		if (o->runtime == RT_PODMAN) {
			if (hooksd_text(o, &text) < 0)
				text = NULL;
			if (plan_install_file(&ch[n++], p_hooks, text, 0644, "OCI hooks.d entry", err) < 0)
				goto out;
		}
		if (o->runtime != RT_PODMAN && mkdir_marked(d_wrap, o->dry_run, out, err) < 0)
			goto out;
		if (o->runtime == RT_CONTAINERD && use_dropin && mkdir_marked(d_drop, o->dry_run, out, err) < 0)
			goto out;
		if (o->runtime == RT_PODMAN && mkdir_marked(d_hooks, o->dry_run, out, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (apply_change(o, &ch[i], out, err) < 0)
			goto out;
	if (o->uninstall) {
		if (o->runtime == RT_CONTAINERD)
			rmdir_marked(d_drop, o->prefix, o->dry_run, out);
		if (o->runtime == RT_PODMAN)
			rmdir_marked(d_hooks, o->prefix, o->dry_run, out);
		if (o->runtime != RT_PODMAN)
			rmdir_marked(d_wrap, o->prefix, o->dry_run, out);
	}
	if (!o->dry_run && !o->uninstall) {
		if (o->runtime == RT_CONTAINERD)
			fprintf(out, "next: restart containerd; CRI pods use the hook. For ctr: ctr run --runc-binary " WRAPPER_PATH " ...\n");
		else if (o->runtime == RT_RUNC_WRAPPER)
			fprintf(out, "next: ctr run --runc-binary " WRAPPER_PATH " ..., or point a runtime's BinaryName at it\n");
		else
			fprintf(out, "next: podman/CRI-O pick the hook up for containers with an ioweight.dev/ or blockio annotation\n");
	}
	ret = 0;
out:
	change_free(ch, n);
	return ret;
}

int install_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runtime", required_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "uninstall", no_argument, NULL, 'u' },
		{ "hook-path", required_argument, NULL, 'H' },
		{ "runc", required_argument, NULL, 'R' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const runcs[] = { "/usr/sbin/runc", "/usr/bin/runc",
					     "/usr/local/sbin/runc", "/usr/local/bin/runc", NULL };
	struct install_opts o = { .runtime = RT_CONTAINERD };
	struct hook_err err = { 0 };
	bool have_rt = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			have_rt = true;
			if (!strcmp(optarg, "containerd"))
				o.runtime = RT_CONTAINERD;
			else if (!strcmp(optarg, "podman") || !strcmp(optarg, "cri-o"))
				o.runtime = RT_PODMAN;
			else if (!strcmp(optarg, "runc-wrapper"))
				o.runtime = RT_RUNC_WRAPPER;
			else {
				fprintf(stderr, "ioweight-hook install: --runtime must be containerd, podman or runc-wrapper\n");
				return 2;
			}
			break;
		case 'n': o.dry_run = true; break;
		case 'u': o.uninstall = true; break;
		case 'H': snprintf(o.hook, sizeof(o.hook), "%s", optarg); break;
		case 'R': snprintf(o.runc, sizeof(o.runc), "%s", optarg); break;
		case 'p':
			if (roots_set(o.prefix, optarg, "--prefix", &err) < 0) {
				fprintf(stderr, "ioweight-hook install: %s\n", err.msg);
				return 2;
			}
			if (!strcmp(o.prefix, "/"))
				o.prefix[0] = '\0';
			break;
		case 'h':
			puts("Usage: ioweight-hook install --runtime containerd|podman|runc-wrapper [--dry-run] [--uninstall]\n"
			     "                             [--hook-path PATH] [--runc PATH] [--prefix DIR]\n"
			     "  --hook-path  the hook binary the runtime runs (default: this binary)\n"
			     "  --runc       the real runc the wrapper execs (default: first found in\n"
			     "               /usr/sbin, /usr/bin, /usr/local/sbin, /usr/local/bin)\n"
			     "  --prefix     install under DIR instead of / (for packaging and tests)");
			return 0;
		default:
			return 2;
		}
	}
	if (!have_rt || optind != argc) {
		fprintf(stderr, "Usage: ioweight-hook install --runtime containerd|podman|runc-wrapper [--dry-run] [--uninstall]\n");
		return 2;
	}
	if (!o.hook[0] && !realpath("/proc/self/exe", o.hook)) {
		fprintf(stderr, "ioweight-hook install: cannot find own path; pass --hook-path\n");
		return 1;
	}
	for (int i = 0; !o.runc[0] && runcs[i]; i++) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s%s", o.prefix, runcs[i]);
		/* never point the wrapper at itself */
		if (access(p, X_OK) == 0 && strcmp(runcs[i], WRAPPER_PATH))
			snprintf(o.runc, sizeof(o.runc), "%s", runcs[i]);
	}
	if (!o.runc[0] && o.runtime != RT_PODMAN) {
		fprintf(stderr, "ioweight-hook install: no runc found; pass --runc PATH\n");
		return 1;
	}
	if (!o.runc[0])
		strcpy(o.runc, "/usr/bin/runc");	/* unused by podman mode */
	if (install_run(&o, stdout, &err) < 0) {
		fprintf(stderr, "ioweight-hook install: %s\n", err.msg);
		return 1;
	}
	return 0;
}
