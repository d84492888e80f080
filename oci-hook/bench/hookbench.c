// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hookbench - wall time of one `ioweight-hook prestart` invocation, the way a
 * runtime pays it: fork, exec, state on stdin, wait.  Usage:
 *   hookbench N STATE_FILE HOOK [HOOK-ARGS...]
 * Prints min / median / p95 / max in milliseconds.
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

int main(int argc, char **argv)
{
	int n;
	double *ms;

	if (argc < 4) {
		fprintf(stderr, "usage: hookbench N STATE_FILE HOOK [ARGS...]\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (n < 1 || !(ms = calloc((size_t)n, sizeof(*ms))))
		return 2;
	for (int i = 0; i < n; i++) {
		struct timespec a, b;
		int st, fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		pid_t pid;

		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		pid = fork();
		if (pid == 0) {
			dup2(fd, 0);
			execv(argv[3], argv + 3);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		clock_gettime(CLOCK_MONOTONIC, &b);
		close(fd);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "hookbench: run %d exited with %d\n", i, WEXITSTATUS(st));
			return 1;
		}
		ms[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp);
	printf("hookbench: %d invocations: min %.3f ms, median %.3f ms, p95 %.3f ms, max %.3f ms\n", n,
	       ms[0], ms[n / 2], ms[(int)(n * 0.95)], ms[n - 1]);
	free(ms);
	return 0;
}
