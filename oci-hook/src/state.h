/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state.h - reading what the runtime hands us: the OCI state document on
 * stdin and, when the state lacks something, the bundle's config.json.
 *
 * Owns: struct oci_state, its validation (id, pid, bundle, annotations),
 * and the linux.cgroupsPath / annotations fallbacks from config.json.
 */
#ifndef IOWEIGHT_STATE_H
#define IOWEIGHT_STATE_H

#include "util.h"

struct kv {
	char *key;
	char *value;
};

struct oci_state {
	char *oci_version;
	char *id;
	char *status;		/* may be NULL: not all runtimes send it */
	long pid;		/* 0 when absent (createRuntime on some runtimes) */
	char *bundle;
	struct kv *ann;
	size_t n_ann;
	bool has_annotations;	/* the key was present, even if empty */
};

int state_parse(const char *buf, size_t len, struct oci_state *st, struct hook_err *err);
void state_free(struct oci_state *st);
const char *state_annotation(const struct oci_state *st, const char *key);

/* Annotations object (string -> string) into a kv array. */
struct yajl_val_s;
int annotations_from_json(struct yajl_val_s *obj, const char *ctx, struct kv **out,
			  size_t *n, struct hook_err *err);
void kv_free(struct kv *kv, size_t n);

/*
 * From <bundle>/config.json: linux.cgroupsPath (*cgroups_path, NULL if
 * absent) and, if the state had no annotations, the spec's annotations.
 * With `optional`, a bundle without config.json is no error (nothing is
 * read); any other failure still is.
 */
int spec_load(struct oci_state *st, bool optional, char **cgroups_path, struct hook_err *err);

/* Container ids as runc accepts them: [A-Za-z0-9_+.-], 1..1024 chars. */
bool valid_container_id(const char *id);

#endif
