/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotations.h - what a pod or container asks for, and where it applies.
 *
 * Owns: the annotation keys (ours and the blockio-class ones we accept), the
 * syntax checks on their values, and the placement rule: in a pod the pod
 * keys weight the pod cgroup and container keys weight the container inside
 * it; a standalone container gets everything on its own cgroup.  Class names
 * are resolved and the config's limits and switches applied here.
 */
#ifndef IOWEIGHT_ANNOTATIONS_H
#define IOWEIGHT_ANNOTATIONS_H

#include "config.h"
#include "state.h"

/* Our keys: prefix "ioweight.dev/" (a DNS subdomain, as Kubernetes requires);
 * names are <= 63 chars of [A-Za-z0-9._-]. */
#define ANN_PREFIX "ioweight.dev/"
#define ANN_WEIGHT ANN_PREFIX "weight"
#define ANN_CLASS ANN_PREFIX "class"
#define ANN_DEVICE_WEIGHTS ANN_PREFIX "device-weights"
#define ANN_CONTAINER ANN_PREFIX "container."	/* + container name: W or CLASS */

/* blockio-class keys already in use with containerd/CRI-O, highest first */
#define ANN_CRI_BLOCKIO "io.kubernetes.cri.blockio-class"
#define ANN_BLOCKIO_CONTAINER "blockio.resources.beta.kubernetes.io/container."
#define ANN_BLOCKIO_POD "blockio.resources.beta.kubernetes.io/pod"

/* set by the CRI implementations, read to know we are in a pod */
#define ANN_CRI_CONTAINER_TYPE "io.kubernetes.cri.container-type"
#define ANN_CRI_SANDBOX_ID "io.kubernetes.cri.sandbox-id"
#define ANN_CRI_CONTAINER_NAME "io.kubernetes.cri.container-name"
#define ANN_CRIO_CONTAINER_TYPE "io.kubernetes.cri-o.ContainerType"
#define ANN_CRIO_SANDBOX_ID "io.kubernetes.cri-o.SandboxID"
#define ANN_K8S_CONTAINER_NAME "io.kubernetes.container.name"
#define ANN_CRI_NAMESPACE "io.kubernetes.cri.sandbox-namespace"
#define ANN_K8S_NAMESPACE "io.kubernetes.pod.namespace"

enum {
	ANN_NAME_MAX = 63,	/* Kubernetes: name part of a key */
	ANN_PREFIX_MAX = 253,	/* Kubernetes: DNS-subdomain prefix */
	DEV_PATH_MAX = 255,	/* a device spec in device-weights */
	NOTE_MAX = 8,
	NOTE_LEN = 320,
};

enum container_type { CT_NONE, CT_SANDBOX, CT_CONTAINER };

struct dev_req {
	char path[DEV_PATH_MAX + 1];	/* a /dev path or "MAJ:MIN", as written */
	long weight;
	unsigned maj, min;	/* filled from the config's device list */
};

/* Syntax-checked annotation values, before config and placement. */
struct ann_values {
	long weight;			/* 0 = absent */
	char class_[ANN_NAME_MAX + 1];
	struct dev_req devs[MAX_DEVICE_ENTRIES];
	size_t n_devs;
	long ctr_weight;		/* ioweight.dev/container.<own name> */
	char ctr_class[ANN_NAME_MAX + 1];
	char cri_blockio[ANN_NAME_MAX + 1], blockio_ctr[ANN_NAME_MAX + 1],
		blockio_pod[ANN_NAME_MAX + 1];
	enum container_type ctype;
	char sandbox_id[129];
	char container_name[ANN_NAME_MAX + 1];
	char namespace_[ANN_NAME_MAX + 1];	/* the pod's namespace, "" if unknown */
};

struct weight_target {
	bool set;
	long weight;
	char source[160];	/* "ioweight.dev/class=high" - for logs and explain */
	struct dev_req devs[MAX_DEVICE_ENTRIES];
	size_t n_devs;
};

struct hook_request {
	struct weight_target pod;	/* pod cgroup (only in a pod) */
	struct weight_target ctr;	/* the container's own cgroup */
	char notes[NOTE_MAX][NOTE_LEN];	/* ignored keys and why, for the log */
	size_t n_notes;
};

int annotations_parse(const struct kv *ann, size_t n, struct ann_values *out,
		      struct hook_err *err);

/* Does any key ask the hook for something (ours, or a blockio-class key)?
 * A container that asks for nothing starts untouched whatever goes wrong. */
bool annotations_request_anything(const struct kv *ann, size_t n);

/* Apply the config (switches, classes, limits) and the placement rule. */
int request_build(const struct ann_values *av, const struct ioweight_config *cfg, bool in_pod,
		  struct hook_request *req, struct hook_err *err);

bool valid_label(const char *s, size_t max);

#endif
