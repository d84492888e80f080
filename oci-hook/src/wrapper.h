/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wrapper.h - `ioweight-hook runc-wrapper`: the thin runtime wrapper that
 * containerd's runc `BinaryName` (or `ctr run --runc-binary`) points at.
 *
 * Owns: finding the bundle in runc's argv, adding our prestart hook to its
 * config.json (once, atomically) on `create`/`run`, and exec'ing the real
 * runc with the argv untouched.
 */
#ifndef IOWEIGHT_WRAPPER_H
#define IOWEIGHT_WRAPPER_H

#include "util.h"

/* seconds runc gives the injected hook (OCI `timeout`), as hooks.d does */
#define WRAPPER_HOOK_TIMEOUT 10

int wrapper_main(int argc, char **argv);

/* Add {path: hook, args: [ioweight-hook, prestart], timeout} to hooks.prestart of the
 * spec at path unless an entry with that path is already there. */
int wrapper_inject(const char *spec_path, const char *hook, struct hook_err *err);

/* Which bundle does this runc argv create? NULL if not create/run. */
const char *wrapper_bundle_of(int argc, char **argv, bool *is_create);

#endif
