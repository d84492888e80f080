/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calibrate.h - `ioweight-hook calibrate DEV`: measure a disk with fio and
 * print the linear cost model (a cost_model line and a config profile).
 *
 * Owns: the fio job set (sequential 1 MiB for bytes/s, sequential and random
 * 4 KiB for IOs/s, direct IO at depth 32), running fio without a shell, and
 * reading its JSON report.  Reads only unless --write is given: write jobs
 * overwrite the device's data.
 */
#ifndef IOWEIGHT_CALIBRATE_H
#define IOWEIGHT_CALIBRATE_H

#include "util.h"

int calibrate_main(int argc, char **argv);

/* From fio's --output-format=json report: the first job's read or write
 * bw_bytes and iops. */
int calibrate_parse_fio(const char *json, size_t len, bool write, double *bw_bytes,
			double *iops, struct hook_err *err);

#endif
