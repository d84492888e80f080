/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testutil.h - fake cgroupfs/sysfs/procfs/devfs trees in a temp dir, and a
 * way to run the hook pipeline against them.
 *
 * Tree (under f->root):
 *   cg/                         cgroup2 root: cgroup.controllers, empty
 *                               cgroup.subtree_control, io.weight.cost_model, io.weight.qos
 *   sys/dev/block/8:0  -> sda   whole disk; 8:1 -> sda/sda1 (partition)
 *   sys/dev/block/254:16 -> vdb
 *   dev/sda, sda1, vdb          fake block nodes ("block MAJ:MIN", test build)
 *   dev/null                    fake char node
 *   dev/disk/by-id/virtio-data -> ../../vdb ; evil -> ../../../etc/x (escapes)
 *   proc/100/cgroup             0::/test/ctr1          (standalone)
 *   proc/200/cgroup             0::/kubepods/burstable/pod0a1b2c3d-0000-1111-2222-333344445555/ctr2
 *   proc/300/cgroup             systemd-driver pod path
 *   conf/                       config dir (tests write 10-test.json)
 *   bundle/config.json
 *   systemd-private             the manager's socket (tests that need it start a stand-in)
 */
#ifndef IOWEIGHT_TESTUTIL_H
#define IOWEIGHT_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hook.h"

#define KPOD "/kubepods/burstable/pod0a1b2c3d-0000-1111-2222-333344445555"
#define SPOD "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_0000_1111_2222_333344445555.slice"
#define SCTR SPOD "/cri-containerd-ctr3.scope"

/* a config with logging off, so tests do not write to syslog */
#define CFG_BASE "\"ioweightVersion\":\"1.0.0\",\"name\":\"test\",\"log\":{\"target\":\"none\"}"

struct fake {
	char root[PATH_MAX];
	struct hook_roots roots;
};

int fake_setup(void **state);
int fake_teardown(void **state);

void fk_write(struct fake *f, const char *rel, const char *content);
char *fk_read(struct fake *f, const char *rel);	/* heap, NULL if absent */
void fk_mkdir(struct fake *f, const char *rel);
void fk_symlink(struct fake *f, const char *target, const char *rel);
void fk_config(struct fake *f, const char *json);	/* conf/10-test.json */
uint64_t fk_snapshot(struct fake *f);		/* hash of every name and byte */

/* Run the pipeline on a state JSON (no sandbox, writes for real). */
int fk_run(struct fake *f, const char *state_json, struct hook_result *res, struct hook_err *err);
int fk_explain(struct fake *f, const char *state_json, struct hook_result *res, struct hook_err *err);

/* A state JSON for pid with extra members/annotations spliced in. */
char *fk_state(long pid, const char *annotations_json);

int run_parse_tests(void);
int run_malformed_tests(void);
int run_cgroup_tests(void);
int run_install_tests(void);
int run_sandbox_tests(void);
int run_cli_tests(void);
int run_hardening_tests(void);
int run_systemd_tests(void);

#endif
