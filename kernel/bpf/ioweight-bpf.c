// SPDX-License-Identifier: GPL-2.0
/*
 * ioweight-bpf: load BPF_PROG_TYPE_IO_COST programs and attach them to a
 * block device as its io.weight cost model (the BLKBPFIOCOST ioctl).
 *
 *   ioweight-bpf attach [--model] DEV OBJ [VAR=VALUE...]
 *	load the first program of OBJ and attach it to DEV.  VAR=VALUE sets
 *	a `const volatile` global of the program; --model first copies the
 *	device's linear figures (rbps=... of io.weight.cost_model) into the
 *	globals of the same names.  The program stays attached after exit.
 *   ioweight-bpf detach DEV
 *	back to the built-in linear model.
 *   ioweight-bpf load OBJ
 *	load only: check a program against the verifier; prints the
 *	verifier log when it is rejected.
 *   ioweight-bpf probe
 *	exit 0 if the running kernel has BPF_PROG_TYPE_IO_COST.
 *
 * Errors name the failing step and errno, e.g.
 * "ioweight-bpf: BLKBPFIOCOST on /dev/vdb: File exists (EEXIST)".
 * Exit status: 0 on success, 1 on failure, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/fs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/*
 * The host's uapi headers predate the ioweight series: its program type
 * is the one after BPF_PROG_TYPE_SYSCALL, and its ioctl takes the next
 * free number of the 0x12 block ioctls.
 */
#define IOW_PROG_TYPE_IO_COST	((enum bpf_prog_type)(BPF_PROG_TYPE_SYSCALL + 1))
#ifndef BLKBPFIOCOST
#define BLKBPFIOCOST		_IO(0x12, 129)
#endif

#define COST_MODEL_FILE		"/sys/fs/cgroup/io.weight.cost_model"
#define LOG_SIZE		(1 << 20)

static void cleanup_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static void cleanup_free(void *p)
{
	free(*(void **)p);
}

static void cleanup_file(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_fd_	__attribute__((cleanup(cleanup_fd)))
#define _cleanup_free_	__attribute__((cleanup(cleanup_free)))
#define _cleanup_file_	__attribute__((cleanup(cleanup_file)))

static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ioweight-bpf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s (%s)", strerror(err), strerrorname_np(err) ?: "?");
	fputc('\n', stderr);
	return -1;
}

/* libbpf's messages: warnings only, the verifier log is printed by us */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level > LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* the block device @path as an open fd, or -1 */
static int open_dev(const char *path, dev_t *devt)
{
	struct stat st;
	int fd;

	fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return fail(errno, "open %s", path);
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		return fail(errno ? errno : ENOTBLK, "%s is not a block device", path);
	}
	*devt = st.st_rdev;
	return fd;
}

/* set the `const volatile` global @name of @obj (in .rodata) to @val */
static int set_global(struct bpf_object *obj, const char *name,
		      unsigned long long val)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".rodata");
	const struct btf_var_secinfo *vs;
	struct btf *btf = bpf_object__btf(obj);
	_cleanup_free_ char *data = NULL;
	const struct btf_type *sec;
	const void *init;
	size_t size;
	int id, i;

	if (!map || !btf)
		return fail(0, "the program has no read-only globals (or no BTF) to set %s", name);
	init = bpf_map__initial_value(map, &size);
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (!init || id < 0)
		return fail(0, "no .rodata section description for %s", name);
	data = malloc(size);
	if (!data)
		return fail(ENOMEM, "setting %s", name);
	memcpy(data, init, size);
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->offset + vs->size > size)
			break;
		switch (vs->size) {
		case 8: { unsigned long long v = val; memcpy(data + vs->offset, &v, 8); break; }
		case 4: { unsigned int v = val; memcpy(data + vs->offset, &v, 4); break; }
		default:
			return fail(0, "global %s has an unsupported size %u", name, vs->size);
		}
		if (bpf_map__set_initial_value(map, data, size))
			return fail(errno, "setting %s", name);
		return 0;
	}
	return fail(0, "the program has no global named %s", name);
}

static bool has_global(struct bpf_object *obj, const char *name)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	int id, i;

	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return false;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++)
		if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, vs->type)->name_off), name))
			return true;
	return false;
}

/* "VAR=VALUE" -> set_global() */
static int set_assignment(struct bpf_object *obj, const char *arg)
{
	_cleanup_free_ char *name = strdup(arg);
	unsigned long long val;
	char *eq, *end;

	if (!name)
		return fail(ENOMEM, "%s", arg);
	eq = strchr(name, '=');
	if (!eq || eq == name)
		return fail(0, "`%s` is not VAR=VALUE", arg);
	*eq = '\0';
	errno = 0;
	val = strtoull(eq + 1, &end, 0);
	if (errno || end == eq + 1 || *end)
		return fail(errno ? errno : EINVAL, "`%s`: bad value", arg);
	return set_global(obj, name, val);
}

/* copy the linear figures of @devt from io.weight.cost_model into @obj */
static int copy_model(struct bpf_object *obj, dev_t devt)
{
	_cleanup_file_ FILE *f = fopen(COST_MODEL_FILE, "re");
	_cleanup_free_ char *line = NULL;
	char want[32];
	size_t len = 0;

	if (!f)
		return fail(errno, "open %s", COST_MODEL_FILE);
	snprintf(want, sizeof(want), "%u:%u ", major(devt), minor(devt));
	while (getline(&line, &len, f) > 0) {
		char *tok, *save = NULL;
		int n = 0;

		if (strncmp(line, want, strlen(want)))
			continue;
		if (strstr(line, "model=bpf"))
			return fail(0, "%s: %u:%u has a BPF model attached already, no linear figures shown",
				    COST_MODEL_FILE, major(devt), minor(devt));
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			char *eq = strchr(tok, '=');

			if (!eq || !strncmp(tok, "ctrl=", 5) || !strncmp(tok, "model=", 6))
				continue;
			*eq = '\0';
			if (!has_global(obj, tok))
				continue;
			*eq = '=';
			if (set_assignment(obj, tok) < 0)
				return -1;
			n++;
		}
		if (!n)
			return fail(0, "the program has none of the model's globals (rbps, ...)");
		return 0;
	}
	return fail(0, "%s has no line for %u:%u (controller not set up on it?)",
		    COST_MODEL_FILE, major(devt), minor(devt));
}

/* open @path, apply the settings and load it; returns the first program's fd */
static int load(const char *path, struct bpf_object **objp, dev_t *model_dev,
		char **assign, int nr_assign)
{
	_cleanup_free_ char *log = calloc(1, LOG_SIZE);
	LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log,
		    .kernel_log_size = LOG_SIZE, .kernel_log_level = 1);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int i, err;

	if (!log)
		return fail(ENOMEM, "verifier log");
	obj = bpf_object__open_file(path, &opts);
	if (!obj)
		return fail(errno, "open BPF object %s", path);
	prog = bpf_object__next_program(obj, NULL);
	if (!prog) {
		bpf_object__close(obj);
		return fail(0, "%s has no program", path);
	}
	if ((model_dev && copy_model(obj, *model_dev) < 0)) {
		bpf_object__close(obj);
		return -1;
	}
	for (i = 0; i < nr_assign; i++) {
		if (set_assignment(obj, assign[i]) < 0) {
			bpf_object__close(obj);
			return -1;
		}
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "%s", log);
		bpf_object__close(obj);
		return fail(-err, "load %s (rejected by the verifier? log above)", path);
	}
	*objp = obj;
	return bpf_program__fd(prog);
}

/* BLKBPFIOCOST with @prog_fd on @path */
static int ioctl_cost(const char *path, int prog_fd)
{
	_cleanup_fd_ int fd = -1;
	dev_t devt;

	fd = open_dev(path, &devt);
	if (fd < 0)
		return -1;
	if (ioctl(fd, BLKBPFIOCOST, (long)prog_fd) < 0)
		return fail(errno, "BLKBPFIOCOST on %s", path);
	return 0;
}

static int cmd_attach(int argc, char **argv)
{
	struct bpf_object *obj = NULL;
	bool model = false;
	dev_t devt;
	int fd, ret;

	if (argc > 0 && !strcmp(argv[0], "--model")) {
		model = true;
		argc--, argv++;
	}
	if (argc < 2)
		return 2;
	fd = open_dev(argv[0], &devt);
	if (fd < 0)
		return 1;
	close(fd);

	fd = load(argv[1], &obj, model ? &devt : NULL, argv + 2, argc - 2);
	if (fd < 0)
		return 1;
	ret = ioctl_cost(argv[0], fd);
	bpf_object__close(obj);
	return ret < 0;
}

static int cmd_detach(int argc, char **argv)
{
	if (argc != 1)
		return 2;
	return ioctl_cost(argv[0], -1) < 0;
}

static int cmd_load(int argc, char **argv)
{
	struct bpf_object *obj = NULL;

	if (argc < 1)
		return 2;
	if (load(argv[0], &obj, NULL, argv + 1, argc - 1) < 0)
		return 1;
	bpf_object__close(obj);
	return 0;
}

static int cmd_probe(int argc, char **argv)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(IOW_PROG_TYPE_IO_COST, NULL, "GPL", insns, 2, NULL);
	if (fd < 0) {
		fail(errno, "the kernel cannot load BPF_PROG_TYPE_IO_COST programs");
		return 1;
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fputs("usage: ioweight-bpf attach [--model] DEV OBJ [VAR=VALUE...]\n"
	      "       ioweight-bpf detach DEV\n"
	      "       ioweight-bpf load OBJ [VAR=VALUE...]\n"
	      "       ioweight-bpf probe\n", stderr);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "attach", cmd_attach }, { "detach", cmd_detach },
		{ "load", cmd_load }, { "probe", cmd_probe },
	};
	LIBBPF_OPTS(libbpf_prog_handler_opts, hopts);
	size_t i;
	int ret;

	if (argc < 2) {
		usage();
		return 2;
	}
	libbpf_set_print(print_libbpf);
	/* libbpf before the series does not know the section name */
	if (libbpf_register_prog_handler("io_cost", IOW_PROG_TYPE_IO_COST, 0, &hopts) < 0 &&
	    errno != EEXIST)
		fail(errno, "registering the io_cost section with libbpf");

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		ret = cmds[i].fn(argc - 2, argv + 2);
		if (ret == 2)
			usage();
		return ret;
	}
	usage();
	return 2;
}
