// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - decision logging. */
#include "log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static struct {
	enum log_target target;
	int fd;
	char ctr[80], pod[PATH_MAX / 4], cg[PATH_MAX / 4];
} logst = { LOGT_NONE, -1, "-", "-", "-" };

int log_open(enum log_target target, const char *path, struct hook_err *err)
{
	log_close();
	logst.target = target;
	switch (target) {
	case LOGT_FILE:
		logst.fd = TEMP_FAILURE_RETRY(open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
						   O_NOCTTY | O_NOFOLLOW, 0640));
		if (logst.fd < 0) {
			logst.target = LOGT_STDERR;
			return hook_fail(err, errno, "log file %s", path);
		}
		break;
	case LOGT_SYSLOG:
		/* no syslog daemon (minimal guests, containers): stderr, which the
		 * runtime shows when a hook fails */
		if (access("/dev/log", W_OK) < 0) {
			logst.target = LOGT_STDERR;
			break;
		}
		/* connect now: the sandbox only lets us send on an open socket
		 * (and reconnect on AF_UNIX); load the zone info now too */
		tzset();
		openlog("ioweight-hook", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		break;
	default:
		break;
	}
	return 0;
}

void log_context(const char *ctr, const char *pod, const char *cg)
{
	snprintf(logst.ctr, sizeof(logst.ctr), "%s", ctr && *ctr ? ctr : "-");
	snprintf(logst.pod, sizeof(logst.pod), "%s", pod && *pod ? pod : "-");
	snprintf(logst.cg, sizeof(logst.cg), "%s", cg && *cg ? cg : "-");
}

void log_msg(int prio, const char *fmt, ...)
{
	char msg[2048], line[3072];
	va_list ap;
	int n;

	if (logst.target == LOGT_NONE)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (logst.target == LOGT_SYSLOG) {
		syslog(prio, "container=%s pod=%s cgroup=%s: %s", logst.ctr, logst.pod, logst.cg, msg);
		return;
	}
	if (logst.target == LOGT_FILE) {
		struct timespec ts;
		struct tm tm;
		char stamp[40];

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		n = snprintf(line, sizeof(line), "%s.%03ldZ ioweight-hook[%d] %s: container=%s pod=%s cgroup=%s: %s\n",
			     stamp, ts.tv_nsec / 1000000, (int)getpid(),
			     prio <= LOG_ERR ? "error" : prio == LOG_WARNING ? "warning" : "info",
			     logst.ctr, logst.pod, logst.cg, msg);
	} else {
		n = snprintf(line, sizeof(line), "ioweight-hook: container=%s pod=%s cgroup=%s: %s\n",
			     logst.ctr, logst.pod, logst.cg, msg);
	}
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	/* one write() per line: concurrent hooks appending never interleave */
	if (TEMP_FAILURE_RETRY(write(logst.target == LOGT_FILE ? logst.fd : STDERR_FILENO, line,
				     (size_t)n)) < 0) {
		/* nowhere left to report it */
	}
}

void log_close(void)
{
	if (logst.target == LOGT_SYSLOG)
		closelog();
	if (logst.fd >= 0)
		close(logst.fd);
	logst.fd = -1;
	logst.target = LOGT_NONE;
}
