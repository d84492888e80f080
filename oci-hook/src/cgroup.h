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
#include "state.h"
#include "util.h"

int cgroup_of_pid(const struct hook_roots *roots, long pid, char *out, size_t outlen,
		  struct hook_err *err);
int cgroup_from_spec(const char *cgroups_path, char *out, size_t outlen, struct hook_err *err);
/* linux.cgroupsPath in the systemd driver's "slice:prefix:name" form? */
bool cgroup_path_is_systemd(const char *cgroups_path);
/* Could cg be a systemd unit's cgroup (a last component *.scope or *.slice)? */
bool cgroup_looks_like_unit(const char *cg);
int cgroup_check_path(const char *cg, const char *what, struct hook_err *err);

/*
 * Is ctr_cg a container of a kubelet pod cgroup?  Only the exact layouts
 * the kubelet creates count, matched name by name:
 *   cgroupfs  [prefix]/kubepods[/burstable|/besteffort]/pod<uid>/<ctr>
 *   systemd   /kubepods.slice[/kubepods-<qos>.slice]/kubepods[-<qos>]-pod<uid>.slice/
 *             cri-containerd-<id>.scope | crio-<id>.scope
 * On true, pod_cg (if not NULL) gets the parent, the pod cgroup.
 */
bool cgroup_kubelet_pod(const char *ctr_cg, char *pod_cg, size_t podlen);

/*
 * Decide whether ctr_cg is a container in a pod and, if so, give the pod
 * cgroup.  *in_pod = false for standalone containers.  CRI annotations that
 * claim a pod the layout does not confirm are an error: weighting a shared
 * parent such as /machine.slice or /kubepods/burstable would change the
 * share of everything under it.
 */
int cgroup_find_pod(const char *ctr_cg, const struct ann_values *av, bool *in_pod, char *pod_cg,
		    size_t podlen, struct hook_err *err);

#endif
