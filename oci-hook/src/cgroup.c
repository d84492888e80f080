// SPDX-License-Identifier: GPL-2.0-or-later
/* cgroup.c - container and pod cgroup discovery. */
#include "cgroup.h"

#include <dirent.h>
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

		if (plen == 0 || (slice[i] == '-' && slice[i + 1] == '-'))
			return hook_fail(err, 0, "cgroupsPath: malformed slice `%.64s`", slice);
		w = snprintf(out + off, outlen - off, "/%.*s.slice", (int)plen, slice);
		if (w < 0 || (size_t)w >= outlen - off)
			return hook_fail(err, ENAMETOOLONG, "cgroupsPath");
		off += (size_t)w;
	}
	return 0;
}

int cgroup_from_spec(const char *cp, char *out, size_t outlen, struct hook_err *err)
{
	const char *c1 = strchr(cp, ':');

	if (!cp[0])
		return hook_fail(err, 0, "config.json: empty linux.cgroupsPath and no pid in the state");
	if (c1 && cp[0] != '/') {
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

static bool uid_chars(const char *s, size_t n, const char *extra)
{
	if (n < 8)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      strchr(extra, s[i])))
			return false;
	return true;
}

bool cgroup_is_kubelet_pod(const char *b)
{
	size_t n = strlen(b);
	const char *p;

	if (!strncmp(b, "pod", 3))
		return uid_chars(b + 3, n - 3, "-");
	/* systemd driver: dashes in the uid are written as underscores */
	if (n > 6 && !strcmp(b + n - 6, ".slice") && !strncmp(b, "kubepods", 8) &&
	    (p = strstr(b, "-pod")))
		return uid_chars(p + 4, (size_t)(b + n - 6 - (p + 4)), "_");
	return false;
}

/* Does the pod candidate hold a cgroup for the sandbox `sid`? */
static bool has_child_named(const struct hook_roots *roots, const char *dir, const char *sid)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s%s", roots->cgroup, dir) >= (int)sizeof(path))
		return false;
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		/* cgroupfs driver names it <id>, systemd cri-containerd-<id>.scope */
		found = de->d_type == DT_DIR && strstr(de->d_name, sid);
	closedir(d);
	return found;
}

int cgroup_find_pod(const struct hook_roots *roots, const char *ctr_cg, const char *ctr_id,
		    const struct ann_values *av, bool *in_pod, char *pod_cg, size_t podlen,
		    struct hook_err *err)
{
	char parent[PATH_MAX];
	const char *base, *sid;
	char *slash;

	*in_pod = false;
	snprintf(parent, sizeof(parent), "%s", ctr_cg);
	slash = strrchr(parent, '/');
	if (slash == parent)
		parent[1] = '\0';
	else if (slash)
		*slash = '\0';
	base = strrchr(parent, '/') + 1;
	if (strcmp(parent, "/") && cgroup_is_kubelet_pod(base)) {
		*in_pod = true;
	} else if (av->ctype != CT_NONE) {
		sid = av->sandbox_id[0] ? av->sandbox_id : (av->ctype == CT_SANDBOX ? ctr_id : NULL);
		if (!sid)
			return hook_fail(err, 0, "annotations mark a pod container but give no %s",
					 ANN_CRI_SANDBOX_ID);
		if (!strcmp(parent, "/") || !has_child_named(roots, parent, sid))
			return hook_fail(err, 0, "annotations place container in pod sandbox %.64s, but cgroup %s has no sibling for it; refusing to weight %s",
					 sid, ctr_cg, parent);
		*in_pod = true;
	}
	if (*in_pod) {
		if (strlen(parent) >= podlen)
			return hook_fail(err, ENAMETOOLONG, "pod cgroup");
		strcpy(pod_cg, parent);
	}
	return 0;
}
