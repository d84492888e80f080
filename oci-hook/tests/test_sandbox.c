// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_sandbox.c - the seccomp filter is real: after sandbox_apply() a
 * syscall outside the list fails with EPERM, and the whole pipeline still
 * works inside it.  Each case runs in a child (a filter cannot be removed).
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sandbox.h"

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

int run_sandbox_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_filter_blocks_unlisted, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_under_filter, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("seccomp_sandbox", tests, NULL, NULL);
}
