/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.h - the hook's seccomp allow-list.
 *
 * Owns: the list of syscalls the hook needs after it has read its input
 * (read/write/open existing files, directory and metadata reads, memory,
 * logging) and loading it with default ERRNO(EPERM).  It is applied last in
 * the setup order, after every file we create and socket we connect is open.
 */
#ifndef IOWEIGHT_SANDBOX_H
#define IOWEIGHT_SANDBOX_H

#include "util.h"

int sandbox_apply(struct hook_err *err);

#endif
