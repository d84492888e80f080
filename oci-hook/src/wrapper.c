// SPDX-License-Identifier: GPL-2.0-or-later
/* wrapper.c - runc wrapper that injects the prestart hook. */
#include "wrapper.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"

/* runc's global options that take a value (`--root X` or `--root=X`) */
static const char *const global_with_value[] = { "--root", "--log", "--log-format", "--criu",
						  "--rootless", NULL };

static bool takes_value(const char *a)
{
	for (const char *const *g = global_with_value; *g; g++)
		if (!strcmp(a, *g))
			return true;
	return false;
}

const char *wrapper_bundle_of(int argc, char **argv, bool *is_create)
{
	int i = 0;

	*is_create = false;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--"))
			return NULL;
		i += takes_value(argv[i]) ? 2 : 1;
	}
	if (i >= argc || (strcmp(argv[i], "create") && strcmp(argv[i], "run")))
		return NULL;
	*is_create = true;
	for (i++; i < argc; i++) {
		if ((!strcmp(argv[i], "--bundle") || !strcmp(argv[i], "-b")) && i + 1 < argc)
			return argv[i + 1];
		if (!strncmp(argv[i], "--bundle=", 9))
			return argv[i] + 9;
		if (!strncmp(argv[i], "-b=", 3))
			return argv[i] + 3;
	}
	return ".";	/* runc's default: the current directory */
}

static yajl_val new_node(yajl_type t)
{
	yajl_val v = calloc(1, sizeof(*v));

	if (v)
		v->type = t;
	return v;
}

static yajl_val new_string(const char *s)
{
	yajl_val v = new_node(yajl_t_string);

	if (v && !(v->u.string = strdup(s))) {
		free(v);
		return NULL;
	}
	return v;
}

/* yajl trees are plain malloc'ed memory (yajl_tree_free uses free()), so
 * growing them with realloc is safe. */
static int obj_put(yajl_val o, const char *k, yajl_val v)
{
	size_t n = o->u.object.len;
	const char **keys = realloc(o->u.object.keys, (n + 1) * sizeof(*keys));
	yajl_val *vals;

	if (!keys)
		return -1;
	o->u.object.keys = keys;
	vals = realloc(o->u.object.values, (n + 1) * sizeof(*vals));
	if (!vals)
		return -1;
	o->u.object.values = vals;
	if (!(keys[n] = strdup(k)))
		return -1;
	vals[n] = v;
	o->u.object.len = n + 1;
	return 0;
}

static int arr_push(yajl_val a, yajl_val v)
{
	size_t n = a->u.array.len;
	yajl_val *vals = realloc(a->u.array.values, (n + 1) * sizeof(*vals));

	if (!vals)
		return -1;
	a->u.array.values = vals;
	vals[n] = v;
	a->u.array.len = n + 1;
	return 0;
}

static yajl_val new_int(long long n)
{
	yajl_val v = new_node(yajl_t_number);

	if (v && asprintf(&v->u.number.r, "%lld", n) < 0) {
		free(v);
		return NULL;
	}
	if (v) {
		v->u.number.i = n;
		v->u.number.d = (double)n;
		v->u.number.flags = YAJL_NUMBER_INT_VALID | YAJL_NUMBER_DOUBLE_VALID;
	}
	return v;
}

/* {"path": hook, "args": ["ioweight-hook", "prestart"], "timeout": N}: the
 * same entry, timeout included, as the hooks.d file gives podman and CRI-O,
 * so that a hung hook fails the container start instead of holding it. */
static yajl_val hook_entry(const char *hook)
{
	yajl_val e = new_node(yajl_t_object), args = new_node(yajl_t_array), p = new_string(hook),
		 a0 = new_string("ioweight-hook"), a1 = new_string("prestart"), t = new_int(WRAPPER_HOOK_TIMEOUT);

	if (!e || !args || !p || !a0 || !a1 || !t || obj_put(e, "path", p) ||
	    (p = NULL, arr_push(args, a0)) || (a0 = NULL, arr_push(args, a1)) ||
	    (a1 = NULL, obj_put(e, "args", args)) || (args = NULL, obj_put(e, "timeout", t))) {
		yajl_tree_free(p);
		yajl_tree_free(a0);
		yajl_tree_free(a1);
		yajl_tree_free(args);
		yajl_tree_free(t);
		yajl_tree_free(e);
		return NULL;
	}
	return e;
}

static yajl_val member(yajl_val o, const char *k)
{
	for (size_t i = 0; i < o->u.object.len; i++)
		if (!strcmp(o->u.object.keys[i], k))
			return o->u.object.values[i];
	return NULL;
}

int wrapper_inject(const char *spec_path, const char *hook, struct hook_err *err)
{
	_cleanup_free_ char *buf = NULL, *out = NULL;
	_cleanup_yajl_ yajl_val root = NULL;
	_cleanup_close_ int fd = -1;
	yajl_val hooks, pre, e;
	char tmp[PATH_MAX];
	size_t len, olen;
	struct stat st;

	if (read_file_bounded(spec_path, MAX_SPEC_BYTES, &buf, &len, err) < 0 ||
	    json_parse(buf, len, spec_path, &root, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(root))
		return hook_fail(err, 0, "%s: must be a JSON object", spec_path);
	hooks = member(root, "hooks");
	if (hooks && !YAJL_IS_OBJECT(hooks))
		return hook_fail(err, 0, "%s: `hooks` must be an object", spec_path);
	if (!hooks && (!(hooks = new_node(yajl_t_object)) || obj_put(root, "hooks", hooks)))
		return hook_fail(err, ENOMEM, "%s", spec_path);
	pre = member(hooks, "prestart");
	if (pre && !YAJL_IS_ARRAY(pre))
		return hook_fail(err, 0, "%s: `hooks.prestart` must be an array", spec_path);
	if (!pre && (!(pre = new_node(yajl_t_array)) || obj_put(hooks, "prestart", pre)))
		return hook_fail(err, ENOMEM, "%s", spec_path);
	for (size_t i = 0; i < pre->u.array.len; i++) {
		yajl_val p = YAJL_IS_OBJECT(pre->u.array.values[i]) ? member(pre->u.array.values[i], "path") : NULL;

		if (YAJL_IS_STRING(p) && !strcmp(p->u.string, hook))
			return 0;	/* already there: a retried create */
	}
	if (!(e = hook_entry(hook)) || arr_push(pre, e))
		return hook_fail(err, ENOMEM, "%s", spec_path);
	if (json_serialise(root, &out, &olen, err) < 0)
		return -1;
	/* write-then-rename: runc must never see half a config.json */
	if (stat(spec_path, &st) < 0)
		return hook_fail(err, errno, "%s", spec_path);
	snprintf(tmp, sizeof(tmp), "%s.ioweight-tmp", spec_path);
	fd = TEMP_FAILURE_RETRY(open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
				     st.st_mode & 07777));
	if (fd < 0)
		return hook_fail(err, errno, "cannot create %s", tmp);
	if (TEMP_FAILURE_RETRY(write(fd, out, olen)) != (ssize_t)olen || fsync(fd) < 0) {
		int e2 = errno;

		unlink(tmp);
		return hook_fail(err, e2, "cannot write %s", tmp);
	}
	if (rename(tmp, spec_path) < 0) {
		int e2 = errno;

		unlink(tmp);
		return hook_fail(err, e2, "cannot replace %s", spec_path);
	}
	return 0;
}

int wrapper_main(int argc, char **argv)
{
	const char *runc = NULL, *hook = NULL, *bundle;
	struct hook_err err = { 0 };
	bool is_create;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--runc") && i + 1 < argc)
			runc = argv[++i];
		else if (!strcmp(argv[i], "--hook") && i + 1 < argc)
			hook = argv[++i];
		else
			break;
	}
	if (i >= argc || strcmp(argv[i], "--") || !runc || !hook || runc[0] != '/' || hook[0] != '/') {
		fprintf(stderr, "Usage: ioweight-hook runc-wrapper --runc /ABS/runc --hook /ABS/ioweight-hook -- RUNC-ARGS...\n");
		return 2;
	}
	i++;	/* argv[i..] are runc's own arguments */
	bundle = wrapper_bundle_of(argc - i, argv + i, &is_create);
	if (is_create) {
		char spec[PATH_MAX];

		if (path_join(spec, sizeof(spec), bundle, "config.json", &err) < 0 ||
		    wrapper_inject(spec, hook, &err) < 0) {
			fprintf(stderr, "ioweight-runc: cannot add the ioweight prestart hook: %s\n", err.msg);
			return 1;
		}
	}
	/* argv[i-1] is "--": reuse its slot for runc's argv[0] */
	argv[i - 1] = (char *)runc;
	execv(runc, argv + i - 1);
	fprintf(stderr, "ioweight-runc: cannot exec %s: %s\n", runc, strerror(errno));
	return 127;
}
