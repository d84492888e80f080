/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * systemd.h - the systemd cgroup driver.
 *
 * Under it (runc --systemd-cgroup, containerd SystemdCgroup = true, podman
 * --cgroup-manager systemd) the runtime names the container's cgroup in
 * linux.cgroupsPath as "slice:prefix:name": the container is the scope
 * unit prefix-name.scope in that slice, a kubelet pod the slice itself.
 * systemd writes io.weight of its units from their IOWeight= and
 * IODeviceWeight= whenever it applies them again (daemon-reload, any
 * property change), so a weight written only to the file would not last:
 * the hook gives the weights to systemd as runtime unit properties.
 *
 * Owns: unit names taken from cgroup paths (exact: checked characters and
 * suffix, nothing escaped or guessed), the connection to the manager's
 * private socket (root only, no bus daemon; opened before the sandbox,
 * which lets only that fd talk), GetUnitByControlGroup to prove a unit owns
 * the cgroup, and SetUnitProperties(unit, runtime=true, IOWeight,
 * IODeviceWeight).
 */
#ifndef IOWEIGHT_SYSTEMD_H
#define IOWEIGHT_SYSTEMD_H

#include "util.h"

#define SYSTEMD_PRIVATE_SOCKET "/run/systemd/private"

enum { SYSTEMD_UNIT_MAX = 256 };	/* systemd's UNIT_NAME_MAX, NUL included */

/*
 * A unit name the hook may address: [A-Za-z0-9:_.-], shorter than
 * SYSTEMD_UNIT_MAX, ending in `suffix` (".scope" or ".slice") after a
 * non-empty stem; a slice stem has no empty dash-separated part ("-.slice",
 * the root, is not ours).  No template `@`, no `\` escapes.
 */
bool systemd_unit_name_valid(const char *name, const char *suffix);

/* The unit of a cgroup: its last path component, checked as above. */
int systemd_unit_of_cgroup(const char *cg, const char *suffix, char *unit, size_t len,
			   struct hook_err *err);

struct sd_bus;

struct unit_weights {
	bool set;			/* IOWeight */
	uint64_t weight;
	size_t n_devs;			/* IODeviceWeight entries */
	struct {
		unsigned maj, min;
		uint64_t weight;
	} devs[MAX_DEVICE_ENTRIES];
};

/* Connect to the manager at `socket_path` (SYSTEMD_PRIVATE_SOCKET). */
int systemd_connect(const char *socket_path, struct sd_bus **bus, struct hook_err *err);
void systemd_close(struct sd_bus *bus);
/* The fd the sandbox lets talk to systemd, -1 if none. */
int systemd_fd(struct sd_bus *bus);

/* Is `unit` the unit systemd has for cgroup `cg`?  An error if not. */
int systemd_check_unit(struct sd_bus *bus, const char *unit, const char *cg, struct hook_err *err);

/* SetUnitProperties(unit, runtime=true, IOWeight?, IODeviceWeight?). */
int systemd_set_weights(struct sd_bus *bus, const char *unit, const struct unit_weights *w,
			struct hook_err *err);

/* "IOWeight=300 IODeviceWeight=/dev/block/254:16 800", for logs and explain. */
void systemd_weights_str(const struct unit_weights *w, char *buf, size_t len);

#endif
