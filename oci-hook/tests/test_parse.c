// SPDX-License-Identifier: GPL-2.0-or-later
/* test_parse.c - parsers and small helpers in isolation. */
#include "testutil.h"

#include <string.h>

#include "annotations.h"
#include "cgroup.h"
#include "json.h"
#include "log.h"

static void test_state_extra_fields(void **state)
{
	const char *s = "{\"ociVersion\":\"1.0.2\",\"id\":\"abc\",\"status\":\"created\",\"pid\":7,"
			"\"bundle\":\"/run/b\",\"root\":\"/run/crun\",\"future\":{\"x\":[1,2]},"
			"\"annotations\":{\"k\":\"v\"}}";
	struct oci_state st;
	struct hook_err err = { 0 };

	(void)state;
	assert_int_equal(state_parse(s, strlen(s), &st, &err), 0);
	assert_string_equal(st.id, "abc");
	assert_int_equal(st.pid, 7);
	assert_string_equal(state_annotation(&st, "k"), "v");
	assert_null(state_annotation(&st, "nope"));
	state_free(&st);
}

static void test_systemd_cgroups_path(void **state)
{
	char out[PATH_MAX];
	struct hook_err err = { 0 };

	(void)state;
	assert_int_equal(cgroup_from_spec("kubepods-besteffort-podab12cd34.slice:cri-containerd:xyz", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podab12cd34.slice/cri-containerd-xyz.scope");
	assert_int_equal(cgroup_from_spec(":runc:abc", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/system.slice/runc-abc.scope");
	assert_int_equal(cgroup_from_spec("/default/abc", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/default/abc");
	assert_int_equal(cgroup_from_spec("a/b", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/a/b");
	assert_int_equal(cgroup_from_spec("bad:x", out, sizeof(out), &err), -1);
	assert_non_null(strstr(err.msg, "is not slice:prefix:name"));
	assert_int_equal(cgroup_from_spec("/a/../b", out, sizeof(out), &err), -1);
	assert_int_equal(cgroup_from_spec("a--b.slice:p:n", out, sizeof(out), &err), -1);
	assert_non_null(strstr(err.msg, "malformed slice"));
}

static void test_kubelet_patterns(void **state)
{
	char pod[256];

	(void)state;
	assert_true(cgroup_kubelet_pod("/kubepods/burstable/pod0a1b2c3d-0000-1111-2222-333344445555/c", pod, sizeof(pod)));
	assert_string_equal(pod, "/kubepods/burstable/pod0a1b2c3d-0000-1111-2222-333344445555");
	assert_true(cgroup_kubelet_pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_0000_1111_2222_333344445555.slice/cri-containerd-ab.scope", NULL, 0));
	assert_true(cgroup_kubelet_pod("/kubepods.slice/kubepods-pod0a1b2c3d_0000.slice/crio-ab.scope", NULL, 0));
	assert_false(cgroup_kubelet_pod("/podman/c", NULL, 0));
	assert_false(cgroup_kubelet_pod("/kubepods/c", NULL, 0));
	assert_false(cgroup_kubelet_pod("/kubepods/burstable/c", NULL, 0));
	assert_false(cgroup_kubelet_pod("/kubepods.slice/kubepods-burstable.slice/cri-containerd-ab.scope", NULL, 0));
	assert_false(cgroup_kubelet_pod("/system.slice/c.scope", NULL, 0));
}

static void test_annotation_placement(void **state)
{
	struct kv ann[] = {
		{ "io.kubernetes.cri.container-name", "app" },
		{ "ioweight.dev/weight", "400" },
		{ "ioweight.dev/container.app", "high" },
		{ "ioweight.dev/device-weights", "/dev/vdb=200" },
	};
	struct ann_values av;
	struct hook_request req;
	struct ioweight_config cfg;
	struct hook_err err = { 0 };

	(void)state;
	config_default(&cfg);
	assert_int_equal(annotations_parse(ann, 4, &av, &err), 0);
	/* in a pod: weight and devices go to the pod, container.<name> to the container */
	assert_int_equal(request_build(&av, &cfg, true, &req, &err), 0);
	assert_true(req.pod.set);
	assert_int_equal(req.pod.weight, 400);
	assert_int_equal(req.pod.n_devs, 1);
	assert_true(req.ctr.set);
	assert_int_equal(req.ctr.weight, 500);
	assert_int_equal(req.ctr.n_devs, 0);
	/* standalone: weight wins over container.<name>; devices on the container */
	assert_int_equal(request_build(&av, &cfg, false, &req, &err), 0);
	assert_false(req.pod.set);
	assert_int_equal(req.ctr.weight, 400);
	assert_int_equal(req.ctr.n_devs, 1);
	assert_non_null(strstr(req.notes[0], "ioweight.dev/container.app ignored: ioweight.dev/weight=400 takes precedence"));
}

static void test_device_weights_syntax(void **state)
{
	struct kv ann[] = { { "ioweight.dev/device-weights", " /dev/vdb = 500 ,/var/lib/data=200" } };
	struct ann_values av;
	struct hook_err err = { 0 };

	(void)state;
	assert_int_equal(annotations_parse(ann, 1, &av, &err), 0);
	assert_int_equal(av.n_devs, 2);
	assert_string_equal(av.devs[0].path, "/dev/vdb");
	assert_int_equal(av.devs[0].weight, 500);
	assert_string_equal(av.devs[1].path, "/var/lib/data");
	assert_int_equal(av.devs[1].weight, 200);
}

static void test_json_dups_nested(void **state)
{
	const char *s = "{\"a\":{\"b\":1,\"b\":2}}";
	yajl_val v = NULL;
	struct hook_err err = { 0 };

	(void)state;
	assert_int_equal(json_parse(s, strlen(s), "doc", &v, &err), -1);
	assert_string_equal(err.msg, "doc: duplicate key `b`");
}

static void test_config_full_example(void **state)
{
	char path[PATH_MAX];
	struct ioweight_config *cfg = calloc(1, sizeof(*cfg));
	struct hook_err err = { 0 };
	const char *src = getenv("IOWEIGHT_SRC");
	const char *files[] = { "default.json", "examples/10-ssd-cluster.json",
				"examples/20-upstream-iocost.json", "examples/30-warn-only.json" };

	(void)state;
	if (!src)
		skip();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/../cni-like-config/%s", src, files[i]);
		if (config_load_file(path, cfg, &err) < 0) {
			print_error("%s\n", err.msg);
			free(cfg);
			fail();
		}
	}
	free(cfg);
}

static void test_roots_flags(void **state)
{
	char dst[PATH_MAX];
	struct hook_err err = { 0 };

	(void)state;
	assert_int_equal(roots_set(dst, "/tmp/x/", "--cgroup-root", &err), 0);
	assert_string_equal(dst, "/tmp/x");
	assert_int_equal(roots_set(dst, "rel", "--cgroup-root", &err), -1);
	assert_int_equal(roots_set(dst, "/a/../b", "--cgroup-root", &err), -1);
}

/* the file log's stamps: the same calendar as libc's, leap days and centuries included */
static void test_log_utc(void **state)
{
	static const time_t fixed[] = {
		0, 59, 86399, 86400, 951782399, 951782400, 951868800, 1709164800, 4107542400,
		4102444799, 4102444800, 253402300799, -1, -86401, -2208988800,
	};
	unsigned seed = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 20000; i++) {
		time_t t;
		struct tm want, got;

		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			t = fixed[i];
		} else {
			seed = seed * 1103515245u + 12345u;
			/* any second from 1901 to 2174 */
			t = (time_t)seed * 2 + (time_t)(i & 1) - ((time_t)1 << 31);
		}
		assert_non_null(gmtime_r(&t, &want));
		log_utc(t, &got);
		if (got.tm_year != want.tm_year || got.tm_mon != want.tm_mon ||
		    got.tm_mday != want.tm_mday || got.tm_hour != want.tm_hour ||
		    got.tm_min != want.tm_min || got.tm_sec != want.tm_sec)
			fail_msg("log_utc(%lld): %04d-%02d-%02d %02d:%02d:%02d, gmtime_r %04d-%02d-%02d %02d:%02d:%02d",
				 (long long)t, got.tm_year + 1900, got.tm_mon + 1, got.tm_mday, got.tm_hour,
				 got.tm_min, got.tm_sec, want.tm_year + 1900, want.tm_mon + 1, want.tm_mday,
				 want.tm_hour, want.tm_min, want.tm_sec);
	}
}

int run_parse_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_extra_fields),
		cmocka_unit_test(test_systemd_cgroups_path),
		cmocka_unit_test(test_kubelet_patterns),
		cmocka_unit_test(test_annotation_placement),
		cmocka_unit_test(test_device_weights_syntax),
		cmocka_unit_test(test_json_dups_nested),
		cmocka_unit_test(test_config_full_example),
		cmocka_unit_test(test_roots_flags),
		cmocka_unit_test(test_log_utc),
	};
	return cmocka_run_group_tests_name("parsers", tests, NULL, NULL);
}
