// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_systemd.c - the systemd cgroup driver: unit names (exact, no
 * injection), the driver decision from linux.cgroupsPath, and the D-Bus
 * calls against a stand-in manager.
 *
 * The stand-in is a child process serving the two Manager methods the hook
 * calls on a unix socket in the fake tree, over real sd-bus: it answers
 * GetUnitByControlGroup from a table (the nearest known unit above the
 * cgroup, as systemd does) and records every SetUnitProperties call, with
 * its arguments decoded from the a(sv) array, in a log file.
 */
#include "testutil.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "sandbox.h"
#include "systemd.h"

#ifdef HAVE_SYSTEMD
#include <systemd/sd-bus.h>
#endif

#define SPEC_CP "kubepods-burstable-pod0a1b2c3d_0000_1111_2222_333344445555.slice:cri-containerd:ctr3"
#define POD_UNIT "kubepods-burstable-pod0a1b2c3d_0000_1111_2222_333344445555.slice"

static void test_unit_names(void **state)
{
	static const char *const scopes_ok[] = {
		"cri-containerd-0123abcd.scope", "crio-x.scope", "libpod-abc.scope", "a:b_c.d-e.scope",
	};
	static const char *const scopes_bad[] = {
		".scope", "x.service", "x.scope.bak", "a b.scope", "a/b.scope", "a\\x2db.scope",
		"tmpl@i.scope", "a\n.scope", "a$(x).scope", "\xc3\xa9.scope", "",
	};
	static const char *const slices_ok[] = {
		POD_UNIT, "kubepods.slice", "kubepods-besteffort.slice", "machine.slice",
	};
	static const char *const slices_bad[] = {
		"-.slice", "-a.slice", "a-.slice", "a--b.slice", "a.scope", "kubepods.slice.slice\n",
	};
	char long_name[SYSTEMD_UNIT_MAX + 8];

	(void)state;
	for (size_t i = 0; i < sizeof(scopes_ok) / sizeof(*scopes_ok); i++)
		assert_true(systemd_unit_name_valid(scopes_ok[i], ".scope"));
	for (size_t i = 0; i < sizeof(scopes_bad) / sizeof(*scopes_bad); i++)
		assert_false(systemd_unit_name_valid(scopes_bad[i], ".scope"));
	for (size_t i = 0; i < sizeof(slices_ok) / sizeof(*slices_ok); i++)
		assert_true(systemd_unit_name_valid(slices_ok[i], ".slice"));
	for (size_t i = 0; i < sizeof(slices_bad) / sizeof(*slices_bad); i++)
		assert_false(systemd_unit_name_valid(slices_bad[i], ".slice"));
	/* systemd's limit: 255 characters */
	memset(long_name, 'a', sizeof(long_name));
	strcpy(long_name + SYSTEMD_UNIT_MAX - 1 - 6, ".scope");
	assert_int_equal(strlen(long_name), SYSTEMD_UNIT_MAX - 1);
	assert_true(systemd_unit_name_valid(long_name, ".scope"));
	memset(long_name, 'a', sizeof(long_name));
	strcpy(long_name + SYSTEMD_UNIT_MAX - 6, ".scope");
	assert_false(systemd_unit_name_valid(long_name, ".scope"));
}

static void test_unit_of_cgroup(void **state)
{
	struct hook_err err = { 0 };
	char unit[SYSTEMD_UNIT_MAX];

	(void)state;
	assert_int_equal(systemd_unit_of_cgroup(SCTR, ".scope", unit, sizeof(unit), &err), 0);
	assert_string_equal(unit, "cri-containerd-ctr3.scope");
	assert_int_equal(systemd_unit_of_cgroup(SPOD, ".slice", unit, sizeof(unit), &err), 0);
	assert_string_equal(unit, POD_UNIT);
	/* a pod cgroup that is no slice, a container that is no scope */
	assert_int_equal(systemd_unit_of_cgroup(KPOD, ".slice", unit, sizeof(unit), &err), -1);
	assert_non_null(strstr(err.msg, "does not end in a .slice unit"));
	assert_int_equal(systemd_unit_of_cgroup("/machine.slice/libpod-x", ".scope", unit, sizeof(unit), &err), -1);
	assert_int_equal(systemd_unit_of_cgroup("/", ".scope", unit, sizeof(unit), &err), -1);
}

/* linux.cgroupsPath forms: only slice:prefix:name is the systemd driver */
static void test_driver_from_cgroups_path(void **state)
{
	struct hook_err err = { 0 };
	char out[PATH_MAX];

	(void)state;
	assert_true(cgroup_path_is_systemd(SPEC_CP));
	assert_true(cgroup_path_is_systemd(":runc:abc"));
	assert_false(cgroup_path_is_systemd("/kubepods/burstable/pod1/ctr"));
	assert_false(cgroup_path_is_systemd("/a:b:c"));
	assert_false(cgroup_path_is_systemd("relative/path"));
	assert_false(cgroup_path_is_systemd(""));
	assert_int_equal(cgroup_from_spec(SPEC_CP, out, sizeof(out), &err), 0);
	assert_string_equal(out, SCTR);
	/* runc: a name ending in .slice is the unit itself */
	assert_int_equal(cgroup_from_spec("machine.slice:libpod:x.slice", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/machine.slice/x.slice");
	/* an empty slice is system.slice */
	assert_int_equal(cgroup_from_spec(":cri-containerd:ab", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/system.slice/cri-containerd-ab.scope");
	/* malformed: a fourth part, an empty name, a slice with an empty part,
	 * a unit name with a path or a newline in it */
	assert_int_equal(cgroup_from_spec("a.slice:p:n:x", out, sizeof(out), &err), -1);
	assert_int_equal(cgroup_from_spec("a.slice:p:", out, sizeof(out), &err), -1);
	assert_int_equal(cgroup_from_spec("a-.slice:p:n", out, sizeof(out), &err), -1);
	assert_int_equal(cgroup_from_spec("a.slice:p:../../x", out, sizeof(out), &err), -1);
	assert_int_equal(cgroup_from_spec("a.slice:p:x\ny", out, sizeof(out), &err), -1);
	assert_true(cgroup_looks_like_unit(SCTR));
	assert_true(cgroup_looks_like_unit(SPOD));
	assert_false(cgroup_looks_like_unit(KPOD "/ctr2"));
}

#ifdef HAVE_SYSTEMD

/* ---- the stand-in manager ---- */

struct fake_manager {
	pid_t pid;
	char log[PATH_MAX];
	char socket[PATH_MAX];
};

/* cgroup -> unit, what the stand-in knows */
static const char *const known_units[][2] = {
	{ "/kubepods.slice", "kubepods.slice" },
	{ "/kubepods.slice/kubepods-burstable.slice", "kubepods-burstable.slice" },
	{ SPOD, POD_UNIT },
	{ SCTR, "cri-containerd-ctr3.scope" },
};

static int m_get_unit_by_cgroup(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	char cg[PATH_MAX], *slash;
	const char *in;
	_cleanup_free_ char *path = NULL;
	int r;

	(void)userdata;
	(void)e;
	if ((r = sd_bus_message_read(m, "s", &in)) < 0)
		return r;
	snprintf(cg, sizeof(cg), "%s", in);
	/* the nearest unit at or above the cgroup, like the manager */
	for (;;) {
		for (size_t i = 0; i < sizeof(known_units) / sizeof(*known_units); i++)
			if (!strcmp(known_units[i][0], cg)) {
				if ((r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", known_units[i][1], &path)) < 0)
					return r;
				return sd_bus_reply_method_return(m, "o", path);
			}
		slash = strrchr(cg, '/');
		if (!slash || slash == cg)
			break;
		*slash = '\0';
	}
	return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/unit/_2d_2eslice");
}

static int m_set_unit_properties(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	const struct fake_manager *fm = userdata;
	const char *unit, *name, *contents;
	char line[2048];
	size_t off;
	int runtime, r;
	bool known = false;
	FILE *log;

	if ((r = sd_bus_message_read(m, "sb", &unit, &runtime)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(known_units) / sizeof(*known_units); i++)
		known |= !strcmp(known_units[i][1], unit);
	if (!known)
		return sd_bus_error_setf(e, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.", unit);
	off = (size_t)snprintf(line, sizeof(line), "%s runtime=%d", unit, runtime);
	if ((r = sd_bus_message_enter_container(m, 'a', "(sv)")) < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
		if ((r = sd_bus_message_read(m, "s", &name)) < 0 ||
		    (r = sd_bus_message_peek_type(m, NULL, &contents)) < 0 ||
		    (r = sd_bus_message_enter_container(m, 'v', contents)) < 0)
			return r;
		if (!strcmp(name, "IOWeight") && !strcmp(contents, "t")) {
			uint64_t w;

			if ((r = sd_bus_message_read(m, "t", &w)) < 0)
				return r;
			off += (size_t)snprintf(line + off, sizeof(line) - off, " IOWeight=%llu", (unsigned long long)w);
		} else if (!strcmp(name, "IODeviceWeight") && !strcmp(contents, "a(st)")) {
			const char *dev;
			uint64_t w;

			if ((r = sd_bus_message_enter_container(m, 'a', "(st)")) < 0)
				return r;
			while ((r = sd_bus_message_read(m, "(st)", &dev, &w)) > 0)
				off += (size_t)snprintf(line + off, sizeof(line) - off, " IODeviceWeight=%s:%llu",
							dev, (unsigned long long)w);
			if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0)
				return r;
		} else {
			return sd_bus_error_setf(e, SD_BUS_ERROR_INVALID_ARGS, "unexpected property %s (%s)",
						 name, contents);
		}
		if ((r = sd_bus_message_exit_container(m)) < 0 || (r = sd_bus_message_exit_container(m)) < 0)
			return r;
	}
	if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0)
		return r;
	log = fopen(fm->log, "a");
	if (!log)
		return -errno;
	fprintf(log, "%s\n", line);
	fclose(log);
	return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("GetUnitByControlGroup", "s", "o", m_get_unit_by_cgroup, 0),
	SD_BUS_METHOD("SetUnitProperties", "sba(sv)", "", m_set_unit_properties, 0),
	SD_BUS_VTABLE_END
};

static void serve(struct fake_manager *fm, int lfd)
{
	/* a failed assertion skips manager_stop(): never outlive the tests
	 * (make check's tee would wait for our copy of stdout) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		sd_bus *b = NULL;
		sd_id128_t id;

		if (c < 0)
			break;
		if (sd_bus_new(&b) < 0 || sd_bus_set_fd(b, c, c) < 0 || sd_id128_randomize(&id) < 0 ||
		    sd_bus_set_server(b, 1, id) < 0 ||
		    sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/systemd1",
					     "org.freedesktop.systemd1.Manager", manager_vtable, fm) < 0 ||
		    sd_bus_start(b) < 0)
			break;
		for (;;) {
			int r = sd_bus_process(b, NULL);

			if (r < 0)
				break;	/* the hook hung up */
			if (r == 0 && sd_bus_wait(b, UINT64_MAX) < 0)
				break;
		}
		sd_bus_flush_close_unref(b);
	}
	syscall(SYS_exit_group, 0);
}

static void manager_start(struct fake *f, struct fake_manager *fm)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd;

	snprintf(fm->log, sizeof(fm->log), "%s/systemd-calls.log", f->root);
	snprintf(fm->socket, sizeof(fm->socket), "%s", f->roots.systemd_socket);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", fm->socket);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	/* listening before the fork: the hook never races the stand-in */
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	fm->pid = fork();
	assert_true(fm->pid >= 0);
	if (fm->pid == 0)
		serve(fm, lfd);
	close(lfd);
}

static void manager_stop(struct fake_manager *fm)
{
	int st;

	kill(fm->pid, SIGKILL);
	waitpid(fm->pid, &st, 0);
	unlink(fm->socket);
}

static char *calls(struct fake *f)
{
	char *s = fk_read(f, "systemd-calls.log");

	return s ? s : strdup("");
}

/* a state with a bundle whose config.json names the systemd cgroupsPath */
static char *systemd_state(struct fake *f, long pid, const char *cgroups_path, const char *ann)
{
	char *spec, *s;

	if (asprintf(&spec, "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"%s\"}}", cgroups_path) < 0)
		abort();
	fk_write(f, "bundle/config.json", spec);
	free(spec);
	if (asprintf(&s, "{\"ociVersion\":\"1.0.2\",\"id\":\"ctr3\",\"status\":\"created\",\"pid\":%ld,"
			 "\"bundle\":\"%s/bundle\",\"annotations\":{%s}}", pid, f->root, ann) < 0)
		abort();
	return s;
}

static const char pod_ann[] =
	"\"io.kubernetes.cri.container-name\":\"app\",\"ioweight.dev/weight\":\"500\","
	"\"ioweight.dev/container.app\":\"300\",\"ioweight.dev/device-weights\":\"/dev/vdb=800\"";
static const char pod_cfg[] = "{" CFG_BASE ",\"devices\":[{\"match\":\"/dev/vdb\",\"podWeights\":true}]}";

/* A kubelet pod under the systemd driver: both units get their weights
 * from systemd, runtime only, and the files get the same */
static void test_pod_through_systemd(void **state)
{
	struct fake *f = *state;
	struct fake_manager fm;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = systemd_state(f, 300, SPEC_CP, pod_ann), *got;

	fk_config(f, pod_cfg);
	manager_start(f, &fm);
	if (fk_run(f, s, &res, &err) < 0)
		print_error("hook: %s\n", err.msg);
	manager_stop(&fm);
	assert_int_equal(err.code, 0);
	assert_true(res.systemd);
	assert_true(res.in_pod);
	assert_int_equal(res.plan.n_units, 2);
	got = calls(f);
	assert_string_equal(got,
		POD_UNIT " runtime=1 IOWeight=500 IODeviceWeight=/dev/block/254:16:800\n"
		"cri-containerd-ctr3.scope runtime=1 IOWeight=300\n");
	free(got);
	got = fk_read(f, "cg" SCTR "/io.weight");
	assert_string_equal(got, "default 300");
	free(got);
	got = fk_read(f, "cg" SPOD "/io.weight");
	assert_string_equal(got, "254:16 800");	/* the fake file keeps the last write */
	free(got);
	hook_result_free(&res);
	free(s);
}

/*
 * The disk goes to systemd as /dev/block/MAJ:MIN, a name systemd reads the
 * device number from without looking the path up (its lookup_block_device()
 * parses /dev/block/ names first; the guest's systemd-check.sh shows 252
 * keep the weight across daemon-reload with udev stopped and /dev/block
 * removed).  So the hook neither needs the
 * udev link nor follows one: without /dev/block (no udev) and with a link
 * there pointing at another disk, systemd gets the same name.
 */
static void test_device_name_without_udev(void **state)
{
	struct fake *f = *state;
	const char *want = POD_UNIT " runtime=1 IOWeight=500 IODeviceWeight=/dev/block/254:16:800\n"
			   "cri-containerd-ctr3.scope runtime=1 IOWeight=300\n";

	fk_config(f, pod_cfg);
	for (int link = 0; link < 2; link++) {
		struct fake_manager fm;
		struct hook_result res;
		struct hook_err err = { 0 };
		char *s = systemd_state(f, 300, SPEC_CP, pod_ann), *got;

		if (link)
			fk_symlink(f, "../sda", "dev/block/254:16");
		else
			assert_null(fk_read(f, "dev/block/254:16"));
		fk_write(f, "systemd-calls.log", "");
		manager_start(f, &fm);
		if (fk_run(f, s, &res, &err) < 0)
			print_error("hook: %s\n", err.msg);
		manager_stop(&fm);
		assert_int_equal(err.code, 0);
		got = calls(f);
		assert_string_equal(got, want);
		free(got);
		got = fk_read(f, "cg" SPOD "/io.weight");
		assert_string_equal(got, "254:16 800");
		free(got);
		hook_result_free(&res);
		free(s);
	}
}

/* createRuntime without a pid (crun): the cgroup and the driver both come
 * from config.json, and so do the annotations */
static void test_spec_only(void **state)
{
	struct fake *f = *state;
	struct fake_manager fm;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s, *got;

	fk_config(f, "{" CFG_BASE "}");
	fk_write(f, "bundle/config.json", "{\"ociVersion\":\"1.0.2\",\"annotations\":{\"ioweight.dev/weight\":\"77\"},"
		 "\"linux\":{\"cgroupsPath\":\"" SPEC_CP "\"}}");
	if (asprintf(&s, "{\"ociVersion\":\"1.0.2\",\"id\":\"ctr3\",\"status\":\"creating\",\"bundle\":\"%s/bundle\"}", f->root) < 0)
		abort();
	manager_start(f, &fm);
	if (fk_run(f, s, &res, &err) < 0)
		print_error("hook: %s\n", err.msg);
	manager_stop(&fm);
	assert_int_equal(err.code, 0);
	assert_string_equal(res.ctr_cg, SCTR);
	assert_true(res.systemd && res.in_pod);
	got = calls(f);
	assert_string_equal(got, POD_UNIT " runtime=1 IOWeight=77\n");
	free(got);
	got = fk_read(f, "cg" SPOD "/io.weight");
	assert_string_equal(got, "default 77");
	free(got);
	hook_result_free(&res);
	free(s);
}

/* crun runs a delegated scope's process one level down ("container"):
 * the scope, the unit that competes with its siblings, gets the weight */
static void test_crun_subgroup(void **state)
{
	struct fake *f = *state;
	struct fake_manager fm;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s, *got;

	fk_config(f, pod_cfg);
	fk_write(f, "cg" SCTR "/container/io.weight", "");
	fk_write(f, "proc/302/cgroup", "0::" SCTR "/container\n");
	s = systemd_state(f, 302, SPEC_CP, pod_ann);
	manager_start(f, &fm);
	if (fk_run(f, s, &res, &err) < 0)
		print_error("hook: %s\n", err.msg);
	manager_stop(&fm);
	assert_int_equal(err.code, 0);
	assert_string_equal(res.ctr_cg, SCTR);
	got = calls(f);
	assert_string_equal(got,
		POD_UNIT " runtime=1 IOWeight=500 IODeviceWeight=/dev/block/254:16:800\n"
		"cri-containerd-ctr3.scope runtime=1 IOWeight=300\n");
	free(got);
	got = fk_read(f, "cg" SCTR "/io.weight");
	assert_string_equal(got, "default 300");
	free(got);
	got = fk_read(f, "cg" SCTR "/container/io.weight");
	assert_string_equal(got, "");
	free(got);
	hook_result_free(&res);
	free(s);
	/* two levels down is a cgroup of its own inside the delegated
	 * subtree, which systemd never rewrites: its own file, no unit */
	fk_write(f, "cg" SCTR "/cgroup.subtree_control", "");
	fk_write(f, "cg" SCTR "/container/cgroup.subtree_control", "");
	fk_write(f, "cg" SCTR "/container/deeper/io.weight", "");
	fk_write(f, "proc/303/cgroup", "0::" SCTR "/container/deeper\n");
	unlink(fm.log);
	s = systemd_state(f, 303, SPEC_CP, "\"ioweight.dev/weight\":\"40\"");
	manager_start(f, &fm);
	assert_int_equal(fk_run(f, s, &res, &err), 0);
	manager_stop(&fm);
	assert_false(res.systemd);
	assert_string_equal(res.ctr_cg, SCTR "/container/deeper");
	got = calls(f);
	assert_string_equal(got, "");
	free(got);
	got = fk_read(f, "cg" SCTR "/container/deeper/io.weight");
	assert_string_equal(got, "default 40");
	free(got);
	hook_result_free(&res);
	free(s);
}

/* Under cgroupfs nothing talks to systemd, even with a unit-like name */
static void test_cgroupfs_never_calls(void **state)
{
	struct fake *f = *state;
	struct fake_manager fm;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = systemd_state(f, 300, "/kubepods.slice/kubepods-burstable.slice/"
				POD_UNIT "/cri-containerd-ctr3.scope", pod_ann), *got;

	fk_config(f, pod_cfg);
	manager_start(f, &fm);
	assert_int_equal(fk_run(f, s, &res, &err), 0);
	manager_stop(&fm);
	assert_false(res.systemd);
	assert_int_equal(res.plan.n_units, 0);
	got = calls(f);
	assert_string_equal(got, "");
	free(got);
	hook_result_free(&res);
	free(s);
}

/* The refusals: each a precise error, no call made, no file written */
static void expect_refused(struct fake *f, const char *cgroups_path, long pid, const char *want)
{
	struct fake_manager fm;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = systemd_state(f, pid, cgroups_path, pod_ann), *got;
	uint64_t before = fk_snapshot(f);

	manager_start(f, &fm);
	assert_int_equal(fk_run(f, s, &res, &err), -1);
	manager_stop(&fm);
	if (!strstr(err.msg, want))
		print_error("error `%s` lacks `%s`\n", err.msg, want);
	assert_non_null(strstr(err.msg, want));
	got = calls(f);
	assert_string_equal(got, "");
	free(got);
	/* the log file is the stand-in's: absent means untouched */
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	free(s);
}

static void test_refusals(void **state)
{
	struct fake *f = *state;

	fk_config(f, pod_cfg);
	/* config.json names another scope than the one the pid is in */
	expect_refused(f, "kubepods-burstable-pod0a1b2c3d_0000_1111_2222_333344445555.slice:cri-containerd:other",
		       300, "but the container runs in " SCTR);
	/* systemd does not know the scope: it answers with the pod slice */
	fk_mkdir(f, "cg" SPOD "/cri-containerd-ghost.scope");
	fk_write(f, "cg" SPOD "/cri-containerd-ghost.scope/io.weight", "");
	fk_write(f, "proc/301/cgroup", "0::" SPOD "/cri-containerd-ghost.scope\n");
	expect_refused(f, "kubepods-burstable-pod0a1b2c3d_0000_1111_2222_333344445555.slice:cri-containerd:ghost",
		       301, "belongs to unit object /org/freedesktop/systemd1/unit/kubepods_2dburstable_2dpod");
}

/* No manager on the socket: the error says where the hook looked */
static void test_no_manager(void **state)
{
	struct fake *f = *state;
	struct hook_result res;
	struct hook_err err = { 0 };
	char *s = systemd_state(f, 300, SPEC_CP, pod_ann);
	uint64_t before;

	fk_config(f, pod_cfg);
	before = fk_snapshot(f);
	assert_int_equal(fk_run(f, s, &res, &err), -1);
	assert_non_null(strstr(err.msg, "cannot connect to the manager at"));
	assert_non_null(strstr(err.msg, f->roots.systemd_socket));
	assert_true(fk_snapshot(f) == before);
	hook_result_free(&res);
	free(s);
}

/* explain with --cgroup in systemd form shows the calls and makes none */
static void test_explain_systemd(void **state)
{
	struct fake *f = *state;
	struct hook_opts o = { .roots = f->roots, .dry_run = true, .cgroup = SPEC_CP };
	struct hook_result res;
	struct hook_err err = { 0 };
	struct oci_state st;
	char *s = fk_state(0, pod_ann), *out = NULL;
	size_t len = 0;
	FILE *mf;

	fk_config(f, pod_cfg);
	assert_int_equal(state_parse(s, strlen(s), &st, &err), 0);
	assert_int_equal(hook_run(&o, &st, &res, &err), 0);
	assert_true(res.systemd);
	assert_int_equal(res.plan.units[0].status, PS_WOULD_WRITE);
	mf = open_memstream(&out, &len);
	hook_print_plan(mf, &res);
	fclose(mf);
	assert_non_null(strstr(out, "SetUnitProperties(cri-containerd-ctr3.scope, runtime) IOWeight=300"));
	assert_non_null(strstr(out, "SetUnitProperties(" POD_UNIT ", runtime) IOWeight=500 IODeviceWeight=/dev/block/254:16 800"));
	free(out);
	state_free(&st);
	hook_result_free(&res);
	free(s);
}

enum { S_OK = 0, S_HOOK = 20, S_SOCKET, S_CONNECT, S_SENDMSG_OTHER };

/* The whole pipeline under the sandbox: the bus fd talks, nothing else
 * can open a socket or send on another fd */
static int child_sandboxed(void *arg)
{
	struct fake *f = arg;
	struct hook_opts o = { .roots = f->roots, .sandbox = true };
	struct hook_result res;
	struct hook_err err = { 0 };
	struct oci_state st;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct msghdr mh = { 0 };
	char *s = systemd_state(f, 300, SPEC_CP, pod_ann);
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return S_HOOK;
	if (state_parse(s, strlen(s), &st, &err) < 0 || hook_run(&o, &st, &res, &err) < 0) {
		fprintf(stderr, "child: %s\n", err.msg);
		return S_HOOK;
	}
	if (socket(AF_UNIX, SOCK_STREAM, 0) != -1 || errno != EPERM)
		return S_SOCKET;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/containerd/containerd.sock");
	if (connect(sv[0], (struct sockaddr *)&sa, sizeof(sa)) != -1 || errno != EPERM)
		return S_CONNECT;
	if (sendmsg(sv[0], &mh, 0) != -1 || errno != EPERM)
		return S_SENDMSG_OTHER;
	return S_OK;
}

static void test_sandboxed_pipeline(void **state)
{
	struct fake *f = *state;
	struct fake_manager fm;
	pid_t pid;
	int st;
	char *got;

	fk_config(f, "{\"ioweightVersion\":\"1.0.0\",\"name\":\"t\",\"log\":{\"target\":\"stderr\"},"
		     "\"devices\":[{\"match\":\"/dev/vdb\",\"podWeights\":true}]}");
	manager_start(f, &fm);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		syscall(SYS_exit_group, child_sandboxed(f));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	manager_stop(&fm);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), S_OK);
	got = calls(f);
	assert_string_equal(got,
		POD_UNIT " runtime=1 IOWeight=500 IODeviceWeight=/dev/block/254:16:800\n"
		"cri-containerd-ctr3.scope runtime=1 IOWeight=300\n");
	free(got);
}

#endif /* HAVE_SYSTEMD */

int run_systemd_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_names),
		cmocka_unit_test(test_unit_of_cgroup),
		cmocka_unit_test(test_driver_from_cgroups_path),
#ifdef HAVE_SYSTEMD
		cmocka_unit_test_setup_teardown(test_pod_through_systemd, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_device_name_without_udev, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_spec_only, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_crun_subgroup, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cgroupfs_never_calls, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_manager, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_explain_systemd, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_sandboxed_pipeline, fake_setup, fake_teardown),
#endif
	};
	return cmocka_run_group_tests_name("systemd_driver", tests, NULL, NULL);
}
