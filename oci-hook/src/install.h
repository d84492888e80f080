/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * install.h - `ioweight-hook install`: wiring the hook into a runtime.
 *
 * Owns: the files each runtime mode writes (runc wrapper script, containerd
 * drop-in and the `imports` line it needs, podman/CRI-O hooks.d JSON), the
 * backup/restore that makes --uninstall byte-exact, and --dry-run output,
 * which is computed by the same code that then does the change.
 */
#ifndef IOWEIGHT_INSTALL_H
#define IOWEIGHT_INSTALL_H

#include <stdio.h>

#include "util.h"

#define INSTALL_MARKER "ioweight-hook install"
#define BACKUP_SUFFIX ".ioweight-orig"
#define DIR_MARKER ".ioweight-hook-created"

enum install_runtime { RT_CONTAINERD, RT_PODMAN, RT_RUNC_WRAPPER };

struct install_opts {
	enum install_runtime runtime;
	bool dry_run, uninstall;
	char prefix[PATH_MAX];	/* "" for the real root; tests use a temp dir */
	char hook[PATH_MAX];	/* absolute path of ioweight-hook */
	char runc[PATH_MAX];	/* absolute path of the real runc */
};

int install_run(const struct install_opts *o, FILE *out, struct hook_err *err);
int install_main(int argc, char **argv);

/* The exact text of the containerd config after our change: an imports
 * entry for the drop-in (*use_dropin), or, when the file configures the CRI
 * plugin itself, our runc tables appended.  NULL old = no file yet. */
int install_containerd_config(const char *old, char **out, bool *use_dropin, struct hook_err *err);

#endif
