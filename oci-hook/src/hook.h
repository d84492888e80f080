/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hook.h - the prestart/createRuntime pipeline, in its fixed order:
 * read input -> config -> log -> cgroup -> annotations -> pod -> request ->
 * devices (the config's list) -> plan -> open and check the cgroup
 * directories (systemd driver: connect to systemd, check the units) ->
 * sandbox (Landlock, seccomp) -> apply -> log decisions.
 * `explain` runs the same pipeline with dry_run set (no log, no sandbox,
 * no writes) and prints the plan.  hook_error_verdict() is the one place
 * that decides what an error does to the container start.
 */
#ifndef IOWEIGHT_HOOK_H
#define IOWEIGHT_HOOK_H

#include <stdio.h>

#include "cgroup.h"
#include "config.h"
#include "plan.h"
#include "state.h"

struct hook_opts {
	struct hook_roots roots;
	const char *config_file;	/* a single file instead of roots.config_dir */
	const char *cgroup;		/* explain: the container cgroup to assume */
	bool dry_run;
	bool sandbox;			/* install the seccomp filter before writing */
};

struct hook_result {
	enum failure_policy policy;	/* what to do with an error */
	bool config_loaded;
	bool requested;			/* the annotations ask for something */
	bool in_pod;
	bool systemd;			/* systemd cgroup driver (linux.cgroupsPath slice:prefix:name) */
	char ctr_cg[PATH_MAX / 2], pod_cg[PATH_MAX / 2];
	struct hook_request req;
	struct plan plan;
	struct ioweight_config *cfg;	/* heap: the struct is large */
};

void hook_result_free(struct hook_result *res);

/*
 * Pipeline on a parsed state.  On error, hook_error_verdict() says what the
 * runtime should do with it.
 */
int hook_run(const struct hook_opts *o, struct oci_state *st, struct hook_result *res,
	     struct hook_err *err);

/*
 * What an error means for the container start, the one policy of the hook:
 * a container whose annotations ask for nothing always starts (even with a
 * broken config or a root profile the kernel refuses); otherwise the
 * config's failurePolicy decides, and without a valid config it fails.
 */
enum hook_verdict { VERDICT_PASS_UNTOUCHED, VERDICT_WARN, VERDICT_FAIL };
enum hook_verdict hook_error_verdict(const struct hook_result *res);

/* Read the state from fd (bounded), then hook_run. */
int hook_run_fd(const struct hook_opts *o, int fd, struct hook_result *res, struct hook_err *err);

/* Print a plan for people (explain). */
void hook_print_plan(FILE *f, const struct hook_result *res);

#endif
