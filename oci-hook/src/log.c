// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - decision logging. */
#include "log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

static struct {
	enum log_target target;
	int fd;			/* the log file, or the datagram socket to /dev/log */
	int pid;		/* for every line: asked once */
	char ctr[80], pod[PATH_MAX / 4], cg[PATH_MAX / 4];
} logst = { LOGT_NONE, -1, 0, "-", "-", "-" };

/*
 * syslog without libc's syslog(): that one reconnects (socket + connect)
 * whenever a send fails, which the sandbox forbids.  We connect once, before
 * the sandbox, and send each line with a plain write() on the connected
 * datagram socket; if the daemon went away the line goes to stderr.
 */
static int syslog_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (TEMP_FAILURE_RETRY(connect(fd, (struct sockaddr *)&sa, sizeof(sa))) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int log_open(enum log_target target, const char *path, struct hook_err *err)
{
	log_close();
	logst.target = target;
	logst.pid = (int)getpid();
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
		logst.fd = syslog_connect();
		if (logst.fd < 0)
			logst.target = LOGT_STDERR;
		/* the time zone for the syslog stamp, while files can be opened */
		tzset();
		break;
	default:
		break;
	}
	return 0;
}

void log_context(const char *ctr, const char *pod, const char *cg)
{
	str_escape(ctr && *ctr ? ctr : "-", logst.ctr, sizeof(logst.ctr));
	str_escape(pod && *pod ? pod : "-", logst.pod, sizeof(logst.pod));
	str_escape(cg && *cg ? cg : "-", logst.cg, sizeof(logst.cg));
}

void log_utc(time_t t, struct tm *tm)
{
	long days = (long)(t / 86400), secs = (long)(t % 86400);
	long z, era, doe, yoe, doy, mp;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* the proleptic Gregorian calendar in 400-year eras that begin on
	 * 1 March, so the leap day ends a year; 719468 days from 0000-03-01
	 * to the epoch */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;					/* day of era, 0..146096 */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;	/* 0..399 */
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);		/* from 1 March, 0..365 */
	mp = (5 * doy + 2) / 153;				/* March is 0 */
	memset(tm, 0, sizeof(*tm));
	tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10);
	tm->tm_year = (int)(yoe + era * 400 + (mp >= 10) - 1900);
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
}

static const char *level_name(int prio)
{
	return prio <= LOG_ERR ? "error" : prio == LOG_WARNING ? "warning" : "info";
}

void log_msg(int prio, const char *fmt, ...)
{
	char raw[2048], msg[2048], line[3072];
	struct timespec ts;
	struct tm tm;
	char stamp[40];
	va_list ap;
	int n = 0, fd = STDERR_FILENO;

	if (logst.target == LOGT_NONE)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* every message may quote input: one message is one line, always */
	str_escape(raw, msg, sizeof(msg));
	clock_gettime(CLOCK_REALTIME, &ts);
	switch (logst.target) {
	case LOGT_SYSLOG:
		localtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%b %e %H:%M:%S", &tm);
		n = snprintf(line, sizeof(line), "<%d>%s ioweight-hook[%d]: container=%s pod=%s cgroup=%s: %s",
			     LOG_DAEMON | (prio & LOG_PRIMASK), stamp, logst.pid, logst.ctr,
			     logst.pod, logst.cg, msg);
		if (n > (int)sizeof(line) - 1)
			n = (int)sizeof(line) - 1;
		if (TEMP_FAILURE_RETRY(write(logst.fd, line, (size_t)n)) == n)
			return;
		/* the daemon is gone: the line is still worth having */
		n = 0;
		break;
	case LOGT_FILE:
		log_utc(ts.tv_sec, &tm);
		n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ioweight-hook[%d] %s: container=%s pod=%s cgroup=%s: %s\n",
			     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			     tm.tm_sec, ts.tv_nsec / 1000000, logst.pid, level_name(prio), logst.ctr,
			     logst.pod, logst.cg, msg);
		fd = logst.fd;
		break;
	default:
		break;
	}
	if (!n)
		n = snprintf(line, sizeof(line), "ioweight-hook: container=%s pod=%s cgroup=%s: %s\n",
			     logst.ctr, logst.pod, logst.cg, msg);
	if (n > (int)sizeof(line) - 1) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* one write() per line: concurrent hooks appending never interleave */
	if (TEMP_FAILURE_RETRY(write(fd, line, (size_t)n)) < 0) {
		/* nowhere left to report it */
	}
}

void log_close(void)
{
	if (logst.fd >= 0)
		close(logst.fd);
	logst.fd = -1;
	logst.target = LOGT_NONE;
}
