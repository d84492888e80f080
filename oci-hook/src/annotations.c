// SPDX-License-Identifier: GPL-2.0-or-later
/* annotations.c - annotation syntax, precedence and pod/container placement. */
#include "annotations.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool valid_label(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			return false;
	return true;
}

static int parse_weight(const char *key, const char *val, long *out, struct hook_err *err)
{
	if (parse_long_range(val, WEIGHT_MIN, WEIGHT_MAX, out) < 0)
		return hook_fail(err, 0, "annotation %s: `%.64s` is not an integer in %d..%d", key, val,
				 WEIGHT_MIN, WEIGHT_MAX);
	return 0;
}

static int parse_class(const char *key, const char *val, char *out, struct hook_err *err)
{
	if (!valid_label(val, ANN_NAME_MAX))
		return hook_fail(err, 0, "annotation %s: `%.64s` is not a class name (1-63 of [A-Za-z0-9._-])",
				 key, val);
	strcpy(out, val);
	return 0;
}

/* "W" -> weight, anything else must be a class name */
static int parse_weight_or_class(const char *key, const char *val, long *w, char *cls,
				 struct hook_err *err)
{
	if (val[0] >= '0' && val[0] <= '9')
		return parse_weight(key, val, w, err);
	return parse_class(key, val, cls, err);
}

/* "8:16": digits, a colon, digits; nothing else */
static bool is_devnum(const char *s)
{
	size_t a = strspn(s, "0123456789"), b;

	if (a == 0 || a > 10 || s[a] != ':')
		return false;
	b = strspn(s + a + 1, "0123456789");
	return b > 0 && b <= 10 && s[a + 1 + b] == '\0';
}

/*
 * "/dev/vdb=500, 8:0=200": a device name or MAJ:MIN, '=', weight;
 * comma-separated.  Only syntax here: which devices a pod may name is the
 * config's list (device.c), and nothing a pod writes is ever looked up in
 * the filesystem.
 */
static int parse_device_weights(const char *key, const char *val, struct ann_values *av,
				struct hook_err *err)
{
	_cleanup_free_ char *copy = strdup(val);
	char *save = NULL, *tok;

	if (!copy)
		return hook_fail(err, ENOMEM, "annotation %s", key);
	if (!*str_trim(copy))
		return hook_fail(err, 0, "annotation %s: empty value", key);
	/* strtok_r would silently skip empty entries ("a=1,,b=2"): check first */
	if (strstr(val, ",,") || val[0] == ',' || val[strlen(val) - 1] == ',')
		return hook_fail(err, 0, "annotation %s: empty entry in `%.64s`", key, val);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *e = str_trim(tok), *eq = strrchr(e, '=');
		struct dev_req *d;
		char *path;

		if (!eq)
			return hook_fail(err, 0, "annotation %s: entry `%.64s` is not DEVICE=WEIGHT", key, e);
		*eq = '\0';
		path = str_trim(e);
		if (av->n_devs == MAX_DEVICE_ENTRIES)
			return hook_fail(err, 0, "annotation %s: more than %d entries", key,
					 MAX_DEVICE_ENTRIES);
		if (path[0] != '/' && !is_devnum(path))
			return hook_fail(err, 0, "annotation %s: device `%.64s` is neither a /dev path nor MAJ:MIN",
					 key, path);
		if (strlen(path) > DEV_PATH_MAX)
			return hook_fail(err, 0, "annotation %s: device path longer than %d bytes", key,
					 DEV_PATH_MAX);
		if (path_has_dot_component(path))
			return hook_fail(err, 0, "annotation %s: device `%.64s` has a `.`/`..` or empty component",
					 key, path);
		for (const char *c = path; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return hook_fail(err, 0, "annotation %s: device path has a control character", key);
		for (size_t i = 0; i < av->n_devs; i++)
			if (!strcmp(av->devs[i].path, path))
				return hook_fail(err, 0, "annotation %s: device `%.64s` listed twice", key, path);
		d = &av->devs[av->n_devs];
		strcpy(d->path, path);
		if (parse_long_range(str_trim(eq + 1), WEIGHT_MIN, WEIGHT_MAX, &d->weight) < 0)
			return hook_fail(err, 0, "annotation %s: weight `%.32s` for %.64s is not an integer in %d..%d",
					 key, str_trim(eq + 1), path, WEIGHT_MIN, WEIGHT_MAX);
		av->n_devs++;
	}
	return 0;
}

static const char *find(const struct kv *ann, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ann[i].key, key))
			return ann[i].value;
	return NULL;
}

int annotations_parse(const struct kv *ann, size_t n, struct ann_values *av,
		      struct hook_err *err)
{
	const char *v;

	memset(av, 0, sizeof(*av));
	/* Context first: the container name picks the container.<name> keys. */
	v = find(ann, n, ANN_CRI_CONTAINER_TYPE);
	if (!v)
		v = find(ann, n, ANN_CRIO_CONTAINER_TYPE);
	if (v) {
		if (!strcmp(v, "sandbox"))
			av->ctype = CT_SANDBOX;
		else if (!strcmp(v, "container"))
			av->ctype = CT_CONTAINER;
		else
			return hook_fail(err, 0, "annotation %s: `%.32s` is neither `sandbox` nor `container`",
					 ANN_CRI_CONTAINER_TYPE, v);
	}
	v = find(ann, n, ANN_CRI_SANDBOX_ID);
	if (!v)
		v = find(ann, n, ANN_CRIO_SANDBOX_ID);
	if (v) {
		if (strlen(v) >= sizeof(av->sandbox_id) || !valid_container_id(v))
			return hook_fail(err, 0, "annotation %s: not a valid sandbox id", ANN_CRI_SANDBOX_ID);
		strcpy(av->sandbox_id, v);
	}
	v = find(ann, n, ANN_CRI_NAMESPACE);
	if (!v)
		v = find(ann, n, ANN_K8S_NAMESPACE);
	if (v) {
		if (!valid_label(v, ANN_NAME_MAX))
			return hook_fail(err, 0, "annotation %s: `%.64s` is not a namespace name",
					 ANN_CRI_NAMESPACE, v);
		strcpy(av->namespace_, v);
	}
	v = find(ann, n, ANN_CRI_CONTAINER_NAME);
	if (!v)
		v = find(ann, n, ANN_K8S_CONTAINER_NAME);
	if (v) {
		if (!valid_label(v, ANN_NAME_MAX))
			return hook_fail(err, 0, "annotation %s: `%.64s` is not a container name",
					 ANN_CRI_CONTAINER_NAME, v);
		strcpy(av->container_name, v);
	}

	for (size_t i = 0; i < n; i++) {
		const char *k = ann[i].key, *val = ann[i].value;
		bool ours = !strncmp(k, ANN_PREFIX, strlen(ANN_PREFIX));
		bool blockio = !strcmp(k, ANN_CRI_BLOCKIO) || !strcmp(k, ANN_BLOCKIO_POD) ||
			       !strncmp(k, ANN_BLOCKIO_CONTAINER, strlen(ANN_BLOCKIO_CONTAINER));

		if (!ours && !blockio)
			continue;	/* not ours to judge */
		if (strlen(val) > MAX_ANNOTATION_VALUE)
			return hook_fail(err, 0, "annotation %s: value longer than %d bytes", k,
					 MAX_ANNOTATION_VALUE);
		if (!strcmp(k, ANN_WEIGHT)) {
			if (parse_weight(k, val, &av->weight, err) < 0)
				return -1;
		} else if (!strcmp(k, ANN_CLASS)) {
			if (parse_class(k, val, av->class_, err) < 0)
				return -1;
		} else if (!strcmp(k, ANN_DEVICE_WEIGHTS)) {
			if (parse_device_weights(k, val, av, err) < 0)
				return -1;
		} else if (!strncmp(k, ANN_CONTAINER, strlen(ANN_CONTAINER))) {
			const char *name = k + strlen(ANN_CONTAINER);
			long w = 0;
			char cls[ANN_NAME_MAX + 1] = "";

			/* the whole name part ("container.<name>") is <= 63 chars */
			if (!valid_label(name, ANN_NAME_MAX - strlen("container.")))
				return hook_fail(err, 0, "annotation %.80s: `%.64s` is not a valid container name",
						 k, name);
			/* siblings' keys are validated too: one typo fails every container */
			if (parse_weight_or_class(k, val, &w, cls, err) < 0)
				return -1;
			if (av->container_name[0] && !strcmp(name, av->container_name)) {
				av->ctr_weight = w;
				strcpy(av->ctr_class, cls);
			}
		} else if (ours) {
			return hook_fail(err, 0, "annotation %.120s: unknown key (known: %s, %s, %s, %s<name>)",
					 k, ANN_WEIGHT, ANN_CLASS, ANN_DEVICE_WEIGHTS, ANN_CONTAINER);
		} else if (!strcmp(k, ANN_CRI_BLOCKIO)) {
			if (parse_class(k, val, av->cri_blockio, err) < 0)
				return -1;
		} else if (!strcmp(k, ANN_BLOCKIO_POD)) {
			if (parse_class(k, val, av->blockio_pod, err) < 0)
				return -1;
		} else {
			const char *name = k + strlen(ANN_BLOCKIO_CONTAINER);
			char cls[ANN_NAME_MAX + 1];

			if (!valid_label(name, ANN_NAME_MAX))
				return hook_fail(err, 0, "annotation %.80s: `%.64s` is not a valid container name",
						 k, name);
			if (parse_class(k, val, cls, err) < 0)
				return -1;
			if (av->container_name[0] && !strcmp(name, av->container_name))
				strcpy(av->blockio_ctr, cls);
		}
	}
	return 0;
}

static void note(struct hook_request *req, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct hook_request *req, const char *fmt, ...)
{
	va_list ap;

	if (req->n_notes == NOTE_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(req->notes[req->n_notes++], NOTE_LEN, fmt, ap);
	va_end(ap);
}

static bool is_request_key(const char *k)
{
	return !strncmp(k, ANN_PREFIX, strlen(ANN_PREFIX)) || !strcmp(k, ANN_CRI_BLOCKIO) ||
	       !strcmp(k, ANN_BLOCKIO_POD) ||
	       !strncmp(k, ANN_BLOCKIO_CONTAINER, strlen(ANN_BLOCKIO_CONTAINER));
}

bool annotations_request_anything(const struct kv *ann, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_request_key(ann[i].key))
			return true;
	return false;
}

static int class_weight(const struct ioweight_config *cfg, const char *key, const char *cls,
			const char *ns, struct weight_target *t, struct hook_err *err)
{
	const struct cfg_class *c = config_class(cfg, cls);

	if (!c) {
		char list[256] = "";

		for (size_t i = 0; i < cfg->n_classes && strlen(list) < 180; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
				 cfg->classes[i].name);
		return hook_fail(err, 0, "annotation %s: unknown class `%s` (config %s defines: %s)", key,
				 cls, cfg->source, list[0] ? list : "none");
	}
	/* a class is held to the same bounds as a number ... */
	if (c->weight < cfg->min_weight || c->weight > cfg->max_weight)
		return hook_fail(err, 0, "annotation %s: class %s (weight %ld) is outside %ld..%ld allowed by config %s",
				 key, cls, c->weight, cfg->min_weight, cfg->max_weight, cfg->source);
	/* ... and may be reserved for some namespaces */
	if (!config_class_allows(cfg, c, ns))
		return hook_fail(err, 0, "annotation %s: class %s is not allowed in %s%s%s (config %s)", key,
				 cls, ns ? "namespace `" : "a container without a namespace", ns ? ns : "",
				 ns ? "`" : "", cfg->source);
	t->set = true;
	t->weight = c->weight;
	snprintf(t->source, sizeof(t->source), "%s=%s", key, cls);
	return 0;
}

/* A weight a pod asked for by number is held to the admin's limits. */
static int numeric_weight(const struct ioweight_config *cfg, const char *key, long w,
			  struct weight_target *t, struct hook_err *err)
{
	if (w < cfg->min_weight || w > cfg->max_weight)
		return hook_fail(err, 0, "annotation %s: weight %ld is outside %ld..%ld allowed by config %s",
				 key, w, cfg->min_weight, cfg->max_weight, cfg->source);
	t->set = true;
	t->weight = w;
	snprintf(t->source, sizeof(t->source), "%s=%ld", key, w);
	return 0;
}

/*
 * Candidates in precedence order; the first present and enabled one wins.
 * Each is either numeric (w > 0) or a class name.
 */
struct cand {
	const char *key;
	long w;
	const char *cls;
	bool enabled;
	const char *switch_name;
};

static int pick(const struct cand *c, size_t n, const struct ioweight_config *cfg,
		const char *ns, struct weight_target *t, struct hook_request *req,
		struct hook_err *err)
{
	for (size_t i = 0; i < n; i++) {
		bool present = c[i].w > 0 || (c[i].cls && c[i].cls[0]);

		if (!present)
			continue;
		if (!c[i].enabled) {
			note(req, "%s ignored: annotations.%s is false in config", c[i].key,
			     c[i].switch_name);
			continue;
		}
		if (t->set) {
			note(req, "%s ignored: %s takes precedence", c[i].key, t->source);
			continue;
		}
		if (c[i].w > 0 ? numeric_weight(cfg, c[i].key, c[i].w, t, err) < 0
			       : class_weight(cfg, c[i].key, c[i].cls, ns, t, err) < 0)
			return -1;
	}
	return 0;
}

int request_build(const struct ann_values *av, const struct ioweight_config *cfg, bool in_pod,
		  struct hook_request *req, struct hook_err *err)
{
	char ctr_key[128], bctr_key[128];
	const struct honour_s { bool w, c, d, cw, b; } h = {
		cfg->honour.weight, cfg->honour.class_, cfg->honour.device_weights,
		cfg->honour.container_weights, cfg->honour.blockio
	};
	struct weight_target *devs_to;
	/* the namespace the CRI put in a real pod's annotations; a standalone
	 * container has none, whatever its annotations say */
	const char *ns = in_pod && av->namespace_[0] ? av->namespace_ : NULL;

	memset(req, 0, sizeof(*req));
	snprintf(ctr_key, sizeof(ctr_key), "%s%s", ANN_CONTAINER, av->container_name);
	snprintf(bctr_key, sizeof(bctr_key), "%s%s", ANN_BLOCKIO_CONTAINER, av->container_name);

	if (in_pod) {
		const struct cand pod[] = {
			{ ANN_WEIGHT, av->weight, NULL, h.w, "weight" },
			{ ANN_CLASS, 0, av->class_, h.c, "class" },
			{ ANN_BLOCKIO_POD, 0, av->blockio_pod, h.b, "blockio" },
		};
		const struct cand ctr[] = {
			{ ctr_key, av->ctr_weight, av->ctr_class, h.cw, "containerWeights" },
			{ ANN_CRI_BLOCKIO, 0, av->cri_blockio, h.b, "blockio" },
			{ bctr_key, 0, av->blockio_ctr, h.b, "blockio" },
		};

		if (pick(pod, 3, cfg, ns, &req->pod, req, err) < 0)
			return -1;
		/* the pause container has no share of its own to set */
		if (av->ctype != CT_SANDBOX && pick(ctr, 3, cfg, ns, &req->ctr, req, err) < 0)
			return -1;
		devs_to = &req->pod;
	} else {
		const struct cand ctr[] = {
			{ ANN_WEIGHT, av->weight, NULL, h.w, "weight" },
			{ ANN_CLASS, 0, av->class_, h.c, "class" },
			{ ctr_key, av->ctr_weight, av->ctr_class, h.cw, "containerWeights" },
			{ ANN_CRI_BLOCKIO, 0, av->cri_blockio, h.b, "blockio" },
			{ bctr_key, 0, av->blockio_ctr, h.b, "blockio" },
			{ ANN_BLOCKIO_POD, 0, av->blockio_pod, h.b, "blockio" },
		};

		if (pick(ctr, 6, cfg, ns, &req->ctr, req, err) < 0)
			return -1;
		devs_to = &req->ctr;
	}

	if (av->n_devs) {
		if (!h.d) {
			note(req, "%s ignored: annotations.deviceWeights is false in config",
			     ANN_DEVICE_WEIGHTS);
			return 0;
		}
		if ((long)av->n_devs > cfg->max_device_entries)
			return hook_fail(err, 0, "annotation %s: %zu entries, config %s allows %ld",
					 ANN_DEVICE_WEIGHTS, av->n_devs, cfg->source,
					 cfg->max_device_entries);
		for (size_t i = 0; i < av->n_devs; i++) {
			if (av->devs[i].weight < cfg->min_weight || av->devs[i].weight > cfg->max_weight)
				return hook_fail(err, 0, "annotation %s: weight %ld for %s is outside %ld..%ld allowed by config %s",
						 ANN_DEVICE_WEIGHTS, av->devs[i].weight, av->devs[i].path,
						 cfg->min_weight, cfg->max_weight, cfg->source);
			devs_to->devs[i] = av->devs[i];
		}
		devs_to->n_devs = av->n_devs;
	}
	return 0;
}
