// SPDX-License-Identifier: GPL-2.0-or-later
/* sandbox.c - libseccomp allow-list, default EPERM, fail closed. */
#include "sandbox.h"

#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>

static void cleanup_seccompp(scmp_filter_ctx *c)
{
	if (*c)
		seccomp_release(*c);
}

/* Everything the hook does after sandboxing: open/read/write/close files that
 * already exist, list and stat, allocate, log, exit. */
static const char *const allowed[] = {
	"read", "write", "writev", "pread64", "lseek", "close",
	"fstat", "newfstatat", "statx", "stat", "lstat", "getdents64",
	"readlink", "readlinkat",
	"brk", "mmap", "munmap", "mremap", "madvise",
	"futex", "rt_sigreturn", "rt_sigprocmask",
	"getpid", "gettid", "clock_gettime", "gettimeofday", "time",
	"connect", "sendto", "sendmsg",	/* syslog on its already-known socket */
	"fcntl", "exit", "exit_group",
	"getrandom",
};

int sandbox_apply(struct hook_err *err)
{
	__attribute__((cleanup(cleanup_seccompp))) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int r;

	if (!ctx)
		return hook_fail(err, ENOMEM, "seccomp: cannot create filter");
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);

		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture (e.g. "stat" on arm64) */
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0)
			return hook_fail(err, -r, "seccomp: cannot allow %s", allowed[i]);
	}
	/* open only what exists: no O_CREAT (nor O_TMPFILE) after this point */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				  SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT | __O_TMPFILE, 0))) < 0 ||
	    (r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
				  SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT | __O_TMPFILE, 0))) < 0)
		return hook_fail(err, -r, "seccomp: cannot allow open");
	/* syslog() reconnects with an AF_UNIX datagram socket if the daemon restarted */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				  SCMP_A0(SCMP_CMP_EQ, AF_UNIX))) < 0)
		return hook_fail(err, -r, "seccomp: cannot allow socket");
	/* stdio asks whether stdout is a terminal */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				  SCMP_A1(SCMP_CMP_EQ, TCGETS))) < 0)
		return hook_fail(err, -r, "seccomp: cannot allow ioctl");
	/* no_new_privs (libseccomp's default) keeps the filter on any exec */
	if ((r = seccomp_load(ctx)) < 0)
		return hook_fail(err, -r, "seccomp: cannot load filter");
	return 0;
}
