/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seccomp_rules.h - the hook's seccomp allow-list written as libseccomp
 * rules, and the BPF program libseccomp compiles from them.
 *
 * Owns: the list itself.  Not linked into the hook: the build compiles it
 * once per shape (number of write directories, systemd connection or not)
 * with seccomp-gen into the templates sandbox.c loads, and the tests compile
 * it again to check that what the hook loads is this program, instruction
 * for instruction.
 */
#ifndef IOWEIGHT_SECCOMP_RULES_H
#define IOWEIGHT_SECCOMP_RULES_H

#include <linux/filter.h>

#include "util.h"

/*
 * libseccomp's program for write opens relative to write_dirs[0..n) (in
 * ascending order) and, when bus_fd > 0, messages on bus_fd: at most max
 * instructions into out, their number in *len.
 */
int seccomp_rules_compile(const int *write_dirs, size_t n, int bus_fd, struct sock_filter *out,
			  size_t max, size_t *len, struct hook_err *err);

#endif
