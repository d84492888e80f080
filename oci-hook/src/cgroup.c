// SPDX-License-Identifier: GPL-2.0-or-later
/* cgroup.c - container and pod cgroup discovery. */
#include "cgroup.h"

#include <stdio.h>
#include <string.h>

int cgroup_check_path(const char *cg, const char *what, struct hook_err *err)
{
	if (cg[0] != '/')
		return hook_fail(err, 0, "%s: cgroup `%.128s` is not an absolute path", what, cg);
	if (strlen(cg) >= PATH_MAX / 2)
		return hook_fail(err, 0, "%s: cgroup path too long", what);
	if (path_has_dot_component(cg) && strcmp(cg, "/"))
		return hook_fail(err, 0, "%s: cgroup `%.128s` has a `.`/`..` or empty component", what, cg);
	for (const char *c = cg; *c; c++)
		if ((unsigned char)*c < 0x20)
			return hook_fail(err, 0, "%s: cgroup path has a control character", what);
	return 0;
}

int cgroup_of_pid(const struct hook_roots *roots, long pid, char *out, size_t outlen,
		  struct hook_err *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/%ld/cgroup", roots->proc, pid);
	if (read_file_bounded(path, MAX_SMALL_FILE, &buf, NULL, err) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* the unified hierarchy is the line with id 0 and no controllers */
		if (strncmp(line, "0::", 3))
			continue;
		line += 3;
		if (strstr(line, " (deleted)"))
			return hook_fail(err, 0, "%s: cgroup `%.128s` was removed", path, line);
		if (cgroup_check_path(line, path, err) < 0)
			return -1;
		if (strlen(line) >= outlen)
			return hook_fail(err, ENAMETOOLONG, "%s", path);
		strcpy(out, line);
		return 0;
	}
	return hook_fail(err, 0, "%s: no cgroup v2 (`0::`) entry; is the unified hierarchy mounted?", path);
}

/* "kubepods-burstable-pod1.slice" -> "/kubepods.slice/kubepods-burstable.slice/…" */
static int expand_slice(const char *slice, char *out, size_t outlen, struct hook_err *err)
{
	size_t n = strlen(slice), off = 0;

	if (n < 7 || strcmp(slice + n - 6, ".slice"))
		return hook_fail(err, 0, "cgroupsPath: `%.64s` is not a systemd slice", slice);
	if (!strcmp(slice, "-.slice")) {
		out[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i < n - 6; i++) {
		if (slice[i] != '-' && i != n - 7)
			continue;
		size_t plen = slice[i] == '-' ? i : i + 1;
		int w;

		/* systemd's rule: no empty part ("-a", "a--b", "a-" before .slice) */
		if (plen == 0 || (slice[i] == '-' && (slice[i + 1] == '-' || i == n - 7)))
			return hook_fail(err, 0, "cgroupsPath: malformed slice `%.64s`", slice);
		w = snprintf(out + off, outlen - off, "/%.*s.slice", (int)plen, slice);
		if (w < 0 || (size_t)w >= outlen - off)
			return hook_fail(err, ENAMETOOLONG, "cgroupsPath");
		off += (size_t)w;
	}
	return 0;
}

bool cgroup_path_is_systemd(const char *cp)
{
	return cp[0] && cp[0] != '/' && strchr(cp, ':');
}

bool cgroup_looks_like_unit(const char *cg)
{
	size_t n = strlen(cg);

	return n > 6 && (!strcmp(cg + n - 6, ".scope") || !strcmp(cg + n - 6, ".slice"));
}

int cgroup_from_spec(const char *cp, char *out, size_t outlen, struct hook_err *err)
{
	const char *c1 = strchr(cp, ':');

	if (!cp[0])
		return hook_fail(err, 0, "config.json: empty linux.cgroupsPath and no pid in the state");
	if (cgroup_path_is_systemd(cp)) {
		/* systemd driver: "slice:prefix:name" */
		const char *c2 = strchr(c1 + 1, ':');
		char slice[256], unit[600];
		const char *name;
		size_t off, nl;

		if (!c2 || strchr(c2 + 1, ':') || (size_t)(c1 - cp) >= sizeof(slice))
			return hook_fail(err, 0, "config.json: linux.cgroupsPath `%.128s` is not slice:prefix:name", cp);
		snprintf(slice, sizeof(slice), "%.*s", (int)(c1 - cp), cp);
		if (!slice[0])
			strcpy(slice, "system.slice");
		if (expand_slice(slice, out, outlen, err) < 0)
			return -1;
		name = c2 + 1;
		nl = strlen(name);
		if (!nl || nl >= 256)
			return hook_fail(err, 0, "config.json: linux.cgroupsPath `%.128s` has a bad unit name", cp);
		/* runc: a name ending in .slice is used as is, else prefix-name.scope */
		if (nl > 6 && !strcmp(name + nl - 6, ".slice"))
			snprintf(unit, sizeof(unit), "%s", name);
		else
			snprintf(unit, sizeof(unit), "%.*s-%s.scope", (int)(c2 - c1 - 1), c1 + 1, name);
		off = strlen(out);
		if ((size_t)snprintf(out + off, outlen - off, "/%s", unit) >= outlen - off)
			return hook_fail(err, ENAMETOOLONG, "cgroupsPath");
	} else {
		if ((size_t)snprintf(out, outlen, "%s%s", cp[0] == '/' ? "" : "/", cp) >= outlen)
			return hook_fail(err, ENAMETOOLONG, "cgroupsPath");
	}
	return cgroup_check_path(out, "config.json linux.cgroupsPath", err);
}

/* A kubelet pod uid: a UUID, or the 32-hex-digit hash of a static pod;
 * the systemd driver writes the UUID's dashes as underscores. */
static bool pod_uid(const char *s, size_t n, char dash)
{
	if (n < 8 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || s[i] == dash))
			return false;
	return true;
}

/* Split "/a/b/c" into its last `want` components (comp[0] deepest);
 * returns how many there are, at most want. */
static size_t last_components(const char *cg, const char *comp[], size_t len[], size_t want)
{
	const char *end = cg + strlen(cg);
	size_t k = 0;

	while (k < want && end > cg) {
		const char *s = end;

		while (s > cg && s[-1] != '/')
			s--;
		comp[k] = s;
		len[k] = (size_t)(end - s);
		k++;
		end = s > cg ? s - 1 : cg;
	}
	return k;
}

static bool comp_is(const char *c, size_t n, const char *want)
{
	return n == strlen(want) && !memcmp(c, want, n);
}

/* "<prefix><id><suffix>" with a container id in the middle */
static bool comp_wraps_id(const char *c, size_t n, const char *prefix, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);
	char id[300];

	if (n <= pl + sl || n - pl - sl >= sizeof(id) || memcmp(c, prefix, pl) ||
	    memcmp(c + n - sl, suffix, sl))
		return false;
	memcpy(id, c + pl, n - pl - sl);
	id[n - pl - sl] = '\0';
	return valid_container_id(id) && !strchr(id, '.');
}

/* cgroupfs driver: [prefix]/kubepods[/burstable|/besteffort]/pod<uid>/<ctr> */
static bool kubelet_cgroupfs(const char *comp[], size_t len[], size_t k)
{
	if (k < 3 || len[1] < 4 || memcmp(comp[1], "pod", 3) || !pod_uid(comp[1] + 3, len[1] - 3, '-'))
		return false;
	if (comp_is(comp[2], len[2], "kubepods"))
		return true;
	return k >= 4 && (comp_is(comp[2], len[2], "burstable") || comp_is(comp[2], len[2], "besteffort")) &&
	       comp_is(comp[3], len[3], "kubepods");
}

/*
 * systemd driver, rooted at "/":
 *   /kubepods.slice/kubepods-pod<uid>.slice/<scope>                       (guaranteed)
 *   /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice/<scope>
 * with <scope> cri-containerd-<id>.scope (containerd) or crio-<id>.scope (CRI-O).
 */
static bool kubelet_systemd(const char *cg, const char *comp[], size_t len[], size_t k)
{
	static const char *const qos[] = { "burstable", "besteffort" };
	const char *pod = comp[1];
	size_t pl = len[1];

	if (k < 3 || !(comp_wraps_id(comp[0], len[0], "cri-containerd-", ".scope") ||
		       comp_wraps_id(comp[0], len[0], "crio-", ".scope")))
		return false;
	if (pl > 24 && !memcmp(pod, "kubepods-pod", 12) && !memcmp(pod + pl - 6, ".slice", 6))
		return k == 3 && comp_is(comp[2], len[2], "kubepods.slice") &&
		       comp[2] == cg + 1 && pod_uid(pod + 12, pl - 18, '_');
	for (size_t q = 0; q < 2; q++) {
		char want_parent[32], want_prefix[40];
		size_t wl;

		snprintf(want_parent, sizeof(want_parent), "kubepods-%s.slice", qos[q]);
		wl = (size_t)snprintf(want_prefix, sizeof(want_prefix), "kubepods-%s-pod", qos[q]);
		if (pl > wl + 6 && !memcmp(pod, want_prefix, wl) && !memcmp(pod + pl - 6, ".slice", 6))
			return k == 4 && comp_is(comp[2], len[2], want_parent) &&
			       comp_is(comp[3], len[3], "kubepods.slice") && comp[3] == cg + 1 &&
			       pod_uid(pod + wl, pl - wl - 6, '_');
	}
	return false;
}

bool cgroup_kubelet_pod(const char *ctr_cg, char *pod_cg, size_t podlen)
{
	const char *comp[5];
	size_t len[5], k;

	if (ctr_cg[0] != '/')
		return false;
	k = last_components(ctr_cg, comp, len, 5);
	if (!(kubelet_cgroupfs(comp, len, k) || kubelet_systemd(ctr_cg, comp, len, k)))
		return false;
	/* the pod cgroup is the container's parent */
	if (pod_cg) {
		size_t n = (size_t)(comp[0] - 1 - ctr_cg);

		if (n >= podlen)
			return false;
		memcpy(pod_cg, ctr_cg, n);
		pod_cg[n] = '\0';
	}
	return true;
}

int cgroup_find_pod(const char *ctr_cg, const struct ann_values *av, bool *in_pod, char *pod_cg,
		    size_t podlen, struct hook_err *err)
{
	*in_pod = cgroup_kubelet_pod(ctr_cg, pod_cg, podlen);
	if (*in_pod || av->ctype == CT_NONE)
		return 0;
	/*
	 * Annotations are not proof: anyone who can start a container can set
	 * them, and a sibling named like the claimed sandbox proves nothing
	 * either.  Only the layout the kubelet creates makes a pod; a claim the
	 * layout does not confirm would have us weight a parent shared with
	 * other workloads (/machine.slice, /kubepods/burstable).
	 */
	return hook_fail(err, 0, "annotations mark a pod %s (%s), but cgroup %s is not a container of a kubelet pod cgroup (/kubepods[/<qos>]/pod<uid>/<ctr> or kubepods[-<qos>]-pod<uid>.slice/{cri-containerd,crio}-<id>.scope); refusing to weight its parent",
			 av->ctype == CT_SANDBOX ? "sandbox" : "container", ANN_CRI_CONTAINER_TYPE,
			 ctr_cg);
}
