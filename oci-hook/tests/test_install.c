// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_install.c - installer modes under a --prefix: dry-run changes
 * nothing, install is idempotent, uninstall removes exactly what install
 * added (an admin edit made in between survives byte for byte), configs it
 * cannot understand are refused with a precise message and untouched; the
 * containerd configs people have (none, Debian's stock file, containerd
 * 1.6's `config default`, a 2.x version 3 file) checked with the real
 * `containerd config dump` when containerd is installed; CRI-O and podman
 * hooks.d; and the runc wrapper's config.json editing.
 */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install.h"
#include "json.h"
#include "wrapper.h"

#define CONF "root/etc/containerd/config.toml"
#define DROPIN "root/etc/containerd/conf.d/ioweight.toml"
#define WRAPPER "root/usr/local/sbin/ioweight-runc"
#define REGISTRY_EDIT "\n[plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"docker.io\"]\n  endpoint = [\"https://mirror.invalid\"]\n"

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

static char *fixture(const char *name)
{
	const char *src = getenv("IOWEIGHT_SRC");
	char p[PATH_MAX];
	char *buf = NULL;
	size_t len;
	struct hook_err err = { 0 };

	snprintf(p, sizeof(p), "%s/tests/fixtures/install/%s", src ? src : ".", name);
	if (read_file_bounded(p, 1 << 20, &buf, &len, &err) < 0)
		fail_msg("fixture %s: %s (make check sets IOWEIGHT_SRC)", p, err.msg);
	return buf;
}

static void append(struct fake *f, const char *rel, const char *text)
{
	char *t = fk_read(f, rel), *n = NULL;

	assert_non_null(t);
	assert_true(asprintf(&n, "%s%s", t, text) > 0);
	fk_write(f, rel, n);
	free(t);
	free(n);
}

static void unlink_rel(struct fake *f, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	assert_true(unlink(p) == 0 || errno == ENOENT);
}

/* `containerd --config FILE config dump`, or NULL without containerd */
static char *containerd_dump(struct fake *f)
{
	char cmd[PATH_MAX + 64], *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *p, *o;

	if (access("/usr/bin/containerd", X_OK) < 0)
		return NULL;
	snprintf(cmd, sizeof(cmd), "/usr/bin/containerd --config '%s/" CONF "' config dump 2>&1", f->root);
	p = popen(cmd, "r");
	assert_non_null(p);
	o = open_memstream(&buf, &len);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, o);
	fclose(o);
	assert_int_equal(pclose(p), 0);
	return buf;
}

static void install_once(struct fake *f, bool set_default)
{
	struct install_opts o;

	opts(f, &o, RT_CONTAINERD);
	o.set_default = set_default;
	free(run_install(&o, 0));
}

/* Where the admin edits the installed config.toml. */
enum place { AT_END, BEFORE_BLOCK, AFTER_BLOCK, NR_PLACES };
static const char *const place_name[] = { "at the end", "before the block", "after the block" };

/* Insert text at place; false when the file has no block to put it next to
 * (a version 3 install edits only the imports line). */
static bool admin_edit(struct fake *f, enum place p, const char *text)
{
	char *t = fk_read(f, CONF), *n = NULL, *at;

	assert_non_null(t);
	at = t + strlen(t);
	if (p == BEFORE_BLOCK)
		at = strstr(t, "# >>> " INSTALL_MARKER);
	if (p == AFTER_BLOCK && (at = strstr(t, "# <<< " INSTALL_MARKER "\n")))
		at += strlen("# <<< " INSTALL_MARKER "\n");
	if (!at) {
		free(t);
		return false;
	}
	assert_true(asprintf(&n, "%.*s%s%s", (int)(at - t), t, text, at) > 0);
	fk_write(f, CONF, n);
	free(t);
	free(n);
	return true;
}

/*
 * Install again after an admin edit next to our lines: the file stays byte
 * for byte what the admin left (a second install, too), and --uninstall
 * then gives the original with the edit where the admin put it.  A file
 * without its final line break: the break install added goes again, and
 * with it, for an edit above the marker that says so, the edit's own last
 * one (the marker names the line break of the line above it).
 */
static void reinstall_after_edits(struct fake *f, const char *orig, bool set_default)
{
	const char *base = orig ? orig : "version = 2\n";
	bool no_nl = base[0] && base[strlen(base) - 1] != '\n';

	for (enum place p = 0; p < NR_PLACES; p++) {
		struct install_opts o;
		char *edited, *t, *out, *d, *want = NULL;
		uint64_t snap;

		if (orig)
			fk_write(f, CONF, orig);
		else
			unlink_rel(f, CONF);
		install_once(f, set_default);
		if (!admin_edit(f, p, REGISTRY_EDIT))
			continue;
		edited = fk_read(f, CONF);
		snap = fk_snapshot(f);
		opts(f, &o, RT_CONTAINERD);
		o.set_default = set_default;
		/* the real containerd 1.x reads the handler and the mirror both */
		if (strstr(base, "version = 2") && (d = containerd_dump(f))) {
			assert_non_null(strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.ioweight.options]\n            BinaryName = \"/usr/local/sbin/ioweight-runc\""));
			assert_non_null(strstr(d, "endpoint = [\"https://mirror.invalid\"]"));
			free(d);
		}
		for (int i = 0; i < 2; i++) {
			out = run_install(&o, 0);
			t = fk_read(f, CONF);
			if (strcmp(t, edited))
				fail_msg("install after an edit %s changed the file:\n--- before\n%s--- after\n%s",
					 place_name[p], edited, t);
			assert_non_null(strstr(out, "unchanged /etc/containerd/config.toml"));
			assert_true(fk_snapshot(f) == snap);
			free(t);
			free(out);
		}
		o.uninstall = true;
		free(run_install(&o, 0));
		if (no_nl && p != AT_END)
			assert_true(asprintf(&want, "%s\n%.*s", base, (int)strlen(REGISTRY_EDIT) - 1, REGISTRY_EDIT) > 0);
		else
			assert_true(asprintf(&want, "%s%s", base, REGISTRY_EDIT) > 0);
		t = fk_read(f, CONF);
		assert_non_null(t);
		if (strcmp(t, want))
			fail_msg("uninstall after an edit %s:\n--- want\n%s--- got\n%s", place_name[p], want, t);
		free(t);
		free(want);
		free(edited);
	}
}

/*
 * The round trip every config must survive: dry-run touches nothing;
 * install; install again changes nothing; the admin adds a registry
 * mirror; uninstall leaves exactly the original plus that edit (for no
 * original file: the `version = 2` line install wrote, plus the edit).
 */
static void roundtrip(struct fake *f, const char *orig, bool set_default, const char *must_print)
{
	struct install_opts o;
	uint64_t before, installed;
	char *out, *t, *d, *want = NULL;

	if (orig)
		fk_write(f, CONF, orig);
	else
		fk_mkdir(f, "root/etc");
	before = fk_snapshot(f);
	opts(f, &o, RT_CONTAINERD);
	o.set_default = set_default;
	o.dry_run = true;
	out = run_install(&o, 0);
	if (must_print && !strstr(out, must_print))
		fail_msg("dry-run output lacks `%s`:\n%s", must_print, out);
	free(out);
	assert_true(fk_snapshot(f) == before);

	o.dry_run = false;
	free(run_install(&o, 0));
	installed = fk_snapshot(f);
	assert_true(installed != before);
	/* a version 2 result is read by the real containerd 1.x when it is here */
	t = fk_read(f, CONF);
	if (!strstr(t, "version = 3") && (d = containerd_dump(f))) {
		assert_non_null(strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.ioweight.options]\n            BinaryName = \"/usr/local/sbin/ioweight-runc\""));
		if (set_default)
			assert_non_null(strstr(d, "      default_runtime_name = \"ioweight\"\n"));
		free(d);
	}
	free(t);
	out = run_install(&o, 0);
	assert_null(strstr(out, "create "));
	assert_null(strstr(out, "modify "));
	assert_non_null(strstr(out, "unchanged /etc/containerd/config.toml"));
	free(out);
	assert_true(fk_snapshot(f) == installed);

	append(f, CONF, REGISTRY_EDIT);
	o.uninstall = true;
	o.dry_run = true;
	installed = fk_snapshot(f);
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == installed);
	o.dry_run = false;
	free(run_install(&o, 0));
	assert_true(asprintf(&want, "%s%s", orig ? orig : "version = 2\n", REGISTRY_EDIT) > 0);
	t = fk_read(f, CONF);
	assert_non_null(t);
	assert_string_equal(t, want);
	free(t);
	free(want);
	assert_null(fk_read(f, WRAPPER));
	assert_null(fk_read(f, DROPIN));
	{
		char p[PATH_MAX];
		struct stat st;

		snprintf(p, sizeof(p), "%s/root/usr/local", f->root);
		assert_int_equal(stat(p, &st), -1);	/* the directories install made are gone */
	}
	/* and a plain uninstall of an untouched file gives the file back */
	fk_write(f, CONF, orig ? orig : "version = 2\n");
	before = fk_snapshot(f);
	o.uninstall = false;
	free(run_install(&o, 0));
	o.uninstall = true;
	free(run_install(&o, 0));
	if (orig)
		assert_true(fk_snapshot(f) == before);
	reinstall_after_edits(f, orig, set_default);
}


static void test_containerd_no_config(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	char *t, *d;

	roundtrip(f, NULL, false, "would create /etc/containerd/config.toml");
	/* no file before and nothing added since: uninstall deletes it */
	fk_mkdir(f, "root/etc/x");
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/" CONF, f->root);
		unlink(p);
	}
	opts(f, &o, RT_CONTAINERD);
	free(run_install(&o, 0));
	t = fk_read(f, CONF);
	assert_true(strncmp(t, "version = 2\n# >>> ioweight-hook install: created this file", 58) == 0);
	assert_non_null(strstr(t, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n"));
	assert_non_null(strstr(t, "BinaryName = \"/usr/local/sbin/ioweight-runc\""));
	free(t);
	d = containerd_dump(f);
	if (d) {
		/* runc survives next to ioweight, and stays the default */
		assert_non_null(strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]"));
		assert_non_null(strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.ioweight.options]\n            BinaryName = \"/usr/local/sbin/ioweight-runc\""));
		assert_non_null(strstr(d, "default_runtime_name = \"runc\""));
		free(d);
	}
	o.uninstall = true;
	free(run_install(&o, 0));
	assert_null(fk_read(f, CONF));
}

/* containerd 1.6's `containerd config default` with SystemdCgroup = true,
 * as kubeadm guides make it */
static void test_containerd_16_default(void **state)
{
	struct fake *f = *state;
	char *orig = fixture("containerd-1.6-default.toml"), *d, *io;

	roundtrip(f, orig, true, "+       default_runtime_name = \"ioweight\"  # ioweight-hook install: added");
	fk_write(f, CONF, orig);
	install_once(f, true);
	d = containerd_dump(f);
	if (d) {
		io = strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.ioweight.options]");
		assert_non_null(io);
		assert_non_null(strstr(io, "SystemdCgroup = true"));
		assert_non_null(strstr(io, "BinaryName = \"/usr/local/sbin/ioweight-runc\""));
		assert_non_null(strstr(d, "default_runtime_name = \"ioweight\""));
		assert_non_null(strstr(d, "pod_annotations = [\"ioweight.dev/*\", \"blockio.resources.beta.kubernetes.io/*\", \"io.kubernetes.cri.blockio-class\"]"));
		/* runc is still there, unchanged */
		assert_non_null(strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n            BinaryName = \"\""));
		free(d);
	} else {
		print_message("# containerd not installed: config dump check skipped\n");
	}
	free(orig);
}

/* text with its first `from` replaced by `to` (heap) */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	char *r = NULL;

	assert_non_null(p);
	assert_true(asprintf(&r, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from)) > 0);
	return r;
}

/* the admin changes runc's options and adds a mirror below the block: a
 * re-install updates the block where it is, the mirror stays below it */
static void test_containerd_reinstall_runc_edit(void **state)
{
	struct fake *f = *state;
	char *orig = fixture("containerd-1.6-default.toml"), *t, *u, *io, *end, *want = NULL;
	struct install_opts o;

	fk_write(f, CONF, orig);
	install_once(f, false);
	append(f, CONF, REGISTRY_EDIT);
	t = fk_read(f, CONF);
	assert_true(strstr(t, "SystemdCgroup = true") < strstr(t, "# >>> " INSTALL_MARKER));
	u = replaced(t, "SystemdCgroup = true", "SystemdCgroup = false");
	fk_write(f, CONF, u);
	free(t);
	free(u);
	install_once(f, false);
	t = fk_read(f, CONF);
	io = strstr(t, "runtimes.ioweight.options]");
	end = strstr(t, "# <<< " INSTALL_MARKER "\n");
	assert_non_null(io);
	assert_non_null(end);
	assert_true(strstr(io, "SystemdCgroup = false") && strstr(io, "SystemdCgroup = false") < end);
	/* the mirror is still the last thing in the file, right below the block */
	assert_string_equal(end + strlen("# <<< " INSTALL_MARKER "\n"), REGISTRY_EDIT);
	free(t);
	opts(f, &o, RT_CONTAINERD);
	o.uninstall = true;
	free(run_install(&o, 0));
	u = replaced(orig, "SystemdCgroup = true", "SystemdCgroup = false");
	assert_true(asprintf(&want, "%s%s", u, REGISTRY_EDIT) > 0);
	t = fk_read(f, CONF);
	assert_string_equal(t, want);
	free(t);
	free(u);
	free(want);
	free(orig);
}

/* Debian 12's /etc/containerd/config.toml: CRI section with CNI paths only */
static void test_containerd_debian_stock(void **state)
{
	struct fake *f = *state;
	char *orig = fixture("debian-12-stock.toml"), *d;

	roundtrip(f, orig, false, "+ [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.ioweight.options]");
	fk_write(f, CONF, orig);
	install_once(f, true);
	d = containerd_dump(f);
	if (d) {
		assert_non_null(strstr(d, "bin_dir = \"/usr/lib/cni\""));	/* Debian's CNI path kept */
		assert_non_null(strstr(d, "default_runtime_name = \"ioweight\""));
		assert_non_null(strstr(d, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]"));
		free(d);
	}
	free(orig);
}

/* containerd 2.x: a version 3 drop-in, imported from config.toml */
static void test_containerd_v3(void **state)
{
	struct fake *f = *state;
	char *orig = fixture("containerd-2.x-v3.toml"), *t;

	roundtrip(f, orig, true, "+ imports = [\"/etc/containerd/conf.d/ioweight.toml\"]  # ioweight-hook install: added");
	fk_write(f, CONF, orig);
	install_once(f, true);
	t = fk_read(f, DROPIN);
	assert_non_null(t);
	assert_non_null(strstr(t, "\nversion = 3\n"));
	assert_non_null(strstr(t, "[plugins.\"io.containerd.cri.v1.runtime\".containerd]\n  default_runtime_name = \"ioweight\"\n"));
	assert_non_null(strstr(t, "[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.ioweight]\n  runtime_type = 'io.containerd.runc.v2'\n"));
	assert_non_null(strstr(t, "  sandboxer = 'podsandbox'\n"));
	assert_non_null(strstr(t, "[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.ioweight.options]\n  BinaryName = \"/usr/local/sbin/ioweight-runc\"\n"));
	assert_non_null(strstr(t, "  SystemdCgroup = true\n"));
	assert_null(strstr(t, "grpc.v1.cri"));	/* never a version 2 name */
	free(t);
	t = fk_read(f, CONF);
	assert_non_null(strstr(t, "# ioweight-hook install: was: imports = []\nimports = [\"/etc/containerd/conf.d/ioweight.toml\"]  # ioweight-hook install: added\n"));
	free(t);
	free(orig);
}

/* a version 3 file whose imports already cover conf.d (2.2's default) is not edited */
static void test_containerd_v3_glob_covers(void **state)
{
	struct fake *f = *state;
	const char *orig = "version = 3\nimports = ['/etc/containerd/conf.d/*.toml']\n";
	char *t;

	fk_write(f, CONF, orig);
	install_once(f, false);
	t = fk_read(f, CONF);
	assert_string_equal(t, orig);
	free(t);
	t = fk_read(f, DROPIN);
	/* no runtime in config.toml: runc written next to ioweight */
	assert_non_null(strstr(t, "[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.runc]\n"));
	free(t);
}

/* --set-as-default where default_runtime_name is absent: after the table
 * header when there is one, else a new table in the block */
static void test_containerd_set_default_placements(void **state)
{
	struct fake *f = *state;
	const char *with_header = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = \"overlayfs\"\n";
	const char *no_header = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n";
	char *t;

	roundtrip(f, with_header, true, NULL);
	fk_write(f, CONF, with_header);
	install_once(f, true);
	t = fk_read(f, CONF);
	assert_non_null(strstr(t, "containerd]\n  default_runtime_name = \"ioweight\"  # ioweight-hook install: added\n  snapshotter"));
	free(t);
	roundtrip(f, no_header, true, NULL);
	fk_write(f, CONF, no_header);
	install_once(f, true);
	t = fk_read(f, CONF);
	assert_non_null(strstr(t, "# >>> ioweight-hook install: the lines down to the end marker; --uninstall removes them\n"
				  "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"ioweight\"\n"));
	/* runc's options copied, runtime_type filled in */
	assert_non_null(strstr(t, "runtimes.ioweight]\n  runtime_type = \"io.containerd.runc.v2\"\n"));
	assert_non_null(strstr(t, "runtimes.ioweight.options]\n  SystemdCgroup = true\n  BinaryName = \"/usr/local/sbin/ioweight-runc\"\n"));
	free(t);
}

/* a file without its final line break, inline tables and odd formatting */
static void test_containerd_odd_files(void **state)
{
	struct fake *f = *state;
	const char *inl = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
			  "  runtime_type = \"io.containerd.runc.v2\"\n  options = { SystemdCgroup = true, 'Root' = \"/run/r\" }\n"
			  "  pod_annotations = [\"x/*\", # comment\n    \"ioweight.dev/*\",\n  ]";
	char *t;

	roundtrip(f, inl, true, NULL);
	fk_write(f, CONF, inl);
	install_once(f, false);
	t = fk_read(f, CONF);
	assert_non_null(strstr(t, "runtimes.ioweight]\n  runtime_type = \"io.containerd.runc.v2\"\n"
				  "  pod_annotations = [\"x/*\", \"ioweight.dev/*\", \"blockio.resources.beta.kubernetes.io/*\", \"io.kubernetes.cri.blockio-class\"]\n"));
	assert_non_null(strstr(t, "runtimes.ioweight.options]\n  SystemdCgroup = true\n  Root = \"/run/r\"\n  BinaryName"));
	assert_non_null(strstr(t, "\n# ioweight-hook install: added the line break at the end of the line above\n"));
	free(t);
	/* CRLF line ends, and default_runtime_name written as a dotted key */
	roundtrip(f, "version = 2\r\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\r\n  default_runtime_name = \"runc\"\r\n", true, NULL);
	roundtrip(f, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  containerd.default_runtime_name = \"runc\"\n", true, NULL);
	fk_write(f, CONF, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  containerd.default_runtime_name = \"runc\"\n");
	install_once(f, true);
	t = fk_read(f, CONF);
	assert_non_null(strstr(t, "# ioweight-hook install: was:   containerd.default_runtime_name = \"runc\"\n"
				  "  containerd.default_runtime_name = \"ioweight\"  # ioweight-hook install: added\n"));
	free(t);
	roundtrip(f, "version = 2", false, NULL);
	roundtrip(f, "# only a comment\n", false, NULL);
	roundtrip(f, "", false, NULL);
}

/* the default runtime is someone else's: install says so */
static void test_containerd_warns_default(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	char *out;

	fk_write(f, CONF, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"nvidia\"\n"
		 "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n");
	opts(f, &o, RT_CONTAINERD);
	o.dry_run = true;
	out = run_install(&o, 0);
	assert_non_null(strstr(out, "warning: containerd's default runtime is `nvidia`: only pods whose RuntimeClass has handler `ioweight` run the hook"));
	/* another runtime defined: no runc added */
	assert_null(strstr(out, "runtimes.runc]"));
	free(out);
	o.set_default = true;
	out = run_install(&o, 0);
	assert_non_null(strstr(out, "warning: the default runtime was `nvidia`; --set-as-default replaces it"));
	free(out);
	fk_write(f, CONF, "version = 2\ndisabled_plugins = [\"cri\"]\n");
	o.set_default = false;
	out = run_install(&o, 0);
	assert_non_null(strstr(out, "warning: disabled_plugins lists `cri`"));
	free(out);
}

static void refused(struct fake *f, const char *conf, bool set_default, const char *msg)
{
	struct install_opts o;
	uint64_t before;
	char *m;

	if (conf)
		fk_write(f, CONF, conf);
	before = fk_snapshot(f);
	opts(f, &o, RT_CONTAINERD);
	o.set_default = set_default;
	m = run_install(&o, -1);
	if (!strstr(m, msg))
		fail_msg("refusal `%s` lacks `%s`", m, msg);
	free(m);
	assert_true(fk_snapshot(f) == before);
}

static void test_containerd_refusals(void **state)
{
	struct fake *f = *state;

	refused(f, "[plugins.cri.containerd]\n  snapshotter = \"overlayfs\"\n", false,
		"has no `version`, so containerd reads it as a version 1 file");
	refused(f, "version = 4\n", false, "version = 4: install understands version 2 (containerd 1.x) and 3");
	refused(f, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"\n", false,
		"/etc/containerd/config.toml:2: expected `]` after a table header");
	refused(f, "version = 2\nx = \"unterminated\n", false, "/etc/containerd/config.toml:2: newline in a single-line string");
	refused(f, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.ioweight]\n  runtime_type = \"io.containerd.runc.v2\"\n",
		false, "already defines a runtime `ioweight` that install did not add");
	refused(f, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.kata.v2\"\n",
		false, "the runc runtime's runtime_type is \"io.containerd.kata.v2\", not the runc shim");
	refused(f, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  runtimes = { runc = { runtime_type = \"io.containerd.runc.v2\" } }\n",
		false, "cannot add the table for the ioweight runtime (line 3 sets a value at or above it)");
	refused(f, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  containerd = { default_runtime_name = \"runc\" }\n",
		true, "line 3: default_runtime_name is not a plain `key = \"string\"` line");
	/* a `was:` copy of a marker would come back as a marker */
	refused(f, "version = 2\n# ioweight-hook install: was: # <<< ioweight-hook install\n", false,
		"without install's lines, line 2 would read as one of them: edit it by hand");
	/* an imported file with a CRI section would shadow config.toml's */
	fk_write(f, "root/etc/containerd/more/cri.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".registry]\n  config_path = \"/x\"\n");
	refused(f, "version = 2\nimports = [\"more/*.toml\"]\n", false,
		"/etc/containerd/more/cri.toml (imported by /etc/containerd/config.toml) configures the CRI plugin");
	/* someone else's file where the wrapper goes */
	fk_write(f, WRAPPER, "#!/bin/sh\necho theirs\n");
	refused(f, "version = 2\n", false, "/usr/local/sbin/ioweight-runc exists and was not written by ioweight-hook install");
}

/* uninstall of a file whose markers were damaged: refused, untouched */
static void test_containerd_damaged_markers(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	uint64_t before;
	char *m;

	fk_write(f, CONF, "version = 2\n# >>> ioweight-hook install: the lines down to the end marker\n[x]\n");
	before = fk_snapshot(f);
	opts(f, &o, RT_CONTAINERD);
	o.uninstall = true;
	m = run_install(&o, -1);
	assert_non_null(strstr(m, "line 2: `# >>> ioweight-hook install` without its end marker"));
	free(m);
	assert_true(fk_snapshot(f) == before);
	/* a config without any of our edits: nothing to undo */
	fk_write(f, CONF, "version = 2\n");
	o.uninstall = true;
	m = run_install(&o, 0);
	assert_non_null(strstr(m, "nothing to undo for /etc/containerd/config.toml"));
	free(m);
}

static void test_strip(void **state)
{
	char *out;
	size_t len;
	bool found, rm;
	struct hook_err err = { 0 };
	const char *in = "a\n# ioweight-hook install: was: b = 1\nb = 2  # ioweight-hook install: added\nc\n";

	(void)state;
	assert_int_equal(install_strip(in, strlen(in), &out, &len, &found, &rm, &err), 0);
	assert_string_equal(out, "a\nb = 1\nc\n");
	assert_true(found);
	assert_false(rm);
	free(out);
	assert_int_equal(install_strip("# <<< ioweight-hook install\n", 28, &out, &len, &found, &rm, &err), -1);
	assert_non_null(strstr(err.msg, "line 1: `# <<< ioweight-hook install` without its begin marker"));
}

static void test_crio(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	uint64_t before;
	char *t, *out;

	/* CRI-O's default hooks dir: the hooks.d file only */
	fk_mkdir(f, "root/etc/crio");
	before = fk_snapshot(f);
	opts(f, &o, RT_CRIO);
	out = run_install(&o, 0);
	assert_null(strstr(out, "crio.conf.d"));
	free(out);
	t = fk_read(f, "root/usr/share/containers/oci/hooks.d/ioweight-hook.json");
	assert_non_null(strstr(t, "\"timeout\": 10"));
	free(t);
	o.uninstall = true;
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == before);

	/* another dir: a drop-in adds it to CRI-O's hooks_dir (keeping the ones in effect) */
	fk_write(f, "root/etc/crio/crio.conf", "[crio.runtime]\n# hooks_dir = [\"/x\"]\ncgroup_manager = \"systemd\"\n");
	fk_write(f, "root/etc/crio/crio.conf.d/10-admin.conf", "[crio.runtime]\nhooks_dir = [\"/usr/share/containers/oci/hooks.d\", \"/etc/containers/oci/hooks.d\"]\n");
	before = fk_snapshot(f);
	opts(f, &o, RT_CRIO);
	strcpy(o.hooks_dir, "/opt/ioweight/hooks.d");
	o.dry_run = true;
	out = run_install(&o, 0);
	assert_non_null(strstr(out, "would create /etc/crio/crio.conf.d/99-ioweight.conf"));
	free(out);
	assert_true(fk_snapshot(f) == before);
	o.dry_run = false;
	free(run_install(&o, 0));
	t = fk_read(f, "root/etc/crio/crio.conf.d/99-ioweight.conf");
	assert_non_null(strstr(t, "[crio.runtime]\nhooks_dir = [\"/usr/share/containers/oci/hooks.d\", \"/etc/containers/oci/hooks.d\", \"/opt/ioweight/hooks.d\"]\n"));
	free(t);
	assert_non_null(t = fk_read(f, "root/opt/ioweight/hooks.d/ioweight-hook.json"));
	free(t);
	out = run_install(&o, 0);
	assert_null(strstr(out, "create "));
	free(out);
	o.uninstall = true;
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == before);

	/* a dir CRI-O already reads: no drop-in */
	opts(f, &o, RT_CRIO);
	strcpy(o.hooks_dir, "/etc/containers/oci/hooks.d");
	free(run_install(&o, 0));
	assert_null(fk_read(f, "root/etc/crio/crio.conf.d/99-ioweight.conf"));
	o.uninstall = true;
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == before);
}

static void test_podman(void **state)
{
	struct fake *f = *state;
	struct install_opts o;
	uint64_t before;
	char *t;
	yajl_val v = NULL;
	struct hook_err err = { 0 };

	fk_mkdir(f, "root/usr/share");
	before = fk_snapshot(f);
	opts(f, &o, RT_PODMAN);
	free(run_install(&o, 0));
	t = fk_read(f, "root/usr/share/containers/oci/hooks.d/ioweight-hook.json");
	assert_int_equal(json_parse(t, strlen(t), "hooks.d", &v, &err), 0);
	assert_non_null(strstr(t, "\"when\""));
	assert_non_null(strstr(t, "ioweight\\\\.dev/"));
	yajl_tree_free(v);
	free(t);
	o.uninstall = true;
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == before);
}

/* podman and CRI-O: install twice changes nothing; an admin's own config
 * written between installs is read, never edited, and survives --uninstall */
static void test_hooksd_reinstall(void **state)
{
	struct fake *f = *state;
	const char *admin = "[crio.runtime]\nhooks_dir = [\"/etc/containers/oci/hooks.d\"]\n";
	const char *conf = "root/etc/crio/crio.conf.d/50-admin.conf";
	struct install_opts o;
	uint64_t before, installed;
	char *t, *out;

	fk_mkdir(f, "root/usr/share");
	fk_write(f, "root/etc/containers/containers.conf", "[engine]\n");
	before = fk_snapshot(f);
	opts(f, &o, RT_PODMAN);
	free(run_install(&o, 0));
	installed = fk_snapshot(f);
	out = run_install(&o, 0);
	assert_non_null(strstr(out, "unchanged /usr/share/containers/oci/hooks.d/ioweight-hook.json"));
	free(out);
	assert_true(fk_snapshot(f) == installed);
	append(f, "root/etc/containers/containers.conf", "[engine.x]\n");
	installed = fk_snapshot(f);
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == installed);
	o.uninstall = true;
	free(run_install(&o, 0));
	t = fk_read(f, "root/etc/containers/containers.conf");
	assert_string_equal(t, "[engine]\n[engine.x]\n");
	free(t);
	fk_write(f, "root/etc/containers/containers.conf", "[engine]\n");
	assert_true(fk_snapshot(f) == before);

	/* CRI-O with its own hooks dir: the admin's drop-in arrives between installs */
	fk_write(f, "root/etc/crio/crio.conf", "[crio.runtime]\ncgroup_manager = \"systemd\"\n");
	fk_mkdir(f, "root/etc/crio/crio.conf.d");	/* CRI-O's package ships it */
	before = fk_snapshot(f);
	opts(f, &o, RT_CRIO);
	strcpy(o.hooks_dir, "/opt/ioweight/hooks.d");
	free(run_install(&o, 0));
	installed = fk_snapshot(f);
	free(run_install(&o, 0));
	assert_true(fk_snapshot(f) == installed);
	fk_write(f, conf, admin);
	free(run_install(&o, 0));
	t = fk_read(f, "root/etc/crio/crio.conf.d/99-ioweight.conf");
	assert_non_null(strstr(t, "hooks_dir = [\"/etc/containers/oci/hooks.d\", \"/opt/ioweight/hooks.d\"]\n"));
	free(t);
	installed = fk_snapshot(f);
	out = run_install(&o, 0);
	assert_null(strstr(out, "modify "));
	free(out);
	assert_true(fk_snapshot(f) == installed);
	o.uninstall = true;
	free(run_install(&o, 0));
	t = fk_read(f, conf);
	assert_string_equal(t, admin);
	free(t);
	unlink_rel(f, conf);
	assert_true(fk_snapshot(f) == before);
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
			       "\"hooks\":{\"prestart\":[{\"path\":\"/other\"},{\"path\":\"/opt/ioweight-hook\",\"args\":[\"ioweight-hook\",\"prestart\"],\"timeout\":10}]},\"x\":1.50}");
	free(t);
	fk_write(f, "bundle/config.json", "{\"ociVersion\":\"1.0.2\"}");
	assert_int_equal(wrapper_inject(p, "/h", &err), 0);
	t = fk_read(f, "bundle/config.json");
	assert_string_equal(t, "{\"ociVersion\":\"1.0.2\",\"hooks\":{\"prestart\":[{\"path\":\"/h\",\"args\":[\"ioweight-hook\",\"prestart\"],\"timeout\":10}]}}");
	free(t);
	fk_write(f, "bundle/config.json", "{\"hooks\":[]}");
	assert_int_equal(wrapper_inject(p, "/h", &err), -1);
	assert_non_null(strstr(err.msg, "`hooks` must be an object"));
}

int run_install_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_containerd_no_config, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_16_default, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_reinstall_runc_edit, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_debian_stock, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_v3, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_v3_glob_covers, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_set_default_placements, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_odd_files, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_warns_default, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_refusals, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_containerd_damaged_markers, fake_setup, fake_teardown),
		cmocka_unit_test(test_strip),
		cmocka_unit_test_setup_teardown(test_crio, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_podman, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hooksd_reinstall, fake_setup, fake_teardown),
		cmocka_unit_test(test_wrapper_argv),
		cmocka_unit_test_setup_teardown(test_wrapper_inject, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests_name("installer", tests, NULL, NULL);
}
