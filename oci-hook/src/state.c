// SPDX-License-Identifier: GPL-2.0-or-later
/* state.c - OCI state (stdin) and bundle config.json reading. */
#include "state.h"

#include <stdio.h>
#include <string.h>

#include "json.h"

bool valid_container_id(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > 1024)
		return false;
	for (const char *c = id; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '+' || *c == '-' ||
		      *c == '.'))
			return false;
	/* "." and ".." would be path components in the cgroup tree */
	return strcmp(id, ".") && strcmp(id, "..");
}

void kv_free(struct kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

int annotations_from_json(struct yajl_val_s *obj, const char *ctx, struct kv **out,
			  size_t *n, struct hook_err *err)
{
	yajl_val o = obj;
	size_t len = o->u.object.len;
	struct kv *kv = calloc(len ? len : 1, sizeof(*kv));

	if (!kv)
		return hook_fail(err, ENOMEM, "%s", ctx);
	for (size_t i = 0; i < len; i++) {
		yajl_val v = o->u.object.values[i];

		if (!YAJL_IS_STRING(v)) {
			hook_fail(err, 0, "%s: annotation `%s` must be a string, not %s", ctx,
				  o->u.object.keys[i], json_type_name(v ? v->type : yajl_t_any));
			kv_free(kv, i);
			return -1;
		}
		kv[i].key = strdup(o->u.object.keys[i]);
		kv[i].value = strdup(v->u.string);
		if (!kv[i].key || !kv[i].value) {
			kv_free(kv, i + 1);
			return hook_fail(err, ENOMEM, "%s", ctx);
		}
	}
	*out = kv;
	*n = len;
	return 0;
}

static int dup_string(yajl_val v, char **dst, const char *ctx, struct hook_err *err)
{
	*dst = strdup(v->u.string);
	if (!*dst)
		return hook_fail(err, ENOMEM, "%s", ctx);
	return 0;
}

int state_parse(const char *buf, size_t len, struct oci_state *st, struct hook_err *err)
{
	static const char ctx[] = "OCI state";
	_cleanup_yajl_ yajl_val root = NULL;
	yajl_val v;

	memset(st, 0, sizeof(*st));
	if (len == 0)
		return hook_fail(err, 0, "%s: empty input on stdin (is the hook run by an OCI runtime?)", ctx);
	if (json_parse(buf, len, ctx, &root, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(root))
		return hook_fail(err, 0, "%s: must be a JSON object", ctx);
	/* Extra members (crun's "root", future fields) are tolerated. */
	if (json_member(root, "ociVersion", yajl_t_string, true, ctx, &v, err) < 0 ||
	    dup_string(v, &st->oci_version, ctx, err) < 0)
		goto fail;
	if (json_member(root, "id", yajl_t_string, true, ctx, &v, err) < 0)
		goto fail;
	if (!valid_container_id(v->u.string)) {
		hook_fail(err, 0, "%s: `id` is not a valid container id", ctx);
		goto fail;
	}
	if (dup_string(v, &st->id, ctx, err) < 0)
		goto fail;
	if (json_member(root, "status", yajl_t_string, false, ctx, &v, err) < 0)
		goto fail;
	if (v && dup_string(v, &st->status, ctx, err) < 0)
		goto fail;
	if (json_member(root, "pid", yajl_t_number, false, ctx, &v, err) < 0)
		goto fail;
	if (v) {
		/* pid_max is at most 2^22 on Linux */
		if (!YAJL_IS_INTEGER(v) || v->u.number.i < 0 || v->u.number.i > 4194304) {
			hook_fail(err, 0, "%s: `pid` must be an integer in 0..4194304", ctx);
			goto fail;
		}
		st->pid = (long)v->u.number.i;
	}
	if (json_member(root, "bundle", yajl_t_string, true, ctx, &v, err) < 0)
		goto fail;
	if (v->u.string[0] != '/' || strlen(v->u.string) >= PATH_MAX - 32 ||
	    path_has_dot_component(v->u.string)) {
		hook_fail(err, 0, "%s: `bundle` must be an absolute path without `.`/`..` components",
			  ctx);
		goto fail;
	}
	if (dup_string(v, &st->bundle, ctx, err) < 0)
		goto fail;
	if (json_member(root, "annotations", yajl_t_object, false, ctx, &v, err) < 0)
		goto fail;
	if (v) {
		st->has_annotations = true;
		if (annotations_from_json(v, ctx, &st->ann, &st->n_ann, err) < 0)
			goto fail;
	}
	return 0;
fail:
	/* a single exit keeps every partially-filled field freed */
	state_free(st);
	return -1;
}

void state_free(struct oci_state *st)
{
	free(st->oci_version);
	free(st->id);
	free(st->status);
	free(st->bundle);
	kv_free(st->ann, st->n_ann);
	memset(st, 0, sizeof(*st));
}

const char *state_annotation(const struct oci_state *st, const char *key)
{
	for (size_t i = 0; i < st->n_ann; i++)
		if (!strcmp(st->ann[i].key, key))
			return st->ann[i].value;
	return NULL;
}

int spec_load(struct oci_state *st, bool optional, char **cgroups_path, struct hook_err *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *buf = NULL;
	_cleanup_yajl_ yajl_val root = NULL;
	yajl_val linux_, v;
	size_t len;

	*cgroups_path = NULL;
	if (path_join(path, sizeof(path), st->bundle, "config.json", err) < 0)
		return -1;
	if (read_file_bounded(path, MAX_SPEC_BYTES, &buf, &len, err) < 0) {
		if (optional && err->code == ENOENT) {
			memset(err, 0, sizeof(*err));
			return 0;
		}
		return -1;
	}
	if (json_parse(buf, len, path, &root, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(root))
		return hook_fail(err, 0, "%s: must be a JSON object", path);
	if (json_member(root, "linux", yajl_t_object, false, path, &linux_, err) < 0)
		return -1;
	if (linux_) {
		if (json_member(linux_, "cgroupsPath", yajl_t_string, false, path, &v, err) < 0)
			return -1;
		if (v && !(*cgroups_path = strdup(v->u.string)))
			return hook_fail(err, ENOMEM, "%s", path);
	}
	if (!st->has_annotations) {
		if (json_member(root, "annotations", yajl_t_object, false, path, &v, err) < 0)
			goto fail;
		if (v) {
			if (annotations_from_json(v, path, &st->ann, &st->n_ann, err) < 0)
				goto fail;
			st->has_annotations = true;
		}
	}
	return 0;
fail:
	free(*cgroups_path);
	*cgroups_path = NULL;
	return -1;
}
