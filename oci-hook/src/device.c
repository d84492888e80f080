// SPDX-License-Identifier: GPL-2.0-or-later
/* device.c - device name -> whole-disk MAJ:MIN resolution. */
#include "device.h"

#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/*
 * stat() that, in the test build only, also understands fake device nodes:
 * a regular file whose content is "block MAJ:MIN" or "char MAJ:MIN".
 * Creating real nodes needs CAP_MKNOD, which unit tests must not need.
 */
static int dev_stat(const char *path, struct stat *st)
{
	if (stat(path, st) < 0)
		return -1;
#ifdef IOWEIGHT_TESTING
	if (S_ISREG(st->st_mode) && st->st_size < 64) {
		char buf[64] = "";
		unsigned ma, mi;
		FILE *f = fopen(path, "re");

		if (f) {
			size_t r = fread(buf, 1, sizeof(buf) - 1, f);

			buf[r] = '\0';
			fclose(f);
			if (sscanf(buf, "block %u:%u", &ma, &mi) == 2) {
				st->st_mode = S_IFBLK | 0600;
				st->st_rdev = makedev(ma, mi);
			} else if (sscanf(buf, "char %u:%u", &ma, &mi) == 2) {
				st->st_mode = S_IFCHR | 0600;
				st->st_rdev = makedev(ma, mi);
			}
		}
	}
#endif
	return 0;
}

static int read_devnum_file(const char *path, struct devnum *out, struct hook_err *err)
{
	_cleanup_free_ char *buf = NULL;
	unsigned ma, mi;
	char extra;

	if (read_file_bounded(path, 64, &buf, NULL, err) < 0)
		return -1;
	if (sscanf(buf, "%u:%u%c", &ma, &mi, &extra) < 2)
		return hook_fail(err, 0, "%s: cannot parse `%.16s` as MAJ:MIN", path, buf);
	out->maj = ma;
	out->min = mi;
	return 0;
}

int device_whole_disk(const struct hook_roots *roots, struct devnum in, struct devnum *out,
		      struct hook_err *err)
{
	char link[PATH_MAX], real[PATH_MAX], probe[PATH_MAX + 16];
	struct stat st;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", roots->sys, in.maj, in.min);
	if (!realpath(link, real))
		return hook_fail(err, errno == ENOENT ? 0 : errno,
				 "block device %u:%u is unknown to the kernel (no %s)", in.maj,
				 in.min, link);
	snprintf(probe, sizeof(probe), "%s/partition", real);
	if (stat(probe, &st) < 0) {
		*out = in;	/* no "partition" attribute: already a whole disk */
		return 0;
	}
	/* a partition's sysfs directory sits inside its disk's */
	*strrchr(real, '/') = '\0';
	snprintf(probe, sizeof(probe), "%s/dev", real);
	return read_devnum_file(probe, out, err);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return 1;
	return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

int device_resolve(const struct hook_roots *roots, const char *spec, struct devnum *out,
		   struct hook_err *err)
{
	char rooted[PATH_MAX], real[PATH_MAX];
	struct stat st;
	struct devnum d;

	if (spec[0] != '/' || path_has_dot_component(spec))
		return hook_fail(err, 0, "device `%.64s`: must be an absolute path without `.`/`..`", spec);
	if (!strncmp(spec, "/dev/", 5)) {
		if (path_join(rooted, sizeof(rooted), roots->dev, spec + 4, err) < 0)
			return -1;
		if (!realpath(rooted, real))
			return hook_fail(err, errno, "device %s", spec);
		/* a by-* link (or anything) pointing out of /dev is not a device name */
		if (!under(real, roots->dev))
			return hook_fail(err, 0, "device %s: resolves outside /dev", spec);
		if (dev_stat(real, &st) < 0)
			return hook_fail(err, errno, "device %s", spec);
		if (!S_ISBLK(st.st_mode))
			return hook_fail(err, 0, "device %s: not a block device", spec);
		d.maj = major(st.st_rdev);
		d.min = minor(st.st_rdev);
	} else {
		/* a path on a mounted filesystem: the disk that holds it */
		if (dev_stat(spec, &st) < 0)
			return hook_fail(err, errno, "device path %s", spec);
		if (S_ISBLK(st.st_mode)) {
			d.maj = major(st.st_rdev);
			d.min = minor(st.st_rdev);
		} else {
			d.maj = major(st.st_dev);
			d.min = minor(st.st_dev);
			if (d.maj == 0)
				return hook_fail(err, 0, "device path %s: its filesystem (%u:%u) has no block device (tmpfs, overlay, nfs?)",
						 spec, d.maj, d.min);
		}
	}
	if (device_whole_disk(roots, d, out, err) < 0)
		return hook_fail_prefix(err, "device %s: ", spec);
	return 0;
}

static int add_name(struct disk_name *out, size_t *n, size_t max, const char *path,
		    struct devnum d, int rule, struct hook_err *err)
{
	if (strlen(path) >= DISK_NAME_MAX)
		return 0;	/* longer than any name a pod may write */
	for (size_t i = 0; i < *n; i++)
		if (out[i].rule == rule && !strcmp(out[i].path, path))
			return 0;
	if (*n == max)
		return hook_fail(err, 0, "device rules match more than %zu names", max);
	strcpy(out[*n].path, path);
	out[*n].d = d;
	out[*n].rule = rule;
	(*n)++;
	return 0;
}

static int expand_rule(const struct hook_roots *roots, const char *match, int rule,
		       struct disk_name *out, size_t *n, size_t max, struct hook_err *err)
{
	char pattern[PATH_MAX];
	bool is_dev = !strncmp(match, "/dev/", 5);
	glob_t g;
	int r;

	if (!strpbrk(match, "*?[")) {
		struct devnum d;
		struct hook_err e = { 0 };

		/* an absent disk is not an error: the config is host-wide */
		if (device_resolve(roots, match, &d, &e) < 0)
			return e.code == ENOENT ? 0 : (memcpy(err, &e, sizeof(e)), -1);
		return add_name(out, n, max, match, d, rule, err);
	}
	if (is_dev) {
		if (path_join(pattern, sizeof(pattern), roots->dev, match + 4, err) < 0)
			return -1;
	} else {
		snprintf(pattern, sizeof(pattern), "%s", match);
	}
	r = glob(pattern, GLOB_NOSORT, NULL, &g);
	if (r == GLOB_NOMATCH)
		return 0;
	if (r)
		return hook_fail(err, 0, "device rule `%s`: glob failed", match);
	/* glob order is directory order: sort for stable logs */
	qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmp_strp);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char spec[PATH_MAX];
		struct devnum d;
		struct hook_err e = { 0 };

		if (is_dev)
			snprintf(spec, sizeof(spec), "/dev%s", g.gl_pathv[i] + strlen(roots->dev));
		else
			snprintf(spec, sizeof(spec), "%s", g.gl_pathv[i]);
		if (device_resolve(roots, spec, &d, &e) < 0)
			continue;
		if (add_name(out, n, max, spec, d, rule, err) < 0) {
			globfree(&g);
			return -1;
		}
	}
	globfree(&g);
	return 0;
}

int device_expand_rules(const struct hook_roots *roots, const struct ioweight_config *cfg,
			struct disk_name *out, size_t *n, size_t max, struct hook_err *err)
{
	*n = 0;
	for (size_t r = 0; r < cfg->n_rules; r++)
		if (expand_rule(roots, cfg->rules[r].match, (int)r, out, n, max, err) < 0)
			return hook_fail_prefix(err, "%s: devices[%zu]: ", cfg->source, r);
	return 0;
}

const struct disk_name *device_lookup(const struct ioweight_config *cfg,
				      const struct disk_name *names, size_t n, const char *spec)
{
	for (size_t i = 0; i < n; i++) {
		char num[32];

		if (!cfg->rules[names[i].rule].pod_weights)
			continue;
		snprintf(num, sizeof(num), "%u:%u", names[i].d.maj, names[i].d.min);
		if (!strcmp(spec, names[i].path) || !strcmp(spec, num))
			return &names[i];
	}
	return NULL;
}
