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

#include "util.h"

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

/*
 * Expand a config rule (path or glob) to distinct whole disks, appended to
 * out[*n] up to max.  Entries that are not block devices are skipped:
 * "/dev/vd*" may well match more than disks.
 */
int device_expand_rule(const struct hook_roots *roots, const char *match, struct devnum *out,
		       size_t *n, size_t max, struct hook_err *err);

#endif
