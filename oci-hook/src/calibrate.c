// SPDX-License-Identifier: GPL-2.0-or-later
/* calibrate.c - fio-based measurement of a disk's linear cost model. */
#include "calibrate.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "device.h"
#include "json.h"

int calibrate_parse_fio(const char *json, size_t len, bool write, double *bw_bytes,
			double *iops, struct hook_err *err)
{
	_cleanup_yajl_ yajl_val root = NULL;
	yajl_val jobs, dir, v;
	const char *what = write ? "write" : "read";
	const char *s;

	/* fio may print notices before the JSON document */
	s = memchr(json, '{', len);
	if (!s)
		return hook_fail(err, 0, "fio: no JSON report in its output");
	if (json_parse(s, len - (size_t)(s - json), "fio report", &root, err) < 0)
		return -1;
	if (json_member(root, "jobs", yajl_t_array, true, "fio report", &jobs, err) < 0)
		return -1;
	if (!jobs->u.array.len || !YAJL_IS_OBJECT(jobs->u.array.values[0]))
		return hook_fail(err, 0, "fio report: no jobs");
	if (json_member(jobs->u.array.values[0], what, yajl_t_object, true, "fio report: jobs[0]",
			&dir, err) < 0 ||
	    json_member(dir, "bw_bytes", yajl_t_number, true, "fio report: jobs[0]", &v, err) < 0)
		return -1;
	*bw_bytes = YAJL_IS_INTEGER(v) ? (double)v->u.number.i : v->u.number.d;
	if (json_member(dir, "iops", yajl_t_number, true, "fio report: jobs[0]", &v, err) < 0)
		return -1;
	*iops = YAJL_IS_INTEGER(v) ? (double)v->u.number.i : v->u.number.d;
	if (*iops <= 0 || *bw_bytes <= 0)
		return hook_fail(err, 0, "fio report: %s job did no IO", what);
	return 0;
}

/* Run fio with argv (no shell), capture stdout. */
static int run_fio(char *const argv[], char **out, size_t *len, struct hook_err *err)
{
	int p[2], st;
	pid_t pid;
	int r;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hook_fail(err, errno, "pipe");
	pid = fork();
	if (pid < 0)
		return hook_fail(err, errno, "fork");
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, "ioweight-hook: cannot exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	r = read_fd_bounded(p[0], 4 << 20, "fio output", out, len, err);
	close(p[0]);
	if (TEMP_FAILURE_RETRY(waitpid(pid, &st, 0)) < 0)
		return hook_fail(err, errno, "waitpid");
	if (r < 0)
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		free(*out);
		*out = NULL;
		return hook_fail(err, 0, "fio failed (exit status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	return 0;
}

struct job {
	const char *name, *rw, *bs;
	bool write;
	unsigned long long *bps, *iops;	/* where the result goes */
};

static int measure(const char *fio, const char *dev, const struct job *j, int seconds,
		   struct hook_err *err)
{
	char a_name[64], a_rw[32], a_bs[32], a_file[PATH_MAX + 16], a_rt[32];
	char *argv[] = { (char *)fio, a_name, a_file, a_rw, a_bs, a_rt, "--time_based",
			 "--direct=1", "--ioengine=libaio", "--iodepth=32", "--numjobs=1",
			 "--group_reporting", "--output-format=json", NULL };
	_cleanup_free_ char *out = NULL;
	double bw, iops;
	size_t len;

	snprintf(a_name, sizeof(a_name), "--name=%s", j->name);
	snprintf(a_file, sizeof(a_file), "--filename=%s", dev);
	snprintf(a_rw, sizeof(a_rw), "--rw=%s", j->rw);
	snprintf(a_bs, sizeof(a_bs), "--bs=%s", j->bs);
	snprintf(a_rt, sizeof(a_rt), "--runtime=%d", seconds);
	fprintf(stderr, "calibrate: %s (%s, bs %s, %d s)\n", j->name, j->rw, j->bs, seconds);
	if (run_fio(argv, &out, &len, err) < 0 ||
	    calibrate_parse_fio(out, len, j->write, &bw, &iops, err) < 0)
		return hook_fail_prefix(err, "calibrate %s: ", j->name);
	if (j->bps)
		*j->bps = (unsigned long long)bw;
	if (j->iops)
		*j->iops = (unsigned long long)iops;
	return 0;
}

int calibrate_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "write", no_argument, NULL, 'w' },
		{ "fio", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long rbps = 0, rseq = 0, rrand = 0, wbps = 0, wseq = 0, wrand = 0;
	const char *fio = "/usr/bin/fio";
	struct hook_roots roots;
	struct hook_err err = { 0 };
	struct devnum d;
	bool write = false;
	long seconds = 10;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (parse_long_range(optarg, 1, 3600, &seconds) < 0) {
				fprintf(stderr, "calibrate: --seconds wants 1..3600\n");
				return 2;
			}
			break;
		case 'w': write = true; break;
		case 'f': fio = optarg; break;
		case 'h':
			puts("Usage: ioweight-hook calibrate DEV [--seconds N] [--write] [--fio PATH]\n"
			     "Measures DEV with fio (direct IO, depth 32, N seconds per job, default 10)\n"
			     "and prints its linear cost model. Read jobs only unless --write:\n"
			     "WRITE JOBS DESTROY THE DATA ON DEV. Without --write the write\n"
			     "parameters are set equal to the read ones.");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "Usage: ioweight-hook calibrate DEV [--seconds N] [--write] [--fio PATH]\n");
		return 2;
	}
	roots_default(&roots);
	if (device_resolve(&roots, argv[optind], &d, &err) < 0) {
		fprintf(stderr, "ioweight-hook calibrate: %s\n", err.msg);
		return 1;
	}
	{
		const struct job jobs[] = {
			{ "seqread-1m", "read", "1M", false, &rbps, NULL },
			{ "seqread-4k", "read", "4k", false, NULL, &rseq },
			{ "randread-4k", "randread", "4k", false, NULL, &rrand },
			{ "seqwrite-1m", "write", "1M", true, &wbps, NULL },
			{ "seqwrite-4k", "write", "4k", true, NULL, &wseq },
			{ "randwrite-4k", "randwrite", "4k", true, NULL, &wrand },
		};

		for (size_t i = 0; i < (write ? 6u : 3u); i++)
			if (measure(fio, argv[optind], &jobs[i], (int)seconds, &err) < 0) {
				fprintf(stderr, "ioweight-hook: %s\n", err.msg);
				return 1;
			}
	}
	if (!write) {
		wbps = rbps;
		wseq = rseq;
		wrand = rrand;
		fprintf(stderr, "calibrate: no --write: write parameters copied from reads\n");
	}
	printf("%u:%u ctrl=user model=linear rbps=%llu rseqiops=%llu rrandiops=%llu wbps=%llu wseqiops=%llu wrandiops=%llu\n",
	       d.maj, d.min, rbps, rseq, rrand, wbps, wseq, wrand);
	printf("\nas a config profile:\n"
	       "\"costModel\": { \"ctrl\": \"user\", \"model\": \"linear\", \"rbps\": %llu, \"rseqiops\": %llu, \"rrandiops\": %llu,\n"
	       "               \"wbps\": %llu, \"wseqiops\": %llu, \"wrandiops\": %llu }\n",
	       rbps, rseq, rrand, wbps, wseq, wrand);
	return 0;
}
