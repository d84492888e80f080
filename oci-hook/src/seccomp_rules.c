// SPDX-License-Identifier: GPL-2.0-or-later
/* seccomp_rules.c - the allow-list as libseccomp rules, compiled to BPF. */
#include "seccomp_rules.h"

#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>

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

static int add_rules(scmp_filter_ctx ctx, const int *write_dirs, size_t n, int bus_fd,
		     struct hook_err *err)
{
	/* dirfd is an int: compare its low 32 bits only */
	const scmp_datum_t fd_mask = 0xffffffffULL;
	int r;

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
	for (size_t i = 0; i < n; i++)
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 2,
					  SCMP_A0(SCMP_CMP_MASKED_EQ, fd_mask,
						  (scmp_datum_t)(unsigned)write_dirs[i]),
					  SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT | __O_TMPFILE, 0))) < 0)
			return hook_fail(err, -r, "seccomp: cannot allow openat in fd %d", write_dirs[i]);
	/* systemd driver: messages on the connection made before the
	 * filter, on no other fd; socket() and connect() stay refused, so no
	 * other socket (containerd's, the bus daemon's) can be reached */
	if (bus_fd > 0) {
		static const char *const bus_io[] = { "sendmsg", "recvmsg" };

		for (size_t i = 0; i < 2; i++)
			if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(bus_io[i]), 1,
						  SCMP_A0(SCMP_CMP_MASKED_EQ, fd_mask,
							  (scmp_datum_t)(unsigned)bus_fd))) < 0)
				return hook_fail(err, -r, "seccomp: cannot allow %s on fd %d", bus_io[i], bus_fd);
		/* waiting for the reply: ppoll's fds are behind a pointer */
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ppoll), 0)) < 0)
			return hook_fail(err, -r, "seccomp: cannot allow ppoll");
	}
	/* stdio asks whether a stream is a terminal */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				  SCMP_A1(SCMP_CMP_EQ, TCGETS))) < 0)
		return hook_fail(err, -r, "seccomp: cannot allow ioctl");
	return 0;
}

int seccomp_rules_compile(const int *write_dirs, size_t n, int bus_fd, struct sock_filter *out,
			  size_t max, size_t *len, struct hook_err *err)
{
	__attribute__((cleanup(cleanup_seccompp))) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	_cleanup_close_ int fd = -1;
	off_t size;
	int r;

	if (!ctx)
		return hook_fail(err, ENOMEM, "seccomp: cannot create filter");
	if (add_rules(ctx, write_dirs, n, bus_fd, err) < 0)
		return -1;
	/* libseccomp writes the program to an fd: a memfd, read back */
	fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return hook_fail(err, errno, "seccomp: memfd");
	if ((r = seccomp_export_bpf(ctx, fd)) < 0)
		return hook_fail(err, -r, "seccomp: cannot export the program");
	size = lseek(fd, 0, SEEK_END);
	if (size < 0 || size % (off_t)sizeof(*out))
		return hook_fail(err, size < 0 ? errno : EINVAL, "seccomp: exported program of %lld bytes",
				 (long long)size);
	*len = (size_t)size / sizeof(*out);
	if (*len > max)
		return hook_fail(err, E2BIG, "seccomp: program of %zu instructions, room for %zu", *len, max);
	if (pread(fd, out, (size_t)size, 0) != size)
		return hook_fail(err, errno ? errno : EIO, "seccomp: reading the exported program");
	return 0;
}
