// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_podcg.c - pod-cgroup detection and the systemd driver's names, with
 * the invariants the hook's safety rests on:
 *   - a pod cgroup is the container's parent, and never a cgroup shared by
 *     many pods or containers (the root, kubepods, a QoS class, a slice of
 *     machines or services);
 *   - annotations never make a pod: cgroup_find_pod() agrees with the
 *     layout, and refuses a pod claim the layout does not confirm;
 *   - a unit name taken from a cgroup is that cgroup's last component and
 *     passes the exact-name check.
 * Input: line 1 a container cgroup, line 2 a linux.cgroupsPath, then
 * annotation lines "key=value".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "cgroup.h"
#include "systemd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what, const char *cg)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_podcg: %s (cgroup `%s`)\n", what, cg);
	abort();
}

static bool shared_name(const char *base)
{
	static const char *const shared[] = {
		"", "kubepods", "burstable", "besteffort", "kubepods.slice", "kubepods-burstable.slice",
		"kubepods-besteffort.slice", "machine.slice", "system.slice", "user.slice", "-.slice",
	};

	for (size_t i = 0; i < sizeof(shared) / sizeof(*shared); i++)
		if (!strcmp(base, shared[i]))
			return true;
	return false;
}

static void pod_invariants(const char *cg, const struct ann_values *av, bool have_av)
{
	char pod[PATH_MAX], pod2[PATH_MAX], unit[SYSTEMD_UNIT_MAX];
	struct hook_err err = { 0 };
	bool in_pod, in_pod2 = false;
	size_t pl;
	int r;

	in_pod = cgroup_kubelet_pod(cg, pod, sizeof(pod));
	if (in_pod) {
		const char *base;

		pl = strlen(pod);
		check(pl > 0 && pl < strlen(cg) && !strncmp(cg, pod, pl) && cg[pl] == '/' &&
		      !strchr(cg + pl + 1, '/'), "the pod cgroup is not the container's parent", cg);
		base = strrchr(pod, '/') + 1;
		check(!shared_name(base), "a shared cgroup taken for a pod", cg);
		check(!strncmp(base, "pod", 3) || strstr(base, "-pod"), "a pod cgroup without pod<uid>", cg);
		/* under systemd the pod is a slice the hook can name exactly */
		if (strlen(base) > 6 && !strcmp(base + strlen(base) - 6, ".slice"))
			check(systemd_unit_of_cgroup(pod, ".slice", unit, sizeof(unit), &err) == 0 &&
			      !strcmp(unit, base), "a kubelet pod slice the hook cannot name", cg);
	}
	if (!have_av)
		return;
	r = cgroup_find_pod(cg, av, &in_pod2, pod2, sizeof(pod2), &err);
	if (r == 0) {
		check(in_pod2 == in_pod, "annotations changed whether this is a pod", cg);
		check(!in_pod || !strcmp(pod, pod2), "annotations changed the pod cgroup", cg);
	} else {
		check(!in_pod && av->ctype != CT_NONE, "a refusal without a claim to refuse", cg);
	}
}

static void unit_invariants(const char *cg)
{
	char unit[SYSTEMD_UNIT_MAX];
	struct hook_err err = { 0 };
	const char *suffix[] = { ".scope", ".slice" };

	for (size_t i = 0; i < 2; i++) {
		if (systemd_unit_of_cgroup(cg, suffix[i], unit, sizeof(unit), &err) < 0)
			continue;
		check(!strchr(unit, '/') && systemd_unit_name_valid(unit, suffix[i]),
		      "a unit name that fails its own check", cg);
		check(strlen(unit) <= strlen(cg) && !strcmp(cg + strlen(cg) - strlen(unit), unit),
		      "a unit name that is not the cgroup's last component", cg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kv kv[64];
	struct ann_values av;
	struct hook_err err = { 0 };
	char *buf, *l1, *l2, *rest, *line, *save = NULL, out[PATH_MAX];
	size_t n = 0;
	bool have_av;

	if (size > 16384)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	l1 = buf;
	l2 = strchr(l1, '\n');
	rest = NULL;
	if (l2) {
		*l2++ = '\0';
		rest = strchr(l2, '\n');
		if (rest)
			*rest++ = '\0';
	}
	for (line = rest ? strtok_r(rest, "\n", &save) : NULL; line && n < 64;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		kv[n].key = line;
		kv[n++].value = eq + 1;
	}
	have_av = annotations_parse(kv, n, &av, &err) == 0;
	/* the hook only ever looks at checked paths */
	if (cgroup_check_path(l1, "fuzz", &err) == 0) {
		pod_invariants(l1, &av, have_av);
		unit_invariants(l1);
	}
	if (l2 && cgroup_from_spec(l2, out, sizeof(out), &err) == 0) {
		check(cgroup_check_path(out, "fuzz", &err) == 0, "cgroupsPath gave an unchecked path", l2);
		pod_invariants(out, &av, have_av);
		unit_invariants(out);
		/* the systemd form always ends in a unit */
		check(!cgroup_path_is_systemd(l2) || cgroup_looks_like_unit(out),
		      "a systemd cgroupsPath that is not a unit's cgroup", l2);
	}
	free(buf);
	return 0;
}
