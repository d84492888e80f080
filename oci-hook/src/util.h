/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h - shared plumbing for ioweight-hook: the error type every fallible
 * function reports through, cleanup attributes, bounded file reading and the
 * overridable filesystem roots.
 *
 * Owns: struct hook_err, struct hook_roots, read_file_bounded(), small string
 * and number parsers.  Nothing here knows about cgroups, JSON or OCI.
 */
#ifndef IOWEIGHT_UTIL_H
#define IOWEIGHT_UTIL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define IOWEIGHT_VERSION "0.1.0"

/* Upper bounds on every input we read: a hostile or broken input must not
 * make a root process allocate without limit. */
enum {
	MAX_STATE_BYTES = 1 << 20,	/* OCI state on stdin (k8s caps annotations at 256 KiB) */
	MAX_SPEC_BYTES = 4 << 20,	/* bundle config.json */
	MAX_CONFIG_BYTES = 256 << 10,	/* one admin config file */
	MAX_CONFIG_FILES = 64,		/* files considered in the config dir */
	MAX_SMALL_FILE = 64 << 10,	/* cgroup, sysfs and proc files */
	MAX_ANNOTATION_VALUE = 4096,	/* one of our annotation values */
	MAX_DEVICE_ENTRIES = 32,	/* devices in one device-weights value */
	MAX_CGROUP_DEPTH = 32,		/* ancestors walked for subtree_control */
	WEIGHT_MIN = 1,
	WEIGHT_MAX = 10000,
};

#define ERR_MSG_MAX 1024

struct hook_err {
	int code;		/* errno-style cause, 0 if none */
	char msg[ERR_MSG_MAX];
};

/*
 * Record an error and return -1 so callers can write `return hook_fail(...)`.
 * If errnum != 0, ": strerror(errnum)" is appended.
 */
int hook_fail(struct hook_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix an existing message with more context ("config foo.json: " + msg). */
int hook_fail_prefix(struct hook_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Filesystem roots.  Production code uses "/" paths; the `--*-root` flags
 * (explicit argv, i.e. the admin's hook definition) and the unit tests point
 * them at fake trees.  Never the environment: the hook runs as root and its
 * environment is not something we want to trust.
 */
struct hook_roots {
	char cgroup[PATH_MAX];	/* /sys/fs/cgroup */
	char sys[PATH_MAX];	/* /sys */
	char proc[PATH_MAX];	/* /proc */
	char dev[PATH_MAX];	/* /dev */
	char config_dir[PATH_MAX];	/* /etc/ioweight/conf.d */
	char systemd_socket[PATH_MAX];	/* /run/systemd/private: the systemd cgroup driver */
};

void roots_default(struct hook_roots *r);
int roots_set(char *dst, const char *val, const char *what, struct hook_err *err);

/* cleanup helpers: no goto ladders */
static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}
static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
#define _cleanup_free_ __attribute__((cleanup(cleanup_freep)))
#define _cleanup_close_ __attribute__((cleanup(cleanup_closep)))

static inline void *steal_ptr(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}
static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

#ifndef TEMP_FAILURE_RETRY
#define TEMP_FAILURE_RETRY(expr) ({ long _r; do _r = (long)(expr); while (_r == -1L && errno == EINTR); _r; })
#endif

/*
 * Read a whole file (or fd) into a NUL-terminated heap buffer, refusing
 * anything larger than max bytes.  `what` names the input in errors.
 */
int read_fd_bounded(int fd, size_t max, const char *what, char **out, size_t *len,
		    struct hook_err *err);
int read_file_bounded(const char *path, size_t max, char **out, size_t *len,
		      struct hook_err *err);

/* Strict decimal parse of the whole string into [min, max]. */
int parse_long_range(const char *s, long min, long max, long *out);

/* snprintf that reports truncation as an error instead of silently cutting. */
int path_join(char *dst, size_t dstlen, const char *a, const char *b, struct hook_err *err);

/* True if the path has a "." or ".." component or an empty one ("//"). */
bool path_has_dot_component(const char *p);

/*
 * Copy `in` to out[outlen] with every byte a log reader could be fooled by
 * escaped: control characters (newline included), DEL, bytes >= 0x80 and
 * the backslash itself become \xNN.  Messages carry annotation values, cgroup
 * paths and other input nobody vetted; escaped, one message stays one line
 * and cannot impersonate another.  Always NUL-terminates; cuts at a whole
 * escape sequence.
 */
void str_escape(const char *in, char *out, size_t outlen);

/* Trim ASCII whitespace in place, return pointer to first non-space. */
char *str_trim(char *s);

/* Growable string buffer for plans and dry-run output. */
struct strbuf {
	char *buf;
	size_t len, cap;
};
int sb_append(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *sb);

#endif
