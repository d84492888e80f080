// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - the command line: subcommand dispatch and option parsing only;
 * every subcommand's work lives in its own file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "config.h"
#include "hook.h"
#include "install.h"
#include "log.h"
#include "wrapper.h"

static const char usage[] =
"Usage: ioweight-hook COMMAND [OPTIONS]\n"
"\n"
"Sets cgroup v2 io.weight for containers and pods from their annotations,\n"
"and the host's io.weight.cost_model / io.weight.qos from the admin config.\n"
"\n"
"Commands run by a container runtime:\n"
"  prestart, createRuntime   read the OCI state on stdin and apply weights\n"
"  runc-wrapper --runc PATH --hook PATH -- RUNC-ARGS...\n"
"                            add the hook to a bundle on `runc create|run`,\n"
"                            then exec the real runc (used by `install`)\n"
"\n"
"Commands for people:\n"
"  explain [--annotation KEY=VALUE]... [--cgroup PATH] [--state FILE]\n"
"                            print the exact writes the hook would make;\n"
"                            nothing is written, no log, no sandbox\n"
"  validate [DIR|FILE]       check config files (default /etc/ioweight/conf.d)\n"
"                            and say which one is in effect\n"
"  install --runtime containerd|crio|podman|runc-wrapper [--dry-run]\n"
"          [--uninstall] [--set-as-default] [--hook-path PATH] [--runc PATH]\n"
"          [--hooks-dir DIR] [--prefix DIR]\n"
"                            wire the hook into a runtime (containerd: a\n"
"                            runtime handler `ioweight`); --dry-run shows\n"
"                            the exact change, --uninstall removes exactly\n"
"                            what install added\n"
"  calibrate DEV [--seconds N] [--write]\n"
"                            measure DEV with fio and print its cost_model\n"
"                            line (reads only unless --write, which destroys\n"
"                            the data on DEV)\n"
"  version                   print the version\n"
"\n"
"Options for prestart, createRuntime and explain:\n"
"  --config FILE             use this config file instead of the directory\n"
"  --config-dir DIR          config directory (default /etc/ioweight/conf.d)\n"
"  --cgroup-root DIR         cgroup2 mount (default /sys/fs/cgroup)\n"
"  --sys-root DIR            sysfs (default /sys)\n"
"  --proc-root DIR           procfs (default /proc)\n"
"  --dev-root DIR            devtmpfs (default /dev)\n"
"  --systemd-socket PATH     the systemd manager's socket, used under the\n"
"                            systemd cgroup driver (default /run/systemd/private)\n"
"\n"
"Annotations (see docs/hook.md):\n"
"  ioweight.dev/weight=W             pod weight (container weight outside a pod)\n"
"  ioweight.dev/class=NAME           same, by a class from the config\n"
"  ioweight.dev/device-weights=DEV=W[,DEV=W]  per-disk weights\n"
"  ioweight.dev/container.NAME=W|CLASS        a container's share in its pod\n"
"  io.kubernetes.cri.blockio-class, blockio.resources.beta.kubernetes.io/\n"
"  container.NAME and .../pod are accepted as classes.\n"
"\n"
"Exit status: 0 on success (or on error with failurePolicy warn), 1 on error,\n"
"2 on a usage error.\n";

enum {
	OPT_CONFIG = 256, OPT_CONFIG_DIR, OPT_CGROUP_ROOT, OPT_SYS_ROOT, OPT_PROC_ROOT,
	OPT_DEV_ROOT, OPT_SYSTEMD_SOCKET, OPT_ANNOTATION, OPT_CGROUP, OPT_STATE, OPT_ID,
};

static const struct option hook_longopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "config-dir", required_argument, NULL, OPT_CONFIG_DIR },
	{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
	{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
	{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
	{ "dev-root", required_argument, NULL, OPT_DEV_ROOT },
	{ "systemd-socket", required_argument, NULL, OPT_SYSTEMD_SOCKET },
	{ "annotation", required_argument, NULL, OPT_ANNOTATION },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "id", required_argument, NULL, OPT_ID },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct hook_opts o;
	struct kv ann[256];
	size_t n_ann;
	const char *state_file;
	const char *id;
};

static int parse_hook_opts(int argc, char **argv, struct cli *c, bool explain)
{
	struct hook_err err = { 0 };
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", hook_longopts, NULL)) != -1) {
		int r = 0;

		switch (opt) {
		case OPT_CONFIG: c->o.config_file = optarg; break;
		case OPT_CONFIG_DIR: r = roots_set(c->o.roots.config_dir, optarg, "--config-dir", &err); break;
		case OPT_CGROUP_ROOT: r = roots_set(c->o.roots.cgroup, optarg, "--cgroup-root", &err); break;
		case OPT_SYS_ROOT: r = roots_set(c->o.roots.sys, optarg, "--sys-root", &err); break;
		case OPT_PROC_ROOT: r = roots_set(c->o.roots.proc, optarg, "--proc-root", &err); break;
		case OPT_DEV_ROOT: r = roots_set(c->o.roots.dev, optarg, "--dev-root", &err); break;
		case OPT_SYSTEMD_SOCKET:
			r = roots_set(c->o.roots.systemd_socket, optarg, "--systemd-socket", &err);
			break;
		case OPT_ANNOTATION:
		case OPT_CGROUP:
		case OPT_STATE:
		case OPT_ID:
			if (!explain) {
				fprintf(stderr, "ioweight-hook: --%s is only for explain\n", argv[optind - 1] + 2);
				return -1;
			}
			if (opt == OPT_CGROUP)
				c->o.cgroup = optarg;
			else if (opt == OPT_STATE)
				c->state_file = optarg;
			else if (opt == OPT_ID)
				c->id = optarg;
			else {
				char *eq = strchr(optarg, '=');

				if (!eq || eq == optarg || c->n_ann == 256) {
					fprintf(stderr, "ioweight-hook: --annotation wants KEY=VALUE, got `%s`\n", optarg);
					return -1;
				}
				*eq = '\0';
				c->ann[c->n_ann].key = optarg;
				c->ann[c->n_ann++].value = eq + 1;
			}
			break;
		case 'h': fputs(usage, stdout); exit(0);
		default: return -1;
		}
		if (r < 0) {
			fprintf(stderr, "ioweight-hook: %s\n", err.msg);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "ioweight-hook: unexpected argument `%s`\n", argv[optind]);
		return -1;
	}
	return 0;
}

static int cmd_hook(int argc, char **argv)
{
	struct cli c = { 0 };
	struct hook_result res;
	struct hook_err err = { 0 };
	int r;

	roots_default(&c.o.roots);
	if (parse_hook_opts(argc, argv, &c, false) < 0)
		return 2;
	c.o.sandbox = true;
	r = hook_run_fd(&c.o, STDIN_FILENO, &res, &err);
	if (r < 0) {
		enum hook_verdict v = hook_error_verdict(&res);
		char msg[2 * ERR_MSG_MAX];

		switch (v) {
		case VERDICT_PASS_UNTOUCHED:
			log_msg(LOG_WARNING, "%s (the container asks for no IO weight: it starts untouched)",
				err.msg);
			break;
		case VERDICT_WARN:
			log_msg(LOG_WARNING, "%s (failurePolicy warn: container starts)", err.msg);
			break;
		case VERDICT_FAIL:
			log_msg(LOG_ERR, "%s", err.msg);
			/* stderr is what runc shows the user when the start fails */
			str_escape(err.msg, msg, sizeof(msg));
			fprintf(stderr, "ioweight-hook: %s\n", msg);
			break;
		}
		if (v != VERDICT_FAIL)
			r = 0;
	}
	hook_result_free(&res);
	log_close();
	return r < 0 ? 1 : 0;
}

static int cmd_explain(int argc, char **argv)
{
	struct cli c = { 0 };
	struct oci_state st = { 0 };
	struct hook_result res;
	struct hook_err err = { 0 };
	int r;

	roots_default(&c.o.roots);
	if (parse_hook_opts(argc, argv, &c, true) < 0)
		return 2;
	c.o.dry_run = true;
	if (c.state_file) {
		_cleanup_free_ char *buf = NULL;
		size_t len;

		if (read_file_bounded(c.state_file, MAX_STATE_BYTES, &buf, &len, &err) < 0 ||
		    state_parse(buf, len, &st, &err) < 0) {
			fprintf(stderr, "ioweight-hook: %s\n", err.msg);
			return 1;
		}
		if (c.n_ann)
			fprintf(stderr, "ioweight-hook: --annotation ignored with --state\n");
		r = hook_run(&c.o, &st, &res, &err);
		state_free(&st);
	} else {
		if (!c.o.cgroup) {
			fprintf(stderr, "ioweight-hook: explain needs --cgroup PATH or --state FILE\n");
			return 2;
		}
		st.id = (char *)(c.id ? c.id : "explain");
		st.ann = c.ann;
		st.n_ann = c.n_ann;
		st.has_annotations = true;
		r = hook_run(&c.o, &st, &res, &err);
	}
	if (r < 0) {
		static const char *const verdicts[] = {
			[VERDICT_PASS_UNTOUCHED] = "pass: the container asks for no IO weight and would start untouched",
			[VERDICT_WARN] = "warn: the container would start without these weights",
			[VERDICT_FAIL] = "fail: the container would not start",
		};
		char msg[2 * ERR_MSG_MAX];

		str_escape(err.msg, msg, sizeof(msg));
		printf("error: %s\n", msg);
		printf("policy: %s\n", verdicts[hook_error_verdict(&res)]);
	} else {
		hook_print_plan(stdout, &res);
	}
	hook_result_free(&res);
	return r < 0 ? 1 : 0;
}

static int cmd_validate(int argc, char **argv)
{
	const char *target = argc > 1 ? argv[1] : "/etc/ioweight/conf.d";
	struct hook_err err = { 0 };
	int bad;

	if (argc > 2 || (argc > 1 && argv[1][0] == '-')) {
		if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			puts("Usage: ioweight-hook validate [DIR|FILE]");
			return 0;
		}
		fprintf(stderr, "Usage: ioweight-hook validate [DIR|FILE]\n");
		return 2;
	}
	bad = config_validate_report(target, stdout, &err);
	if (bad < 0) {
		char msg[2 * ERR_MSG_MAX];

		str_escape(err.msg, msg, sizeof(msg));
		fprintf(stderr, "ioweight-hook: %s\n", msg);
		return 1;
	}
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "prestart") || !strcmp(cmd, "createRuntime"))
		return cmd_hook(argc - 1, argv + 1);
	if (!strcmp(cmd, "explain"))
		return cmd_explain(argc - 1, argv + 1);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc - 1, argv + 1);
	if (!strcmp(cmd, "install"))
		return install_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "runc-wrapper"))
		return wrapper_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "calibrate"))
		return calibrate_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("ioweight-hook %s (config ioweightVersion %s)\n", IOWEIGHT_VERSION, CONFIG_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	fprintf(stderr, "ioweight-hook: unknown command `%s`\n\n%s", cmd, usage);
	return 2;
}
