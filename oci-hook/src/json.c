// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c - yajl glue: bounded parsing, typed lookups, serialisation. */
#include "json.h"

#include <stdio.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

/*
 * Nesting depth, counted by yajl's own lexer: a pre-pass with callbacks for
 * the brackets only, configured exactly like yajl_tree_parse() (comments
 * allowed), so brackets inside strings or comments never count and every
 * bracket that yajl_tree_parse() would nest does.  yajl keeps its parse
 * stack on the heap; the recursion to protect is ours and yajl_tree_free()'s.
 */
struct depth_count {
	int depth, max;
	bool exceeded;
};

static int depth_open(void *ctx)
{
	struct depth_count *d = ctx;

	if (++d->depth > d->max) {
		d->exceeded = true;
		return 0;	/* cancels the parse */
	}
	return 1;
}

static int depth_close(void *ctx)
{
	((struct depth_count *)ctx)->depth--;
	return 1;
}

static const yajl_callbacks depth_callbacks = {
	.yajl_start_map = depth_open,
	.yajl_end_map = depth_close,
	.yajl_start_array = depth_open,
	.yajl_end_array = depth_close,
};

/* 1: within max, 0: deeper, -1: out of memory.  Syntax errors are left to
 * yajl_tree_parse(), which reports them with its message. */
static int json_depth_ok(const char *buf, size_t len, int max)
{
	struct depth_count d = { .max = max };
	yajl_handle h = yajl_alloc(&depth_callbacks, NULL, &d);

	if (!h)
		return -1;
	yajl_config(h, yajl_allow_comments, 1);
	if (yajl_parse(h, (const unsigned char *)buf, len) == yajl_status_ok)
		yajl_complete_parse(h);
	yajl_free(h);
	return d.exceeded ? 0 : 1;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Duplicate keys are legal JSON but make "which value wins" ambiguous
 * between us and the runtime: refuse them. */
static int json_check_dups(yajl_val v, const char *what, struct hook_err *err)
{
	if (YAJL_IS_OBJECT(v)) {
		size_t n = v->u.object.len;

		if (n > 1) {
			_cleanup_free_ const char **keys = malloc(n * sizeof(*keys));

			if (!keys)
				return hook_fail(err, ENOMEM, "%s", what);
			memcpy(keys, v->u.object.keys, n * sizeof(*keys));
			qsort(keys, n, sizeof(*keys), cmp_strp);
			for (size_t i = 1; i < n; i++)
				if (!strcmp(keys[i - 1], keys[i]))
					return hook_fail(err, 0, "%s: duplicate key `%s`", what, keys[i]);
		}
		for (size_t i = 0; i < n; i++)
			if (json_check_dups(v->u.object.values[i], what, err) < 0)
				return -1;
	} else if (YAJL_IS_ARRAY(v)) {
		for (size_t i = 0; i < v->u.array.len; i++)
			if (json_check_dups(v->u.array.values[i], what, err) < 0)
				return -1;
	}
	return 0;
}

int json_parse(const char *buf, size_t len, const char *what, yajl_val *out,
	       struct hook_err *err)
{
	_cleanup_free_ char *copy = NULL;
	char ebuf[256] = "";
	yajl_val v;
	int r;

	if (memchr(buf, '\0', len))
		return hook_fail(err, 0, "%s: invalid JSON: contains a NUL byte", what);
	r = json_depth_ok(buf, len, JSON_MAX_DEPTH);
	if (r < 0)
		return hook_fail(err, ENOMEM, "%s", what);
	if (r == 0)
		return hook_fail(err, 0, "%s: invalid JSON: nested deeper than %d levels", what,
				 JSON_MAX_DEPTH);
	copy = malloc(len + 1);
	if (!copy)
		return hook_fail(err, ENOMEM, "%s", what);
	memcpy(copy, buf, len);
	copy[len] = '\0';
	v = yajl_tree_parse(copy, ebuf, sizeof(ebuf));
	if (!v) {
		/* yajl's message is multi-line with a caret; keep the first line */
		char *nl = strchr(ebuf, '\n');

		if (nl)
			*nl = '\0';
		return hook_fail(err, 0, "%s: invalid JSON: %s", what, ebuf[0] ? ebuf : "parse error");
	}
	if (json_check_dups(v, what, err) < 0) {
		yajl_tree_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

const char *json_type_name(yajl_type t)
{
	switch (t) {
	case yajl_t_string: return "a string";
	case yajl_t_number: return "a number";
	case yajl_t_object: return "an object";
	case yajl_t_array: return "an array";
	case yajl_t_true:
	case yajl_t_false: return "a boolean";
	case yajl_t_null: return "null";
	default: return "a value";
	}
}

int json_member(yajl_val obj, const char *key, yajl_type t, bool required,
		const char *ctx, yajl_val *out, struct hook_err *err)
{
	*out = NULL;
	if (!YAJL_IS_OBJECT(obj))
		return hook_fail(err, 0, "%s: must be an object", ctx);
	for (size_t i = 0; i < obj->u.object.len; i++) {
		yajl_val v = obj->u.object.values[i];
		bool ok;

		if (strcmp(obj->u.object.keys[i], key))
			continue;
		if (t == yajl_t_true || t == yajl_t_false)
			ok = YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v);
		else
			ok = v && v->type == t;
		if (!ok)
			return hook_fail(err, 0, "%s: `%s` must be %s", ctx, key, json_type_name(t));
		*out = v;
		return 0;
	}
	if (required)
		return hook_fail(err, 0, "%s: missing required key `%s`", ctx, key);
	return 0;
}

int json_only_keys(yajl_val obj, const char *const *allowed, const char *ctx,
		   struct hook_err *err)
{
	for (size_t i = 0; i < obj->u.object.len; i++) {
		const char *k = obj->u.object.keys[i];
		const char *const *a;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, k))
				break;
		if (!*a)
			return hook_fail(err, 0, "%s: unknown key `%s`", ctx, k);
	}
	return 0;
}

static int gen_value(yajl_gen g, yajl_val v)
{
	switch (v->type) {
	case yajl_t_string:
		return yajl_gen_string(g, (const unsigned char *)v->u.string, strlen(v->u.string));
	case yajl_t_number:
		/* the original text: no float round-trip surprises */
		return yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r));
	case yajl_t_true:
		return yajl_gen_bool(g, 1);
	case yajl_t_false:
		return yajl_gen_bool(g, 0);
	case yajl_t_null:
		return yajl_gen_null(g);
	case yajl_t_object:
		if (yajl_gen_map_open(g))
			return -1;
		for (size_t i = 0; i < v->u.object.len; i++) {
			const char *k = v->u.object.keys[i];

			if (yajl_gen_string(g, (const unsigned char *)k, strlen(k)) ||
			    gen_value(g, v->u.object.values[i]))
				return -1;
		}
		return yajl_gen_map_close(g);
	case yajl_t_array:
		if (yajl_gen_array_open(g))
			return -1;
		for (size_t i = 0; i < v->u.array.len; i++)
			if (gen_value(g, v->u.array.values[i]))
				return -1;
		return yajl_gen_array_close(g);
	default:
		return -1;
	}
}

int json_serialise(yajl_val v, char **out, size_t *len, struct hook_err *err)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *b;
	size_t l;
	int ret = 0;

	if (!g)
		return hook_fail(err, ENOMEM, "json");
	if (gen_value(g, v) || yajl_gen_get_buf(g, &b, &l) != yajl_gen_status_ok) {
		ret = hook_fail(err, 0, "json: cannot serialise document");
	} else {
		*out = malloc(l + 1);
		if (!*out) {
			ret = hook_fail(err, ENOMEM, "json");
		} else {
			memcpy(*out, b, l);
			(*out)[l] = '\0';
			*len = l;
		}
	}
	yajl_gen_free(g);
	return ret;
}
