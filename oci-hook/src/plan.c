// SPDX-License-Identifier: GPL-2.0-or-later
/* plan.c - building and idempotently applying cgroup writes. */
#include "plan.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

const char *plan_kind_name(enum plan_kind k)
{
	static const char *const names[NR_PLAN_KINDS] = {
		[PLAN_COST_MODEL] = "cost_model", [PLAN_QOS] = "qos",
		[PLAN_SUBTREE] = "subtree_control", [PLAN_WEIGHT] = "io.weight",
	};
	return k < NR_PLAN_KINDS ? names[k] : "?";
}

#ifdef IOWEIGHT_TESTING
bool plan_testing_require_cgroup2 = false;
#endif

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n_dirs; i++)
		if (p->dirs[i].fd >= 0)
			close(p->dirs[i].fd);
	if (p->root_fd > 0)	/* 0 in a zeroed plan: never ours, stdin is the state */
		close(p->root_fd);
	systemd_close(p->bus);
	free(p->dirs);
	free(p->e);
	memset(p, 0, sizeof(*p));
}

static struct plan_entry *plan_add(struct plan *p, enum plan_kind kind, struct hook_err *err)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct plan_entry *ne = realloc(p->e, cap * sizeof(*ne));

		if (!ne) {
			hook_fail(err, ENOMEM, "plan");
			return NULL;
		}
		p->e = ne;
		p->cap = cap;
	}
	memset(&p->e[p->n], 0, sizeof(p->e[0]));
	p->e[p->n].kind = kind;
	return &p->e[p->n++];
}

/* The index of cgroup `cg` in p->dirs, added if new. */
static int plan_dir(struct plan *p, const char *cg, size_t *idx, struct hook_err *err)
{
	for (size_t i = 0; i < p->n_dirs; i++)
		if (!strcmp(p->dirs[i].cg, cg)) {
			*idx = i;
			return 0;
		}
	if (strlen(cg) >= sizeof(p->dirs[0].cg))
		return hook_fail(err, ENAMETOOLONG, "cgroup %s", cg);
	if (p->n_dirs == p->dirs_cap) {
		size_t cap = p->dirs_cap ? p->dirs_cap * 2 : 8;
		struct plan_dir *nd = realloc(p->dirs, cap * sizeof(*nd));

		if (!nd)
			return hook_fail(err, ENOMEM, "plan");
		p->dirs = nd;
		p->dirs_cap = cap;
	}
	strcpy(p->dirs[p->n_dirs].cg, cg);
	p->dirs[p->n_dirs].fd = -1;
	*idx = p->n_dirs++;
	return 0;
}

static int entry_path(struct plan *p, struct plan_entry *e, const char *root, const char *cg,
		      const char *file, struct hook_err *err)
{
	int n = snprintf(e->path, sizeof(e->path), "%s%s/%s", root, strcmp(cg, "/") ? cg : "", file);

	if (n < 0 || (size_t)n >= sizeof(e->path) || strlen(file) >= sizeof(e->file))
		return hook_fail(err, ENAMETOOLONG, "cgroup %s/%s", cg, file);
	strcpy(e->file, file);
	return plan_dir(p, cg, &e->dir, err);
}

/* %g would print 1e+06; the kernel wants plain decimals */
static void fmt_num(char *buf, size_t len, double v)
{
	if (v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static int add_profile(struct plan *p, const struct plan_input *in, struct devnum d,
		       const struct cfg_profile *pr, struct hook_err *err)
{
	const struct ioweight_config *cfg = in->cfg;
	struct plan_entry *e;

	if (pr->model.set && pr->enable) {
		const struct cfg_cost_model *m = &pr->model;

		if (!(e = plan_add(p, PLAN_COST_MODEL, err)) ||
		    entry_path(p, e, in->roots->cgroup, "/", cfg->file_cost_model, err) < 0)
			return -1;
		if (m->user)
			snprintf(e->line, sizeof(e->line),
				 "%u:%u ctrl=user model=linear rbps=%llu rseqiops=%llu rrandiops=%llu wbps=%llu wseqiops=%llu wrandiops=%llu",
				 d.maj, d.min, m->rbps, m->rseqiops, m->rrandiops, m->wbps,
				 m->wseqiops, m->wrandiops);
		else
			snprintf(e->line, sizeof(e->line), "%u:%u ctrl=auto", d.maj, d.min);
		snprintf(e->why, sizeof(e->why), "profile %s from %s", pr->name, cfg->source);
	}
	/* qos carries the on/off switch, so it is written even without a qos object */
	if (!(e = plan_add(p, PLAN_QOS, err)) ||
	    entry_path(p, e, in->roots->cgroup, "/", cfg->file_qos, err) < 0)
		return -1;
	snprintf(e->line, sizeof(e->line), "%u:%u enable=%d", d.maj, d.min, pr->enable);
	if (pr->enable && pr->qos.set) {
		size_t off = strlen(e->line);

		off += (size_t)snprintf(e->line + off, sizeof(e->line) - off, " ctrl=%s",
					pr->qos.user ? "user" : "auto");
		for (int f = 0; f < NR_QOS_FIELDS; f++) {
			char num[32];

			if (!(pr->qos.set_mask & (1u << f)))
				continue;
			fmt_num(num, sizeof(num), pr->qos.val[f]);
			off += (size_t)snprintf(e->line + off, sizeof(e->line) - off, " %s=%s",
						qos_field_names[f], num);
		}
	}
	snprintf(e->why, sizeof(e->why), "profile %s from %s", pr->name, cfg->source);
	return 0;
}

static int add_weights(struct plan *p, const struct plan_input *in, const char *cg,
		       const struct weight_target *t, const char *role, struct hook_err *err)
{
	struct plan_entry *e;

	if (t->set) {
		if (!(e = plan_add(p, PLAN_WEIGHT, err)) ||
		    entry_path(p, e, in->roots->cgroup, cg, in->cfg->file_weight, err) < 0)
			return -1;
		snprintf(e->line, sizeof(e->line), "default %ld", t->weight);
		snprintf(e->why, sizeof(e->why), "%s weight from %s", role, t->source);
	}
	for (size_t i = 0; i < t->n_devs; i++) {
		const struct dev_req *d = &t->devs[i];

		if (!(e = plan_add(p, PLAN_WEIGHT, err)) ||
		    entry_path(p, e, in->roots->cgroup, cg, in->cfg->file_weight, err) < 0)
			return -1;
		snprintf(e->line, sizeof(e->line), "%u:%u %ld", d->maj, d->min, d->weight);
		snprintf(e->why, sizeof(e->why), "%s weight for %.96s from %s", role, d->path,
			 ANN_DEVICE_WEIGHTS);
	}
	return 0;
}

/* Systemd driver: the same weights as unit properties of cg's unit. */
static int add_unit(struct plan *p, const char *cg, bool pod, const struct weight_target *t,
		    struct hook_err *err)
{
	struct plan_unit *u = &p->units[p->n_units];
	size_t n = strlen(cg);
	/* runc's systemd driver: a container named *.slice is a slice */
	const char *suffix = pod || (n > 6 && !strcmp(cg + n - 6, ".slice")) ? ".slice" : ".scope";

	if (p->n_units == sizeof(p->units) / sizeof(p->units[0]))
		return hook_fail(err, 0, "plan: more than two systemd units");
	if (systemd_unit_of_cgroup(cg, suffix, u->name, sizeof(u->name), err) < 0)
		return hook_fail_prefix(err, "%s: ", pod ? "pod" : "container");
	if (n >= sizeof(u->cg))
		return hook_fail(err, ENAMETOOLONG, "cgroup %s", cg);
	strcpy(u->cg, cg);
	u->w.set = t->set;
	u->w.weight = (uint64_t)t->weight;
	for (size_t i = 0; i < t->n_devs && i < MAX_DEVICE_ENTRIES; i++) {
		u->w.devs[i].maj = t->devs[i].maj;
		u->w.devs[i].min = t->devs[i].min;
		u->w.devs[i].weight = (uint64_t)t->devs[i].weight;
		u->w.n_devs++;
	}
	snprintf(u->why, sizeof(u->why), "%s weights from %s%s", pod ? "pod" : "container",
		 t->set ? t->source : ANN_DEVICE_WEIGHTS, t->set && t->n_devs ? " and " ANN_DEVICE_WEIGHTS : "");
	p->n_units++;
	return 0;
}

int plan_build(const struct plan_input *in, struct plan *p, struct hook_err *err)
{
	const struct hook_request *req = in->req;
	bool pod_w = in->pod_cg && (req->pod.set || req->pod.n_devs);
	bool ctr_w = req->ctr.set || req->ctr.n_devs;
	const char *deepest = ctr_w ? in->ctr_cg : pod_w ? in->pod_cg : NULL;

	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
	for (size_t i = 0; i < in->n_disks; i++)
		if (add_profile(p, in, in->disks[i], &in->cfg->profiles[in->disk_profile[i]], err) < 0)
			goto fail;
	if (deepest) {
		/* io must be on in every ancestor of the cgroup we weight, root
		 * first: each '/' in "/a/b/c" ends one ("/", "/a", "/a/b") */
		int depth = 0;

		for (size_t i = 0; deepest[i]; i++) {
			struct plan_entry *e;
			char anc[PATH_MAX];

			if (deepest[i] != '/')
				continue;
			if (++depth > MAX_CGROUP_DEPTH) {
				hook_fail(err, 0, "cgroup %s: deeper than %d levels", deepest,
					  MAX_CGROUP_DEPTH);
				goto fail;
			}
			snprintf(anc, sizeof(anc), "%.*s", (int)i, deepest);
			if (!(e = plan_add(p, PLAN_SUBTREE, err)) ||
			    entry_path(p, e, in->roots->cgroup, i ? anc : "/", "cgroup.subtree_control",
				       err) < 0)
				goto fail;
			strcpy(e->line, "+io");
			snprintf(e->why, sizeof(e->why), "ancestor of %.160s", deepest);
		}
	}
	if (in->systemd && ((pod_w && add_unit(p, in->pod_cg, true, &req->pod, err) < 0) ||
			    (ctr_w && add_unit(p, in->ctr_cg, false, &req->ctr, err) < 0)))
		goto fail;
	if (pod_w && add_weights(p, in, in->pod_cg, &req->pod, "pod", err) < 0)
		goto fail;
	if (ctr_w && add_weights(p, in, in->ctr_cg, &req->ctr, "container", err) < 0)
		goto fail;
	return 0;
fail:
	plan_free(p);
	return -1;
}

/* ---- opening the directories ---- */

/* One component at a time, never following a link: for kernels before
 * openat2() (5.6). */
static int open_beneath_walk(int root_fd, const char *rel)
{
	char buf[PATH_MAX], *save = NULL, *c;
	int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);

	snprintf(buf, sizeof(buf), "%s", rel);
	for (c = strtok_r(buf, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		int next = TEMP_FAILURE_RETRY(openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							  O_CLOEXEC));
		int saved = errno;

		close(fd);
		errno = saved;
		fd = next;
	}
	return fd;
}

static int open_beneath(int root_fd, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int fd;

	if (!*rel)
		return fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	fd = (int)TEMP_FAILURE_RETRY(syscall(SYS_openat2, root_fd, rel, &how, sizeof(how)));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))	/* EPERM: an old seccomp profile */
		fd = open_beneath_walk(root_fd, rel);
	return fd;
}

static int check_cgroup2(int fd, const char *what, struct hook_err *err)
{
	struct statfs sf;

#ifdef IOWEIGHT_TESTING
	if (!plan_testing_require_cgroup2)
		return 0;
#endif
	if (TEMP_FAILURE_RETRY(fstatfs(fd, &sf)) < 0)
		return hook_fail(err, errno, "%s: cannot fstatfs", what);
	if ((unsigned long)sf.f_type != CGROUP2_SUPER_MAGIC)
		return hook_fail(err, 0, "%s: not on a cgroup2 filesystem (type %#lx): refusing to write",
				 what, (unsigned long)sf.f_type);
	return 0;
}

int plan_open_dirs(struct plan *p, const char *cgroup_root, bool dry_run, struct hook_err *err)
{
	if (!p->n_dirs)
		return 0;
	p->root_fd = TEMP_FAILURE_RETRY(open(cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (p->root_fd < 0)
		return hook_fail(err, errno, "cgroup root %s", cgroup_root);
	for (size_t i = 0; i < p->n_dirs; i++) {
		struct plan_dir *d = &p->dirs[i];
		char what[PATH_MAX];

		snprintf(what, sizeof(what), "cgroup %s", d->cg);
		d->fd = open_beneath(p->root_fd, d->cg + 1);
		if (d->fd < 0) {
			if (dry_run && errno == ENOENT)
				continue;
			if (errno == ELOOP || errno == EXDEV)
				return hook_fail(err, errno, "%s: a symlink or another mount on the way from %s; refusing",
						 what, cgroup_root);
			return hook_fail(err, errno, "%s: cannot open under %s", what, cgroup_root);
		}
		if (!dry_run && check_cgroup2(d->fd, what, err) < 0)
			return -1;
	}
	return 0;
}

int plan_connect_systemd(struct plan *p, const char *socket_path, struct hook_err *err)
{
	if (!p->n_units)
		return 0;
	if (systemd_connect(socket_path, &p->bus, err) < 0)
		return -1;
	for (size_t i = 0; i < p->n_units; i++)
		if (systemd_check_unit(p->bus, p->units[i].name, p->units[i].cg, err) < 0)
			return -1;
	return 0;
}

/* ---- applying ---- */

static int read_current(const struct plan *p, const struct plan_entry *e, char **buf,
			bool *missing, struct hook_err *err)
{
	int dfd = p->dirs[e->dir].fd;
	_cleanup_close_ int fd = -1;

	*missing = false;
	if (dfd < 0) {		/* dry run on a cgroup that does not exist yet */
		*missing = true;
		return 0;
	}
	fd = TEMP_FAILURE_RETRY(openat(dfd, e->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
	if (fd < 0) {
		if (errno == ENOENT) {
			*missing = true;
			return 0;
		}
		return hook_fail(err, errno, "cannot open %s", e->path);
	}
	return read_fd_bounded(fd, MAX_SMALL_FILE, e->path, buf, NULL, err);
}

/* Is `want` ("+io") already in the space-separated controller list? */
static bool subtree_has(const char *cur, const char *ctrl)
{
	size_t n = strlen(ctrl);

	for (const char *c = cur; (c = strstr(c, ctrl)); c += n)
		if ((c == cur || c[-1] == ' ') && (c[n] == ' ' || c[n] == '\n' || c[n] == '\0'))
			return true;
	return false;
}

/* The line in `cur` whose first token is `key`, copied into out. */
static bool find_line(const char *cur, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);

	for (const char *l = cur; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == ' ') {
			size_t n = strcspn(l, "\n");

			snprintf(out, outlen, "%.*s", (int)n, l);
			return true;
		}
	}
	return false;
}

/* Every key=value of `want` equal (numerically if both are numbers) in `have`. */
static bool kv_subset(const char *want, const char *have)
{
	char w[PLAN_LINE_MAX], *save = NULL, *tok;

	snprintf(w, sizeof(w), "%s", want);
	strtok_r(w, " ", &save);	/* MAJ:MIN */
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '='), needle[80], hv[64];
		const char *at;
		char *end1, *end2;
		double a, b;

		if (!eq)
			return false;
		snprintf(needle, sizeof(needle), " %.*s=", (int)(eq - tok), tok);
		at = strstr(have, needle);
		if (!at)
			return false;
		at += strlen(needle);
		snprintf(hv, sizeof(hv), "%.*s", (int)strcspn(at, " \n"), at);
		if (!strcmp(hv, eq + 1))
			continue;
		/* the kernel prints 95 as 95.00 */
		a = strtod(eq + 1, &end1);
		b = strtod(hv, &end2);
		if (*end1 || *end2 || !*hv || fabs(a - b) > 0.005)
			return false;
	}
	return true;
}

static bool weight_is(const char *cur, const char *line)
{
	char key[64], have[PLAN_LINE_MAX];
	const char *sp = strchr(line, ' ');

	snprintf(key, sizeof(key), "%.*s", (int)(sp - line), line);
	if (!find_line(cur, key, have, sizeof(have)))
		return false;
	return !strcmp(str_trim(have), line);
}

static int write_entry(const struct plan *p, struct plan_entry *e, struct hook_err *err)
{
	/* relative to the checked directory; the sandbox allows write opens
	 * relative to these directories only */
	_cleanup_close_ int fd = TEMP_FAILURE_RETRY(openat(p->dirs[e->dir].fd, e->file,
							   O_WRONLY | O_TRUNC | O_NOFOLLOW |
							   O_CLOEXEC | O_NOCTTY));
	size_t len = strlen(e->line);
	ssize_t w;

	if (fd < 0)
		return hook_fail(err, errno, "%s: cannot open %s to write `%s`", plan_kind_name(e->kind),
				 e->path, e->line);
	/* one write() per entry: the kernel parses and answers per call.
	 * O_TRUNC is ignored by cgroupfs and keeps plain files (tests) exact. */
	w = TEMP_FAILURE_RETRY(write(fd, e->line, len));
	if (w < 0)
		return hook_fail(err, errno, "%s: cannot write `%s` to %s", plan_kind_name(e->kind),
				 e->line, e->path);
	if ((size_t)w != len)
		return hook_fail(err, EIO, "%s: short write of `%s` to %s", plan_kind_name(e->kind),
				 e->line, e->path);
	return 0;
}

int plan_apply(struct plan *p, bool dry_run, struct hook_err *err)
{
	/* systemd first: what it re-applies later must be what we write now */
	for (size_t i = 0; i < p->n_units; i++) {
		struct plan_unit *u = &p->units[i];

		if (dry_run) {
			u->status = PS_WOULD_WRITE;
			continue;
		}
		if (!p->bus)
			return hook_fail(err, 0, "systemd unit %s: not connected to systemd", u->name);
		if (systemd_set_weights(p->bus, u->name, &u->w, err) < 0)
			return -1;
		u->status = PS_WRITTEN;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->e[i];
		_cleanup_free_ char *cur = NULL;
		bool missing, same = false;

		if (read_current(p, e, &cur, &missing, err) < 0)
			return -1;
		if (!missing) {
			switch (e->kind) {
			case PLAN_SUBTREE:
				same = subtree_has(cur, "io");
				break;
			case PLAN_WEIGHT:
				same = weight_is(cur, e->line);
				break;
			case PLAN_COST_MODEL:
			case PLAN_QOS: {
				char key[32], have[PLAN_LINE_MAX];

				snprintf(key, sizeof(key), "%.*s", (int)strcspn(e->line, " "), e->line);
				same = find_line(cur, key, have, sizeof(have)) && kv_subset(e->line, have);
				break;
			}
			default:
				break;
			}
		}
		if (same) {
			e->status = PS_UNCHANGED;
			continue;
		}
		if (dry_run) {
			e->status = PS_WOULD_WRITE;
			continue;
		}
		if (write_entry(p, e, err) < 0)
			return -1;
		e->status = PS_WRITTEN;
	}
	return 0;
}

int plan_profile_disks(const struct ioweight_config *cfg, const struct disk_name *names,
		       size_t n_names, struct devnum *disks, int *profile, size_t *n,
		       struct hook_err *err)
{
	*n = 0;
	/* names come in rule order, so the first one seen for a disk wins */
	for (size_t i = 0; i < n_names; i++) {
		int prof = cfg->rules[names[i].rule].profile;
		bool seen = false;

		if (prof < 0)
			continue;
		for (size_t j = 0; j < *n; j++)
			seen |= disks[j].maj == names[i].d.maj && disks[j].min == names[i].d.min;
		if (seen)
			continue;
		if (*n == PLAN_MAX_DISKS)
			return hook_fail(err, 0, "%s: device rules match more than %d disks", cfg->source,
					 PLAN_MAX_DISKS);
		disks[*n] = names[i].d;
		profile[(*n)++] = prof;
	}
	return 0;
}
