// SPDX-License-Identifier: GPL-2.0-or-later
/* testutil.c - fake trees for the unit tests. */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "test setup: %s: %s\n", what, strerror(errno));
		abort();
	}
}

void fk_mkdir(struct fake *f, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	for (char *s = p + strlen(f->root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	must(mkdir(p, 0755) == 0 || errno == EEXIST, p);
}

void fk_write(struct fake *f, const char *rel, const char *content)
{
	char p[PATH_MAX], d[PATH_MAX];
	FILE *fp;

	snprintf(d, sizeof(d), "%s", rel);
	if (strrchr(d, '/')) {
		*strrchr(d, '/') = '\0';
		fk_mkdir(f, d);
	}
	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	fp = fopen(p, "w");
	must(fp != NULL, p);
	fputs(content, fp);
	fclose(fp);
}

char *fk_read(struct fake *f, const char *rel)
{
	char p[PATH_MAX];
	char *buf = NULL;
	struct hook_err e;

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	if (read_file_bounded(p, 1 << 20, &buf, NULL, &e) < 0)
		return NULL;
	return buf;
}

void fk_symlink(struct fake *f, const char *target, const char *rel)
{
	char p[PATH_MAX], d[PATH_MAX];

	snprintf(d, sizeof(d), "%s", rel);
	*strrchr(d, '/') = '\0';
	fk_mkdir(f, d);
	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	must(symlink(target, p) == 0, p);
}

void fk_config(struct fake *f, const char *json)
{
	fk_write(f, "conf/10-test.json", json);
}

static uint64_t snap_hash;
static size_t snap_root_len;

static void fnv(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		snap_hash ^= c[i];
		snap_hash *= 1099511628211ULL;
	}
}

static int snap_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	fnv(path + snap_root_len, strlen(path) + 1 - snap_root_len);
	fnv(&st->st_mode, sizeof(st->st_mode));
	if (type == FTW_F) {
		char *buf = NULL;
		size_t len = 0;
		struct hook_err e;

		if (read_file_bounded(path, 1 << 22, &buf, &len, &e) == 0)
			fnv(buf, len);
		free(buf);
	} else if (type == FTW_SL) {
		char t[PATH_MAX];
		ssize_t n = readlink(path, t, sizeof(t));

		if (n > 0)
			fnv(t, (size_t)n);
	}
	return 0;
}

uint64_t fk_snapshot(struct fake *f)
{
	snap_hash = 1469598103934665603ULL;
	snap_root_len = strlen(f->root);
	nftw(f->root, snap_cb, 16, FTW_PHYS);
	return snap_hash;
}

char *fk_state(long pid, const char *ann)
{
	char *s = NULL;

	if (asprintf(&s, "{\"ociVersion\":\"1.0.2\",\"id\":\"ctr1\",\"status\":\"created\",\"pid\":%ld,"
			 "\"bundle\":\"/nonexistent-bundle\",\"annotations\":{%s}}",
		     pid, ann ? ann : "") < 0)
		abort();
	return s;
}

static int run(struct fake *f, const char *state_json, bool dry, struct hook_result *res,
	       struct hook_err *err)
{
	struct hook_opts o = { .roots = f->roots, .dry_run = dry, .sandbox = false };
	struct oci_state st;
	int r;

	memset(res, 0, sizeof(*res));
	memset(err, 0, sizeof(*err));
	if (state_parse(state_json, strlen(state_json), &st, err) < 0)
		return -1;
	r = hook_run(&o, &st, res, err);
	state_free(&st);
	return r;
}

int fk_run(struct fake *f, const char *s, struct hook_result *res, struct hook_err *err)
{
	return run(f, s, false, res, err);
}

int fk_explain(struct fake *f, const char *s, struct hook_result *res, struct hook_err *err)
{
	return run(f, s, true, res, err);
}

int fake_setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	snprintf(f->root, sizeof(f->root), "%s/ioweight-test-XXXXXX", tmp ? tmp : "/tmp");
	must(mkdtemp(f->root) != NULL, "mkdtemp");
	roots_default(&f->roots);
	snprintf(f->roots.cgroup, PATH_MAX, "%s/cg", f->root);
	snprintf(f->roots.sys, PATH_MAX, "%s/sys", f->root);
	snprintf(f->roots.proc, PATH_MAX, "%s/proc", f->root);
	snprintf(f->roots.dev, PATH_MAX, "%s/dev", f->root);
	snprintf(f->roots.config_dir, PATH_MAX, "%s/conf", f->root);
	snprintf(f->roots.systemd_socket, PATH_MAX, "%s/systemd-private", f->root);

	fk_write(f, "cg/cgroup.controllers", "cpuset cpu io memory pids\n");
	fk_write(f, "cg/cgroup.subtree_control", "");
	fk_write(f, "cg/io.weight.cost_model", "");
	fk_write(f, "cg/io.weight.qos", "");
	fk_write(f, "cg/test/cgroup.subtree_control", "");
	fk_write(f, "cg/test/ctr1/io.weight", "");
	fk_write(f, "cg/kubepods/cgroup.subtree_control", "");
	fk_write(f, "cg/kubepods/burstable/cgroup.subtree_control", "");
	fk_write(f, "cg" KPOD "/cgroup.subtree_control", "");
	fk_write(f, "cg" KPOD "/io.weight", "");
	fk_write(f, "cg" KPOD "/ctr2/io.weight", "");
	fk_write(f, "cg/kubepods.slice/cgroup.subtree_control", "");
	fk_write(f, "cg/kubepods.slice/kubepods-burstable.slice/cgroup.subtree_control", "");
	fk_write(f, "cg" SPOD "/cgroup.subtree_control", "");
	fk_write(f, "cg" SPOD "/io.weight", "");
	fk_write(f, "cg" SCTR "/io.weight", "");

	fk_write(f, "sys/devices/pci0/block/sda/dev", "8:0\n");
	fk_write(f, "sys/devices/pci0/block/sda/sda1/dev", "8:1\n");
	fk_write(f, "sys/devices/pci0/block/sda/sda1/partition", "1\n");
	fk_write(f, "sys/devices/virtio1/block/vdb/dev", "254:16\n");
	fk_symlink(f, "../../devices/pci0/block/sda", "sys/dev/block/8:0");
	fk_symlink(f, "../../devices/pci0/block/sda/sda1", "sys/dev/block/8:1");
	fk_symlink(f, "../../devices/virtio1/block/vdb", "sys/dev/block/254:16");

	fk_write(f, "dev/sda", "block 8:0");
	fk_write(f, "dev/sda1", "block 8:1");
	fk_write(f, "dev/vdb", "block 254:16");
	fk_write(f, "dev/vdz", "block 254:99");	/* no sysfs entry */
	fk_write(f, "dev/null", "char 1:3");
	fk_symlink(f, "../../vdb", "dev/disk/by-id/virtio-data");
	fk_symlink(f, "../../sda1", "dev/disk/by-partuuid/p1");
	fk_write(f, "etc/x", "secret");
	fk_symlink(f, "../../../etc/x", "dev/disk/by-id/evil");

	fk_write(f, "proc/100/cgroup", "0::/test/ctr1\n");
	fk_write(f, "proc/200/cgroup", "1:name=systemd:/x\n0::" KPOD "/ctr2\n");
	fk_write(f, "proc/300/cgroup", "0::" SCTR "\n");
	fk_mkdir(f, "conf");
	*state = f;
	return 0;
}

static int rm_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

int fake_teardown(void **state)
{
	struct fake *f = *state;

	nftw(f->root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}
