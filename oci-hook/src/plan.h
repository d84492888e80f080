/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan.h - cgroup writing: the list of writes a request turns into, and
 * carrying them out.
 *
 * Owns: struct plan, its construction (root profile lines, `+io` in each
 * ancestor's cgroup.subtree_control, io.weight entries) and its application:
 * every entry is compared with what the file already says and written, if it
 * differs, with one unbuffered write() so the kernel's error reaches us.
 * Files are never opened by path: each cgroup directory is opened once
 * (beneath the cgroup root, no symlinks, no other mounts), checked to be
 * cgroup2, and every file is opened relative to it.
 * Under the systemd cgroup driver the weights go to systemd first, as
 * runtime properties of the pod slice and container scope (systemd.h), and
 * are then written to the files as well: systemd applies properties
 * asynchronously, the files make them effective before the container runs.
 * `explain` runs the same code with writing switched off.
 */
#ifndef IOWEIGHT_PLAN_H
#define IOWEIGHT_PLAN_H

#include "annotations.h"
#include "config.h"
#include "device.h"
#include "systemd.h"
#include "util.h"

enum plan_kind { PLAN_COST_MODEL, PLAN_QOS, PLAN_SUBTREE, PLAN_WEIGHT, NR_PLAN_KINDS };
enum plan_status { PS_PENDING, PS_WRITTEN, PS_UNCHANGED, PS_WOULD_WRITE };

enum {
	PLAN_LINE_MAX = 256,
	PLAN_WHY_MAX = 192,
	PLAN_MAX_DISKS = 64,
	PLAN_MAX_DIRS = MAX_CGROUP_DEPTH + 2,	/* ancestors, pod, container */
};

struct plan_entry {
	enum plan_kind kind;
	enum plan_status status;
	size_t dir;			/* index into plan.dirs */
	char file[CFG_KFILE_MAX];	/* name inside that directory */
	char path[PATH_MAX];		/* root + cgroup + file, for people */
	char line[PLAN_LINE_MAX];	/* exactly what write() gets */
	char why[PLAN_WHY_MAX];
};

/* A cgroup directory the plan writes in, "/" being the root. */
struct plan_dir {
	char cg[PATH_MAX / 2];
	int fd;				/* from plan_open_dirs(), else -1 */
};

/* Systemd driver: the weights of one unit, set over D-Bus. */
struct plan_unit {
	char name[SYSTEMD_UNIT_MAX];	/* kubepods-…-pod<uid>.slice, cri-containerd-<id>.scope */
	char cg[PATH_MAX / 2];		/* the cgroup systemd must say is the unit's */
	struct unit_weights w;
	enum plan_status status;
	char why[PLAN_WHY_MAX];
};

struct plan {
	struct plan_entry *e;
	size_t n, cap;
	struct plan_dir *dirs;
	size_t n_dirs, dirs_cap;
	int root_fd;			/* the cgroup root, from plan_open_dirs() */
	struct plan_unit units[2];	/* pod, container: systemd driver only */
	size_t n_units;
	struct sd_bus *bus;		/* from plan_connect_systemd() */
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
	bool systemd;			/* the runtime uses the systemd cgroup driver */
};

int plan_build(const struct plan_input *in, struct plan *p, struct hook_err *err);

/*
 * Open every directory of the plan beneath `cgroup_root`: openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV (or, on kernels
 * without it, one O_NOFOLLOW openat() per component), and refuse any that
 * is not on cgroup2.  With dry_run, absent directories are fine (their
 * entries would be written) and the filesystem is not checked.
 */
int plan_open_dirs(struct plan *p, const char *cgroup_root, bool dry_run, struct hook_err *err);

/*
 * Systemd driver: connect to the manager at socket_path and check that
 * each unit of the plan is the one systemd has for its cgroup.  Before the
 * sandbox, which then lets the connection's fd (and nothing else) talk.
 */
int plan_connect_systemd(struct plan *p, const char *socket_path, struct hook_err *err);

#ifdef IOWEIGHT_TESTING
/* Test builds only: the unit tests' cgroup root is a temp dir on tmpfs or
 * ext4, so they clear this to skip the cgroup2 check (one test sets it to
 * prove the refusal).  Production builds have no such switch. */
extern bool plan_testing_require_cgroup2;
#endif

/*
 * Carry out the plan.  With dry_run, files are read but never written and
 * entries that would change are marked PS_WOULD_WRITE.  Units are set
 * before any file is written.  Stops at the first failed write or call (the
 * error names the file or unit, what was written and the reason).
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
