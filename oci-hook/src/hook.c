// SPDX-License-Identifier: GPL-2.0-or-later
/* hook.c - the prestart pipeline shared by the hook and `explain`. */
#include "hook.h"

#include <string.h>

#include "device.h"
#include "log.h"
#include "sandbox.h"

void hook_result_free(struct hook_result *res)
{
	plan_free(&res->plan);
	free(res->cfg);
	res->cfg = NULL;
}

/* device-weights entries -> the disks the config lets pods name */
static int resolve_targets(const struct ioweight_config *cfg, const struct disk_name *names,
			   size_t n_names, struct weight_target *t, struct hook_err *err)
{
	for (size_t i = 0; i < t->n_devs; i++) {
		const struct disk_name *dn = device_lookup(cfg, names, n_names, t->devs[i].path);

		if (!dn) {
			char list[400] = "";

			for (size_t k = 0; k < n_names && strlen(list) < 300; k++)
				if (cfg->rules[names[k].rule].pod_weights)
					snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s (%u:%u)",
						 list[0] ? ", " : "", names[k].path, names[k].d.maj, names[k].d.min);
			return hook_fail(err, 0, "annotation %s: `%s` is not a device the config lets pods weight (config %s lists: %s)",
					 ANN_DEVICE_WEIGHTS, t->devs[i].path, cfg->source,
					 list[0] ? list : "none; see podWeights in its devices rules");
		}
		for (size_t j = 0; j < i; j++)
			if (t->devs[j].maj == dn->d.maj && t->devs[j].min == dn->d.min)
				return hook_fail(err, 0, "annotation %s: %s and %s are the same disk %u:%u",
						 ANN_DEVICE_WEIGHTS, t->devs[j].path, t->devs[i].path,
						 dn->d.maj, dn->d.min);
		t->devs[i].maj = dn->d.maj;
		t->devs[i].min = dn->d.min;
	}
	return 0;
}

static int load_config(const struct hook_opts *o, struct ioweight_config *cfg,
		       struct hook_err *err)
{
	if (o->config_file)
		return config_load_file(o->config_file, cfg, err);
	return config_load_dir(o->roots.config_dir, cfg, NULL, NULL, err);
}

static int find_cgroup(const struct hook_opts *o, struct oci_state *st, struct hook_result *res,
		       const char *spec_cg, struct hook_err *err)
{
	if (o->cgroup) {
		/* explain --cgroup slice:prefix:name assumes the systemd driver */
		if (cgroup_path_is_systemd(o->cgroup)) {
			res->systemd = true;
			return cgroup_from_spec(o->cgroup, res->ctr_cg, sizeof(res->ctr_cg), err);
		}
		if (cgroup_check_path(o->cgroup, "--cgroup", err) < 0)
			return -1;
		snprintf(res->ctr_cg, sizeof(res->ctr_cg), "%s", o->cgroup);
		return 0;
	}
	if (st->pid > 0)
		return cgroup_of_pid(&o->roots, st->pid, res->ctr_cg, sizeof(res->ctr_cg), err);
	if (spec_cg)
		return cgroup_from_spec(spec_cg, res->ctr_cg, sizeof(res->ctr_cg), err);
	return hook_fail(err, 0, "OCI state has no pid and config.json no linux.cgroupsPath: cannot find the cgroup");
}

/*
 * The cgroup driver is the runtime's word in config.json: linux.cgroupsPath
 * in "slice:prefix:name" form is the systemd driver.  Read only when the
 * container's cgroup, or its parent, could be a unit (a name ending in
 * .scope or .slice): under cgroupfs the bundle is not opened unless the
 * state lacks something.  The unit's cgroup, as systemd names it, must be
 * where the container runs, or its parent: crun puts the process of a
 * delegated scope one level down (run.oci.systemd.subgroup, "container"),
 * where a weight would have no sibling to weigh against; the unit is what
 * competes, so the unit is what the hook weights.
 */
static int find_driver(const struct hook_opts *o, struct oci_state *st, struct hook_result *res,
		       char **spec_cg, bool spec_read, struct hook_err *err)
{
	char want[PATH_MAX / 2], parent[PATH_MAX / 2];
	char *slash;
	size_t wl;

	if (o->cgroup || !st->bundle)
		return 0;
	snprintf(parent, sizeof(parent), "%s", res->ctr_cg);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	if (!cgroup_looks_like_unit(res->ctr_cg) && !cgroup_looks_like_unit(parent))
		return 0;
	if (!spec_read && spec_load(st, true, spec_cg, err) < 0)
		return -1;
	if (!*spec_cg || !cgroup_path_is_systemd(*spec_cg))
		return 0;
	if (cgroup_from_spec(*spec_cg, want, sizeof(want), err) < 0)
		return -1;
	wl = strlen(want);
	if (!strcmp(want, parent) && strcmp(want, res->ctr_cg)) {
		log_msg(LOG_INFO, "the container runs in %s, a sub-cgroup of its unit's: weighting the unit's cgroup %s",
			res->ctr_cg, want);
		memcpy(res->ctr_cg, want, wl + 1);
	}
	if (strcmp(want, res->ctr_cg)) {
		char a[256], b[PATH_MAX / 2];

		str_escape(*spec_cg, a, sizeof(a));
		str_escape(want, b, sizeof(b));
		return hook_fail(err, 0, "config.json linux.cgroupsPath `%s` is cgroup %s under the systemd driver, but the container runs in %s: refusing to weight either",
				 a, b, res->ctr_cg);
	}
	res->systemd = true;
	return 0;
}

/*
 * What the log calls the pod: "namespace/name" from the CRI's annotations
 * when present (checked: they end up in log lines), else the kubelet pod
 * cgroup if the path has one, else nothing.
 */
static const char *pod_label(const struct oci_state *st, const char *ctr_cg, char *buf,
			     size_t len)
{
	const char *name = state_annotation(st, "io.kubernetes.cri.sandbox-name");
	const char *ns = state_annotation(st, "io.kubernetes.cri.sandbox-namespace");

	if (!name)
		name = state_annotation(st, "io.kubernetes.pod.name");
	if (!ns)
		ns = state_annotation(st, "io.kubernetes.pod.namespace");
	if (name && valid_label(name, 253) && (!ns || valid_label(ns, 63))) {
		snprintf(buf, len, "%s/%s", ns ? ns : "-", name);
		return buf;
	}
	if (cgroup_kubelet_pod(ctr_cg, buf, len))
		return buf;
	buf[0] = '\0';
	return NULL;
}

/* Landlock and seccomp around what is left to do: the plan's writes. */
static int confine(const struct hook_opts *o, const struct plan *p, struct hook_err *err)
{
	int fds[PLAN_MAX_DIRS];
	struct sandbox_spec sp = {
		.write_dirs = fds,
		.cgroup_root = o->roots.cgroup,
		.read_paths = { o->config_file ? o->config_file : o->roots.config_dir },
		.bus_fd = systemd_fd(p->bus),
	};
	struct sandbox_status st;

	_Static_assert((int)PLAN_MAX_DIRS <= (int)SANDBOX_MAX_WRITE_DIRS, "a plan's directories fit the filter");
	for (size_t i = 0; i < p->n_dirs && sp.n_write_dirs < PLAN_MAX_DIRS; i++)
		if (p->dirs[i].fd >= 0)
			fds[sp.n_write_dirs++] = p->dirs[i].fd;
	if (sandbox_apply(&sp, &st, err) < 0)
		return -1;
	if (!st.landlock_abi)
		log_msg(LOG_INFO, "%s", st.landlock_note);
	return 0;
}

static void log_units(const struct plan *p)
{
	for (size_t i = 0; i < p->n_units && p->units[i].status == PS_WRITTEN; i++) {
		char w[400];

		systemd_weights_str(&p->units[i].w, w, sizeof(w));
		log_msg(LOG_INFO, "set %s on unit %s through systemd (%s)", w, p->units[i].name,
			p->units[i].why);
	}
}

int hook_run(const struct hook_opts *o, struct oci_state *st, struct hook_result *res,
	     struct hook_err *err)
{
	struct ann_values av;
	struct devnum disks[PLAN_MAX_DISKS];
	int disk_prof[PLAN_MAX_DISKS];
	size_t n_disks = 0, n_names = 0;
	_cleanup_free_ struct disk_name *names = NULL;
	_cleanup_free_ char *spec_cg = NULL;
	struct plan_input pin;
	char pod_label_buf[PATH_MAX / 2] = "";
	bool spec_read;

	memset(res, 0, sizeof(*res));
	res->policy = POLICY_FAIL;	/* until a config says otherwise */
	res->requested = true;		/* until the annotations say otherwise */
	/* not zeroed: config_default() and device_expand_rules() fill what
	 * is read, and untouched pages cost nothing */
	res->cfg = malloc(sizeof(*res->cfg));
	names = malloc(DISK_NAMES_MAX * sizeof(*names));
	if (!res->cfg || !names)
		return hook_fail(err, ENOMEM, "config");
	config_default(res->cfg);	/* defined on every error path too */
	/* config.json when the state lacks what we need (find_driver may
	 * read it later) */
	spec_read = (!st->has_annotations || (st->pid <= 0 && !o->cgroup)) && st->bundle;
	if (spec_read && spec_load(st, false, &spec_cg, err) < 0)
		return -1;
	res->requested = annotations_request_anything(st->ann, st->n_ann);
	if (load_config(o, res->cfg, err) < 0) {
		/* the config's log target is unknown: syslog, else stderr */
		if (!o->dry_run)
			log_open(LOGT_SYSLOG, NULL, NULL);
		log_context(st->id, NULL, NULL);
		return -1;
	}
	res->config_loaded = true;
	res->policy = res->cfg->policy;
	if (!o->dry_run) {
		struct hook_err le = { 0 };

		if (log_open(res->cfg->log_target, res->cfg->log_path, &le) < 0)
			fprintf(stderr, "ioweight-hook: %s; logging to stderr\n", le.msg);
	}
	log_context(st->id, NULL, NULL);

	/* the cgroup first: every later error, bad annotations included, is
	 * logged with the container's cgroup and pod */
	if (find_cgroup(o, st, res, spec_cg, err) < 0 ||
	    find_driver(o, st, res, &spec_cg, spec_read, err) < 0)
		return -1;
	log_context(st->id, pod_label(st, res->ctr_cg, pod_label_buf, sizeof(pod_label_buf)),
		    res->ctr_cg);
	/* the root has no io.weight, and its subtree_control is not ours to vary */
	if (!strcmp(res->ctr_cg, "/"))
		return hook_fail(err, 0, "container runs in the root cgroup: nothing to weight");
	if (annotations_parse(st->ann, st->n_ann, &av, err) < 0 ||
	    cgroup_find_pod(res->ctr_cg, &av, &res->in_pod, res->pod_cg, sizeof(res->pod_cg),
			    err) < 0)
		return -1;
	if (res->in_pod && !pod_label_buf[0])
		log_context(st->id, res->pod_cg, res->ctr_cg);
	/* only the admin's device rules are resolved; pods pick from them */
	if (request_build(&av, res->cfg, res->in_pod, &res->req, err) < 0 ||
	    device_expand_rules(&o->roots, res->cfg, names, &n_names, DISK_NAMES_MAX, err) < 0 ||
	    resolve_targets(res->cfg, names, n_names, &res->req.pod, err) < 0 ||
	    resolve_targets(res->cfg, names, n_names, &res->req.ctr, err) < 0 ||
	    plan_profile_disks(res->cfg, names, n_names, disks, disk_prof, &n_disks, err) < 0)
		return -1;
	pin = (struct plan_input){
		.roots = &o->roots, .cfg = res->cfg, .ctr_cg = res->ctr_cg,
		.pod_cg = res->in_pod ? res->pod_cg : NULL, .req = &res->req,
		.disks = disks, .disk_profile = disk_prof, .n_disks = n_disks,
		.systemd = res->systemd,
	};
	if (plan_build(&pin, &res->plan, err) < 0 ||
	    plan_open_dirs(&res->plan, o->roots.cgroup, o->dry_run, err) < 0 ||
	    (!o->dry_run && plan_connect_systemd(&res->plan, o->roots.systemd_socket, err) < 0))
		return -1;

	/* last step before touching cgroupfs: everything is read and open */
	if (o->sandbox && !o->dry_run && confine(o, &res->plan, err) < 0) {
		if (res->cfg->require_sandbox)
			return hook_fail_prefix(err, "refusing to run unsandboxed (requireSandbox): ");
		log_msg(LOG_WARNING, "running unsandboxed (requireSandbox is false): %s", err->msg);
	}
	for (size_t i = 0; i < res->req.n_notes; i++)
		log_msg(LOG_INFO, "%s", res->req.notes[i]);
	if (plan_apply(&res->plan, o->dry_run, err) < 0) {
		/* what did land before the failure is worth knowing */
		log_units(&res->plan);
		for (size_t i = 0; i < res->plan.n && res->plan.e[i].status == PS_WRITTEN; i++)
			log_msg(LOG_INFO, "wrote `%s` to %s (%s)", res->plan.e[i].line,
				res->plan.e[i].path, res->plan.e[i].why);
		return -1;
	}
	if (!o->dry_run) {
		log_units(&res->plan);
		for (size_t i = 0; i < res->plan.n; i++) {
			const struct plan_entry *e = &res->plan.e[i];

			log_msg(LOG_INFO, "%s `%s` %s %s (%s)",
				e->status == PS_WRITTEN ? "wrote" : "kept", e->line,
				e->status == PS_WRITTEN ? "to" : "already in", e->path, e->why);
		}
		if (!res->plan.n)
			log_msg(LOG_INFO, "no weight requested and no device rule matched: nothing to write");
	}
	return 0;
}

int hook_run_fd(const struct hook_opts *o, int fd, struct hook_result *res, struct hook_err *err)
{
	_cleanup_free_ char *buf = NULL;
	struct oci_state st;
	size_t len;
	int r;

	memset(res, 0, sizeof(*res));
	res->policy = POLICY_FAIL;
	res->requested = true;		/* unreadable input asks for everything */
	if (read_fd_bounded(fd, MAX_STATE_BYTES, "OCI state on stdin", &buf, &len, err) < 0 ||
	    state_parse(buf, len, &st, err) < 0)
		return -1;
	r = hook_run(o, &st, res, err);
	state_free(&st);
	return r;
}

enum hook_verdict hook_error_verdict(const struct hook_result *res)
{
	if (!res->requested)
		return VERDICT_PASS_UNTOUCHED;
	if (res->config_loaded && res->policy == POLICY_WARN)
		return VERDICT_WARN;
	return VERDICT_FAIL;
}

void hook_print_plan(FILE *f, const struct hook_result *res)
{
	const struct hook_request *req = &res->req;
	char a[PATH_MAX * 2], b[PATH_MAX * 2];

	str_escape(res->cfg->source, a, sizeof(a));
	fprintf(f, "config:    %s (name %s, failurePolicy %s)\n", a, res->cfg->name,
		res->cfg->policy == POLICY_FAIL ? "fail" : "warn");
	str_escape(res->ctr_cg, a, sizeof(a));
	fprintf(f, "container: cgroup %s\n", a);
	str_escape(res->pod_cg, a, sizeof(a));
	if (res->in_pod)
		fprintf(f, "pod:       cgroup %s\n", a);
	else
		fprintf(f, "pod:       none (standalone container)\n");
	for (size_t i = 0; i < req->n_notes; i++) {
		str_escape(req->notes[i], a, sizeof(a));
		fprintf(f, "note:      %s\n", a);
	}
	if (res->systemd)
		fprintf(f, "driver:    systemd (weights set on the units, then written to the files)\n");
	for (size_t i = 0; i < res->plan.n_units; i++) {
		const struct plan_unit *u = &res->plan.units[i];

		systemd_weights_str(&u->w, a, sizeof(a));
		fprintf(f, "  systemd   SetUnitProperties(%s, runtime) %s  # %s\n", u->name, a, u->why);
	}
	if (!res->plan.n) {
		fprintf(f, "writes:    none\n");
		return;
	}
	fprintf(f, "writes (in order, one write() each):\n");
	for (size_t i = 0; i < res->plan.n; i++) {
		const struct plan_entry *e = &res->plan.e[i];

		str_escape(e->path, a, sizeof(a));
		str_escape(e->why, b, sizeof(b));
		fprintf(f, "  %-9s `%s` > %s  # %s\n",
			e->status == PS_UNCHANGED ? "unchanged" : "write", e->line, a, b);
	}
}
