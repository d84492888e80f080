// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hardening.c - the hook as an attacker and a careless admin would
 * use it, in process against the fake tree: pod detection that annotations
 * cannot fool, JSON nesting hidden in comments, device names that are never
 * looked up, classes held to the limits and to namespaces, and a config
 * directory with one bad file.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "json.h"
#include "plan.h"
#include "sandbox.h"

static void expect_refused(struct fake *f, const char *state, const char *want)
{
	struct hook_result res;
	struct hook_err err = { 0 };
	uint64_t before = fk_snapshot(f);
	int r = fk_run(f, state, &res, &err);

	if (r == 0 || !strstr(err.msg, want))
		print_error("got r=%d \"%s\", want an error with \"%s\"\n", r, err.msg, want);
	assert_int_equal(r, -1);
	assert_non_null(strstr(err.msg, want));
	/* refused means untouched */
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
}

/* the same for fk_state(pid, annotations) */
static void expect_refused_st(struct fake *f, long pid, const char *ann, const char *want)
{
	char *s = fk_state(pid, ann);

	expect_refused(f, s, want);
	free(s);
}

static int run_st(struct fake *f, long pid, const char *ann, struct hook_result *res,
		  struct hook_err *err)
{
	char *s = fk_state(pid, ann);
	int r = fk_run(f, s, res, err);

	free(s);
	return r;
}

/* ---- a shared parent cgroup is never a pod ---- */

static void podman_tree(struct fake *f)
{
	fk_write(f, "cg/machine.slice/cgroup.subtree_control", "");
	fk_write(f, "cg/machine.slice/io.weight", "");
	fk_write(f, "cg/machine.slice/libpod-abc.scope/io.weight", "");
	fk_write(f, "cg/machine.slice/libpod-def.scope/io.weight", "");
	fk_write(f, "proc/500/cgroup", "0::/machine.slice/libpod-abc.scope\n");
}

static void test_podman_claims_sandbox(void **state)
{
	struct fake *f = *state;
	/* the container's own id as the sandbox id, a prefix of a sibling, the
	 * full name of its own cgroup, the full name of a sibling */
	static const char *const claims[] = {
		"\"io.kubernetes.cri.container-type\":\"sandbox\"",
		"\"io.kubernetes.cri.container-type\":\"sandbox\",\"io.kubernetes.cri.sandbox-id\":\"libpod\"",
		"\"io.kubernetes.cri.container-type\":\"sandbox\",\"io.kubernetes.cri.sandbox-id\":\"libpod-abc.scope\"",
		"\"io.kubernetes.cri.container-type\":\"container\",\"io.kubernetes.cri.sandbox-id\":\"libpod-def.scope\"",
		"\"io.kubernetes.cri-o.ContainerType\":\"sandbox\",\"io.kubernetes.cri-o.SandboxID\":\"abc\"",
	};

	fk_config(f, "{" CFG_BASE "}");
	podman_tree(f);
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		char *s = NULL;

		if (asprintf(&s, "{\"ociVersion\":\"1.0.2\",\"id\":\"abc\",\"pid\":500,\"bundle\":\"/b\","
				 "\"annotations\":{%s,\"ioweight.dev/weight\":\"1000\"}}", claims[i]) < 0)
			abort();
		expect_refused(f, s, "cgroup /machine.slice/libpod-abc.scope is not a container of a kubelet pod cgroup");
		free(s);
	}
	{
		char *t = fk_read(f, "cg/machine.slice/io.weight");

		assert_string_equal(t, "");
		free(t);
	}
}

static void test_podman_plain_container_own_cgroup(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	const char *s = "{\"ociVersion\":\"1.0.2\",\"id\":\"abc\",\"pid\":500,\"bundle\":\"/b\","
			"\"annotations\":{\"ioweight.dev/weight\":\"1000\"}}";
	char *t;

	fk_config(f, "{" CFG_BASE "}");
	podman_tree(f);
	assert_int_equal(fk_run(f, s, &res, &err), 0);
	assert_false(res.in_pod);
	t = fk_read(f, "cg/machine.slice/libpod-abc.scope/io.weight");
	assert_string_equal(t, "default 1000");
	free(t);
	t = fk_read(f, "cg/machine.slice/io.weight");
	assert_string_equal(t, "");
	free(t);
	hook_result_free(&res);
}

/* a claimed pod right under a QoS class cgroup would weight every pod */
static void test_claim_under_kubepods_class(void **state)
{
	struct fake *f = *state;

	fk_config(f, "{" CFG_BASE "}");
	fk_write(f, "proc/501/cgroup", "0::/kubepods/burstable/abc\n");
	fk_write(f, "cg/kubepods/burstable/io.weight", "");
	fk_write(f, "cg/kubepods/burstable/abc/io.weight", "");
	expect_refused(f, "{\"ociVersion\":\"1\",\"id\":\"abc\",\"pid\":501,\"bundle\":\"/b\",\"annotations\":{"
		       "\"io.kubernetes.cri.container-type\":\"sandbox\",\"io.kubernetes.cri.sandbox-id\":\"abc\","
		       "\"ioweight.dev/weight\":\"1000\"}}",
		       "refusing to weight its parent");
}

static void test_kubelet_layout_exact(void **state)
{
	static const struct { const char *cg; const char *pod; } yes[] = {
		{ "/kubepods/pod0a1b2c3d-0000-1111-2222-333344445555/c", "/kubepods/pod0a1b2c3d-0000-1111-2222-333344445555" },
		{ "/kubepods/besteffort/pod0123456789abcdef0123456789abcdef/x", "/kubepods/besteffort/pod0123456789abcdef0123456789abcdef" },
		{ "/kubelet/kubepods/burstable/pod0a1b2c3d/c", "/kubelet/kubepods/burstable/pod0a1b2c3d" },
		{ "/kubepods.slice/kubepods-pod0a1b2c3d_0000.slice/cri-containerd-1f.scope", "/kubepods.slice/kubepods-pod0a1b2c3d_0000.slice" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0a1b2c3d.slice/crio-1f.scope",
		  "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0a1b2c3d.slice" },
	};
	static const char *const no[] = {
		"/kubepods/burstable/c",			/* a class cgroup is not a pod */
		"/kubepods/c",
		"/kubepods/guaranteed/pod0a1b2c3d/c",		/* no such class */
		"/kubepods/burstable/podXYZ12345/c",		/* not a uid */
		"/kubepods/burstable/pod0a1b/c",		/* too short */
		"/kubepodsx/burstable/pod0a1b2c3d/c",
		"/machine.slice/libpod-abc.scope",
		"/machine.slice/pod0a1b2c3d/c",			/* pod<uid> not under kubepods */
		"/kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod0a1b2c3d.slice/cri-containerd-1f.scope",
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d.slice/libpod-1f.scope",
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d.slice/cri-containerd-.scope",
		"/x.slice/kubepods.slice/kubepods-pod0a1b2c3d.slice/cri-containerd-1f.scope",
		"/kubepods.slice/kubepods-pod0a1b2c3d.slice",
		"/kubepods.slice/kubepods-burstable.slice/cri-containerd-1f.scope",
		"/pod0a1b2c3d/c",
		"/",
	};
	char pod[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!cgroup_kubelet_pod(yes[i].cg, pod, sizeof(pod)))
			print_error("%s: not recognised\n", yes[i].cg);
		assert_true(cgroup_kubelet_pod(yes[i].cg, pod, sizeof(pod)));
		assert_string_equal(pod, yes[i].pod);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (cgroup_kubelet_pod(no[i], pod, sizeof(pod)))
			print_error("%s: taken for a pod\n", no[i]);
		assert_false(cgroup_kubelet_pod(no[i], pod, sizeof(pod)));
	}
}

/* ---- nesting hidden in comments ---- */

static char *deep_comment_doc(const char *head)
{
	size_t n = 200000, hl = strlen(head);
	char *s = malloc(hl + 4 + 3 * n + 2), *p = s;

	memcpy(p, head, hl);
	p += hl;
	memcpy(p, "/*", 2);
	p += 2;
	/* closers in a comment used to cancel the openers that follow */
	memset(p, ']', n);
	p += n;
	memcpy(p, "*/", 2);
	p += 2;
	memset(p, '[', n);
	p += n;
	memset(p, ']', n);
	p += n;
	*p++ = '}';
	*p = '\0';
	return s;
}

static void test_deep_json_behind_comment(void **state)
{
	struct oci_state st;
	struct ioweight_config *cfg = calloc(1, sizeof(*cfg));
	struct hook_err err = { 0 };
	char *doc = deep_comment_doc("{\"ociVersion\":\"1\",\"id\":\"a\",\"bundle\":\"/b\",\"x\":");

	(void)state;
	assert_int_equal(state_parse(doc, strlen(doc), &st, &err), -1);
	assert_non_null(strstr(err.msg, "nested deeper than 64 levels"));
	free(doc);
	doc = deep_comment_doc("{\"ioweightVersion\":\"1.0.0\",\"name\":\"x\",\"classes\":");
	memset(&err, 0, sizeof(err));
	assert_int_equal(config_parse(doc, strlen(doc), "deep.json", cfg, &err), -1);
	assert_non_null(strstr(err.msg, "deep.json: invalid JSON: nested deeper than 64 levels"));
	free(doc);
	free(cfg);
}

static void test_json_depth_counts_what_nests(void **state)
{
	char buf[1024];
	yajl_val v = NULL;
	struct hook_err err = { 0 };
	size_t n = 0;

	(void)state;
	/* brackets in comments and strings do not nest ... */
	n += (size_t)snprintf(buf, sizeof(buf), "{\"a\":\"[[[[\",/*");
	memset(buf + n, '[', 200);
	n += 200;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "*/ \"b\": [[1]] // [[[[[[[[\n}");
	assert_int_equal(json_parse(buf, n, "doc", &v, &err), 0);
	yajl_tree_free(v);
	/* ... 64 levels are fine, 65 are not */
	memset(buf, '[', 64);
	memset(buf + 64, ']', 64);
	assert_int_equal(json_parse(buf, 128, "doc", &v, &err), 0);
	yajl_tree_free(v);
	memset(buf, '[', 65);
	memset(buf + 65, ']', 65);
	assert_int_equal(json_parse(buf, 130, "doc", &v, &err), -1);
	assert_non_null(strstr(err.msg, "nested deeper than 64 levels"));
}

/* ---- device names are never looked up ---- */

static void test_device_path_never_resolved(void **state)
{
	struct fake *f = *state;
	char *s = NULL, *other = NULL;
	struct hook_result res;
	struct hook_err e1 = { 0 }, e2 = { 0 };

	/* a file outside /dev that the test build would take for disk
	 * 254:16, and one that does not exist: the pod learns nothing about
	 * either, and neither is written */
	fk_write(f, "etc/looks-like-a-disk", "block 254:16");
	fk_config(f, "{" CFG_BASE ",\"devices\":[{\"match\":\"/dev/vdb\",\"podWeights\":true}]}");
	if (asprintf(&s, "{\"ociVersion\":\"1\",\"id\":\"c\",\"pid\":100,\"bundle\":\"/b\",\"annotations\":{"
			 "\"ioweight.dev/device-weights\":\"%s/etc/looks-like-a-disk=100\"}}", f->root) < 0 ||
	    asprintf(&other, "{\"ociVersion\":\"1\",\"id\":\"c\",\"pid\":100,\"bundle\":\"/b\",\"annotations\":{"
			     "\"ioweight.dev/device-weights\":\"%s/etc/absent=100\"}}", f->root) < 0)
		abort();
	expect_refused(f, s, "/etc/looks-like-a-disk` is not a device the config lets pods weight (config ");
	assert_int_equal(fk_run(f, s, &res, &e1), -1);
	hook_result_free(&res);
	assert_int_equal(fk_run(f, other, &res, &e2), -1);
	hook_result_free(&res);
	/* the same message whether the path exists or not: no oracle */
	assert_non_null(strstr(e1.msg, "lists: /dev/vdb (254:16))"));
	assert_string_equal(strstr(e1.msg, "` is not"), strstr(e2.msg, "` is not"));
	assert_null(strstr(e2.msg, "No such file"));
	free(s);
	free(other);
}

static void test_device_not_listed_without_pod_weights(void **state)
{
	struct fake *f = *state;

	/* a rule with a profile only puts the disk under control; pods still
	 * may not name it */
	fk_config(f, "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true}},"
		     "\"devices\":[{\"match\":\"/dev/vdb\",\"profile\":\"p\"}]}");
	expect_refused_st(f, 100, "\"ioweight.dev/device-weights\":\"/dev/vdb=100\"",
		       "`/dev/vdb` is not a device the config lets pods weight");
}

/* ---- classes obey the limits and the namespaces ---- */

static void test_class_obeys_limits(void **state)
{
	struct fake *f = *state;
	struct ioweight_config *cfg = calloc(1, sizeof(*cfg));
	struct hook_err err = { 0 };
	const char *doc = "{\"ioweightVersion\":\"1.0.0\",\"name\":\"x\",\"limits\":{\"maxWeight\":1000},"
			  "\"classes\":{\"gold\":{\"weight\":5000}}}";

	/* the built-in high (500) against maxWeight 400, by every key */
	fk_config(f, "{" CFG_BASE ",\"limits\":{\"minWeight\":10,\"maxWeight\":400}}");
	expect_refused_st(f, 100, "\"ioweight.dev/class\":\"high\"",
		       "annotation ioweight.dev/class: class high (weight 500) is outside 10..400 allowed by config");
	expect_refused_st(f, 100, "\"blockio.resources.beta.kubernetes.io/pod\":\"high\"",
		       "class high (weight 500) is outside 10..400");
	expect_refused_st(f, 200, "\"io.kubernetes.cri.container-name\":\"app\",\"io.kubernetes.cri.blockio-class\":\"high\"",
		       "annotation io.kubernetes.cri.blockio-class: class high (weight 500) is outside");
	/* a class of the file itself outside its limits is a config error */
	assert_int_equal(config_parse(doc, strlen(doc), "c.json", cfg, &err), -1);
	assert_string_equal(err.msg, "c.json: classes.gold: weight 5000 is outside limits 1..1000");
	free(cfg);
}

static void test_class_namespaces(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *t;

	fk_config(f, "{" CFG_BASE ",\"classes\":{\"gold\":{\"weight\":800,\"namespaces\":[\"prod\",\"db\"]},"
		     "\"normal\":{\"weight\":100}}}");
	expect_refused_st(f, 200, "\"io.kubernetes.cri.sandbox-namespace\":\"dev\",\"ioweight.dev/class\":\"gold\"",
		       "annotation ioweight.dev/class: class gold is not allowed in namespace `dev`");
	/* outside a pod a namespace annotation proves nothing */
	expect_refused_st(f, 100, "\"io.kubernetes.cri.sandbox-namespace\":\"prod\",\"ioweight.dev/class\":\"gold\"",
		       "class gold is not allowed in a container without a namespace");
	assert_int_equal(run_st(f, 200, "\"io.kubernetes.pod.namespace\":\"db\",\"ioweight.dev/class\":\"gold\"",
				&res, &err), 0);
	t = fk_read(f, "cg" KPOD "/io.weight");
	assert_string_equal(t, "default 800");
	free(t);
	hook_result_free(&res);
	/* an unrestricted class is for everyone */
	assert_int_equal(run_st(f, 100, "\"ioweight.dev/class\":\"normal\"", &res, &err), 0);
	hook_result_free(&res);
}

/* ---- one config directory, one verdict ---- */

static void test_bad_file_is_never_skipped(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	uint64_t before;

	/* a typo in the strict file used to hand control to the lax one */
	fk_write(f, "conf/10-strict.json", "{" CFG_BASE ",\"limits\":{\"maxWieght\":1000}}");
	fk_write(f, "conf/50-default.json", "{" CFG_BASE "}");
	before = fk_snapshot(f);
	assert_int_equal(run_st(f, 200, "\"ioweight.dev/weight\":\"10000\"", &res, &err), -1);
	assert_non_null(strstr(err.msg, "1 of 2 files invalid, no config in effect (first error: "));
	assert_non_null(strstr(err.msg, "10-strict.json: limits: unknown key `maxWieght`"));
	assert_false(res.config_loaded);
	assert_int_equal(hook_error_verdict(&res), VERDICT_FAIL);
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	/* a later bad file is just as bad */
	fk_write(f, "conf/10-strict.json", "{" CFG_BASE "}");
	fk_write(f, "conf/50-default.json", "{" CFG_BASE ",\"failurePolicy\":\"sometimes\"}");
	before = fk_snapshot(f);
	assert_int_equal(run_st(f, 200, "\"ioweight.dev/weight\":\"10\"", &res, &err), -1);
	assert_non_null(strstr(err.msg, "50-default.json: `failurePolicy` must be one of fail|warn"));
	hook_result_free(&res);
	/* a container that asks for nothing passes, untouched */
	assert_int_equal(run_st(f, 200, "\"io.kubernetes.cri.container-name\":\"app\"", &res, &err), -1);
	assert_int_equal(hook_error_verdict(&res), VERDICT_PASS_UNTOUCHED);
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
}

static void test_too_many_files_same_everywhere(void **state)
{
	struct fake *f = *state;
	struct hook_err err = { 0 };
	struct ioweight_config *cfg = calloc(1, sizeof(*cfg));
	FILE *out = tmpfile();

	for (int i = 0; i <= MAX_CONFIG_FILES; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "conf/%02d.json", i);
		fk_write(f, rel, "{" CFG_BASE "}");
	}
	assert_int_equal(config_load_dir(f->roots.config_dir, cfg, NULL, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "more than 64 config files"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(config_validate_report(f->roots.config_dir, out, &err), -1);
	assert_non_null(strstr(err.msg, "more than 64 config files"));
	fclose(out);
	free(cfg);
}

/* ---- cgroup files only through checked directories ---- */

static void test_cgroup_dir_symlink_refused(void **state)
{
	struct fake *f = *state;
	char p[PATH_MAX], t[PATH_MAX];
	char *got;

	/* the container's cgroup replaced by a link to somewhere else */
	fk_config(f, "{" CFG_BASE "}");
	fk_write(f, "elsewhere/io.weight", "precious");
	snprintf(p, sizeof(p), "%s/cg/test/ctr1/io.weight", f->root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/cg/test/ctr1", f->root);
	assert_int_equal(rmdir(p), 0);
	snprintf(t, sizeof(t), "%s/elsewhere", f->root);
	assert_int_equal(symlink(t, p), 0);
	expect_refused_st(f, 100, "\"ioweight.dev/weight\":\"500\"",
			  "cgroup /test/ctr1: a symlink or another mount on the way from ");
	got = fk_read(f, "elsewhere/io.weight");
	assert_string_equal(got, "precious");
	free(got);
}

static void test_cgroup2_required(void **state)
{
	struct fake *f = *state;

	fk_config(f, "{" CFG_BASE "}");
	plan_testing_require_cgroup2 = true;
	expect_refused_st(f, 100, "\"ioweight.dev/weight\":\"500\"",
			  "cgroup /: not on a cgroup2 filesystem (type ");
	plan_testing_require_cgroup2 = false;
}

/* ---- what the sandbox still allows, and what it refuses ---- */

enum {
	D_OK = 0, D_SETUP = 10, D_APPLY, D_REL_WRITE, D_ABS_WRITE, D_CREATE, D_OTHER_DIR,
	D_SOCKET, D_CONNECT, D_SENDMSG, D_SENDTO, D_EXEC, D_LL_READ_FS, D_LL_READ_ETC,
	D_LL_READ_CG, D_NO_LANDLOCK = 77,
};

static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0)
		syscall(SYS_exit_group, fn(arg));	/* see test_sandbox.c */
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static bool denied(long r, int want_errno)
{
	return r == -1 && errno == want_errno;
}

static int child_denials(void *arg)
{
	struct fake *f = arg;
	struct hook_err err = { 0 };
	struct sandbox_status sst;
	char p[PATH_MAX], q[PATH_MAX];
	int ctr_dir, other_dir, fd;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct msghdr mh = { 0 };
	struct sandbox_spec sp = { .n_write_dirs = 1, .cgroup_root = f->roots.cgroup,
				   .read_paths = { f->roots.config_dir } };

	snprintf(p, sizeof(p), "%s/cg/test/ctr1", f->root);
	snprintf(q, sizeof(q), "%s/cg/test", f->root);
	ctr_dir = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	other_dir = open(q, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ctr_dir < 0 || other_dir < 0)
		return D_SETUP;
	sp.write_dirs = &ctr_dir;
	if (sandbox_apply(&sp, &sst, &err) < 0)
		return D_APPLY;
	/* allowed: a write open relative to the checked directory */
	fd = openat(ctr_dir, "io.weight", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, "default 5", 9) != 9)
		return D_REL_WRITE;
	close(fd);
	/* seccomp: the same file by path, a new file, another directory */
	snprintf(p, sizeof(p), "%s/cg/test/ctr1/io.weight", f->root);
	if (!denied(open(p, O_WRONLY | O_CLOEXEC), EPERM))
		return D_ABS_WRITE;
	if (!denied(openat(ctr_dir, "new", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EPERM))
		return D_CREATE;
	if (!denied(openat(other_dir, "cgroup.subtree_control", O_WRONLY | O_CLOEXEC), EPERM))
		return D_OTHER_DIR;
	/* seccomp: no way to containerd.sock or anywhere else */
	if (!denied(socket(AF_UNIX, SOCK_STREAM, 0), EPERM))
		return D_SOCKET;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/containerd/containerd.sock");
	if (!denied(connect(3, (struct sockaddr *)&sa, sizeof(sa)), EPERM))
		return D_CONNECT;
	if (!denied(sendmsg(3, &mh, 0), EPERM))
		return D_SENDMSG;
	if (!denied(sendto(3, "x", 1, 0, (struct sockaddr *)&sa, sizeof(sa)), EPERM))
		return D_SENDTO;
	{
		char *const argv[] = { "true", NULL };

		if (!denied(execv("/bin/true", argv), EPERM))
			return D_EXEC;
	}
	/* Landlock: read-only opens pass seccomp, but only beneath the
	 * cgroup root and the config */
	if (sst.landlock_abi < 1)
		return D_NO_LANDLOCK;
	snprintf(p, sizeof(p), "%s/etc/x", f->root);
	if (!denied(open(p, O_RDONLY | O_CLOEXEC), EACCES))
		return D_LL_READ_FS;
	if (!denied(open("/etc/passwd", O_RDONLY | O_CLOEXEC), EACCES))
		return D_LL_READ_ETC;
	snprintf(p, sizeof(p), "%s/cg/cgroup.controllers", f->root);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return D_LL_READ_CG;
	close(fd);
	return D_OK;
}

static void test_sandbox_denials(void **state)
{
	struct fake *f = *state;
	int r = in_child(child_denials, f);
	char *got;

	if (r == D_NO_LANDLOCK) {
		print_message("Landlock is not available on this kernel: its denials are not tested\n");
		skip();
	}
	if (r != D_OK)
		print_error("child check %d failed\n", r);
	assert_int_equal(r, D_OK);
	got = fk_read(f, "cg/test/ctr1/io.weight");
	assert_string_equal(got, "default 5");
	free(got);
}

static int child_without_landlock(void *arg)
{
	struct fake *f = arg;
	struct hook_opts o = { .roots = f->roots, .sandbox = true };
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = fk_state(100, "\"ioweight.dev/weight\":\"300\"");
	struct oci_state st;

	sandbox_testing_no_landlock = true;
	if (state_parse(s, strlen(s), &st, &err) < 0 || hook_run(&o, &st, &res, &err) < 0) {
		fprintf(stderr, "child: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* without Landlock the hook still runs, seccomp-only, and says so */
static void test_landlock_missing_degrades(void **state)
{
	struct fake *f = *state;
	char *cfg, *got;

	if (asprintf(&cfg, "{\"ioweightVersion\":\"1.0.0\",\"name\":\"t\",\"log\":{\"target\":\"file\",\"path\":\"%s/hook.log\"}}",
		     f->root) < 0)
		abort();
	fk_config(f, cfg);
	free(cfg);
	assert_int_equal(in_child(child_without_landlock, f), 0);
	got = fk_read(f, "cg/test/ctr1/io.weight");
	assert_string_equal(got, "default 300");
	free(got);
	got = fk_read(f, "hook.log");
	assert_non_null(strstr(got, "Landlock is not available (not built into this kernel): file access is confined by seccomp only"));
	free(got);
}

int run_hardening_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_podman_claims_sandbox, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_podman_plain_container_own_cgroup, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_claim_under_kubepods_class, fake_setup, fake_teardown),
		cmocka_unit_test(test_kubelet_layout_exact),
		cmocka_unit_test(test_deep_json_behind_comment),
		cmocka_unit_test(test_json_depth_counts_what_nests),
		cmocka_unit_test_setup_teardown(test_device_path_never_resolved, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_device_not_listed_without_pod_weights, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_class_obeys_limits, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_class_namespaces, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_bad_file_is_never_skipped, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_too_many_files_same_everywhere, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_dir_symlink_refused, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup2_required, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_sandbox_denials, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_landlock_missing_degrades, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("hardening", tests, NULL, NULL);
}
