// SPDX-License-Identifier: GPL-2.0-or-later
/* config.c - strict parsing of the admin config and config-dir loading. */
#include "config.h"

#include <dirent.h>
#include <stddef.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "annotations.h"
#include "json.h"

const char *const qos_field_names[NR_QOS_FIELDS] = {
	[QOS_RPCT] = "rpct", [QOS_RLAT] = "rlat", [QOS_WPCT] = "wpct",
	[QOS_WLAT] = "wlat", [QOS_MIN] = "min", [QOS_MAX] = "max",
};

/* Valid ranges per QoS field; pct in percent, lat in microseconds. */
static const struct {
	double lo, hi;
	bool integer;
} qos_range[NR_QOS_FIELDS] = {
	[QOS_RPCT] = { 0, 100, false },
	[QOS_RLAT] = { 0, 10000000, true },	/* 10 s: beyond that it is not a target */
	[QOS_WPCT] = { 0, 100, false },
	[QOS_WLAT] = { 0, 10000000, true },
	[QOS_MIN] = { 1, 10000, false },	/* vrate bounds, percent of the model */
	[QOS_MAX] = { 1, 10000, false },
};

void config_default(struct ioweight_config *cfg)
{
	/* the scalars only: the tables are read below their counts, and each
	 * entry is zeroed as it is added.  Zeroing all 75 KiB faulted in ~19
	 * pages at every container start (~0.3 ms on a loaded VM host) */
	memset(cfg, 0, offsetof(struct ioweight_config, classes));
	cfg->n_classes = cfg->n_namespaces = cfg->n_profiles = cfg->n_rules = 0;
	memset(cfg->classes, 0, 3 * sizeof(cfg->classes[0]));
	strcpy(cfg->source, "<built-in default>");
	strcpy(cfg->name, "default");
	cfg->policy = POLICY_FAIL;
	cfg->require_sandbox = true;
	cfg->log_target = LOGT_SYSLOG;
	strcpy(cfg->file_weight, "io.weight");
	strcpy(cfg->file_cost_model, "io.weight.cost_model");
	strcpy(cfg->file_qos, "io.weight.qos");
	cfg->min_weight = WEIGHT_MIN;
	cfg->max_weight = WEIGHT_MAX;
	cfg->max_device_entries = 16;
	cfg->honour.weight = cfg->honour.class_ = cfg->honour.device_weights = true;
	cfg->honour.container_weights = cfg->honour.blockio = true;
	/* the same three classes the shipped default.json defines */
	strcpy(cfg->classes[0].name, "high");
	cfg->classes[0].weight = 500;
	strcpy(cfg->classes[1].name, "normal");
	cfg->classes[1].weight = 100;
	strcpy(cfg->classes[2].name, "low");
	cfg->classes[2].weight = 25;
	cfg->n_classes = 3;
}

/* Class, profile and config names: DNS-label-like, so they are safe in logs
 * and annotation values. */
/* names follow the same label rules as annotation keys */
static bool valid_name(const char *s)
{
	return valid_label(s, CFG_NAME_MAX);
}

static int get_int(yajl_val obj, const char *key, bool required, long long lo, long long hi,
		   const char *ctx, bool *present, long long *out, struct hook_err *err)
{
	yajl_val v;

	*present = false;
	if (json_member(obj, key, yajl_t_number, required, ctx, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	if (!YAJL_IS_INTEGER(v) || v->u.number.i < lo || v->u.number.i > hi)
		return hook_fail(err, 0, "%s: `%s` must be an integer in %lld..%lld, got %s", ctx, key,
				 lo, hi, v->u.number.r);
	*present = true;
	*out = v->u.number.i;
	return 0;
}

static int get_bool(yajl_val obj, const char *key, const char *ctx, bool *out,
		    struct hook_err *err)
{
	yajl_val v;

	if (json_member(obj, key, yajl_t_true, false, ctx, &v, err) < 0)
		return -1;
	if (v)
		*out = YAJL_IS_TRUE(v);
	return 0;
}

static int get_enum(yajl_val obj, const char *key, const char *const *choices, bool required,
		    const char *ctx, int *out, struct hook_err *err)
{
	yajl_val v;

	if (json_member(obj, key, yajl_t_string, required, ctx, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], v->u.string)) {
			*out = i;
			return 0;
		}
	{
		char list[256] = "";

		for (int i = 0; choices[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? "|" : "", choices[i]);
		return hook_fail(err, 0, "%s: `%s` must be one of %s, got `%.64s`", ctx, key, list,
				 v->u.string);
	}
}

static int parse_kernel_files(yajl_val o, struct ioweight_config *cfg, const char *src,
			      struct hook_err *err)
{
	static const char *const keys[] = { "weight", "costModel", "qos", NULL };
	char *dst[] = { cfg->file_weight, cfg->file_cost_model, cfg->file_qos };
	char ctx[PATH_MAX + 32];

	snprintf(ctx, sizeof(ctx), "%s: kernelFiles", src);
	if (json_only_keys(o, keys, ctx, err) < 0)
		return -1;
	for (int i = 0; keys[i]; i++) {
		yajl_val v;
		const char *s;

		if (json_member(o, keys[i], yajl_t_string, false, ctx, &v, err) < 0)
			return -1;
		if (!v)
			continue;
		s = v->u.string;
		/* a bare file name of the io controller: no path tricks */
		if (strncmp(s, "io.", 3) || strlen(s) >= CFG_KFILE_MAX ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyz._") != strlen(s) || strstr(s, ".."))
			return hook_fail(err, 0, "%s: `%s` must be an io.* file name, got `%.64s`",
					 ctx, keys[i], s);
		strcpy(dst[i], s);
	}
	return 0;
}

static int parse_log(yajl_val o, struct ioweight_config *cfg, const char *src,
		     struct hook_err *err)
{
	static const char *const keys[] = { "target", "path", NULL };
	static const char *const targets[] = { "syslog", "file", "stderr", "none", NULL };
	char ctx[PATH_MAX + 32];
	int t = LOGT_SYSLOG;
	yajl_val v;

	snprintf(ctx, sizeof(ctx), "%s: log", src);
	if (json_only_keys(o, keys, ctx, err) < 0 ||
	    get_enum(o, "target", targets, true, ctx, &t, err) < 0 ||
	    json_member(o, "path", yajl_t_string, t == LOGT_FILE, ctx, &v, err) < 0)
		return -1;
	cfg->log_target = (enum log_target)t;
	if (v) {
		if (t != LOGT_FILE)
			return hook_fail(err, 0, "%s: `path` is only valid with target `file`", ctx);
		if (v->u.string[0] != '/' || strlen(v->u.string) >= PATH_MAX ||
		    path_has_dot_component(v->u.string))
			return hook_fail(err, 0, "%s: `path` must be an absolute path without `.`/`..`, got `%.128s`",
					 ctx, v->u.string);
		strcpy(cfg->log_path, v->u.string);
	}
	return 0;
}

static int parse_limits(yajl_val o, struct ioweight_config *cfg, const char *src,
			struct hook_err *err)
{
	static const char *const keys[] = { "minWeight", "maxWeight", "maxDeviceEntries", NULL };
	char ctx[PATH_MAX + 32];
	long long v;
	bool p;

	snprintf(ctx, sizeof(ctx), "%s: limits", src);
	if (json_only_keys(o, keys, ctx, err) < 0)
		return -1;
	if (get_int(o, "minWeight", false, WEIGHT_MIN, WEIGHT_MAX, ctx, &p, &v, err) < 0)
		return -1;
	if (p)
		cfg->min_weight = (long)v;
	if (get_int(o, "maxWeight", false, WEIGHT_MIN, WEIGHT_MAX, ctx, &p, &v, err) < 0)
		return -1;
	if (p)
		cfg->max_weight = (long)v;
	if (get_int(o, "maxDeviceEntries", false, 0, MAX_DEVICE_ENTRIES, ctx, &p, &v, err) < 0)
		return -1;
	if (p)
		cfg->max_device_entries = (long)v;
	if (cfg->min_weight > cfg->max_weight)
		return hook_fail(err, 0, "%s: `minWeight` %ld is greater than `maxWeight` %ld", ctx,
				 cfg->min_weight, cfg->max_weight);
	return 0;
}

static int parse_honour(yajl_val o, struct ioweight_config *cfg, const char *src,
			struct hook_err *err)
{
	static const char *const keys[] = { "weight", "class", "deviceWeights",
					     "containerWeights", "blockio", NULL };
	char ctx[PATH_MAX + 32];

	snprintf(ctx, sizeof(ctx), "%s: annotations", src);
	if (json_only_keys(o, keys, ctx, err) < 0 ||
	    get_bool(o, "weight", ctx, &cfg->honour.weight, err) < 0 ||
	    get_bool(o, "class", ctx, &cfg->honour.class_, err) < 0 ||
	    get_bool(o, "deviceWeights", ctx, &cfg->honour.device_weights, err) < 0 ||
	    get_bool(o, "containerWeights", ctx, &cfg->honour.container_weights, err) < 0 ||
	    get_bool(o, "blockio", ctx, &cfg->honour.blockio, err) < 0)
		return -1;
	return 0;
}

static int parse_class_namespaces(yajl_val a, struct ioweight_config *cfg, struct cfg_class *c,
				  const char *ctx, struct hook_err *err)
{
	c->ns_restricted = true;
	c->ns_first = cfg->n_namespaces;
	for (size_t i = 0; i < a->u.array.len; i++) {
		yajl_val v = a->u.array.values[i];

		if (!YAJL_IS_STRING(v) || !valid_label(v->u.string, CFG_NS_MAX) ||
		    strchr(v->u.string, '.') || strchr(v->u.string, '_'))
			return hook_fail(err, 0, "%s: `namespaces[%zu]` must be a namespace name (1-63 of [A-Za-z0-9-])",
					 ctx, i);
		if (cfg->n_namespaces == CFG_MAX_NAMESPACES)
			return hook_fail(err, 0, "%s: more than %d namespace names in all classes", ctx,
					 CFG_MAX_NAMESPACES);
		strcpy(cfg->namespaces[cfg->n_namespaces++], v->u.string);
	}
	c->ns_count = cfg->n_namespaces - c->ns_first;
	return 0;
}

static int parse_classes(yajl_val o, struct ioweight_config *cfg, const char *src,
			 struct hook_err *err)
{
	static const char *const keys[] = { "weight", "description", "namespaces", NULL };
	char ctx[PATH_MAX + 128];

	if (o->u.object.len > CFG_MAX_CLASSES)
		return hook_fail(err, 0, "%s: classes: more than %d classes", src, CFG_MAX_CLASSES);
	cfg->n_classes = 0;
	for (size_t i = 0; i < o->u.object.len; i++) {
		const char *name = o->u.object.keys[i];
		yajl_val c = o->u.object.values[i], d, ns;
		struct cfg_class *cl = &cfg->classes[cfg->n_classes];
		long long w;
		bool p;

		if (!valid_name(name))
			return hook_fail(err, 0, "%s: classes: `%.80s` is not a valid class name (1-63 of [A-Za-z0-9._-])",
					 src, name);
		snprintf(ctx, sizeof(ctx), "%s: classes.%s", src, name);
		if (!YAJL_IS_OBJECT(c))
			return hook_fail(err, 0, "%s: must be an object", ctx);
		if (json_only_keys(c, keys, ctx, err) < 0 ||
		    json_member(c, "description", yajl_t_string, false, ctx, &d, err) < 0 ||
		    get_int(c, "weight", true, WEIGHT_MIN, WEIGHT_MAX, ctx, &p, &w, err) < 0 ||
		    json_member(c, "namespaces", yajl_t_array, false, ctx, &ns, err) < 0)
			return -1;
		memset(cl, 0, sizeof(*cl));
		strcpy(cl->name, name);
		cl->weight = (long)w;
		if (ns && parse_class_namespaces(ns, cfg, cl, ctx, err) < 0)
			return -1;
		cfg->n_classes++;
	}
	return 0;
}

static int parse_cost_model(yajl_val o, struct cfg_cost_model *m, const char *pctx,
			    struct hook_err *err)
{
	static const char *const keys[] = { "ctrl", "model", "rbps", "rseqiops", "rrandiops",
					     "wbps", "wseqiops", "wrandiops", NULL };
	static const char *const ctrls[] = { "auto", "user", NULL };
	static const char *const models[] = { "linear", NULL };
	unsigned long long *dst[] = { &m->rbps, &m->rseqiops, &m->rrandiops,
				      &m->wbps, &m->wseqiops, &m->wrandiops };
	char ctx[PATH_MAX + 160];
	int ctrl = 0, model = 0;

	snprintf(ctx, sizeof(ctx), "%s.costModel", pctx);
	if (json_only_keys(o, keys, ctx, err) < 0 ||
	    get_enum(o, "ctrl", ctrls, true, ctx, &ctrl, err) < 0)
		return -1;
	m->set = true;
	m->user = ctrl == 1;
	if (!m->user) {
		if (o->u.object.len != 1)
			return hook_fail(err, 0, "%s: with `ctrl` `auto` no other key may be given", ctx);
		return 0;
	}
	if (get_enum(o, "model", models, true, ctx, &model, err) < 0)
		return -1;
	for (int i = 0; i < 6; i++) {
		long long v;
		bool p;

		/* the kernel stores these as u64; 2^53 keeps JSON numbers exact */
		if (get_int(o, keys[i + 2], true, 1, 1LL << 53, ctx, &p, &v, err) < 0)
			return -1;
		*dst[i] = (unsigned long long)v;
	}
	return 0;
}

static int parse_qos(yajl_val o, struct cfg_qos *q, const char *pctx, struct hook_err *err)
{
	static const char *const keys[] = { "ctrl", "rpct", "rlat", "wpct", "wlat", "min",
					     "max", NULL };
	static const char *const ctrls[] = { "auto", "user", NULL };
	char ctx[PATH_MAX + 160];
	int ctrl = 0;

	snprintf(ctx, sizeof(ctx), "%s.qos", pctx);
	if (json_only_keys(o, keys, ctx, err) < 0 ||
	    get_enum(o, "ctrl", ctrls, true, ctx, &ctrl, err) < 0)
		return -1;
	q->set = true;
	q->user = ctrl == 1;
	for (int f = 0; f < NR_QOS_FIELDS; f++) {
		yajl_val v;
		double d;

		if (json_member(o, qos_field_names[f], yajl_t_number, false, ctx, &v, err) < 0)
			return -1;
		if (!v)
			continue;
		if (!q->user)
			return hook_fail(err, 0, "%s: `%s` needs `ctrl` `user`", ctx, qos_field_names[f]);
		if (qos_range[f].integer && !YAJL_IS_INTEGER(v))
			return hook_fail(err, 0, "%s: `%s` must be an integer, got %s", ctx,
					 qos_field_names[f], v->u.number.r);
		d = YAJL_IS_INTEGER(v) ? (double)v->u.number.i : v->u.number.d;
		if (!YAJL_IS_DOUBLE(v) && !YAJL_IS_INTEGER(v))
			return hook_fail(err, 0, "%s: `%s` is not a representable number", ctx,
					 qos_field_names[f]);
		if (!isfinite(d) || d < qos_range[f].lo || d > qos_range[f].hi)
			return hook_fail(err, 0, "%s: `%s` must be in %g..%g, got %s", ctx,
					 qos_field_names[f], qos_range[f].lo, qos_range[f].hi,
					 v->u.number.r);
		q->val[f] = d;
		q->set_mask |= 1u << f;
	}
	if ((q->set_mask & (1u << QOS_MIN)) && (q->set_mask & (1u << QOS_MAX)) &&
	    q->val[QOS_MIN] > q->val[QOS_MAX])
		return hook_fail(err, 0, "%s: `min` is greater than `max`", ctx);
	return 0;
}

static int parse_profiles(yajl_val o, struct ioweight_config *cfg, const char *src,
			  struct hook_err *err)
{
	static const char *const keys[] = { "enable", "costModel", "qos", "description", NULL };
	char ctx[PATH_MAX + 128];

	if (o->u.object.len > CFG_MAX_PROFILES)
		return hook_fail(err, 0, "%s: profiles: more than %d profiles", src, CFG_MAX_PROFILES);
	for (size_t i = 0; i < o->u.object.len; i++) {
		const char *name = o->u.object.keys[i];
		yajl_val p = o->u.object.values[i], v;
		struct cfg_profile *pr = &cfg->profiles[cfg->n_profiles];

		if (!valid_name(name))
			return hook_fail(err, 0, "%s: profiles: `%.80s` is not a valid profile name", src, name);
		snprintf(ctx, sizeof(ctx), "%s: profiles.%s", src, name);
		if (!YAJL_IS_OBJECT(p))
			return hook_fail(err, 0, "%s: must be an object", ctx);
		memset(pr, 0, sizeof(*pr));
		strcpy(pr->name, name);
		if (json_only_keys(p, keys, ctx, err) < 0 ||
		    json_member(p, "description", yajl_t_string, false, ctx, &v, err) < 0 ||
		    json_member(p, "enable", yajl_t_true, true, ctx, &v, err) < 0)
			return -1;
		pr->enable = YAJL_IS_TRUE(v);
		if (json_member(p, "costModel", yajl_t_object, false, ctx, &v, err) < 0)
			return -1;
		if (v && parse_cost_model(v, &pr->model, ctx, err) < 0)
			return -1;
		if (json_member(p, "qos", yajl_t_object, false, ctx, &v, err) < 0)
			return -1;
		if (v && parse_qos(v, &pr->qos, ctx, err) < 0)
			return -1;
		cfg->n_profiles++;
	}
	return 0;
}

static int parse_rules(yajl_val a, struct ioweight_config *cfg, const char *src,
		       struct hook_err *err)
{
	static const char *const keys[] = { "match", "profile", "podWeights", "description", NULL };
	char ctx[PATH_MAX + 64];

	if (a->u.array.len > CFG_MAX_RULES)
		return hook_fail(err, 0, "%s: devices: more than %d rules", src, CFG_MAX_RULES);
	for (size_t i = 0; i < a->u.array.len; i++) {
		yajl_val r = a->u.array.values[i], m, p, d;
		struct cfg_rule *rule = &cfg->rules[cfg->n_rules];
		size_t k;

		snprintf(ctx, sizeof(ctx), "%s: devices[%zu]", src, i);
		if (!YAJL_IS_OBJECT(r))
			return hook_fail(err, 0, "%s: must be an object", ctx);
		memset(rule, 0, sizeof(*rule));
		rule->profile = -1;
		if (json_only_keys(r, keys, ctx, err) < 0 ||
		    json_member(r, "description", yajl_t_string, false, ctx, &d, err) < 0 ||
		    json_member(r, "match", yajl_t_string, true, ctx, &m, err) < 0 ||
		    json_member(r, "profile", yajl_t_string, false, ctx, &p, err) < 0 ||
		    get_bool(r, "podWeights", ctx, &rule->pod_weights, err) < 0)
			return -1;
		if (m->u.string[0] != '/' || strlen(m->u.string) >= CFG_MATCH_MAX ||
		    path_has_dot_component(m->u.string))
			return hook_fail(err, 0, "%s: `match` must be an absolute path or glob (< 256 chars) without `.`/`..`, got `%.128s`",
					 ctx, m->u.string);
		if (!p && !rule->pod_weights)
			return hook_fail(err, 0, "%s: a rule needs a `profile`, `podWeights` true, or both", ctx);
		if (p) {
			for (k = 0; k < cfg->n_profiles; k++)
				if (!strcmp(cfg->profiles[k].name, p->u.string))
					break;
			if (k == cfg->n_profiles)
				return hook_fail(err, 0, "%s: unknown profile `%.64s`", ctx, p->u.string);
			rule->profile = (int)k;
		}
		strcpy(rule->match, m->u.string);
		cfg->n_rules++;
	}
	return 0;
}

/* A class is a weight the admin hands out: the same limits as a number. */
static int check_class_limits(const struct ioweight_config *cfg, const char *src,
			      struct hook_err *err)
{
	for (size_t i = 0; i < cfg->n_classes; i++) {
		const struct cfg_class *c = &cfg->classes[i];

		if (c->weight < cfg->min_weight || c->weight > cfg->max_weight)
			return hook_fail(err, 0, "%s: classes.%s: weight %ld is outside limits %ld..%ld",
					 src, c->name, c->weight, cfg->min_weight, cfg->max_weight);
	}
	return 0;
}

int config_parse(const char *buf, size_t len, const char *source, struct ioweight_config *cfg,
		 struct hook_err *err)
{
	static const char *const keys[] = { "ioweightVersion", "name", "description",
					     "failurePolicy", "requireSandbox", "log",
					     "kernelFiles", "classes", "limits", "annotations",
					     "profiles", "devices", NULL };
	static const char *const policies[] = { "fail", "warn", NULL };
	_cleanup_yajl_ yajl_val root = NULL;
	yajl_val v;
	int pol = POLICY_FAIL;

	config_default(cfg);
	snprintf(cfg->source, sizeof(cfg->source), "%s", source);
	if (json_parse(buf, len, source, &root, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(root))
		return hook_fail(err, 0, "%s: must be a JSON object", source);
	if (json_only_keys(root, keys, source, err) < 0)
		return -1;
	if (json_member(root, "ioweightVersion", yajl_t_string, true, source, &v, err) < 0)
		return -1;
	if (strcmp(v->u.string, CONFIG_VERSION))
		return hook_fail(err, 0, "%s: unsupported `ioweightVersion` `%.32s` (this hook reads %s)",
				 source, v->u.string, CONFIG_VERSION);
	if (json_member(root, "name", yajl_t_string, true, source, &v, err) < 0)
		return -1;
	if (!valid_name(v->u.string))
		return hook_fail(err, 0, "%s: `name` must be 1-63 of [A-Za-z0-9._-], got `%.80s`",
				 source, v->u.string);
	strcpy(cfg->name, v->u.string);
	if (json_member(root, "description", yajl_t_string, false, source, &v, err) < 0 ||
	    get_enum(root, "failurePolicy", policies, false, source, &pol, err) < 0 ||
	    get_bool(root, "requireSandbox", source, &cfg->require_sandbox, err) < 0)
		return -1;
	cfg->policy = (enum failure_policy)pol;
	if (json_member(root, "log", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && parse_log(v, cfg, source, err) < 0))
		return -1;
	if (json_member(root, "kernelFiles", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && parse_kernel_files(v, cfg, source, err) < 0))
		return -1;
	if (json_member(root, "classes", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && parse_classes(v, cfg, source, err) < 0))
		return -1;
	if (json_member(root, "limits", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && parse_limits(v, cfg, source, err) < 0))
		return -1;
	if (json_member(root, "annotations", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && parse_honour(v, cfg, source, err) < 0))
		return -1;
	/* profiles before devices: rules refer to profiles by name */
	if (json_member(root, "profiles", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && parse_profiles(v, cfg, source, err) < 0))
		return -1;
	if (json_member(root, "devices", yajl_t_array, false, source, &v, err) < 0 ||
	    (v && parse_rules(v, cfg, source, err) < 0))
		return -1;
	/* the file's own classes must fit its limits; the built-in classes
	 * are checked when a pod asks for one */
	if (json_member(root, "classes", yajl_t_object, false, source, &v, err) < 0 ||
	    (v && check_class_limits(cfg, source, err) < 0))
		return -1;
	return 0;
}

int config_load_file(const char *path, struct ioweight_config *cfg, struct hook_err *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;

	if (read_file_bounded(path, MAX_CONFIG_BYTES, &buf, &len, err) < 0)
		return -1;
	return config_parse(buf, len, path, cfg, err);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The config files of dir, sorted: *.json and *.conf, no dot files. */
static int list_config_files(const char *dir, char *names[MAX_CONFIG_FILES], size_t *n,
			     struct hook_err *err)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : hook_fail(err, errno, "config dir %s", dir);
	while ((errno = 0, de = readdir(d))) {
		const char *nm = de->d_name;

		if (nm[0] == '.' || (fnmatch("*.json", nm, 0) && fnmatch("*.conf", nm, 0)))
			continue;
		if (*n == MAX_CONFIG_FILES) {
			hook_fail(err, 0, "config dir %s: more than %d config files", dir,
				  MAX_CONFIG_FILES);
			goto fail;
		}
		if (!(names[*n] = strdup(nm))) {
			hook_fail(err, ENOMEM, "config dir %s", dir);
			goto fail;
		}
		(*n)++;
	}
	if (errno) {
		hook_fail(err, errno, "config dir %s: cannot list", dir);
		goto fail;
	}
	closedir(d);
	qsort(names, *n, sizeof(names[0]), cmp_names);
	return 0;
fail:
	closedir(d);
	for (size_t i = 0; i < *n; i++)
		free(names[i]);
	*n = 0;
	return -1;
}

int config_load_dir(const char *dir, struct ioweight_config *cfg, config_report_fn report,
		    void *arg, struct hook_err *err)
{
	char *names[MAX_CONFIG_FILES];
	_cleanup_free_ struct ioweight_config *other = NULL;
	char first_err[ERR_MSG_MAX] = "";
	size_t n, bad = 0;

	if (list_config_files(dir, names, &n, err) < 0)
		return -1;
	config_default(cfg);
	if (n > 1 && !(other = malloc(sizeof(*other)))) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		return hook_fail(err, ENOMEM, "config dir %s", dir);
	}
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct hook_err e = { 0 };
		struct ioweight_config *into = i == 0 ? cfg : other;

		if (path_join(path, sizeof(path), dir, names[i], &e) < 0 ||
		    config_load_file(path, into, &e) < 0) {
			if (!bad++)
				memcpy(first_err, e.msg, sizeof(first_err));
		}
		if (report)
			report(path, e.msg[0] ? NULL : into, e.msg[0] ? e.msg : NULL, arg);
		free(names[i]);
	}
	if (bad)
		return hook_fail(err, 0, "config dir %s: %zu of %zu files invalid, no config in effect (first error: %s)",
				 dir, bad, n, first_err);
	return 0;
}

const struct cfg_class *config_class(const struct ioweight_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_classes; i++)
		if (!strcmp(cfg->classes[i].name, name))
			return &cfg->classes[i];
	return NULL;
}

bool config_class_allows(const struct ioweight_config *cfg, const struct cfg_class *c,
			 const char *ns)
{
	if (!c->ns_restricted)
		return true;
	if (!ns)
		return false;
	for (size_t i = 0; i < c->ns_count; i++)
		if (!strcmp(cfg->namespaces[c->ns_first + i], ns))
			return true;
	return false;
}

struct report_ctx {
	FILE *out;
	size_t files;
};

static void report_line(const char *path, const struct ioweight_config *parsed,
			const char *error, void *arg)
{
	struct report_ctx *r = arg;
	char msg[2 * ERR_MSG_MAX];

	str_escape(error ? error : path, msg, sizeof(msg));
	if (error)
		fprintf(r->out, "INVALID  %s\n", msg);
	else
		fprintf(r->out, "OK       %s (name %s)%s\n", msg, parsed->name,
			r->files ? " - valid but not used: the first file is the one in effect" : "");
	r->files++;
}

int config_validate_report(const char *target, FILE *out, struct hook_err *err)
{
	_cleanup_free_ struct ioweight_config *cfg = malloc(sizeof(*cfg));
	struct report_ctx r = { .out = out };
	struct hook_err e = { 0 };
	char msg[2 * ERR_MSG_MAX];
	struct stat st;
	int ret;

	if (!cfg)
		return hook_fail(err, ENOMEM, "validate");
	if (stat(target, &st) < 0)
		return hook_fail(err, errno, "%s", target);
	if (!S_ISDIR(st.st_mode)) {
		ret = config_load_file(target, cfg, &e);
		str_escape(ret < 0 ? e.msg : target, msg, sizeof(msg));
		if (ret < 0) {
			fprintf(out, "INVALID  %s\n", msg);
			return 1;
		}
		fprintf(out, "OK       %s (name %s, %zu classes, %zu profiles, %zu device rules, failurePolicy %s)\n",
			msg, cfg->name, cfg->n_classes, cfg->n_profiles, cfg->n_rules,
			cfg->policy == POLICY_FAIL ? "fail" : "warn");
		return 0;
	}
	ret = config_load_dir(target, cfg, report_line, &r, &e);
	if (ret < 0 && !r.files)
		return hook_fail(err, 0, "%s", e.msg);	/* the directory itself */
	if (ret < 0) {
		str_escape(e.msg, msg, sizeof(msg));
		fprintf(out, "NO CONFIG IN EFFECT: %s\n"
			"containers that ask for IO weights fail to start; containers that ask for nothing start untouched\n",
			msg);
		return 1;
	}
	if (!r.files)
		fprintf(out, "no *.json or *.conf files in %s: the built-in default is in effect\n", target);
	else {
		str_escape(cfg->source, msg, sizeof(msg));
		fprintf(out, "IN EFFECT: %s (name %s, failurePolicy %s)\n", msg, cfg->name,
			cfg->policy == POLICY_FAIL ? "fail" : "warn");
	}
	return 0;
}
