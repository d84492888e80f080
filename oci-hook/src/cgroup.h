/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup.h - where in the cgroup v2 tree a container lives.
 *
 * Owns: reading /proc/<pid>/cgroup, turning a spec's linux.cgroupsPath
 * (cgroupfs or systemd "slice:prefix:name" form) into a path, and finding
 * the pod cgroup (kubelet path patterns, or CRI sandbox annotations checked
 * against the tree).  Paths are relative to the cgroup2 mount, start with
 * "/", and never contain "." or ".." components.
 */
#ifndef IOWEIGHT_CGROUP_H
#define IOWEIGHT_CGROUP_H

#include "annotations.h"
#include "util.h"

int cgroup_of_pid(const struct hook_roots *roots, long pid, char *out, size_t outlen,
		  struct hook_err *err);
int cgroup_from_spec(const char *cgroups_path, char *out, size_t outlen, struct hook_err *err);
int cgroup_check_path(const char *cg, const char *what, struct hook_err *err);

/* "pod<uid>" (cgroupfs driver) or "kubepods[-qos]-pod<uid>.slice" (systemd). */
bool cgroup_is_kubelet_pod(const char *basename);

/*
 * Decide whether ctr_cg is a container in a pod and, if so, give the pod
 * cgroup.  *in_pod = false for standalone containers.  Annotations that claim
 * a pod the tree does not confirm are an error: weighting a shared parent
 * such as /kubepods would change every pod's share.
 */
int cgroup_find_pod(const struct hook_roots *roots, const char *ctr_cg, const char *ctr_id,
		    const struct ann_values *av, bool *in_pod, char *pod_cg, size_t podlen,
		    struct hook_err *err);

#endif
