// SPDX-License-Identifier: GPL-2.0-or-later
/* sandbox.c - Landlock ruleset and the build-time seccomp program, default EPERM. */
#include "sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/* seccomp_tmpls[]: libseccomp's programs, one per shape (seccomp_gen.c) */
#include "seccomp-prog.h"

/* ---- Landlock ---- */

#ifdef IOWEIGHT_TESTING
bool sandbox_testing_no_landlock;
#endif

/* rights newer than the headers Debian 12 builds with */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)	/* ABI 5 */
#endif
#define LL_NET_BIND_TCP (1ULL << 0)			/* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)		/* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* the ruleset attribute as of ABI 6; older kernels get a prefix of it */
struct ll_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};

enum {
	LL_FS_V1 = (1 << 13) - 1,	/* EXECUTE .. MAKE_SYM */
	LL_FILE_RIGHTS = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			 LANDLOCK_ACCESS_FS_READ_FILE,
};

static __u64 ll_handled_fs(int abi)
{
	__u64 fs = LL_FS_V1;

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/* Allow `want` beneath path (limited to file rights if it is a file). */
static int ll_allow(int ruleset, const char *path, __u64 want, __u64 handled,
		    struct hook_err *err)
{
	struct landlock_path_beneath_attr pb = { 0 };
	_cleanup_close_ int fd = TEMP_FAILURE_RETRY(open(path, O_PATH | O_CLOEXEC));
	struct stat st;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;	/* an absent config dir has nothing to read */
		return hook_fail(err, errno, "landlock: %s", path);
	}
	if (fstat(fd, &st) < 0)
		return hook_fail(err, errno, "landlock: %s", path);
	if (!S_ISDIR(st.st_mode))
		want &= LL_FILE_RIGHTS | LANDLOCK_ACCESS_FS_TRUNCATE;
	pb.allowed_access = want & handled;
	pb.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		return hook_fail(err, errno, "landlock: cannot allow %s", path);
	return 0;
}

static int landlock_apply(const struct sandbox_spec *sp, struct sandbox_status *st,
			  struct hook_err *err)
{
	struct ll_ruleset_attr attr = { 0 };
	size_t attr_size = sizeof(attr.handled_access_fs);
	_cleanup_close_ int ruleset = -1;
	int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	__u64 rw = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		   LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_TRUNCATE;
	__u64 ro = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

#ifdef IOWEIGHT_TESTING
	if (sandbox_testing_no_landlock) {
		abi = -1;
		errno = ENOSYS;
	}
#endif
	if (abi < 1) {
		st->landlock_abi = 0;
		snprintf(st->landlock_note, sizeof(st->landlock_note),
			 "Landlock is not available (%s): file access is confined by seccomp only",
			 errno == EOPNOTSUPP ? "disabled at boot" : "not built into this kernel");
		return 0;
	}
	st->landlock_abi = abi;
	attr.handled_access_fs = ll_handled_fs(abi);
	if (abi >= 4) {
		/* the hook has no business with TCP either */
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset < 0)
		return hook_fail(err, errno, "landlock: cannot create a ruleset (ABI %d)", abi);
	if (ll_allow(ruleset, sp->cgroup_root, rw, attr.handled_access_fs, err) < 0)
		return -1;
	for (size_t i = 0; i < 2; i++)
		if (sp->read_paths[i] && ll_allow(ruleset, sp->read_paths[i], ro, attr.handled_access_fs, err) < 0)
			return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return hook_fail(err, errno, "landlock: cannot set no_new_privs");
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return hook_fail(err, errno, "landlock: cannot restrict the hook");
	return 0;
}

/* ---- seccomp ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int sandbox_seccomp_program(const struct sandbox_spec *sp, struct sock_filter *out, size_t max,
			    size_t *len, struct hook_err *err)
{
	int fds[SANDBOX_MAX_WRITE_DIRS];
	size_t n = 0;
	const struct seccomp_tmpl *t;

	if (sp->n_write_dirs > SANDBOX_MAX_WRITE_DIRS)
		return hook_fail(err, E2BIG, "seccomp: %zu cgroup directories to write in, at most %d",
				 sp->n_write_dirs, SANDBOX_MAX_WRITE_DIRS);
	/* the template's slots take the fds in ascending order, once each */
	for (size_t i = 0; i < sp->n_write_dirs; i++)
		fds[i] = sp->write_dirs[i];
	qsort(fds, sp->n_write_dirs, sizeof(*fds), cmp_int);
	for (size_t i = 0; i < sp->n_write_dirs; i++) {
		if (fds[i] < 0)
			return hook_fail(err, EBADF, "seccomp: cgroup directory fd %d", fds[i]);
		if (!n || fds[n - 1] != fds[i])
			fds[n++] = fds[i];
	}
	t = &seccomp_tmpls[n][sp->bus_fd > 0];
	if (t->len > max)
		return hook_fail(err, E2BIG, "seccomp: program of %u instructions, room for %zu", t->len, max);
	memcpy(out, &seccomp_tmpl_insns[t->off], t->len * sizeof(*out));
	for (size_t i = 0; i < t->n_slots; i++) {
		const struct seccomp_slot *sl = &seccomp_tmpl_slots[t->slot_off + i];

		out[sl->insn].k = (__u32)(sl->fd == SECCOMP_SLOT_BUS ? sp->bus_fd : fds[sl->fd]);
	}
	*len = t->len;
	return 0;
}

static int seccomp_apply(const struct sandbox_spec *sp, struct hook_err *err)
{
	struct sock_filter insns[SECCOMP_TMPL_MAX_LEN];
	struct sock_fprog prog = { .filter = insns };
	size_t len;

	if (sandbox_seccomp_program(sp, insns, SECCOMP_TMPL_MAX_LEN, &len, err) < 0)
		return -1;
	prog.len = (unsigned short)len;
	/* no_new_privs keeps the filter on any exec, and lets a process
	 * without CAP_SYS_ADMIN install it */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return hook_fail(err, errno, "seccomp: cannot set no_new_privs");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0 &&
	    (errno != ENOSYS || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0))
		return hook_fail(err, errno, "seccomp: cannot load filter");
	return 0;
}

int sandbox_apply(const struct sandbox_spec *sp, struct sandbox_status *st, struct hook_err *err)
{
	memset(st, 0, sizeof(*st));
	/* Landlock first: its syscalls are not on the seccomp list */
	if (landlock_apply(sp, st, err) < 0 || seccomp_apply(sp, err) < 0)
		return -1;
	return 0;
}
