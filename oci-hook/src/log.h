/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - one line per decision, to syslog, a file, stderr or nowhere.
 *
 * Owns: opening the log target before the sandbox goes up (the seccomp
 * filter forbids creating files and most sockets) and formatting every line
 * with the container id, the pod and the cgroup it concerns.
 */
#ifndef IOWEIGHT_LOG_H
#define IOWEIGHT_LOG_H

#include <syslog.h>
#include <time.h>

#include "config.h"

int log_open(enum log_target target, const char *path, struct hook_err *err);
void log_context(const char *ctr_id, const char *pod, const char *cgroup);
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_close(void);

/*
 * The UTC calendar time of t (date and time fields only), as gmtime_r()
 * but without libc's time-zone setup: that reads /etc/localtime, which the
 * sandbox (rightly) refuses when the first file log line is written.
 */
void log_utc(time_t t, struct tm *tm);

#endif
