/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * install.h - `ioweight-hook install`: wiring the hook into a runtime.
 *
 * Owns: the files each runtime mode writes (runc wrapper script, the
 * `ioweight` runtime handler in containerd's config.toml or a version 3
 * drop-in, the OCI hooks.d JSON for podman and CRI-O and CRI-O's drop-in),
 * the markers that let --uninstall remove exactly what install added (and
 * nothing the admin changed since), and --dry-run output, which is computed
 * by the same code that then makes the change.
 */
#ifndef IOWEIGHT_INSTALL_H
#define IOWEIGHT_INSTALL_H

#include <stdio.h>

#include "util.h"

#define INSTALL_MARKER "ioweight-hook install"
#define DIR_MARKER ".ioweight-hook-created"
#define INSTALL_RUNTIME_NAME "ioweight"

enum install_runtime { RT_CONTAINERD, RT_PODMAN, RT_CRIO, RT_RUNC_WRAPPER };

struct install_opts {
	enum install_runtime runtime;
	bool dry_run, uninstall;
	bool set_default;	/* containerd: make `ioweight` the CRI default runtime */
	char prefix[PATH_MAX];	/* "" for the real root; tests use a temp dir */
	char hook[PATH_MAX];	/* absolute path of ioweight-hook */
	char runc[PATH_MAX];	/* absolute path of the real runc */
	char hooks_dir[PATH_MAX];	/* podman/CRI-O; "" = the default */
};

int install_run(const struct install_opts *o, FILE *out, struct hook_err *err);
int install_main(int argc, char **argv);

/* ---- the containerd config editor (pure: text in, text out) ---- */

struct ctrd_opts {
	bool set_default;
	const char *runc;	/* the wrapper's runc, for a BinaryName warning */
	const char *prefix;	/* look at imported files under it; NULL: don't */
};

struct ctrd_plan {
	int version;		/* 2 or 3: the config format found (or created) */
	char *config;		/* config.toml after install (never NULL) */
	size_t config_len;
	char *dropin;		/* version 3: the drop-in's text; else NULL */
	char *warnings;		/* "warning: ...\n" lines, or "" */
};

/* config.toml's text after installing the `ioweight` handler; old == NULL
 * means there is no file.  Any earlier install's edits are replaced, so a
 * second install gives the same text. */
int install_containerd_config(const char *old, size_t len, const struct ctrd_opts *o,
			      struct ctrd_plan *plan, struct hook_err *err);
void ctrd_plan_free(struct ctrd_plan *plan);

/* The text with every edit of an earlier install removed: *found says
 * whether there was any, *remove_file whether the file is one install
 * created and nothing else is left in it. */
int install_strip(const char *text, size_t len, char **out, size_t *out_len, bool *found,
		  bool *remove_file, struct hook_err *err);

#endif
