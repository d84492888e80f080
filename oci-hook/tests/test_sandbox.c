// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_sandbox.c - the seccomp filter is real: after sandbox_apply() a
 * syscall outside the list fails with EPERM, and the whole pipeline still
 * works inside it.  Each case runs in a child (a filter cannot be removed).
 * The program the hook loads, a build-time template with its fds filled
 * in, is the one libseccomp compiles from the rules for those fds.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sandbox.h"
#include "seccomp_rules.h"

/* child exit codes */
enum { C_OK = 0, C_APPLY_FAILED = 10, C_NOT_EPERM, C_ALLOWED_BROKEN, C_HOOK_FAILED };

static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0)
		/* raw exit_group: _exit() is noreturn and ASan's hook for that
		 * calls sigaltstack, which the filter (rightly) refuses */
		syscall(SYS_exit_group, fn(arg));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int child_syscalls(void *arg)
{
	struct fake *f = arg;
	struct hook_err err = { 0 };
	struct sandbox_spec sp = { .cgroup_root = f->roots.cgroup, .read_paths = { f->roots.config_dir } };
	struct sandbox_status sst;
	char p[PATH_MAX];
	int fd;

	if (sandbox_apply(&sp, &sst, &err) < 0)
		return C_APPLY_FAILED;
	/* not in the list: each must fail with EPERM, not succeed */
	snprintf(p, sizeof(p), "%s/newdir", f->root);
	if (mkdir(p, 0755) == 0 || errno != EPERM)
		return C_NOT_EPERM;
	if (syscall(SYS_getppid) != -1 || errno != EPERM)
		return C_NOT_EPERM;
	if (syscall(SYS_unshare, 0) != -1 || errno != EPERM)
		return C_NOT_EPERM;
	/* open is allowed, but never to create */
	snprintf(p, sizeof(p), "%s/created", f->root);
	if (open(p, O_WRONLY | O_CREAT, 0644) != -1 || errno != EPERM)
		return C_NOT_EPERM;
	/* what the hook needs still works */
	snprintf(p, sizeof(p), "%s/cg/cgroup.controllers", f->root);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, p, 4) != 4 || close(fd) < 0)
		return C_ALLOWED_BROKEN;
	return C_OK;
}

static void test_filter_blocks_unlisted(void **state)
{
	struct fake *f = *state;

	assert_int_equal(in_child(child_syscalls, f), C_OK);
	/* and nothing was created */
	{
		char p[PATH_MAX];
		struct stat st;

		snprintf(p, sizeof(p), "%s/newdir", f->root);
		assert_int_equal(stat(p, &st), -1);
	}
}

static int child_pipeline(void *arg)
{
	struct fake *f = arg;
	struct hook_opts o = { .roots = f->roots, .sandbox = true };
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = fk_state(200, "\"ioweight.dev/weight\":\"500\",\"ioweight.dev/device-weights\":\"/dev/vdb=300\"");
	struct oci_state st;

	if (state_parse(s, strlen(s), &st, &err) < 0 || hook_run(&o, &st, &res, &err) < 0) {
		fprintf(stderr, "child: %s\n", err.msg);
		return C_HOOK_FAILED;
	}
	return C_OK;
}

static void test_pipeline_under_filter(void **state)
{
	struct fake *f = *state;
	char *t;

	fk_config(f, "{\"ioweightVersion\":\"1.0.0\",\"name\":\"t\",\"log\":{\"target\":\"stderr\"},"
		     "\"devices\":[{\"match\":\"/dev/vdb\",\"podWeights\":true}]}");
	assert_int_equal(in_child(child_pipeline, f), C_OK);
	t = fk_read(f, "cg" KPOD "/io.weight");
	assert_string_equal(t, "254:16 300");	/* fake file keeps the last of two writes */
	free(t);
}

/* fds as the hook may hold them: any order, any value an fd can have */
static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 1;
}

static bool has_fd(const int *fds, size_t n, int fd)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/* round 0: as opened; 1: the largest, descending; 2: small, with 0; then any */
static void fill_fds(int *fds, size_t n, int round, unsigned *seed)
{
	for (size_t i = 0; i < n; i++)
		do {
			switch (round) {
			case 0: fds[i] = (int)(3 + i); break;
			case 1: fds[i] = (int)(INT_MAX - i); break;
			case 2: fds[i] = (int)(next_rand(seed) % 64); break;
			default: fds[i] = (int)(next_rand(seed) & INT_MAX); break;
			}
		} while (has_fd(fds, i, fds[i]));
}

static void test_program_is_libseccomps(void **state)
{
	static struct sock_filter got[4096], want[4096];
	unsigned seed = 42;
	int compared = 0;

	(void)state;
	for (size_t n = 0; n <= SANDBOX_MAX_WRITE_DIRS; n++)
		for (int bus = 0; bus < 2; bus++)
			for (int round = 0; round < 6; round++) {
				int fds[SANDBOX_MAX_WRITE_DIRS];
				struct sandbox_spec sp = { .write_dirs = fds, .n_write_dirs = n };
				struct hook_err err = { 0 };
				size_t lg, lw;

				fill_fds(fds, n, round, &seed);
				/* the systemd connection: any fd but a directory's */
				while (bus && (!sp.bus_fd || has_fd(fds, n, sp.bus_fd)))
					sp.bus_fd = (int)(next_rand(&seed) % 1000) + 1;
				if (sandbox_seccomp_program(&sp, got, 4096, &lg, &err) < 0)
					fail_msg("sandbox: %zu dirs, bus %d: %s", n, sp.bus_fd, err.msg);
				if (seccomp_rules_compile(fds, n, sp.bus_fd, want, 4096, &lw, &err) < 0)
					fail_msg("libseccomp: %zu dirs, bus %d: %s", n, sp.bus_fd, err.msg);
				assert_int_equal(lg, lw);
				if (memcmp(got, want, lw * sizeof(*want))) {
					for (size_t i = 0; i < lw; i++)
						if (memcmp(&got[i], &want[i], sizeof(*want)))
							fail_msg("%zu dirs (round %d), bus %d: instruction %zu is {%#x %u %u %#x}, libseccomp's {%#x %u %u %#x}",
								 n, round, sp.bus_fd, i, got[i].code, got[i].jt, got[i].jf, got[i].k,
								 want[i].code, want[i].jt, want[i].jf, want[i].k);
				}
				compared++;
			}
	assert_int_equal(compared, (SANDBOX_MAX_WRITE_DIRS + 1) * 2 * 6);
}

/* a repeated fd is one rule, as in libseccomp; what no template has is refused */
static void test_program_limits(void **state)
{
	static struct sock_filter got[4096], want[4096];
	int fds[SANDBOX_MAX_WRITE_DIRS + 1] = { 9, 5, 9, 7, 5 };
	struct sandbox_spec sp = { .write_dirs = fds, .n_write_dirs = 5 };
	struct hook_err err = { 0 };
	size_t lg, lw;

	(void)state;
	assert_int_equal(sandbox_seccomp_program(&sp, got, 4096, &lg, &err), 0);
	assert_int_equal(seccomp_rules_compile(fds, 5, 0, want, 4096, &lw, &err), 0);
	assert_int_equal(lg, lw);
	assert_memory_equal(got, want, lw * sizeof(*want));
	sp.n_write_dirs = SANDBOX_MAX_WRITE_DIRS + 1;
	for (size_t i = 0; i < sp.n_write_dirs; i++)
		fds[i] = (int)(10 + i);
	assert_int_equal(sandbox_seccomp_program(&sp, got, 4096, &lg, &err), -1);
	assert_non_null(strstr(err.msg, "35 cgroup directories to write in, at most 34"));
	sp.n_write_dirs = 2;
	fds[1] = -1;
	assert_int_equal(sandbox_seccomp_program(&sp, got, 4096, &lg, &err), -1);
	assert_non_null(strstr(err.msg, "seccomp: cgroup directory fd -1"));
	sp.n_write_dirs = 1;
	assert_int_equal(sandbox_seccomp_program(&sp, got, 10, &lg, &err), -1);
	assert_non_null(strstr(err.msg, "room for 10"));
}

int run_sandbox_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program_is_libseccomps),
		cmocka_unit_test(test_program_limits),
		cmocka_unit_test_setup_teardown(test_filter_blocks_unlisted, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_under_filter, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("seccomp_sandbox", tests, NULL, NULL);
}
