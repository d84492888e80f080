// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cli.c - the production binary as the runtime and people run it:
 * exit codes per failure policy, stderr for runc, explain and validate.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Run argv with stdin from `in` (may be NULL); capture stdout+stderr. */
static int run_bin(char *const argv[], const char *in, char **out)
{
	int pin[2], pout[2], st;
	size_t len = 0, cap = 65536;
	pid_t pid;
	ssize_t r;

	assert_int_equal(pipe(pin), 0);
	assert_int_equal(pipe(pout), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(pout[1], 2);
		close(pin[1]);
		close(pout[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	if (in)
		assert_int_equal(write(pin[1], in, strlen(in)), (ssize_t)strlen(in));
	close(pin[1]);
	*out = calloc(1, cap + 1);
	while ((r = read(pout[0], *out + len, cap - len)) > 0)
		len += (size_t)r;
	close(pout[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static const char *bin(void)
{
	return getenv("IOWEIGHT_HOOK_BIN");
}

static void hook_argv(struct fake *f, char **argv, char *bufs[4])
{
	asprintf(&bufs[0], "--config-dir=%s", f->roots.config_dir);
	asprintf(&bufs[1], "--cgroup-root=%s", f->roots.cgroup);
	asprintf(&bufs[2], "--proc-root=%s", f->roots.proc);
	asprintf(&bufs[3], "--dev-root=%s", f->roots.dev);
	argv[0] = (char *)bin();
	argv[1] = "prestart";
	for (int i = 0; i < 4; i++)
		argv[2 + i] = bufs[i];
	argv[6] = NULL;
}

static void policy_case(struct fake *f, const char *policy, int want_rc)
{
	char *argv[8], *bufs[4], *out, *cfg;
	char *state = fk_state(200, "\"ioweight.dev/weight\":\"0\",\"io.kubernetes.cri.sandbox-name\":\"web-1\","
				    "\"io.kubernetes.cri.sandbox-namespace\":\"shop\"");
	uint64_t before;
	int rc;

	asprintf(&cfg, "{\"ioweightVersion\":\"1.0.0\",\"name\":\"t\",\"failurePolicy\":\"%s\",\"log\":{\"target\":\"stderr\"}}", policy);
	fk_config(f, cfg);
	before = fk_snapshot(f);
	hook_argv(f, argv, bufs);
	rc = run_bin(argv, state, &out);
	assert_int_equal(rc, want_rc);
	assert_non_null(strstr(out, "annotation ioweight.dev/weight: `0` is not an integer in 1..10000"));
	/* even a bad annotation is logged against its pod and cgroup */
	assert_non_null(strstr(out, "container=ctr1 pod=shop/web-1 cgroup=" KPOD "/ctr2: annotation"));
	if (want_rc)
		assert_non_null(strstr(out, "\nioweight-hook: annotation"));	/* the line runc shows */
	else
		assert_non_null(strstr(out, "(failurePolicy warn: container starts)"));
	assert_true(fk_snapshot(f) == before);
	for (int i = 0; i < 4; i++)
		free(bufs[i]);
	free(out);
	free(cfg);
	free(state);
}

static void test_policy_fail_and_warn(void **state)
{
	if (!bin())
		skip();
	policy_case(*state, "fail", 1);
	policy_case(*state, "warn", 0);
}

/* The production binary has no way around the cgroup2 check: on the fake
 * tree (tmpfs or ext4) it refuses to write, and says why. */
static void test_prestart_binary_needs_cgroup2(void **state)
{
	struct fake *f = *state;
	char *argv[8], *bufs[4], *out, *st = fk_state(200, "\"ioweight.dev/weight\":\"500\"");
	uint64_t before;

	if (!bin())
		skip();
	fk_config(f, "{" CFG_BASE "}");
	before = fk_snapshot(f);
	hook_argv(f, argv, bufs);
	assert_int_equal(run_bin(argv, st, &out), 1);
	assert_non_null(strstr(out, "ioweight-hook: cgroup /: not on a cgroup2 filesystem (type "));
	assert_non_null(strstr(out, "): refusing to write"));
	assert_true(fk_snapshot(f) == before);
	for (int i = 0; i < 4; i++)
		free(bufs[i]);
	free(out);
	free(st);
}

static void test_explain_and_validate(void **state)
{
	struct fake *f = *state;
	char *out, *cgr, *cfd;
	uint64_t before;

	if (!bin())
		skip();
	fk_config(f, "{" CFG_BASE "}");
	asprintf(&cgr, "--cgroup-root=%s", f->roots.cgroup);
	asprintf(&cfd, "--config-dir=%s", f->roots.config_dir);
	before = fk_snapshot(f);
	{
		char *argv[] = { (char *)bin(), "explain", cgr, cfd, "--cgroup", "/test/ctr1",
				 "--annotation", "ioweight.dev/class=high", NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 0);
		assert_non_null(strstr(out, "write     `default 500` > "));
		assert_non_null(strstr(out, "/cg/test/ctr1/io.weight  # container weight from ioweight.dev/class=high"));
		free(out);
	}
	{
		char *argv[] = { (char *)bin(), "explain", cgr, cfd, "--cgroup", "/test/ctr1",
				 "--annotation", "ioweight.dev/class=gold", NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 1);
		assert_non_null(strstr(out, "error: annotation ioweight.dev/class: unknown class `gold`"));
		assert_non_null(strstr(out, "policy: fail: the container would not start"));
		free(out);
	}
	assert_true(fk_snapshot(f) == before);
	fk_write(f, "conf/20-bad.json", "{\"ioweightVersion\":\"1.0.0\",\"name\":\"x\",\"classes\":{\"a\":{\"weight\":-1}}}");
	{
		char *argv[] = { (char *)bin(), "validate", f->roots.config_dir, NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 1);
		assert_non_null(strstr(out, "10-test.json (name test)\n"));
		assert_non_null(strstr(out, "INVALID  "));
		assert_non_null(strstr(out, "20-bad.json: classes.a: `weight` must be an integer in 1..10000, got -1"));
		/* one bad file: nothing is in effect, whichever file it is */
		assert_non_null(strstr(out, "NO CONFIG IN EFFECT: config dir "));
		assert_null(strstr(out, "IN EFFECT: /"));
		free(out);
	}
	{
		char *argv[] = { (char *)bin(), "frobnicate", NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 2);
		free(out);
	}
	{
		char *argv[] = { (char *)bin(), "--help", NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 0);
		assert_non_null(strstr(out, "install --runtime containerd|crio|podman|runc-wrapper"));
		free(out);
	}
	free(cgr);
	free(cfd);
}

static void test_env_roots_ignored_in_production(void **state)
{
	struct fake *f = *state;
	char *out, *st = fk_state(100, "\"ioweight.dev/weight\":\"500\"");
	char *cgr, *cfd, *prr;

	if (!bin())
		skip();
	fk_config(f, "{" CFG_BASE "}");
	fk_mkdir(f, "emptyproc");
	/* every root is explicit and inside the fake tree, so nothing real is
	 * touched; a root taken from the environment would find pid 100 in
	 * <fake>/proc: the binary must not look there */
	asprintf(&cgr, "--cgroup-root=%s", f->roots.cgroup);
	asprintf(&cfd, "--config-dir=%s", f->roots.config_dir);
	asprintf(&prr, "--proc-root=%s/emptyproc", f->root);
	{
		char *argv[] = { (char *)bin(), "prestart", cgr, cfd, prr, NULL };

		setenv("IOWEIGHT_TEST_ROOT", f->root, 1);
		assert_int_equal(run_bin(argv, st, &out), 1);
		unsetenv("IOWEIGHT_TEST_ROOT");
	}
	assert_non_null(strstr(out, "/emptyproc/100/cgroup: No such file or directory"));
	{
		char *t = fk_read(f, "cg/test/ctr1/io.weight");

		assert_string_equal(t, "");
		free(t);
	}
	free(out);
	free(st);
	free(cgr);
	free(cfd);
	free(prr);
}

/* calibrate with a stand-in fio that answers per job like a 1000-IOPS disk */
static void test_calibrate_fake_fio(void **state)
{
	struct fake *f = *state;
	char fio[PATH_MAX], *out;
	struct stat st;

	if (!bin())
		skip();
	if (stat("/dev/loop0", &st) < 0 || !S_ISBLK(st.st_mode))
		skip();	/* needs any real block device to resolve */
	snprintf(fio, sizeof(fio), "%s/fio", f->root);
	fk_write(f, "fio",
		 "#!/bin/sh\n"
		 "bw=4096000; iops=1000\n"
		 "for a; do case $a in --bs=1M) bw=40000000; iops=38;; esac; done\n"
		 "for a; do case $a in --rw=randread) iops=900;; esac; done\n"
		 "echo 'fio-3.33 notice'\n"
		 "echo \"{\\\"jobs\\\":[{\\\"read\\\":{\\\"bw_bytes\\\":$bw,\\\"iops\\\":$iops.5},\\\"write\\\":{\\\"bw_bytes\\\":0,\\\"iops\\\":0}}]}\"\n");
	chmod(fio, 0755);
	{
		char *argv[] = { (char *)bin(), "calibrate", "/dev/loop0", "--seconds", "1", "--fio", fio, NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 0);
	}
	assert_non_null(strstr(out, "7:0 ctrl=user model=linear rbps=40000000 rseqiops=1000 rrandiops=900 wbps=40000000 wseqiops=1000 wrandiops=900"));
	assert_non_null(strstr(out, "write parameters copied from reads"));
	free(out);
	{
		char *argv[] = { (char *)bin(), "calibrate", "/dev/loop0", "--write", "--seconds", "1", "--fio", fio, NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 1);
		assert_non_null(strstr(out, "calibrate seqwrite-1m: fio report: write job did no IO"));
		free(out);
	}
}

/* annotation values carry newlines: a log line must stay one line */
static void test_log_injection(void **state)
{
	struct fake *f = *state;
	char *argv[8], *bufs[4], *out, *logp, *cfg, *logged;
	char *st = fk_state(200, "\"ioweight.dev/weight\":\"5\\nioweight-hook: container=evil pod=x cgroup=/: wrote `default 10000`\","
				  "\"ioweight.dev/x\\r\\nioweight-hook: container=evil2\":\"1\"");

	if (!bin())
		skip();
	fk_config(f, "{\"ioweightVersion\":\"1.0.0\",\"name\":\"t\",\"log\":{\"target\":\"stderr\"}}");
	hook_argv(f, argv, bufs);
	assert_int_equal(run_bin(argv, st, &out), 1);
	assert_null(strstr(out, "\nioweight-hook: container=evil"));
	assert_null(strstr(out, "\r"));
	assert_non_null(strstr(out, "`5\\x0aioweight-hook: container=evil pod=x"));
	free(out);
	/* the same in a log file */
	if (asprintf(&logp, "%s/hook.log", f->root) < 0 ||
	    asprintf(&cfg, "{\"ioweightVersion\":\"1.0.0\",\"name\":\"t\",\"log\":{\"target\":\"file\",\"path\":\"%s\"}}", logp) < 0)
		abort();
	fk_config(f, cfg);
	assert_int_equal(run_bin(argv, st, &out), 1);
	logged = fk_read(f, "hook.log");
	assert_non_null(logged);
	assert_null(strstr(logged, "\nioweight-hook: container=evil"));
	assert_null(strstr(logged, "\ncontainer=evil"));
	/* one error, one line */
	assert_non_null(strchr(logged, '\n'));
	assert_ptr_equal(strchr(logged, '\n'), logged + strlen(logged) - 1);
	free(logged);
	free(out);
	free(logp);
	free(cfg);
	for (int i = 0; i < 4; i++)
		free(bufs[i]);
	free(st);
}

/* a broken config fails the containers that ask for weights, and only them */
static void test_bad_config_is_local(void **state)
{
	struct fake *f = *state;
	char *argv[8], *bufs[4], *out;
	char *asks = fk_state(200, "\"ioweight.dev/weight\":\"10000\"");
	char *quiet = fk_state(200, "\"io.kubernetes.cri.container-name\":\"app\"");
	uint64_t before;

	if (!bin())
		skip();
	fk_write(f, "conf/10-strict.json", "{" CFG_BASE ",\"limits\":{\"maxWieght\":1000}}");
	fk_write(f, "conf/50-default.json", "{" CFG_BASE "}");
	before = fk_snapshot(f);
	hook_argv(f, argv, bufs);
	assert_int_equal(run_bin(argv, asks, &out), 1);
	assert_non_null(strstr(out, "ioweight-hook: config dir "));
	assert_non_null(strstr(out, "10-strict.json: limits: unknown key `maxWieght`"));
	free(out);
	assert_int_equal(run_bin(argv, quiet, &out), 0);
	/* logged once: one line, saying why it still starts */
	assert_non_null(strstr(out, "(the container asks for no IO weight: it starts untouched)\n"));
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	free(out);
	assert_true(fk_snapshot(f) == before);
	/* validate says the same as the hook */
	{
		char *vargv[] = { (char *)bin(), "validate", f->roots.config_dir, NULL };

		assert_int_equal(run_bin(vargv, NULL, &out), 1);
		assert_non_null(strstr(out, "NO CONFIG IN EFFECT: "));
		assert_non_null(strstr(out, "OK       "));
		assert_non_null(strstr(out, "50-default.json (name test) - valid but not used"));
		free(out);
	}
	for (int i = 0; i < 4; i++)
		free(bufs[i]);
	free(asks);
	free(quiet);
}

/* explain on a state whose depth hides behind a comment: an error, no crash */
static void test_explain_deep_comment(void **state)
{
	struct fake *f = *state;
	char *out, *cfd, *path;
	size_t n = 200000;
	FILE *fp;

	if (!bin())
		skip();
	if (asprintf(&path, "%s/deep.json", f->root) < 0 ||
	    asprintf(&cfd, "--config-dir=%s", f->roots.config_dir) < 0)
		abort();
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"ociVersion\":\"1\",\"id\":\"a\",\"bundle\":\"/b\",\"x\":/*", fp);
	for (size_t i = 0; i < n; i++)
		fputc(']', fp);
	fputs("*/", fp);
	for (size_t i = 0; i < n; i++)
		fputc('[', fp);
	for (size_t i = 0; i < n; i++)
		fputc(']', fp);
	fputc('}', fp);
	fclose(fp);
	{
		char *argv[] = { (char *)bin(), "explain", cfd, "--state", path, NULL };

		assert_int_equal(run_bin(argv, NULL, &out), 1);
		assert_non_null(strstr(out, "OCI state: invalid JSON: nested deeper than 64 levels"));
		free(out);
	}
	{
		char *argv[8], *bufs[4];
		_cleanup_free_ char *doc = NULL;
		size_t len;
		struct hook_err e;

		hook_argv(f, argv, bufs);
		assert_int_equal(read_file_bounded(path, MAX_STATE_BYTES, &doc, &len, &e), 0);
		assert_int_equal(run_bin(argv, doc, &out), 1);
		assert_non_null(strstr(out, "nested deeper than 64 levels"));
		free(out);
		for (int i = 0; i < 4; i++)
			free(bufs[i]);
	}
	free(path);
	free(cfd);
}

int run_cli_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_policy_fail_and_warn, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_prestart_binary_needs_cgroup2, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_explain_and_validate, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_env_roots_ignored_in_production, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_calibrate_fake_fio, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_log_injection, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_bad_config_is_local, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_explain_deep_comment, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
