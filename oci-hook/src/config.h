/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h - the admin's CNI-like configuration.
 *
 * Owns: struct ioweight_config, strict validation of one document, loading a
 * config directory (every file validated, the first in lexical order in
 * effect; one invalid file makes the directory invalid) and the built-in
 * default used when the directory is absent or empty.  The hook and
 * `validate` load through the same function.
 * The schema is cni-like-config/ioweight.schema.json; keep them in step.
 */
#ifndef IOWEIGHT_CONFIG_H
#define IOWEIGHT_CONFIG_H

#include "util.h"

#define CONFIG_VERSION "1.0.0"

enum {
	CFG_NAME_MAX = 63,	/* a DNS label, like a CNI network name */
	CFG_MAX_CLASSES = 64,
	CFG_MAX_PROFILES = 64,
	CFG_MAX_RULES = 128,
	CFG_KFILE_MAX = 64,
	CFG_MATCH_MAX = 256,	/* a device path or glob in a rule */
	CFG_NS_MAX = 63,	/* a Kubernetes namespace: a DNS label */
	CFG_MAX_NAMESPACES = 256,	/* namespace names over all classes */
};

enum failure_policy { POLICY_FAIL, POLICY_WARN };
enum log_target { LOGT_SYSLOG, LOGT_FILE, LOGT_STDERR, LOGT_NONE };

struct cfg_class {
	char name[CFG_NAME_MAX + 1];
	long weight;
	bool ns_restricted;	/* "namespaces" given: only those may use it */
	size_t ns_first, ns_count;	/* slice of ioweight_config.namespaces */
};

/* cost model line: ctrl=auto, or ctrl=user with all six linear parameters */
struct cfg_cost_model {
	bool set;
	bool user;
	unsigned long long rbps, rseqiops, rrandiops, wbps, wseqiops, wrandiops;
};

/* qos line: every numeric field is optional; set_mask says which were given */
enum qos_field { QOS_RPCT, QOS_RLAT, QOS_WPCT, QOS_WLAT, QOS_MIN, QOS_MAX, NR_QOS_FIELDS };
struct cfg_qos {
	bool set;
	bool user;		/* ctrl=user */
	unsigned set_mask;
	double val[NR_QOS_FIELDS];
};

struct cfg_profile {
	char name[CFG_NAME_MAX + 1];
	bool enable;
	struct cfg_cost_model model;
	struct cfg_qos qos;
};

struct cfg_rule {
	char match[CFG_MATCH_MAX];	/* absolute path or glob */
	int profile;		/* index into profiles, -1 for none */
	bool pod_weights;	/* pods may name these disks in device-weights */
};

struct ioweight_config {
	char source[PATH_MAX];	/* file it came from, or "<built-in default>" */
	char name[CFG_NAME_MAX + 1];
	enum failure_policy policy;
	bool require_sandbox;
	enum log_target log_target;
	char log_path[PATH_MAX];
	char file_weight[CFG_KFILE_MAX], file_cost_model[CFG_KFILE_MAX], file_qos[CFG_KFILE_MAX];
	long min_weight, max_weight;
	long max_device_entries;
	struct {
		bool weight, class_, device_weights, container_weights, blockio;
	} honour;
	struct cfg_class classes[CFG_MAX_CLASSES];
	size_t n_classes;
	char namespaces[CFG_MAX_NAMESPACES][CFG_NS_MAX + 1];
	size_t n_namespaces;
	struct cfg_profile profiles[CFG_MAX_PROFILES];
	size_t n_profiles;
	struct cfg_rule rules[CFG_MAX_RULES];
	size_t n_rules;
};

extern const char *const qos_field_names[NR_QOS_FIELDS];

void config_default(struct ioweight_config *cfg);
/* Validate one document; errors start with `source`. */
int config_parse(const char *buf, size_t len, const char *source, struct ioweight_config *cfg,
		 struct hook_err *err);
int config_load_file(const char *path, struct ioweight_config *cfg, struct hook_err *err);

/*
 * Load from a directory: every *.json and *.conf file (at most
 * MAX_CONFIG_FILES) is validated, in lexical order; the first one is in
 * effect, the others are checked but unused.  Any invalid file makes the
 * whole directory an error: a typo must never hand control to another file.
 * No directory or no files -> the built-in default.
 * `report` (may be NULL) hears about every file, in order: its parsed
 * config, or NULL and the error.
 */
typedef void (*config_report_fn)(const char *path, const struct ioweight_config *parsed,
				 const char *error, void *arg);
int config_load_dir(const char *dir, struct ioweight_config *cfg, config_report_fn report,
		    void *arg, struct hook_err *err);

/* `validate`: a directory through config_load_dir() (so the verdict is the
 * hook's), or one file.  Prints a line per file.  Returns 0 if all is well,
 * 1 if anything is invalid, < 0 if the target cannot be read. */
#include <stdio.h>
int config_validate_report(const char *target, FILE *out, struct hook_err *err);

const struct cfg_class *config_class(const struct ioweight_config *cfg, const char *name);
/* May a pod in namespace `ns` (NULL: unknown) use class c? */
bool config_class_allows(const struct ioweight_config *cfg, const struct cfg_class *c,
			 const char *ns);

#endif
