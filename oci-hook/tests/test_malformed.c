// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_malformed.c - bad input of every kind: each case must fail with a
 * precise message and leave the whole fake tree byte-for-byte untouched.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#define GOOD_CFG "{" CFG_BASE ",\"limits\":{\"minWeight\":10,\"maxWeight\":1000}," \
	"\"devices\":[{\"match\":\"/dev/vd*\",\"podWeights\":true},{\"match\":\"/dev/sd*\",\"podWeights\":true}]}"
#define ST(pid, ann) "{\"ociVersion\":\"1.0.2\",\"id\":\"ctr1\",\"pid\":" #pid ",\"bundle\":\"/b\",\"annotations\":{" ann "}}"
#define ST100(ann) ST(100, ann)
#define POD(ann) ST(200, "\"io.kubernetes.cri.container-name\":\"app\"," ann)

enum gen { G_NONE, G_HUGE, G_DEEP, G_NUL, G_LONGVAL, G_MANYDEV };

struct mcase {
	const char *name;
	const char *cfg;	/* NULL: GOOD_CFG */
	const char *state;
	enum gen gen;
	const char *expect;	/* substring of the error message */
};

static const struct mcase cases[] = {
	/* OCI state document */
	{ "state_empty", NULL, "", 0, "empty input on stdin" },
	{ "state_not_json", NULL, "hello", 0, "OCI state: invalid JSON" },
	{ "state_truncated", NULL, "{\"ociVersion\":\"1.0.2\",\"id\":", 0, "invalid JSON" },
	{ "state_array", NULL, "[1,2]", 0, "OCI state: must be a JSON object" },
	{ "state_no_id", NULL, "{\"ociVersion\":\"1\",\"pid\":100,\"bundle\":\"/b\"}", 0, "missing required key `id`" },
	{ "state_no_version", NULL, "{\"id\":\"a\",\"pid\":100,\"bundle\":\"/b\"}", 0, "missing required key `ociVersion`" },
	{ "state_id_number", NULL, "{\"ociVersion\":\"1\",\"id\":5,\"pid\":100,\"bundle\":\"/b\"}", 0, "`id` must be a string" },
	{ "state_id_traversal", NULL, "{\"ociVersion\":\"1\",\"id\":\"../../x\",\"pid\":100,\"bundle\":\"/b\"}", 0, "`id` is not a valid container id" },
	{ "state_pid_string", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":\"100\",\"bundle\":\"/b\"}", 0, "`pid` must be a number" },
	{ "state_pid_negative", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":-1,\"bundle\":\"/b\"}", 0, "`pid` must be an integer in 0..4194304" },
	{ "state_pid_float", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":1.5,\"bundle\":\"/b\"}", 0, "`pid` must be an integer" },
	{ "state_pid_huge", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":99999999999999999999,\"bundle\":\"/b\"}", 0, "`pid` must be an integer" },
	{ "state_bundle_relative", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":100,\"bundle\":\"b\"}", 0, "`bundle` must be an absolute path" },
	{ "state_bundle_dotdot", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":100,\"bundle\":\"/x/../etc\"}", 0, "`bundle` must be an absolute path" },
	{ "state_annotations_array", NULL, "{\"ociVersion\":\"1\",\"id\":\"a\",\"pid\":100,\"bundle\":\"/b\",\"annotations\":[]}", 0, "`annotations` must be an object" },
	{ "state_annotation_number", NULL, ST100("\"ioweight.dev/weight\":500"), 0, "annotation `ioweight.dev/weight` must be a string, not a number" },
	{ "state_duplicate_key", NULL, ST100("\"ioweight.dev/weight\":\"5\",\"ioweight.dev/weight\":\"900\""), 0, "duplicate key `ioweight.dev/weight`" },
	{ "state_deep_nesting", NULL, NULL, G_DEEP, "nested deeper than 64 levels" },
	{ "state_huge", NULL, NULL, G_HUGE, "larger than the 1048576 byte limit" },
	{ "state_nul_byte", NULL, NULL, G_NUL, "contains a NUL byte" },
	/* our annotations */
	{ "weight_zero", NULL, ST100("\"ioweight.dev/weight\":\"0\""), 0, "annotation ioweight.dev/weight: `0` is not an integer in 1..10000" },
	{ "weight_too_big", NULL, ST100("\"ioweight.dev/weight\":\"10001\""), 0, "`10001` is not an integer in 1..10000" },
	{ "weight_word", NULL, ST100("\"ioweight.dev/weight\":\"lots\""), 0, "`lots` is not an integer" },
	{ "weight_negative", NULL, ST100("\"ioweight.dev/weight\":\"-5\""), 0, "`-5` is not an integer" },
	{ "weight_trailing_space", NULL, ST100("\"ioweight.dev/weight\":\"500 \""), 0, "`500 ` is not an integer" },
	{ "weight_exponent", NULL, ST100("\"ioweight.dev/weight\":\"1e3\""), 0, "`1e3` is not an integer" },
	{ "weight_empty", NULL, ST100("\"ioweight.dev/weight\":\"\""), 0, "`` is not an integer" },
	{ "weight_above_limit", NULL, ST100("\"ioweight.dev/weight\":\"5000\""), 0, "weight 5000 is outside 10..1000 allowed by config" },
	{ "weight_below_limit", NULL, ST100("\"ioweight.dev/weight\":\"5\""), 0, "weight 5 is outside 10..1000" },
	{ "class_empty", NULL, ST100("\"ioweight.dev/class\":\"\""), 0, "annotation ioweight.dev/class: `` is not a class name" },
	{ "class_space", NULL, ST100("\"ioweight.dev/class\":\"very high\""), 0, "`very high` is not a class name" },
	{ "class_unknown", NULL, ST100("\"ioweight.dev/class\":\"gold\""), 0, "unknown class `gold` (config" },
	{ "key_typo", NULL, ST100("\"ioweight.dev/wieght\":\"500\""), 0, "annotation ioweight.dev/wieght: unknown key" },
	{ "value_too_long", NULL, NULL, G_LONGVAL, "value longer than 4096 bytes" },
	{ "dev_missing", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/nope=100\""), 0, "`/dev/nope` is not a device the config lets pods weight" },
	{ "dev_char_device", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/null=100\""), 0, "`/dev/null` is not a device the config lets pods weight" },
	{ "dev_no_sysfs", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/vdz=100\""), 0, "`/dev/vdz` is not a device the config lets pods weight" },
	{ "dev_traversal", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/../etc/x=100\""), 0, "has a `.`/`..` or empty component" },
	{ "dev_link_escape", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/disk/by-id/evil=100\""), 0, "`/dev/disk/by-id/evil` is not a device the config lets pods weight" },
	{ "dev_relative", NULL, ST100("\"ioweight.dev/device-weights\":\"vdb=100\""), 0, "device `vdb` is neither a /dev path nor MAJ:MIN" },
	{ "dev_no_weight", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/vdb\""), 0, "entry `/dev/vdb` is not DEVICE=WEIGHT" },
	{ "dev_weight_zero", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/vdb=0\""), 0, "weight `0` for /dev/vdb is not an integer" },
	{ "dev_empty_entry", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/vdb=100,,/dev/sda=50\""), 0, "empty entry" },
	{ "dev_listed_twice", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/vdb=100,/dev/vdb=50\""), 0, "device `/dev/vdb` listed twice" },
	{ "dev_same_disk", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/sda=100,/dev/sda1=50\""), 0, "/dev/sda and /dev/sda1 are the same disk 8:0" },
	{ "dev_no_blockdev_fs", NULL, ST100("\"ioweight.dev/device-weights\":\"/proc=100\""), 0, "`/proc` is not a device the config lets pods weight" },
	{ "dev_host_file", NULL, ST100("\"ioweight.dev/device-weights\":\"/etc/shadow=100\""), 0, "`/etc/shadow` is not a device the config lets pods weight" },
	{ "dev_devnum_unlisted", NULL, ST100("\"ioweight.dev/device-weights\":\"1:3=100\""), 0, "`1:3` is not a device the config lets pods weight" },
	{ "dev_too_many", NULL, NULL, G_MANYDEV, "more than 32 entries" },
	{ "dev_above_limit", NULL, ST100("\"ioweight.dev/device-weights\":\"/dev/vdb=2000\""), 0, "weight 2000 for /dev/vdb is outside 10..1000" },
	{ "ctr_key_bad_name", NULL, ST100("\"ioweight.dev/container.a b\":\"100\""), 0, "`a b` is not a valid container name" },
	{ "ctr_value_bad", NULL, POD("\"ioweight.dev/container.app\":\"0\""), 0, "annotation ioweight.dev/container.app: `0` is not an integer" },
	{ "blockio_unknown_class", NULL, ST100("\"blockio.resources.beta.kubernetes.io/pod\":\"platinum\""), 0, "annotation blockio.resources.beta.kubernetes.io/pod: unknown class `platinum`" },
	{ "cri_blockio_bad", NULL, ST100("\"io.kubernetes.cri.blockio-class\":\"a/b\""), 0, "`a/b` is not a class name" },
	/* pod context */
	{ "ctype_bad", NULL, ST100("\"io.kubernetes.cri.container-type\":\"vm\""), 0, "`vm` is neither `sandbox` nor `container`" },
	{ "ctype_no_sandbox_id", NULL, ST100("\"io.kubernetes.cri.container-type\":\"container\",\"ioweight.dev/weight\":\"500\""), 0, "cgroup /test/ctr1 is not a container of a kubelet pod cgroup" },
	{ "ctype_sandbox_absent", NULL, ST100("\"io.kubernetes.cri.container-type\":\"container\",\"io.kubernetes.cri.sandbox-id\":\"sb9\""), 0, "refusing to weight its parent" },
	{ "sandbox_id_bad", NULL, ST100("\"io.kubernetes.cri.sandbox-id\":\"../x\""), 0, "not a valid sandbox id" },
	/* cgroup discovery */
	{ "proc_missing", NULL, ST(4242, "\"ioweight.dev/weight\":\"500\""), 0, "4242/cgroup: No such file or directory" },
	{ "proc_no_unified", NULL, ST(101, "\"ioweight.dev/weight\":\"500\""), 0, "no cgroup v2 (`0::`) entry" },
	{ "proc_traversal", NULL, ST(102, "\"ioweight.dev/weight\":\"500\""), 0, "has a `.`/`..` or empty component" },
	{ "proc_root_cgroup", NULL, ST(103, "\"ioweight.dev/weight\":\"500\""), 0, "container runs in the root cgroup" },
	{ "proc_deleted", NULL, ST(104, "\"ioweight.dev/weight\":\"500\""), 0, "was removed" },
	/* admin config */
	{ "cfg_not_json", "{ioweightVersion: 1}", ST100(""), 0, "1 of 1 files invalid, no config in effect (first error: " },
	{ "cfg_version", "{\"ioweightVersion\":\"2.0.0\",\"name\":\"x\"}", ST100(""), 0, "unsupported `ioweightVersion` `2.0.0`" },
	{ "cfg_no_name", "{\"ioweightVersion\":\"1.0.0\"}", ST100(""), 0, "missing required key `name`" },
	{ "cfg_unknown_key", "{" CFG_BASE ",\"failurepolicy\":\"warn\"}", ST100(""), 0, "unknown key `failurepolicy`" },
	{ "cfg_policy", "{" CFG_BASE ",\"failurePolicy\":\"maybe\"}", ST100(""), 0, "`failurePolicy` must be one of fail|warn, got `maybe`" },
	{ "cfg_class_weight", "{" CFG_BASE ",\"classes\":{\"gold\":{\"weight\":0}}}", ST100(""), 0, "classes.gold: `weight` must be an integer in 1..10000, got 0" },
	{ "cfg_class_type", "{" CFG_BASE ",\"classes\":{\"gold\":500}}", ST100(""), 0, "classes.gold: must be an object" },
	{ "cfg_limits", "{" CFG_BASE ",\"limits\":{\"minWeight\":500,\"maxWeight\":100}}", ST100(""), 0, "`minWeight` 500 is greater than `maxWeight` 100" },
	{ "cfg_unknown_profile", "{" CFG_BASE ",\"devices\":[{\"match\":\"/dev/vd*\",\"profile\":\"fast\"}]}", ST100(""), 0, "devices[0]: unknown profile `fast`" },
	{ "cfg_rule_relative", "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true}},\"devices\":[{\"match\":\"vd*\",\"profile\":\"p\"}]}", ST100(""), 0, "`match` must be an absolute path" },
	{ "cfg_qos_pct", "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true,\"qos\":{\"ctrl\":\"user\",\"rpct\":150}}}}", ST100(""), 0, "profiles.p.qos: `rpct` must be in 0..100, got 150" },
	{ "cfg_qos_minmax", "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true,\"qos\":{\"ctrl\":\"user\",\"min\":200,\"max\":100}}}}", ST100(""), 0, "`min` is greater than `max`" },
	{ "cfg_qos_auto_fields", "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true,\"qos\":{\"ctrl\":\"auto\",\"rlat\":100}}}}", ST100(""), 0, "`rlat` needs `ctrl` `user`" },
	{ "cfg_model_missing", "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true,\"costModel\":{\"ctrl\":\"user\",\"model\":\"linear\"}}}}", ST100(""), 0, "profiles.p.costModel: missing required key `rbps`" },
	{ "cfg_model_auto_extra", "{" CFG_BASE ",\"profiles\":{\"p\":{\"enable\":true,\"costModel\":{\"ctrl\":\"auto\",\"rbps\":5}}}}", ST100(""), 0, "with `ctrl` `auto` no other key may be given" },
	{ "cfg_profile_no_enable", "{" CFG_BASE ",\"profiles\":{\"p\":{}}}", ST100(""), 0, "profiles.p: missing required key `enable`" },
	{ "cfg_log_relative", "{\"ioweightVersion\":\"1.0.0\",\"name\":\"x\",\"log\":{\"target\":\"file\",\"path\":\"hook.log\"}}", ST100(""), 0, "log: `path` must be an absolute path" },
	{ "cfg_kernel_file", "{" CFG_BASE ",\"kernelFiles\":{\"qos\":\"../../etc/shadow\"}}", ST100(""), 0, "kernelFiles: `qos` must be an io.* file name" },
	{ "cfg_bool_type", "{" CFG_BASE ",\"requireSandbox\":\"yes\"}", ST100(""), 0, "`requireSandbox` must be a boolean" },
};

struct mctx {
	const struct mcase *c;
	struct fake *f;
};

static int mal_setup(void **state)
{
	struct mctx *m = calloc(1, sizeof(*m));
	void *fs;

	m->c = *state;
	fake_setup(&fs);
	m->f = fs;
	fk_config(m->f, m->c->cfg ? m->c->cfg : GOOD_CFG);
	fk_write(m->f, "proc/101/cgroup", "1:name=systemd:/x\n");
	fk_write(m->f, "proc/102/cgroup", "0::/test/../../etc\n");
	fk_write(m->f, "proc/103/cgroup", "0::/\n");
	fk_write(m->f, "proc/104/cgroup", "0::/test/ctr1 (deleted)\n");
	*state = m;
	return 0;
}

static int mal_teardown(void **state)
{
	struct mctx *m = *state;
	void *fs = m->f;

	fake_teardown(&fs);
	free(m);
	return 0;
}

static char *generate(enum gen g, size_t *len)
{
	char *s = NULL;
	size_t n;

	switch (g) {
	case G_HUGE:
		n = (1 << 20) + 100;
		s = malloc(n + 1);
		memset(s, ' ', n);
		memcpy(s, "{\"ociVersion\":\"1\",\"id\":\"a\",\"x\":\"", 33);
		s[n] = '\0';
		break;
	case G_DEEP:
		n = 2000;
		s = malloc(n + 1);
		memset(s, '[', n);
		s[n] = '\0';
		break;
	case G_NUL:
		s = strdup("{\"ociVersion\":\"1\",\"id\":\"a\\u0000\"}X");
		n = strlen(s);
		s[n - 1] = '\0';
		break;
	case G_LONGVAL: {
		char big[5001];

		memset(big, '1', 5000);
		big[5000] = '\0';
		if (asprintf(&s, ST100("\"ioweight.dev/class\":\"%s\""), big) < 0)
			abort();
		n = strlen(s);
		break;
	}
	case G_MANYDEV: {
		char list[4096] = "";

		for (int i = 0; i < 33; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s/dev/d%d=100", i ? "," : "", i);
		if (asprintf(&s, ST100("\"ioweight.dev/device-weights\":\"%s\""), list) < 0)
			abort();
		n = strlen(s);
		break;
	}
	default:
		abort();
	}
	*len = n;
	return s;
}

static void test_malformed(void **state)
{
	struct mctx *m = *state;
	struct hook_opts o = { .roots = m->f->roots, .sandbox = false };
	struct hook_result res;
	struct hook_err err = { 0 };
	uint64_t before = fk_snapshot(m->f);
	char *buf;
	size_t len;
	int r, fd;
	char tmpl[PATH_MAX];

	if (m->c->gen) {
		buf = generate(m->c->gen, &len);
	} else {
		buf = strdup(m->c->state);
		len = strlen(buf);
	}
	/* through a file descriptor, as the runtime hands it to us */
	snprintf(tmpl, sizeof(tmpl), "%s/stdin-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	unlink(tmpl);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	r = hook_run_fd(&o, fd, &res, &err);
	close(fd);
	free(buf);
	if (r == 0 || !strstr(err.msg, m->c->expect))
		print_error("case %s: got r=%d err=\"%s\", want \"%s\"\n", m->c->name, r, err.msg,
			    m->c->expect);
	assert_int_equal(r, -1);
	assert_non_null(strstr(err.msg, m->c->expect));
	hook_result_free(&res);
	/* nothing written anywhere in the tree */
	assert_true(fk_snapshot(m->f) == before);
}

int run_malformed_tests(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct CMUnitTest *t = calloc(n, sizeof(*t));
	int r;

	for (size_t i = 0; i < n; i++) {
		t[i].name = cases[i].name;
		t[i].test_func = test_malformed;
		t[i].setup_func = mal_setup;
		t[i].teardown_func = mal_teardown;
		t[i].initial_state = (void *)&cases[i];
	}
	r = _cmocka_run_group_tests("malformed_input", t, n, NULL, NULL);
	free(t);
	return r;
}
