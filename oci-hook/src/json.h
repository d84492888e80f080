/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - the only place that talks to yajl directly.
 *
 * Owns: bounded parsing (size, nesting depth, NUL bytes, duplicate keys),
 * type-checked member lookup that tells "absent" from "wrong type", and
 * re-serialising a tree (used by the runc wrapper to edit config.json).
 */
#ifndef IOWEIGHT_JSON_H
#define IOWEIGHT_JSON_H

#include <yajl/yajl_tree.h>

#include "util.h"

enum {
	/* yajl_tree_free() recurses once per nesting level: cap the depth so a
	 * "[[[[…" input cannot exhaust the stack. */
	JSON_MAX_DEPTH = 64,
};

static inline void cleanup_yajlp(yajl_val *v)
{
	if (*v)
		yajl_tree_free(*v);
}
#define _cleanup_yajl_ __attribute__((cleanup(cleanup_yajlp)))

/* Parse buf[0..len) (need not be NUL-terminated). `what` names the input. */
int json_parse(const char *buf, size_t len, const char *what, yajl_val *out,
	       struct hook_err *err);

/*
 * Look up member `key` of object `obj`.  Returns 0 with *out = NULL when
 * absent (an error if `required`), 0 with *out set when present with type t,
 * and an error naming `ctx` and the key when present with another type.
 * For t == yajl_t_true, both booleans are accepted.
 */
int json_member(yajl_val obj, const char *key, yajl_type t, bool required,
		const char *ctx, yajl_val *out, struct hook_err *err);

/* Reject members of obj not listed in the NULL-terminated `allowed`. */
int json_only_keys(yajl_val obj, const char *const *allowed, const char *ctx,
		   struct hook_err *err);

/* Serialise a tree back to JSON text (heap, NUL-terminated). */
int json_serialise(yajl_val v, char **out, size_t *len, struct hook_err *err);

const char *json_type_name(yajl_type t);

#endif
