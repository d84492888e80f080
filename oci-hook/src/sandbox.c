// SPDX-License-Identifier: GPL-2.0-or-later
/* sandbox.c - Landlock ruleset and libseccomp allow-list, default EPERM. */
#include "sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>

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

static void cleanup_seccompp(scmp_filter_ctx *c)
{
	if (*c)
		seccomp_release(*c);
}

/* Everything the hook does after sandboxing besides opening files: read
 * and write open fds (cgroup files, the log file or the connected syslog
 * socket, stderr), allocate, tell the time, exit. */
static const char *const allowed[] = {
	"read", "write", "writev", "pread64", "lseek", "close",
	"fstat", "newfstatat",
	"brk", "mmap", "munmap", "mremap", "madvise",
	"futex", "rt_sigreturn", "rt_sigprocmask",
	"getpid", "gettid", "clock_gettime", "gettimeofday", "time",
	"fcntl", "exit", "exit_group",
	"getrandom",
};

static int seccomp_apply(const struct sandbox_spec *sp, struct hook_err *err)
{
	__attribute__((cleanup(cleanup_seccompp))) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	/* dirfd is an int: compare its low 32 bits only */
	const scmp_datum_t fd_mask = 0xffffffffULL;
	int r;

	if (!ctx)
		return hook_fail(err, ENOMEM, "seccomp: cannot create filter");
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);

		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture (e.g. "time" on arm64) */
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0)
			return hook_fail(err, -r, "seccomp: cannot allow %s", allowed[i]);
	}
	/* read-only opens of existing files, anywhere Landlock allows */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				  SCMP_A2(SCMP_CMP_MASKED_EQ,
					  O_ACCMODE | O_CREAT | O_TRUNC | __O_TMPFILE, O_RDONLY))) < 0)
		return hook_fail(err, -r, "seccomp: cannot allow openat");
	/* writing opens: only relative to the checked cgroup directories, and
	 * never creating anything */
	for (size_t i = 0; i < sp->n_write_dirs; i++)
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 2,
					  SCMP_A0(SCMP_CMP_MASKED_EQ, fd_mask,
						  (scmp_datum_t)(unsigned)sp->write_dirs[i]),
					  SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT | __O_TMPFILE, 0))) < 0)
			return hook_fail(err, -r, "seccomp: cannot allow openat in fd %d", sp->write_dirs[i]);
	/* systemd driver: messages on the connection made before the
	 * filter, on no other fd; socket() and connect() stay refused, so no
	 * other socket (containerd's, the bus daemon's) can be reached */
	if (sp->bus_fd > 0) {
		static const char *const bus_io[] = { "sendmsg", "recvmsg" };

		for (size_t i = 0; i < 2; i++)
			if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(bus_io[i]), 1,
						  SCMP_A0(SCMP_CMP_MASKED_EQ, fd_mask,
							  (scmp_datum_t)(unsigned)sp->bus_fd))) < 0)
				return hook_fail(err, -r, "seccomp: cannot allow %s on fd %d", bus_io[i], sp->bus_fd);
		/* waiting for the reply: ppoll's fds are behind a pointer */
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ppoll), 0)) < 0)
			return hook_fail(err, -r, "seccomp: cannot allow ppoll");
	}
	/* stdio asks whether a stream is a terminal */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				  SCMP_A1(SCMP_CMP_EQ, TCGETS))) < 0)
		return hook_fail(err, -r, "seccomp: cannot allow ioctl");
	/* no_new_privs (libseccomp's default) keeps the filter on any exec */
	if ((r = seccomp_load(ctx)) < 0)
		return hook_fail(err, -r, "seccomp: cannot load filter");
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
