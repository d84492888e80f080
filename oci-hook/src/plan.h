/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan.h - cgroup writing: the list of writes a request turns into, and
 * carrying them out.
 *
 * Owns: struct plan, its construction (root profile lines, `+io` in each
 * ancestor's cgroup.subtree_control, io.weight entries) and its application:
 * every entry is compared with what the file already says and written, if it
 * differs, with one unbuffered write() so the kernel's error reaches us.
 * `explain` runs the same code with writing switched off.
 */
#ifndef IOWEIGHT_PLAN_H
#define IOWEIGHT_PLAN_H

#include "annotations.h"
#include "config.h"
#include "device.h"
#include "util.h"

enum plan_kind { PLAN_COST_MODEL, PLAN_QOS, PLAN_SUBTREE, PLAN_WEIGHT, NR_PLAN_KINDS };
enum plan_status { PS_PENDING, PS_WRITTEN, PS_UNCHANGED, PS_WOULD_WRITE };

enum {
	PLAN_LINE_MAX = 256,
	PLAN_WHY_MAX = 192,
	PLAN_MAX_DISKS = 64,
};

struct plan_entry {
	enum plan_kind kind;
	enum plan_status status;
	char path[PATH_MAX];
	char line[PLAN_LINE_MAX];	/* exactly what write() gets */
	char why[PLAN_WHY_MAX];
};

struct plan {
	struct plan_entry *e;
	size_t n, cap;
};

struct plan_input {
	const struct hook_roots *roots;
	const struct ioweight_config *cfg;
	const char *ctr_cg;		/* container cgroup */
	const char *pod_cg;		/* NULL unless in a pod */
	const struct hook_request *req;
	/* disks matched by the config's device rules and their profile */
	const struct devnum *disks;
	const int *disk_profile;
	size_t n_disks;
};

int plan_build(const struct plan_input *in, struct plan *p, struct hook_err *err);

/*
 * Carry out the plan.  With dry_run, files are read but never written and
 * entries that would change are marked PS_WOULD_WRITE.  Stops at the first
 * failed write (the error names the file, the line and the kernel's reason).
 */
int plan_apply(struct plan *p, bool dry_run, struct hook_err *err);

void plan_free(struct plan *p);
const char *plan_kind_name(enum plan_kind k);

/* The disks that get a profile: for each disk, the first rule with a
 * profile that matched one of its names. */
int plan_profile_disks(const struct ioweight_config *cfg, const struct disk_name *names,
		       size_t n_names, struct devnum *disks, int *profile, size_t *n,
		       struct hook_err *err);

#endif
