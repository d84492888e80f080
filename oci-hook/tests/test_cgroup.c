// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cgroup.c - the pipeline against a fake tree: placement (standalone,
 * kubelet cgroupfs and systemd pods, CRI annotations), subtree_control,
 * devices from the config's list, root profile lines and idempotence.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* pods may weight the fake disks by these names */
#define CFG_PODDEV ",\"devices\":[{\"match\":\"/dev/vd*\",\"podWeights\":true},{\"match\":\"/dev/sd*\",\"podWeights\":true}]"
#define CFG_PROFILES "{" CFG_BASE ",\"profiles\":{" \
	"\"ssd\":{\"enable\":true,\"costModel\":{\"ctrl\":\"user\",\"model\":\"linear\",\"rbps\":40000000,\"rseqiops\":1000,\"rrandiops\":1000,\"wbps\":40000000,\"wseqiops\":1000,\"wrandiops\":1000}," \
	"\"qos\":{\"ctrl\":\"user\",\"rpct\":95,\"rlat\":5000,\"wpct\":95,\"wlat\":10000,\"min\":50,\"max\":150}}," \
	"\"off\":{\"enable\":false}}," \
	"\"devices\":[{\"match\":\"/dev/vd*\",\"profile\":\"ssd\"},{\"match\":\"/dev/sd?\",\"profile\":\"off\"},{\"match\":\"/dev/vdb\",\"profile\":\"off\"}]}"

static void expect_file(struct fake *f, const char *rel, const char *want)
{
	char *got = fk_read(f, rel);

	if (!got || strcmp(got, want))
		print_error("%s: got \"%s\", want \"%s\"\n", rel, got ? got : "(absent)", want);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void run_ok(struct fake *f, const char *state, struct hook_result *res)
{
	struct hook_err err = { 0 };

	if (fk_run(f, state, res, &err) < 0)
		print_error("hook failed: %s\n", err.msg);
	assert_int_equal(err.msg[0], 0);
}

static void test_standalone_weight(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "\"ioweight.dev/weight\":\"500\"");

	fk_config(f, "{" CFG_BASE "}");
	run_ok(f, s, &res);
	assert_false(res.in_pod);
	expect_file(f, "cg/cgroup.subtree_control", "+io");
	expect_file(f, "cg/test/cgroup.subtree_control", "+io");
	expect_file(f, "cg/test/ctr1/io.weight", "default 500");
	hook_result_free(&res);
	free(s);
}

static void test_standalone_class(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "\"ioweight.dev/class\":\"gold\"");

	fk_config(f, "{" CFG_BASE ",\"classes\":{\"gold\":{\"weight\":800}}}");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 800");
	assert_string_equal(res.plan.e[res.plan.n - 1].why, "container weight from ioweight.dev/class=gold");
	hook_result_free(&res);
	free(s);
}

static void test_no_annotations_no_writes(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "\"other.io/x\":\"y\"");
	uint64_t before;

	fk_config(f, "{" CFG_BASE "}");
	before = fk_snapshot(f);
	run_ok(f, s, &res);
	assert_int_equal(res.plan.n, 0);
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	free(s);
}

static void test_device_weights_forms(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	/* names the admin listed: a by-id link to a disk, a partition link, and
	 * a MAJ:MIN; all whole disks */
	char *s = fk_state(100, "\"ioweight.dev/device-weights\":\"/dev/disk/by-id/virtio-data=300, /dev/disk/by-partuuid/p1=200\"");

	fk_config(f, "{" CFG_BASE ",\"devices\":[{\"match\":\"/dev/disk/by-*/*\",\"podWeights\":true}]}");
	run_ok(f, s, &res);
	assert_int_equal(res.plan.n, 4);
	assert_string_equal(res.plan.e[2].line, "254:16 300");
	assert_string_equal(res.plan.e[3].line, "8:0 200");
	hook_result_free(&res);
	free(s);
	fk_write(f, "cg/test/ctr1/io.weight", "");
	s = fk_state(100, "\"ioweight.dev/device-weights\":\"254:16=300\"");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "254:16 300");
	hook_result_free(&res);
	free(s);
}

static void test_device_mounted_path(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct stat st;
	char rel[64], dir[64], *s;

	/* register the real filesystem holding the fake tree as a disk */
	assert_int_equal(stat(f->root, &st), 0);
	if (major(st.st_dev) == 0) {
		/* tmpfs/overlay: covered by the dev_no_blockdev_fs malformed case */
		skip();
	}
	snprintf(dir, sizeof(dir), "sys/devices/x/block/disk%u", minor(st.st_dev));
	snprintf(rel, sizeof(rel), "%s/dev", dir);
	{
		char v[32];

		snprintf(v, sizeof(v), "%u:%u\n", major(st.st_dev), minor(st.st_dev));
		fk_write(f, rel, v);
	}
	snprintf(rel, sizeof(rel), "sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	{
		char target[128];

		snprintf(target, sizeof(target), "../../devices/x/block/disk%u", minor(st.st_dev));
		fk_symlink(f, target, rel);
	}
	if (asprintf(&s, "{\"ociVersion\":\"1\",\"id\":\"c\",\"pid\":100,\"bundle\":\"/b\",\"annotations\":{\"ioweight.dev/device-weights\":\"%s/conf=700\"}}", f->root) < 0)
		abort();
	/* a path on a mounted filesystem, named by the admin's rule */
	{
		char *cfg;

		if (asprintf(&cfg, "{" CFG_BASE ",\"devices\":[{\"match\":\"%s/conf\",\"podWeights\":true}]}", f->root) < 0)
			abort();
		fk_config(f, cfg);
		free(cfg);
	}
	run_ok(f, s, &res);
	{
		char want[64];

		snprintf(want, sizeof(want), "%u:%u 700", major(st.st_dev), minor(st.st_dev));
		assert_string_equal(res.plan.e[res.plan.n - 1].line, want);
	}
	hook_result_free(&res);
	free(s);
}

static void test_kubelet_pod(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(200, "\"io.kubernetes.cri.container-name\":\"app\",\"ioweight.dev/weight\":\"500\","
				"\"ioweight.dev/container.app\":\"300\",\"ioweight.dev/container.sidecar\":\"low\","
				"\"ioweight.dev/device-weights\":\"/dev/vdb=700\"");

	fk_config(f, "{" CFG_BASE CFG_PODDEV "}");
	run_ok(f, s, &res);
	assert_true(res.in_pod);
	assert_string_equal(res.pod_cg, KPOD);
	expect_file(f, "cg/cgroup.subtree_control", "+io");
	expect_file(f, "cg/kubepods/cgroup.subtree_control", "+io");
	expect_file(f, "cg/kubepods/burstable/cgroup.subtree_control", "+io");
	expect_file(f, "cg" KPOD "/cgroup.subtree_control", "+io");
	/* pod: default then the device line (fake file keeps the last write) */
	assert_string_equal(res.plan.e[4].line, "default 500");
	assert_string_equal(res.plan.e[5].line, "254:16 700");
	assert_int_equal(res.plan.e[5].status, PS_WRITTEN);
	expect_file(f, "cg" KPOD "/ctr2/io.weight", "default 300");
	hook_result_free(&res);
	free(s);
}

static void test_systemd_pod(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(300, "\"io.kubernetes.cri.container-name\":\"db\",\"ioweight.dev/class\":\"high\"");

	fk_config(f, "{" CFG_BASE "}");
	run_ok(f, s, &res);
	assert_true(res.in_pod);
	assert_string_equal(res.pod_cg, SPOD);
	expect_file(f, "cg" SPOD "/io.weight", "default 500");
	/* no container key: the container keeps its default share */
	assert_int_equal(res.req.ctr.set, 0);
	hook_result_free(&res);
	free(s);
}

/* CRI annotations and a sibling named like the sandbox do not make a pod:
 * only the kubelet's layout does */
static void test_cri_annotations_pod(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = fk_state(400, "\"io.kubernetes.cri.container-type\":\"container\",\"io.kubernetes.cri.sandbox-id\":\"sb1\","
				"\"io.kubernetes.cri.container-name\":\"web\",\"ioweight.dev/weight\":\"250\"");
	uint64_t before;

	fk_config(f, "{" CFG_BASE "}");
	fk_write(f, "proc/400/cgroup", "0::/mypod/ctr4\n");
	fk_write(f, "cg/mypod/cgroup.subtree_control", "");
	fk_write(f, "cg/mypod/io.weight", "");
	fk_write(f, "cg/mypod/ctr4/io.weight", "");
	fk_mkdir(f, "cg/mypod/sb1");
	before = fk_snapshot(f);
	assert_int_equal(fk_run(f, s, &res, &err), -1);
	assert_non_null(strstr(err.msg, "cgroup /mypod/ctr4 is not a container of a kubelet pod cgroup"));
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	free(s);
}

static void test_sandbox_container(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = "{\"ociVersion\":\"1\",\"id\":\"sb1\",\"pid\":400,\"bundle\":\"/b\",\"annotations\":{"
		  "\"io.kubernetes.cri.container-type\":\"sandbox\",\"io.kubernetes.cri.sandbox-id\":\"sb1\","
		  "\"ioweight.dev/weight\":\"250\",\"blockio.resources.beta.kubernetes.io/pod\":\"low\"}}";

	fk_config(f, "{" CFG_BASE "}");
	fk_write(f, "proc/400/cgroup", "0::" KPOD "/sb1\n");
	fk_write(f, "cg" KPOD "/sb1/io.weight", "");
	run_ok(f, s, &res);
	assert_true(res.in_pod);
	expect_file(f, "cg" KPOD "/io.weight", "default 250");
	expect_file(f, "cg" KPOD "/sb1/io.weight", "");
	assert_int_equal(res.req.n_notes, 1);
	assert_non_null(strstr(res.req.notes[0], "blockio.resources.beta.kubernetes.io/pod ignored: ioweight.dev/weight=250 takes precedence"));
	hook_result_free(&res);
}

/* The order: io.kubernetes.cri.blockio-class, then
 * blockio.../container.<name>, then blockio.../pod. */
static void test_blockio_precedence(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s;

	fk_config(f, "{" CFG_BASE ",\"classes\":{\"a\":{\"weight\":11},\"b\":{\"weight\":22},\"c\":{\"weight\":33}}}");
	s = fk_state(100, "\"io.kubernetes.cri.container-name\":\"app\",\"blockio.resources.beta.kubernetes.io/pod\":\"c\","
			  "\"blockio.resources.beta.kubernetes.io/container.app\":\"b\",\"io.kubernetes.cri.blockio-class\":\"a\"");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 11");
	hook_result_free(&res);
	free(s);
	fk_write(f, "cg/test/ctr1/io.weight", "");
	s = fk_state(100, "\"io.kubernetes.cri.container-name\":\"app\",\"blockio.resources.beta.kubernetes.io/pod\":\"c\","
			  "\"blockio.resources.beta.kubernetes.io/container.app\":\"b\",\"blockio.resources.beta.kubernetes.io/container.other\":\"a\"");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 22");
	hook_result_free(&res);
	free(s);
	fk_write(f, "cg/test/ctr1/io.weight", "");
	s = fk_state(100, "\"blockio.resources.beta.kubernetes.io/pod\":\"c\"");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 33");
	hook_result_free(&res);
	free(s);
	/* ours beats blockio */
	fk_write(f, "cg/test/ctr1/io.weight", "");
	s = fk_state(100, "\"blockio.resources.beta.kubernetes.io/pod\":\"c\",\"ioweight.dev/weight\":\"44\"");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 44");
	hook_result_free(&res);
	free(s);
}

static void test_honour_switch(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "\"ioweight.dev/weight\":\"500\",\"ioweight.dev/class\":\"low\"");

	fk_config(f, "{" CFG_BASE ",\"annotations\":{\"weight\":false}}");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 25");
	assert_non_null(strstr(res.req.notes[0], "ioweight.dev/weight ignored: annotations.weight is false"));
	hook_result_free(&res);
	free(s);
}

static void test_idempotent_cgroup(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "\"ioweight.dev/weight\":\"500\",\"ioweight.dev/device-weights\":\"/dev/vdb=50\"");
	uint64_t before;

	fk_config(f, "{" CFG_BASE CFG_PODDEV "}");
	/* what the kernel would show after a first run */
	fk_write(f, "cg/cgroup.subtree_control", "cpu io memory\n");
	fk_write(f, "cg/test/cgroup.subtree_control", "io\n");
	fk_write(f, "cg/test/ctr1/io.weight", "default 500\n8:0 70\n254:16 50\n");
	before = fk_snapshot(f);
	run_ok(f, s, &res);
	for (size_t i = 0; i < res.plan.n; i++)
		assert_int_equal(res.plan.e[i].status, PS_UNCHANGED);
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	free(s);
}

static void test_root_profiles(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "");
	uint64_t before;

	fk_config(f, CFG_PROFILES);
	run_ok(f, s, &res);
	/* vdb: first rule wins (ssd); sda: off */
	assert_int_equal(res.plan.n, 3);
	assert_string_equal(res.plan.e[0].line, "254:16 ctrl=user model=linear rbps=40000000 rseqiops=1000 rrandiops=1000 wbps=40000000 wseqiops=1000 wrandiops=1000");
	assert_string_equal(res.plan.e[1].line, "254:16 enable=1 ctrl=user rpct=95 rlat=5000 wpct=95 wlat=10000 min=50 max=150");
	assert_string_equal(res.plan.e[2].line, "8:0 enable=0");
	assert_int_equal(res.plan.e[0].status, PS_WRITTEN);
	hook_result_free(&res);

	/* the kernel's own rendering (2 decimals, other devices) counts as equal */
	fk_write(f, "cg/io.weight.cost_model", "8:0 ctrl=auto model=linear rbps=1 rseqiops=1 rrandiops=1 wbps=1 wseqiops=1 wrandiops=1\n"
		 "254:16 ctrl=user model=linear rbps=40000000 rseqiops=1000 rrandiops=1000 wbps=40000000 wseqiops=1000 wrandiops=1000\n");
	fk_write(f, "cg/io.weight.qos", "254:16 enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=95.00 wlat=10000 min=50.00 max=150.00\n"
		 "8:0 enable=0 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00 max=10000.00\n");
	before = fk_snapshot(f);
	run_ok(f, s, &res);
	for (size_t i = 0; i < res.plan.n; i++)
		assert_int_equal(res.plan.e[i].status, PS_UNCHANGED);
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);

	/* one value differs: exactly that line is rewritten */
	fk_write(f, "cg/io.weight.qos", "254:16 enable=1 ctrl=user rpct=90.00 rlat=5000 wpct=95.00 wlat=10000 min=50.00 max=150.00\n"
		 "8:0 enable=0 ctrl=auto\n");
	run_ok(f, s, &res);
	assert_int_equal(res.plan.e[0].status, PS_UNCHANGED);
	assert_int_equal(res.plan.e[1].status, PS_WRITTEN);
	/* (e[2] is rewritten too, but only because a plain file loses the other
	 * lines on O_TRUNC where the kernel's file would keep them) */
	hook_result_free(&res);
	free(s);
}

static void test_kernel_file_names(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "");

	fk_config(f, "{" CFG_BASE ",\"kernelFiles\":{\"costModel\":\"io.cost.model\",\"qos\":\"io.cost.qos\"},"
		     "\"profiles\":{\"p\":{\"enable\":true,\"costModel\":{\"ctrl\":\"auto\"}}},\"devices\":[{\"match\":\"/dev/vdb\",\"profile\":\"p\"}]}");
	fk_write(f, "cg/io.cost.model", "");
	fk_write(f, "cg/io.cost.qos", "");
	run_ok(f, s, &res);
	expect_file(f, "cg/io.cost.model", "254:16 ctrl=auto");
	expect_file(f, "cg/io.cost.qos", "254:16 enable=1");
	hook_result_free(&res);
	free(s);
}

static void test_explain_touches_nothing(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err;
	char *s = fk_state(200, "\"ioweight.dev/weight\":\"500\"");
	uint64_t before;

	fk_config(f, CFG_PROFILES);
	before = fk_snapshot(f);
	assert_int_equal(fk_explain(f, s, &res, &err), 0);
	assert_true(res.plan.n > 4);
	for (size_t i = 0; i < res.plan.n; i++)
		assert_int_equal(res.plan.e[i].status, PS_WOULD_WRITE);
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	free(s);
}

static void test_spec_fallback(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s;

	/* createRuntime without pid: linux.cgroupsPath (cgroupfs form; the
	 * systemd form is test_systemd.c's), and the annotations only in
	 * config.json */
	fk_config(f, "{" CFG_BASE "}");
	fk_write(f, "bundle/config.json", "{\"ociVersion\":\"1.0.2\",\"annotations\":{\"ioweight.dev/weight\":\"77\"},"
		 "\"linux\":{\"cgroupsPath\":\"" KPOD "/ctr2\"}}");
	if (asprintf(&s, "{\"ociVersion\":\"1.0.2\",\"id\":\"ctr3\",\"status\":\"creating\",\"bundle\":\"%s/bundle\",\"root\":\"/run/crun\"}", f->root) < 0)
		abort();
	run_ok(f, s, &res);
	assert_string_equal(res.ctr_cg, KPOD "/ctr2");
	assert_true(res.in_pod);
	expect_file(f, "cg" KPOD "/io.weight", "default 77");
	hook_result_free(&res);
	free(s);
}

static void test_config_dir_order(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	char *s = fk_state(100, "\"ioweight.dev/class\":\"x\"");

	/* 10 is in effect, 20 is checked but unused (lexical order) */
	fk_write(f, "conf/10-test.json", "/* comments are allowed */ {" CFG_BASE ",\"classes\":{\"x\":{\"weight\":123}}}");
	fk_write(f, "conf/20-other.json", "{" CFG_BASE ",\"classes\":{\"x\":{\"weight\":456}}}");
	fk_write(f, "conf/README", "not a config");
	run_ok(f, s, &res);
	expect_file(f, "cg/test/ctr1/io.weight", "default 123");
	assert_non_null(strstr(res.cfg->source, "10-test.json"));
	hook_result_free(&res);
	free(s);
}

static void test_default_config(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = fk_state(100, "\"ioweight.dev/class\":\"high\"");

	/* empty config dir: built-in default, classes high/normal/low */
	assert_int_equal(fk_explain(f, s, &res, &err), 0);
	assert_string_equal(res.cfg->source, "<built-in default>");
	assert_string_equal(res.plan.e[res.plan.n - 1].line, "default 500");
	hook_result_free(&res);
	free(s);
}

/* A file of the cgroup that is a symlink (to /proc/self/oom_score_adj,
 * whose write() the kernel would refuse with EINVAL) is never opened:
 * files are opened O_NOFOLLOW relative to the checked directory. */
static void test_symlinked_file_refused(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = fk_state(100, "\"ioweight.dev/weight\":\"500\"");

	fk_config(f, "{" CFG_BASE "}");
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/cg/test/ctr1/io.weight", f->root);
		unlink(p);
		assert_int_equal(symlink("/proc/self/oom_score_adj", p), 0);
	}
	assert_int_equal(fk_run(f, s, &res, &err), -1);
	assert_non_null(strstr(err.msg, "cannot open "));
	assert_non_null(strstr(err.msg, "/cg/test/ctr1/io.weight: Too many levels of symbolic links"));
	hook_result_free(&res);
	free(s);
}

int run_cgroup_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_standalone_weight, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_standalone_class, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_annotations_no_writes, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_device_weights_forms, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_device_mounted_path, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_kubelet_pod, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_systemd_pod, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cri_annotations_pod, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_sandbox_container, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_blockio_precedence, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_honour_switch, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_idempotent_cgroup, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_root_profiles, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_file_names, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_explain_touches_nothing, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_spec_fallback, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_config_dir_order, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_default_config, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_file_refused, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("cgroup_pipeline", tests, NULL, NULL);
}
