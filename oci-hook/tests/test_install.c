// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_install.c - installer modes under a --prefix: dry-run changes nothing,
 * install is idempotent, uninstall restores the tree byte for byte; and the
 * runc wrapper's config.json editing.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "install.h"
#include "json.h"
#include "wrapper.h"

static void opts(struct fake *f, struct install_opts *o, enum install_runtime rt)
{
	memset(o, 0, sizeof(*o));
	o->runtime = rt;
	snprintf(o->prefix, sizeof(o->prefix), "%s/root", f->root);
	strcpy(o->hook, "/ioweight/build/hook/ioweight-hook");
	strcpy(o->runc, "/usr/sbin/runc");
}

static char *run_install(struct install_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct hook_err err = { 0 };
	int r = install_run(o, out, &err);

	fclose(out);
	if (r != want)
		print_error("install_run: r=%d err=%s\noutput:\n%s\n", r, err.msg, buf);
	assert_int_equal(r, want);
	if (r < 0) {
		free(buf);
		return strdup(err.msg);
	}
	return buf;
}

static void roundtrip(struct fake *f, enum install_runtime rt, const char *must_print)
{
	struct install_opts o;
	uint64_t before = fk_snapshot(f), installed;
	char *out;

	opts(f, &o, rt);
	o.dry_run = true;
	out = run_install(&o, 0);
	assert_non_null(strstr(out, must_print));
	free(out);
	assert_true(fk_snapshot(f) == before);	/* dry-run touched nothing */

	o.dry_run = false;
	free(run_install(&o, 0));
	installed = fk_snapshot(f);
	assert_true(installed != before);
	out = run_install(&o, 0);		/* again: nothing to do */
	assert_null(strstr(out, "create "));
	assert_null(strstr(out, "modify "));
	free(out);
	assert_true(fk_snapshot(f) == installed);

	o.uninstall = true;
	o.dry_run = true;
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == installed);
	o.dry_run = false;
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == before);	/* byte for byte, dirs too */
}

static void test_containerd_fresh(void **state)
{
	struct fake *f = *state;

	fk_mkdir(f, "root/etc");
	roundtrip(f, RT_CONTAINERD, "would create ");
	/* contents of the drop-in as installed */
	{
		struct install_opts o;
		char *t;

		opts(f, &o, RT_CONTAINERD);
		free(run_install(&o, 0));
		t = fk_read(f, "root/etc/containerd/conf.d/ioweight.toml");
		assert_non_null(strstr(t, "BinaryName = \"/usr/local/sbin/ioweight-runc\""));
		assert_non_null(strstr(t, "pod_annotations = [\"ioweight.dev/*\""));
		free(t);
		t = fk_read(f, "root/etc/containerd/config.toml");
		assert_non_null(strstr(t, "imports = [\"/etc/containerd/conf.d/*.toml\"]"));
		free(t);
		t = fk_read(f, "root/usr/local/sbin/ioweight-runc");
		assert_non_null(strstr(t, "exec '/ioweight/build/hook/ioweight-hook' runc-wrapper --runc '/usr/sbin/runc'"));
		free(t);
	}
}

static void test_containerd_existing_config(void **state)
{
	struct fake *f = *state;

	fk_write(f, "root/etc/containerd/config.toml",
		 "# my config\nversion = 2\nroot = \"/var/lib/containerd\"\n\n[grpc]\n  address = \"/run/containerd/containerd.sock\"\n");
	roundtrip(f, RT_CONTAINERD, "+ imports = [\"/etc/containerd/conf.d/*.toml\"]");
}

static void test_containerd_existing_imports(void **state)
{
	struct fake *f = *state;
	char *out = NULL;
	struct hook_err err = { 0 };
	bool dropin;

	(void)f;
	assert_int_equal(install_containerd_config("version = 2\nimports = [\"/etc/x.toml\"]\n", &out, &dropin, &err), 0);
	assert_string_equal(out, "version = 2\nimports = [\"/etc/x.toml\", \"/etc/containerd/conf.d/*.toml\"]\n");
	assert_true(dropin);
	free(out);
	assert_int_equal(install_containerd_config("imports = []\n", &out, &dropin, &err), 0);
	assert_string_equal(out, "imports = [\"/etc/containerd/conf.d/*.toml\"]\n");
	free(out);
	assert_int_equal(install_containerd_config("imports = [\"/etc/containerd/conf.d/*.toml\"]\n", &out, &dropin, &err), 0);
	assert_string_equal(out, "imports = [\"/etc/containerd/conf.d/*.toml\"]\n");
	free(out);
	assert_int_equal(install_containerd_config("imports = [\n \"/a\"\n]\n", &out, &dropin, &err), -1);
	assert_non_null(strstr(err.msg, "spans several lines"));
}

/* Debian's stock /etc/containerd/config.toml configures the CRI plugin; an
 * imported drop-in would replace that whole section, so the tables go into
 * the file itself, and uninstall puts the original back. */
#define DEBIAN_CONFIG "version = 2\n\n[plugins]\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n" \
	"    [plugins.\"io.containerd.grpc.v1.cri\".cni]\n      bin_dir = \"/usr/lib/cni\"\n" \
	"      conf_dir = \"/etc/cni/net.d\"\n  [plugins.\"io.containerd.internal.v1.opt\"]\n" \
	"    path = \"/var/lib/containerd/opt\"\n"

static void test_containerd_debian_config(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	char *t;

	fk_write(f, "root/etc/containerd/config.toml", DEBIAN_CONFIG);
	roundtrip(f, RT_CONTAINERD, "+ [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]");
	opts(f, &o, RT_CONTAINERD);
	free(run_install(&o, 0));
	t = fk_read(f, "root/etc/containerd/config.toml");
	assert_true(strncmp(t, DEBIAN_CONFIG, strlen(DEBIAN_CONFIG)) == 0);
	assert_non_null(strstr(t, "  BinaryName = \"/usr/local/sbin/ioweight-runc\"\n"));
	assert_null(fk_read(f, "root/etc/containerd/conf.d/ioweight.toml"));
	free(t);
}

static void test_containerd_refuses_runc_defined(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	uint64_t before;
	char *msg;

	fk_write(f, "root/etc/containerd/config.toml",
		 "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n");
	before = fk_snapshot(f);
	opts(f, &o, RT_CONTAINERD);
	msg = run_install(&o, -1);
	assert_non_null(strstr(msg, "already defines the runc runtime"));
	free(msg);
	assert_true(fk_snapshot(f) == before);
}

static void test_podman(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	char *t;
	yajl_val v = NULL;
	struct hook_err err = { 0 };

	fk_mkdir(f, "root/usr/share");
	roundtrip(f, RT_PODMAN, "/usr/share/containers/oci/hooks.d/ioweight-hook.json");
	opts(f, &o, RT_PODMAN);
	free(run_install(&o, 0));
	t = fk_read(f, "root/usr/share/containers/oci/hooks.d/ioweight-hook.json");
	assert_int_equal(json_parse(t, strlen(t), "hooks.d", &v, &err), 0);
	assert_non_null(strstr(t, "\"when\""));
	assert_non_null(strstr(t, "ioweight\\\\.dev/"));
	yajl_tree_free(v);
	free(t);
}

static void test_wrapper_existing_file_restored(void **state)
{
	struct fake *f = *state;

	/* someone else's file at our path: kept aside and put back */
	fk_write(f, "root/usr/local/sbin/ioweight-runc", "#!/bin/sh\necho theirs\n");
	roundtrip(f, RT_RUNC_WRAPPER, "original kept as");
}

static void test_wrapper_argv(void **state)
{
	char *a1[] = { "--root", "/run/containerd/runc/k8s.io", "--log", "/x/log.json", "--log-format", "json",
		       "--systemd-cgroup", "create", "--bundle", "/run/b1", "--pid-file", "/p", "id1" };
	char *a2[] = { "--root", "/r", "start", "id1" };
	char *a3[] = { "run", "-b=/run/b3", "id" };
	char *a4[] = { "create", "id" };
	bool c;

	(void)state;
	assert_string_equal(wrapper_bundle_of(13, a1, &c), "/run/b1");
	assert_true(c);
	assert_null(wrapper_bundle_of(4, a2, &c));
	assert_false(c);
	assert_string_equal(wrapper_bundle_of(3, a3, &c), "/run/b3");
	assert_string_equal(wrapper_bundle_of(2, a4, &c), ".");
}

static void test_wrapper_inject(void **state)
{
	struct fake *f = *state;
	char p[PATH_MAX], *t;
	struct hook_err err = { 0 };

	fk_write(f, "bundle/config.json",
		 "{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\"]},\"linux\":{\"resources\":{\"cpu\":{\"shares\":1024}}},"
		 "\"hooks\":{\"prestart\":[{\"path\":\"/other\"}]},\"x\":1.50}");
	snprintf(p, sizeof(p), "%s/bundle/config.json", f->root);
	assert_int_equal(wrapper_inject(p, "/opt/ioweight-hook", &err), 0);
	assert_int_equal(wrapper_inject(p, "/opt/ioweight-hook", &err), 0);
	t = fk_read(f, "bundle/config.json");
	assert_string_equal(t, "{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\"]},\"linux\":{\"resources\":{\"cpu\":{\"shares\":1024}}},"
			       "\"hooks\":{\"prestart\":[{\"path\":\"/other\"},{\"path\":\"/opt/ioweight-hook\",\"args\":[\"ioweight-hook\",\"prestart\"]}]},\"x\":1.50}");
	free(t);
	fk_write(f, "bundle/config.json", "{\"ociVersion\":\"1.0.2\"}");
	assert_int_equal(wrapper_inject(p, "/h", &err), 0);
	t = fk_read(f, "bundle/config.json");
	assert_string_equal(t, "{\"ociVersion\":\"1.0.2\",\"hooks\":{\"prestart\":[{\"path\":\"/h\",\"args\":[\"ioweight-hook\",\"prestart\"]}]}}");
	free(t);
	fk_write(f, "bundle/config.json", "{\"hooks\":[]}");
	assert_int_equal(wrapper_inject(p, "/h", &err), -1);
	assert_non_null(strstr(err.msg, "`hooks` must be an object"));
}

int run_install_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_containerd_fresh, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_existing_config, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_existing_imports, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_debian_config, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_refuses_runc_defined, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_podman, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_wrapper_existing_file_restored, fake_setup, fake_teardown),
		cmocka_unit_test(test_wrapper_argv),
		cmocka_unit_test_setup_teardown(test_wrapper_inject, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("installer", tests, NULL, NULL);
}
