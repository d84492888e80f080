// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd.c - unit names and the two D-Bus calls of the systemd driver. */
#include "systemd.h"

#include <stdio.h>
#include <string.h>

#ifdef HAVE_SYSTEMD
#include <dlfcn.h>
#include <systemd/sd-bus.h>
#endif

bool systemd_unit_name_valid(const char *name, const char *suffix)
{
	size_t n = strlen(name), sl = strlen(suffix);
	bool slice = !strcmp(suffix, ".slice");

	if (n <= sl || n >= SYSTEMD_UNIT_MAX || strcmp(name + n - sl, suffix))
		return false;
	for (size_t i = 0; i < n - sl; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == ':' || c == '_' || c == '.' || c == '-'))
			return false;
		/* a slice's name is its path: "a-b.slice" lives in "a.slice" */
		if (slice && c == '-' && (i == 0 || i == n - sl - 1 || name[i + 1] == '-'))
			return false;
	}
	return true;
}

int systemd_unit_of_cgroup(const char *cg, const char *suffix, char *unit, size_t len,
			   struct hook_err *err)
{
	const char *base = strrchr(cg, '/');

	base = base ? base + 1 : cg;
	if (!systemd_unit_name_valid(base, suffix))
		return hook_fail(err, 0, "systemd driver: cgroup %.200s does not end in a %s unit the hook can name exactly ([A-Za-z0-9:_.-], under %d characters)",
				 cg, suffix, SYSTEMD_UNIT_MAX);
	if (strlen(base) >= len)
		return hook_fail(err, ENAMETOOLONG, "systemd unit %s", base);
	strcpy(unit, base);
	return 0;
}

void systemd_weights_str(const struct unit_weights *w, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (w->set)
		off += (size_t)snprintf(buf, len, "IOWeight=%llu", (unsigned long long)w->weight);
	for (size_t i = 0; i < w->n_devs && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%sIODeviceWeight=/dev/block/%u:%u %llu",
					off ? " " : "", w->devs[i].maj, w->devs[i].min,
					(unsigned long long)w->devs[i].weight);
}

#ifdef HAVE_SYSTEMD

/*
 * libsystemd is opened only when a container runs under the systemd
 * driver: linked, it and its six libraries (gcrypt, lzma, zstd, lz4, cap,
 * gpg-error) are loaded and relocated at every container start, ~3.5 ms of
 * the bench's median on a loaded host, for nothing under cgroupfs.
 */
#define SD_SYMBOLS(X)								\
	X(sd_bus_new) X(sd_bus_set_address) X(sd_bus_negotiate_fds)		\
	X(sd_bus_set_method_call_timeout) X(sd_bus_start) X(sd_bus_unref)	\
	X(sd_bus_close_unref) X(sd_bus_get_fd) X(sd_bus_error_free)		\
	X(sd_bus_error_is_set) X(sd_bus_path_encode) X(sd_bus_call_method)	\
	X(sd_bus_call) X(sd_bus_message_new_method_call) X(sd_bus_message_read)	\
	X(sd_bus_message_unref) X(sd_bus_message_append)			\
	X(sd_bus_message_open_container) X(sd_bus_message_close_container)

static struct {
	void *dl;
#define SD_MEMBER(name) typeof(name) *name;
	SD_SYMBOLS(SD_MEMBER)
#undef SD_MEMBER
} sd;

static int sd_load(struct hook_err *err)
{
	void *dl;

	if (sd.dl)
		return 0;
	dl = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		return hook_fail(err, 0, "systemd driver: cannot load libsystemd.so.0 (%s)", dlerror());
#define SD_LOAD(name)								\
	if (!(sd.name = (typeof(name) *)dlsym(dl, #name))) {			\
		dlclose(dl);							\
		return hook_fail(err, 0, "systemd driver: libsystemd.so.0 has no %s", #name); \
	}
	SD_SYMBOLS(SD_LOAD)
#undef SD_LOAD
	sd.dl = dl;
	return 0;
}

enum {
	/* a manager that does not answer must not hold the container start
	 * for the default 25 s: the runtime's hook timeout is about that */
	SYSTEMD_CALL_TIMEOUT_USEC = 5 * 1000 * 1000,
};

static const char sd_dest[] = "org.freedesktop.systemd1";
static const char sd_path[] = "/org/freedesktop/systemd1";
static const char sd_mgr[] = "org.freedesktop.systemd1.Manager";

static int bus_fail(struct hook_err *err, int r, const sd_bus_error *e, const char *fmt,
		    const char *arg)
{
	char what[400];

	snprintf(what, sizeof(what), fmt, arg);
	if (e && sd.sd_bus_error_is_set(e))
		return hook_fail(err, 0, "%s: %s (%s)", what, e->message ? e->message : "no message",
				 e->name);
	return hook_fail(err, r < 0 ? -r : EIO, "%s", what);
}

int systemd_connect(const char *socket_path, struct sd_bus **out, struct hook_err *err)
{
	sd_bus *bus = NULL;
	char addr[PATH_MAX + 16];
	int r;

	*out = NULL;
	if (sd_load(err) < 0)
		return -1;
	snprintf(addr, sizeof(addr), "unix:path=%s", socket_path);
	if ((r = sd.sd_bus_new(&bus)) < 0)
		return hook_fail(err, -r, "systemd: cannot create a bus object");
	/* the manager's own socket: a direct connection, no Hello, no fds */
	if ((r = sd.sd_bus_set_address(bus, addr)) < 0 ||
	    (r = sd.sd_bus_negotiate_fds(bus, false)) < 0 ||
	    (r = sd.sd_bus_set_method_call_timeout(bus, SYSTEMD_CALL_TIMEOUT_USEC)) < 0 ||
	    (r = sd.sd_bus_start(bus)) < 0) {
		sd.sd_bus_unref(bus);
		return hook_fail(err, -r, "systemd driver: cannot connect to the manager at %s", socket_path);
	}
	*out = bus;
	return 0;
}

void systemd_close(struct sd_bus *bus)
{
	if (bus)
		sd.sd_bus_close_unref(bus);
}

int systemd_fd(struct sd_bus *bus)
{
	return bus ? sd.sd_bus_get_fd(bus) : -1;
}

int systemd_check_unit(struct sd_bus *bus, const char *unit, const char *cg, struct hook_err *err)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	_cleanup_free_ char *want = NULL;
	const char *got;
	char what[600];
	int r;

	snprintf(what, sizeof(what), "systemd: GetUnitByControlGroup(%.200s)", cg);
	if ((r = sd.sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &want)) < 0)
		return hook_fail(err, -r, "systemd unit %s", unit);
	r = sd.sd_bus_call_method(bus, sd_dest, sd_path, sd_mgr, "GetUnitByControlGroup", &e, &reply,
			       "s", cg);
	if (r < 0) {
		bus_fail(err, r, &e, "%s", what);
		sd.sd_bus_error_free(&e);
		return -1;
	}
	r = sd.sd_bus_message_read(reply, "o", &got);
	if (r < 0) {
		sd.sd_bus_message_unref(reply);
		return hook_fail(err, -r, "%s: unexpected reply", what);
	}
	/* the manager answers with the nearest unit above a cgroup it does
	 * not know: only the unit itself will do */
	r = strcmp(got, want) ? hook_fail(err, 0, "systemd driver: cgroup %.200s belongs to unit object %.200s, not to %s: refusing to set its weights",
					  cg, got, unit) : 0;
	sd.sd_bus_message_unref(reply);
	return r;
}

static int append_weights(sd_bus_message *m, const struct unit_weights *w)
{
	int r;

	if ((r = sd.sd_bus_message_open_container(m, 'a', "(sv)")) < 0)
		return r;
	if (w->set && (r = sd.sd_bus_message_append(m, "(sv)", "IOWeight", "t", w->weight)) < 0)
		return r;
	if (w->n_devs) {
		/* a(st): systemd takes the device number from a /dev/block/
		 * MAJ:MIN name without looking the path up, so neither udev's
		 * link nor a name that may later be another disk's is needed */
		if ((r = sd.sd_bus_message_open_container(m, 'r', "sv")) < 0 ||
		    (r = sd.sd_bus_message_append(m, "s", "IODeviceWeight")) < 0 ||
		    (r = sd.sd_bus_message_open_container(m, 'v', "a(st)")) < 0 ||
		    (r = sd.sd_bus_message_open_container(m, 'a', "(st)")) < 0)
			return r;
		for (size_t i = 0; i < w->n_devs; i++) {
			char dev[48];

			snprintf(dev, sizeof(dev), "/dev/block/%u:%u", w->devs[i].maj, w->devs[i].min);
			if ((r = sd.sd_bus_message_append(m, "(st)", dev, w->devs[i].weight)) < 0)
				return r;
		}
		if ((r = sd.sd_bus_message_close_container(m)) < 0 ||
		    (r = sd.sd_bus_message_close_container(m)) < 0 ||
		    (r = sd.sd_bus_message_close_container(m)) < 0)
			return r;
	}
	return sd.sd_bus_message_close_container(m);
}

int systemd_set_weights(struct sd_bus *bus, const char *unit, const struct unit_weights *w,
			struct hook_err *err)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	char what[SYSTEMD_UNIT_MAX + 64];
	int r;

	snprintf(what, sizeof(what), "systemd: SetUnitProperties(%s)", unit);
	r = sd.sd_bus_message_new_method_call(bus, &m, sd_dest, sd_path, sd_mgr, "SetUnitProperties");
	/* runtime=true: until the unit goes away, never written to /etc */
	if (r >= 0)
		r = sd.sd_bus_message_append(m, "sb", unit, 1);
	if (r >= 0)
		r = append_weights(m, w);
	if (r < 0) {
		sd.sd_bus_message_unref(m);
		return hook_fail(err, -r, "%s: cannot build the message", what);
	}
	r = sd.sd_bus_call(bus, m, 0, &e, NULL);
	sd.sd_bus_message_unref(m);
	if (r < 0) {
		bus_fail(err, r, &e, "%s", what);
		sd.sd_bus_error_free(&e);
		return -1;
	}
	return 0;
}

#else /* !HAVE_SYSTEMD */

int systemd_connect(const char *socket_path, struct sd_bus **out, struct hook_err *err)
{
	*out = NULL;
	return hook_fail(err, 0, "systemd driver: this ioweight-hook was built without libsystemd; cannot reach %s",
			 socket_path);
}

void systemd_close(struct sd_bus *bus)
{
	(void)bus;
}

int systemd_fd(struct sd_bus *bus)
{
	(void)bus;
	return -1;
}

int systemd_check_unit(struct sd_bus *bus, const char *unit, const char *cg, struct hook_err *err)
{
	(void)bus;
	(void)cg;
	return hook_fail(err, 0, "systemd unit %s: built without libsystemd", unit);
}

int systemd_set_weights(struct sd_bus *bus, const char *unit, const struct unit_weights *w,
			struct hook_err *err)
{
	(void)bus;
	(void)w;
	return hook_fail(err, 0, "systemd unit %s: built without libsystemd", unit);
}

#endif
