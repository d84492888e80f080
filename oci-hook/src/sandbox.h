/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.h - what the hook may still do once its input is read: Landlock
 * for where, seccomp for how.
 *
 * Owns: the Landlock ruleset (write and read beneath the cgroup root, read
 * the config; nothing else on any filesystem) and the seccomp allow-list
 * (default ERRNO(EPERM)): reads, writes on open fds, read-only opens, and
 * write opens only relative to the cgroup directories already opened and
 * checked; no sockets, no connect, no exec.  Under the systemd driver the
 * connection to systemd is made before, and only its fd may send and
 * receive messages.  Applied last in the setup order, after the log is
 * open and the cgroup directories are.
 *
 * The seccomp program is libseccomp's, compiled at build time
 * (seccomp_rules.c, seccomp_gen.c): the hook fills in its fds and loads it.
 */
#ifndef IOWEIGHT_SANDBOX_H
#define IOWEIGHT_SANDBOX_H

#include <linux/filter.h>

#include "util.h"

enum {
	/* write directories the filter can name: ancestors, pod, container */
	SANDBOX_MAX_WRITE_DIRS = MAX_CGROUP_DEPTH + 2,
};

struct sandbox_spec {
	const int *write_dirs;		/* the only dirfds write opens may use */
	size_t n_write_dirs;
	const char *cgroup_root;	/* Landlock: read and write beneath */
	const char *read_paths[2];	/* Landlock: read beneath (config); may be NULL */
	int bus_fd;			/* the connection to systemd; <= 0: none (0 is stdin) */
};

/* What Landlock could do on this kernel, for the log. */
struct sandbox_status {
	int landlock_abi;		/* 0: not available */
	char landlock_note[160];	/* why not, when it is not */
};

/*
 * Apply Landlock (if the kernel has it: not having it is logged, not an
 * error) and then seccomp (failing that is an error: the caller decides
 * with requireSandbox).
 */
int sandbox_apply(const struct sandbox_spec *sp, struct sandbox_status *st, struct hook_err *err);

/*
 * The seccomp program sandbox_apply() loads for sp: at most max
 * instructions into out, their number in *len.  Fails on more than
 * SANDBOX_MAX_WRITE_DIRS directories or a negative fd.
 */
int sandbox_seccomp_program(const struct sandbox_spec *sp, struct sock_filter *out, size_t max,
			    size_t *len, struct hook_err *err);

#ifdef IOWEIGHT_TESTING
/* Test builds only: act as on a kernel without Landlock. */
extern bool sandbox_testing_no_landlock;
#endif

#endif
