/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * device.h - from a name a person wrote to the MAJ:MIN the kernel wants.
 *
 * Owns: resolving /dev nodes, /dev/disk/by-* links and paths on mounted
 * filesystems to the whole disk (a partition maps to its parent through
 * sysfs), and expanding the config's device globs.
 */
#ifndef IOWEIGHT_DEVICE_H
#define IOWEIGHT_DEVICE_H

#include "config.h"
#include "util.h"

enum {
	DISK_NAME_MAX = 256,	/* a path a device rule matched */
	DISK_NAMES_MAX = 256,	/* names over all rules */
};

struct devnum {
	unsigned maj, min;
};

/*
 * Resolve `spec` (absolute path) to the whole-disk device number.
 * /dev/... is looked up under roots->dev and must stay inside it after
 * following links; any other path names a file whose filesystem's device is
 * used.  Fails for non-block nodes and device-less filesystems.
 */
int device_resolve(const struct hook_roots *roots, const char *spec, struct devnum *out,
		   struct hook_err *err);

/* Map a (maybe partition) device number to its whole disk via sysfs. */
int device_whole_disk(const struct hook_roots *roots, struct devnum in, struct devnum *out,
		      struct hook_err *err);

/* A name the admin's config gave a disk: the path a rule matched. */
struct disk_name {
	char path[DISK_NAME_MAX];	/* "/dev/vdb", "/dev/disk/by-id/x" */
	struct devnum d;		/* its whole disk */
	int rule;			/* index of the rule that matched it */
};

/*
 * Expand every rule of the config (path or glob, in rule order) to the
 * names it matches on this host, appended to out[*n] up to max.  Matches
 * that are not block devices, or are absent, are skipped: "/dev/vd*" may
 * match more than disks, and the config is host-wide.  Only the admin's
 * rules are ever resolved; pods pick from the result (device_lookup).
 */
int device_expand_rules(const struct hook_roots *roots, const struct ioweight_config *cfg,
			struct disk_name *out, size_t *n, size_t max, struct hook_err *err);

/*
 * The disk a pod named in device-weights: `spec` ("/dev/vdb" or "8:16")
 * must equal a name, or the MAJ:MIN of a whole disk, that a rule with
 * podWeights matched.  A string compare: nothing is looked up.
 */
const struct disk_name *device_lookup(const struct ioweight_config *cfg,
				      const struct disk_name *names, size_t n, const char *spec);

#endif
