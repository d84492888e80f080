// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hookbench - wall time of one `ioweight-hook prestart` invocation, the way a
 * runtime pays it: fork, exec, state on stdin, wait.  Usage:
 *   hookbench N STATE_FILE [--baseline BIN] HOOK [HOOK-ARGS...]
 * Prints min / median / p95 / max in milliseconds.  With --baseline, BIN
 * (e.g. /bin/true) runs after each hook run under the same harness, and the
 * median of the N differences is what the hook adds to a fork+exec: on a
 * shared host, load that comes and goes during the runs hits both alike.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* one fork+exec+wait of argv with the state on stdin, in ms; < 0 on failure */
static double run_once(const char *state, char **argv, int i)
{
	struct timespec a, b;
	int st, fd = open(state, O_RDONLY | O_CLOEXEC);
	pid_t pid;

	if (fd < 0) {
		perror(state);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "hookbench: %s: run %d exited with %d\n", argv[0], i, WEXITSTATUS(st));
		return -1;
	}
	return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

static void report(const char *what, double *ms, int n)
{
	qsort(ms, (size_t)n, sizeof(*ms), cmp);
	printf("hookbench: %s%d invocations: min %.3f ms, median %.3f ms, p95 %.3f ms, max %.3f ms\n",
	       what, n, ms[0], ms[n / 2], ms[(int)(n * 0.95)], ms[n - 1]);
}

int main(int argc, char **argv)
{
	char *base_argv[2] = { NULL, NULL };
	double *ms, *base, *diff;
	int n, cmd = 3;

	if (argc > 4 && !strcmp(argv[3], "--baseline")) {
		base_argv[0] = argv[4];
		cmd = 5;
	}
	if (argc <= cmd) {
		fprintf(stderr, "usage: hookbench N STATE_FILE [--baseline BIN] HOOK [ARGS...]\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (n < 1 || !(ms = calloc((size_t)n, sizeof(*ms))) || !(base = calloc((size_t)n, sizeof(*base))) ||
	    !(diff = calloc((size_t)n, sizeof(*diff))))
		return 2;
	for (int i = 0; i < n; i++) {
		if ((ms[i] = run_once(argv[2], argv + cmd, i)) < 0)
			return 1;
		if (base_argv[0]) {
			if ((base[i] = run_once(argv[2], base_argv, i)) < 0)
				return 1;
			diff[i] = ms[i] - base[i];
		}
	}
	report("", ms, n);
	if (base_argv[0]) {
		report("baseline ", base, n);
		qsort(diff, (size_t)n, sizeof(*diff), cmp);
		printf("hookbench: the hook adds %.3f ms to a fork+exec (median of %d paired differences)\n",
		       diff[n / 2], n);
	}
	free(ms);
	free(base);
	free(diff);
	return 0;
}
