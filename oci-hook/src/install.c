// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * install.c - runtime wiring with dry-run, idempotence and exact removal.
 *
 * Every file install touches is either owned (the wrapper script, a drop-in,
 * the hooks.d JSON: created by install, refused if something else is there,
 * deleted by --uninstall) or the admin's containerd config.toml, which gets
 * marked edits only:
 *
 *   # >>> ioweight-hook install: ...        a block of lines we added, down to
 *   # <<< ioweight-hook install             this end marker
 *   KEY = VALUE  # ioweight-hook install: added          one line we added
 *   # ioweight-hook install: was: KEY = OLD              a line we replaced
 *   # ioweight-hook install: added the line break ...    the file had no final newline
 *
 * --uninstall removes exactly those (install_strip()), so whatever the admin
 * changed elsewhere in the file after install stays.  A second install first
 * strips its earlier edits, then makes them again from the result: running
 * it twice changes nothing, and it picks up changes to the runc handler.
 */
#include "install.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <glob.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "toml.h"
#include "wrapper.h"

#define WRAPPER_DIR "/usr/local/sbin"
#define WRAPPER_PATH WRAPPER_DIR "/ioweight-runc"
#define CTRD_DIR "/etc/containerd"
#define CTRD_CONFIG CTRD_DIR "/config.toml"
#define CTRD_DROPIN_DIR CTRD_DIR "/conf.d"
#define CTRD_DROPIN CTRD_DROPIN_DIR "/ioweight.toml"
/* the directory podman and CRI-O read by default (hooks_dir) */
#define HOOKSD_DIR "/usr/share/containers/oci/hooks.d"
#define HOOKSD_NAME "ioweight-hook.json"
#define HOOKSD_ARGS "\"args\": [\"ioweight-hook\", \"prestart\"]"
#define CRIO_CONF "/etc/crio/crio.conf"
#define CRIO_DROPIN_DIR "/etc/crio/crio.conf.d"
/* CRI-O reads its drop-ins in lexical order, later ones win */
#define CRIO_DROPIN CRIO_DROPIN_DIR "/99-ioweight.conf"

#define M_BEGIN "# >>> " INSTALL_MARKER
#define M_END "# <<< " INSTALL_MARKER
#define M_ADDED "  # " INSTALL_MARKER ": added"
#define M_WAS "# " INSTALL_MARKER ": was: "
#define M_NL "# " INSTALL_MARKER ": added the line break at the end of the line above"
#define M_CREATED "created this file"
#define V2_LINE "version = 2"
#define CREATED_REST V2_LINE "\n"

#define RUNC_SHIM "io.containerd.runc.v2"

/* Annotation patterns containerd's CRI passes from the pod/container to the
 * OCI spec; without them the hook never sees pod annotations. */
static const char *const pass_annotations[] = {
	"ioweight.dev/*", "blockio.resources.beta.kubernetes.io/*", "io.kubernetes.cri.blockio-class", NULL,
};

static bool starts(const char *l, size_t n, const char *lit)
{
	size_t m = strlen(lit);

	return n >= m && !memcmp(l, lit, m);
}

static bool ends(const char *l, size_t n, const char *lit)
{
	size_t m = strlen(lit);

	return n >= m && !memcmp(l + n - m, lit, m);
}

static bool line_is(const char *l, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(l, lit, n);
}

static int sb_take(struct sbuf *b, char **out, size_t *len, struct hook_err *err)
{
	if (b->oom) {
		free(b->s);
		*out = NULL;
		return hook_fail(err, ENOMEM, "install");
	}
	if (!b->s && !(b->s = strdup("")))
		return hook_fail(err, ENOMEM, "install");
	*out = b->s;
	if (len)
		*len = b->len;
	return 0;
}

static bool is_marker(const char *l, size_t n)
{
	return starts(l, n, M_BEGIN) || line_is(l, n, M_END) || ends(l, n, M_ADDED) ||
	       line_is(l, n, M_NL) || starts(l, n, M_WAS);
}

/* The first line (1-based) that reads as one of install's, else 0. */
static unsigned first_marker_line(const char *text, size_t len)
{
	unsigned line = 0;

	for (size_t off = 0; off < len;) {
		const char *l = text + off, *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off;

		line++;
		if (is_marker(l, n))
			return line;
		off += n + (nl ? 1 : 0);
	}
	return 0;
}

/* What an earlier install left in a file, and where. */
struct marks {
	bool found;		/* any of install's edits */
	bool created;		/* its block says install created the file */
	bool block_version;	/* its block holds the `version = 2` a file without one got */
	size_t block_at;	/* offset in the kept text where the (first) block was */
	size_t nl_at;		/* ... where the line-break marker was, NO_MARK if none */
};

#define NO_MARK ((size_t)-1)

/*
 * The text without install's lines: its block, its added lines and markers
 * dropped, the lines it replaced put back.  The line break install gave
 * the last line stays here, at m->nl_at - 1: drop_added_nl() takes it away
 * for --uninstall, while a second install keeps it, and the admin's lines
 * after it, where they are.
 */
static int strip_marks(const char *text, size_t len, struct sbuf *b, struct marks *m,
		       struct hook_err *err)
{
	bool in_block = false;
	unsigned line = 0, begin_line = 0;

	*m = (struct marks){ .block_at = NO_MARK, .nl_at = NO_MARK };
	for (size_t off = 0; off < len;) {
		const char *l = text + off, *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off, full = n + (nl ? 1 : 0);

		line++;
		off += full;
		if (starts(l, n, M_BEGIN)) {
			if (in_block)
				return hook_fail(err, 0, "line %u: a second `" M_BEGIN "` marker inside the block opened on line %u; remove the added lines by hand", line, begin_line);
			in_block = true;
			begin_line = line;
			if (m->block_at == NO_MARK) {
				m->block_at = b->len;
				m->created = memmem(l, n, M_CREATED, strlen(M_CREATED)) != NULL;
			}
			m->found = true;
			continue;
		}
		if (line_is(l, n, M_END)) {
			if (!in_block)
				return hook_fail(err, 0, "line %u: `" M_END "` without its begin marker; remove the added lines by hand", line);
			in_block = false;
			continue;
		}
		if (in_block) {
			m->block_version |= line_is(l, n, V2_LINE);
			continue;
		}
		if (ends(l, n, M_ADDED)) {
			m->found = true;
			continue;
		}
		if (line_is(l, n, M_NL)) {
			m->found = true;
			m->nl_at = b->len;
			continue;
		}
		if (starts(l, n, M_WAS)) {
			m->found = true;
			sb_add(b, l + strlen(M_WAS), full - strlen(M_WAS));
			continue;
		}
		sb_add(b, l, full);
	}
	if (in_block)
		return hook_fail(err, 0, "line %u: `" M_BEGIN "` without its end marker `" M_END "`; remove the added lines by hand", begin_line);
	if (b->oom)
		return hook_fail(err, ENOMEM, "install");
	return 0;
}

/* The line break install gave the original last line goes again, also when
 * the admin appended lines since: they get what appending them to the
 * original would have given. */
static void drop_added_nl(struct sbuf *b, struct marks *m)
{
	size_t at = m->nl_at;

	if (at != NO_MARK && at && b->s[at - 1] == '\n') {
		memmove(b->s + at - 1, b->s + at, b->len - at + 1);
		b->len--;
		if (m->block_at != NO_MARK && m->block_at >= at)
			m->block_at--;
	}
	m->nl_at = NO_MARK;
}

static bool created_and_untouched(const struct sbuf *b, const struct marks *m)
{
	return m->created && b->len == strlen(CREATED_REST) && !memcmp(b->s, CREATED_REST, b->len);
}

int install_strip(const char *text, size_t len, char **out, size_t *out_len, bool *found,
		  bool *remove_file, struct hook_err *err)
{
	struct sbuf b = { 0 };
	struct marks m;

	*out = NULL;
	*found = false;
	*remove_file = false;
	if (strip_marks(text, len, &b, &m, err) < 0) {
		free(b.s);
		return -1;
	}
	drop_added_nl(&b, &m);
	*found = m.found;
	*remove_file = created_and_untouched(&b, &m);
	return sb_take(&b, out, out_len, err);
}

/* ---- the containerd config editor ---- */

struct ctrd_ctx {
	const char *text;	/* the config without earlier install edits, ends in '\n' */
	const struct toml_doc *d;
	const char *cri;	/* the plugin that holds `containerd.runtimes` */
	int version;
	const struct ctrd_opts *o;
	bool created;		/* install created the file (`version = 2` above the block): its marker says so */
	size_t block_at;	/* where the block goes in text */
	struct sbuf warn;
	struct hook_err *err;
};

static bool same(char *const *a, const char *const *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

static void sb_header(struct sbuf *b, const char *const *path, size_t depth)
{
	sb_puts(b, "[");
	sb_path(b, path, depth);
	sb_puts(b, "]\n");
}

static void sb_string_list(struct sbuf *b, char *const *have, size_t n_have)
{
	size_t n = 0;

	sb_puts(b, "[");
	for (size_t i = 0; i < n_have; i++, n++) {
		sb_puts(b, n ? ", " : "");
		sb_string(b, have[i]);
	}
	for (const char *const *a = pass_annotations; *a; a++) {
		bool dup = false;

		for (size_t i = 0; i < n_have; i++)
			dup |= !strcmp(have[i], *a);
		if (dup)
			continue;
		sb_puts(b, n++ ? ", " : "");
		sb_string(b, *a);
	}
	sb_puts(b, "]");
}

/* One leaf of the runc handler, copied into ours with our overrides. */
static int copy_leaf(struct ctrd_ctx *c, struct sbuf *b, const struct toml_key *k, size_t base,
		     bool *seen)
{
	const char *name = k->path[k->depth - 1];
	size_t rel = k->depth - base;	/* 1: runc.X, 2: runc.options.X, ... */

	sb_puts(b, "  ");
	sb_key(b, name);
	sb_puts(b, " = ");
	if (rel == 1 && (!strcmp(name, "pod_annotations") || !strcmp(name, "container_annotations"))) {
		if (k->type != TOML_ARRAY || !k->all_strings)
			return hook_fail(c->err, 0, "line %u: the runc runtime's `%s` is not a list of strings", k->line, name);
		sb_string_list(b, k->strs, k->n_strs);
		seen[!strcmp(name, "pod_annotations") ? 0 : 1] = true;
	} else if (rel == 2 && !strcmp(k->path[base], "options") && !strcmp(name, "BinaryName")) {
		if (k->type == TOML_STRING && k->str[0] && c->o->runc && strcmp(k->str, c->o->runc))
			sb_printf(&c->warn, "warning: the runc runtime runs `%s` (BinaryName); the wrapper the ioweight runtime uses runs %s: pass --runc %s to keep the same runc\n",
				  k->str, c->o->runc, k->str);
		sb_string(b, WRAPPER_PATH);
		seen[3] = true;
	} else {
		if (rel == 1 && !strcmp(name, "runtime_type")) {
			if (k->type != TOML_STRING ||
			    (strcmp(k->str, RUNC_SHIM) && strcmp(k->str, "io.containerd.runc.v1")))
				return hook_fail(c->err, 0, "line %u: the runc runtime's runtime_type is %.*s, not the runc shim (" RUNC_SHIM "): the ioweight runtime copies runc's settings and sets options.BinaryName, which only the runc shim reads",
						 k->line, (int)k->val_len, c->text + k->val_off);
			seen[2] = true;
		}
		sb_add(b, c->text + k->val_off, k->val_len);
	}
	sb_puts(b, "\n");
	return 0;
}

/*
 * The `ioweight` handler: every setting of `runc` (SystemdCgroup, Root, ...)
 * copied, options.BinaryName pointed at the wrapper, our annotations added
 * to pod_annotations/container_annotations.  With want_runc (the file
 * defines no runtime at all), a handler `runc` as containerd defines it by
 * default is written too: a config that defines any runtime replaces
 * containerd's built-in list, which would lose `runc`.
 */
static int runtime_tables(struct ctrd_ctx *c, struct sbuf *b, bool check_tables, bool want_runc)
{
	const char *rt[TOML_MAX_PATH] = { "plugins", c->cri, "containerd", "runtimes", "runc" };
	const size_t base = 5;
	const struct toml_doc *d = c->d;
	size_t *groups = NULL, n_groups = 0;
	bool seen[4] = { false };	/* pod_annotations, container_annotations, runtime_type, BinaryName */
	bool has_options = false;
	char why[128];
	int ret = -1;

	for (size_t i = 0; i < d->n_tables; i++)
		if (d->tables[i].array && d->tables[i].depth > base && same(d->tables[i].path, rt, base))
			return hook_fail(c->err, 0, "line %u: the runc runtime has an array of tables, which install does not copy", d->tables[i].line);
	groups = calloc(d->n_keys + 1, sizeof(*groups));
	if (!groups)
		return hook_fail(c->err, ENOMEM, "install");
	/* the tables below runc.X, in the order they first appear */
	for (size_t i = 0; i < d->n_keys; i++) {
		const struct toml_key *k = &d->keys[i];
		bool known = false;

		if (k->depth <= base + 1 || k->type == TOML_INLINE_TABLE || !same(k->path, rt, base))
			continue;
		for (size_t g = 0; g < n_groups && !known; g++) {
			const struct toml_key *h = &d->keys[groups[g]];

			known = h->depth == k->depth && same(h->path, (const char *const *)k->path, k->depth - 1);
		}
		if (!known)
			groups[n_groups++] = i;
		if (k->depth == base + 2 && !strcmp(k->path[base], "options"))
			has_options = true;
	}
	if (want_runc) {
		if (check_tables && !toml_can_add_table(d, rt, base, why, sizeof(why))) {
			hook_fail(c->err, 0, "cannot add the table for the default runc runtime (%s)", why);
			goto out;
		}
		sb_header(b, rt, base);
		sb_puts(b, "  runtime_type = \"" RUNC_SHIM "\"\n\n");
	}
	rt[4] = INSTALL_RUNTIME_NAME;
	if (check_tables && !toml_can_add_table(d, rt, base, why, sizeof(why))) {
		hook_fail(c->err, 0, "cannot add the table for the ioweight runtime (%s)", why);
		goto out;
	}
	sb_header(b, rt, base);
	for (size_t i = 0; i < d->n_keys; i++) {
		const struct toml_key *k = &d->keys[i];

		if (k->depth == base + 1 && k->type != TOML_INLINE_TABLE && !strcmp(k->path[base - 1], "runc") &&
		    same(k->path, (const char *const[]){ "plugins", c->cri, "containerd", "runtimes" }, base - 1) &&
		    copy_leaf(c, b, k, base, seen) < 0)
			goto out;
	}
	if (!seen[2])
		sb_puts(b, "  runtime_type = \"" RUNC_SHIM "\"\n");
	for (int i = 0; i < 2; i++) {
		if (seen[i])
			continue;
		sb_puts(b, i ? "  container_annotations = " : "  pod_annotations = ");
		sb_string_list(b, NULL, 0);
		sb_puts(b, "\n");
	}
	for (size_t g = 0; g <= n_groups; g++) {
		const struct toml_key *h = g < n_groups ? &d->keys[groups[g]] : NULL;
		const char *hp[TOML_MAX_PATH];
		size_t hd;

		if (!h && has_options)
			break;
		/* the header: ours + the group's path below runc */
		for (size_t i = 0; i < base; i++)
			hp[i] = rt[i];
		if (h) {
			hd = h->depth - 1;
			for (size_t i = base; i < hd; i++)
				hp[i] = h->path[i];
		} else {
			hp[base] = "options";
			hd = base + 1;
		}
		if (check_tables && !toml_can_add_table(d, hp, hd, why, sizeof(why))) {
			hook_fail(c->err, 0, "cannot add a table for the ioweight runtime (%s)", why);
			goto out;
		}
		sb_puts(b, "\n");
		sb_header(b, hp, hd);
		for (size_t i = 0; h && i < d->n_keys; i++) {
			const struct toml_key *k = &d->keys[i];

			if (k->depth == h->depth && k->type != TOML_INLINE_TABLE &&
			    same(k->path, (const char *const *)h->path, h->depth - 1) &&
			    copy_leaf(c, b, k, base, seen) < 0)
				goto out;
		}
		if (hd == base + 1 && !strcmp(hp[base], "options") && !seen[3]) {
			sb_puts(b, "  BinaryName = \"" WRAPPER_PATH "\"\n");
			seen[3] = true;
		}
	}
	ret = 0;
out:
	free(groups);
	return ret;
}

static const char *default_runtime(const struct ctrd_ctx *c, const struct toml_key **k)
{
	const char *p[] = { "plugins", c->cri, "containerd", "default_runtime_name" };

	*k = toml_get(c->d, p, 4);
	return *k && (*k)->type == TOML_STRING ? (*k)->str : "runc";
}

static void default_warnings(struct ctrd_ctx *c)
{
	const struct toml_key *k, *dis;
	const char *cur = default_runtime(c, &k);
	const char *dp[] = { "disabled_plugins" };

	if (!c->o->set_default && strcmp(cur, INSTALL_RUNTIME_NAME))
		sb_printf(&c->warn, "warning: containerd's default runtime is `%s`: only pods whose RuntimeClass has handler `ioweight` run the hook (--set-as-default makes it the default)\n", cur);
	if (c->o->set_default && strcmp(cur, INSTALL_RUNTIME_NAME) && strcmp(cur, "runc"))
		sb_printf(&c->warn, "warning: the default runtime was `%s`; --set-as-default replaces it with `ioweight`, a copy of `runc` (not of `%s`)\n", cur, cur);
	dis = toml_get(c->d, dp, 1);
	for (size_t i = 0; dis && dis->all_strings && i < dis->n_strs; i++)
		if (!strcmp(dis->strs[i], "cri") || !strcmp(dis->strs[i], "io.containerd.grpc.v1.cri") ||
		    !strcmp(dis->strs[i], "io.containerd.cri.v1.runtime"))
			sb_printf(&c->warn, "warning: disabled_plugins lists `%s`: containerd serves no Kubernetes pods until it is removed\n", dis->strs[i]);
}

/* A version 2 file's CRI section is replaced as a whole by any imported
 * file that has one (containerd 1.x merges imports per plugin): our tables
 * in config.toml would then never be read. */
static int check_imports_v2(struct ctrd_ctx *c)
{
	const char *ip[] = { "imports" }, *cri[] = { "plugins", c->cri };
	const struct toml_key *k = toml_get(c->d, ip, 1);

	if (!k || !c->o->prefix)
		return 0;
	if (k->type != TOML_ARRAY || !k->all_strings)
		return hook_fail(c->err, 0, "line %u: `imports` is not a list of strings", k->line);
	for (size_t i = 0; i < k->n_strs; i++) {
		char pat[PATH_MAX];
		glob_t g;

		if (snprintf(pat, sizeof(pat), "%s%s%s", c->o->prefix, k->strs[i][0] == '/' ? "" : CTRD_DIR "/",
			     k->strs[i]) >= (int)sizeof(pat))
			return hook_fail(c->err, 0, "imports: `%s`: path too long", k->strs[i]);
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++) {
			_cleanup_free_ char *buf = NULL;
			struct toml_doc d;
			size_t len;
			bool has;

			if (read_file_bounded(g.gl_pathv[j], 1 << 20, &buf, &len, c->err) < 0 ||
			    toml_parse(buf, len, g.gl_pathv[j] + strlen(c->o->prefix), &d, c->err) < 0) {
				globfree(&g);
				return hook_fail_prefix(c->err, "imported by " CTRD_CONFIG ": ");
			}
			has = toml_has_under(&d, cri, 2);
			toml_doc_free(&d);
			if (has) {
				hook_fail(c->err, 0, "%s (imported by " CTRD_CONFIG ") configures the CRI plugin, and containerd 1.x then ignores config.toml's whole CRI section: add the ioweight runtime to that file by hand (see docs/hook.md), or move its CRI settings into config.toml",
					  g.gl_pathv[j] + strlen(c->o->prefix));
				globfree(&g);
				return -1;
			}
		}
		globfree(&g);
	}
	return 0;
}

/* Replace the key's lines with `# ... was:` copies and one new line that
 * keeps the key as written and sets value. */
static void replace_value(struct ctrd_ctx *c, struct sbuf *b, const struct toml_key *k, const char *value)
{
	for (size_t off = k->line_off; off < k->line_end;) {
		const char *nl = memchr(c->text + off, '\n', k->line_end - off);
		size_t n = nl ? (size_t)(nl - c->text - off) + 1 : k->line_end - off;

		sb_puts(b, M_WAS);
		sb_add(b, c->text + off, n);
		off += n;
	}
	sb_add(b, c->text + k->line_off, k->val_off - k->line_off);
	sb_puts(b, value);
	sb_puts(b, M_ADDED "\n");
}

/* The one change install makes to the admin's lines: replace
 * [off, end) of the text with `text` (off == end: insert it there). */
struct edit {
	size_t off, end;	/* off NO_MARK: no such change */
	struct sbuf text;
};

static int ctrd_v2(struct ctrd_ctx *c, bool empty, struct edit *e, struct sbuf *out)
{
	const char *ct[] = { "plugins", c->cri, "containerd" };
	struct sbuf block = { 0 };
	const struct toml_key *dk;
	const char *rp[] = { "plugins", c->cri, "containerd", "runtimes", "runc" };
	const char *io[] = { "plugins", c->cri, "containerd", "runtimes", INSTALL_RUNTIME_NAME };
	char why[128];
	int ret = -1;

	if (toml_has_under(c->d, io, 5))
		return hook_fail(c->err, 0, CTRD_CONFIG " already defines a runtime `ioweight` that install did not add: remove it, then install again");
	if (check_imports_v2(c) < 0)
		return -1;
	default_runtime(c, &dk);
	if (empty) {
		sb_puts(&block, V2_LINE "\n\n");
		/* a root key: below a table header it would belong to that table */
		for (size_t i = 0; i < c->d->n_keys + c->d->n_tables; i++) {
			bool key = i < c->d->n_keys;
			size_t off = key ? c->d->keys[i].line_off : c->d->tables[i - c->d->n_keys].line_off;
			unsigned line = key ? c->d->keys[i].line : c->d->tables[i - c->d->n_keys].line;

			if (off < c->block_at) {
				sb_printf(&c->warn, "warning: the `" V2_LINE "` in install's block comes after line %u: containerd reads the file as version 1; move the block above that line, or add `" V2_LINE "` at the top\n", line);
				break;
			}
		}
	}
	if (c->o->set_default && !(dk && dk->type == TOML_STRING && !strcmp(dk->str, INSTALL_RUNTIME_NAME))) {
		const struct toml_table *t = NULL;

		for (size_t i = 0; i < c->d->n_tables; i++)
			if (!c->d->tables[i].array && c->d->tables[i].depth == 3 && same(c->d->tables[i].path, ct, 3))
				t = &c->d->tables[i];
		if (dk) {
			if (!dk->own_lines || dk->type != TOML_STRING) {
				hook_fail(c->err, 0, "line %u: default_runtime_name is not a plain `key = \"string\"` line; set it to \"ioweight\" by hand", dk->line);
				goto out;
			}
			e->off = dk->line_off;
			e->end = dk->line_end;
			replace_value(c, &e->text, dk, "\"" INSTALL_RUNTIME_NAME "\"");
		} else if (t) {
			size_t ind = strspn(c->text + t->line_off, " \t");

			e->off = e->end = t->line_end;
			sb_add(&e->text, c->text + t->line_off, ind);
			sb_puts(&e->text, "  default_runtime_name = \"" INSTALL_RUNTIME_NAME "\"" M_ADDED "\n");
		} else if (toml_can_add_table(c->d, ct, 3, why, sizeof(why))) {
			sb_header(&block, ct, 3);
			sb_puts(&block, "  default_runtime_name = \"" INSTALL_RUNTIME_NAME "\"\n\n");
		} else {
			hook_fail(c->err, 0, "cannot set default_runtime_name (%s): set it to \"ioweight\" by hand", why);
			goto out;
		}
	}
	if (runtime_tables(c, &block, true, !toml_has_under(c->d, rp, 4)) < 0)
		goto out;
	sb_puts(out, c->created ? M_BEGIN ": " M_CREATED "; --uninstall removes it unless lines were added\n"
			       : M_BEGIN ": the lines down to the end marker; --uninstall removes them\n");
	sb_add(out, block.s ? block.s : "", block.len);
	sb_puts(out, M_END "\n");
	if (block.oom || out->oom || e->text.oom) {
		hook_fail(c->err, ENOMEM, "install");
		goto out;
	}
	ret = 0;
out:
	free(block.s);
	return ret;
}

static int ctrd_v3(struct ctrd_ctx *c, struct edit *e, char **dropin)
{
	const char *ip[] = { "imports" }, *vp[] = { "version" };
	const char *rp[] = { "plugins", c->cri, "containerd", "runtimes", "runc" };
	const char *io[] = { "plugins", c->cri, "containerd", "runtimes", INSTALL_RUNTIME_NAME };
	const char *ct[] = { "plugins", c->cri, "containerd" };
	const struct toml_key *k = toml_get(c->d, ip, 1), *v = toml_get(c->d, vp, 1);
	struct sbuf d = { 0 };
	bool covered = false;

	if (toml_has_under(c->d, io, 5))
		return hook_fail(c->err, 0, CTRD_CONFIG " already defines a runtime `ioweight` that install did not add: remove it, then install again");
	if (k && (k->type != TOML_ARRAY || !k->all_strings))
		return hook_fail(c->err, 0, "line %u: `imports` is not a list of strings", k->line);
	for (size_t i = 0; k && i < k->n_strs; i++) {
		char pat[PATH_MAX];

		snprintf(pat, sizeof(pat), "%s%s", k->strs[i][0] == '/' ? "" : CTRD_DIR "/", k->strs[i]);
		covered |= fnmatch(pat, CTRD_DROPIN, FNM_PATHNAME) == 0;
	}
	if (covered) {
		/* config.toml stays as it is */
	} else if (k) {
		e->off = k->line_off;
		e->end = k->line_end;
		for (size_t off = k->line_off; off < k->line_end;) {
			const char *nl = memchr(c->text + off, '\n', k->line_end - off);
			size_t n = nl ? (size_t)(nl - c->text - off) + 1 : k->line_end - off;

			sb_puts(&e->text, M_WAS);
			sb_add(&e->text, c->text + off, n);
			off += n;
		}
		sb_puts(&e->text, "imports = [");
		for (size_t i = 0; i < k->n_strs; i++) {
			sb_string(&e->text, k->strs[i]);
			sb_puts(&e->text, ", ");
		}
		sb_puts(&e->text, "\"" CTRD_DROPIN "\"]" M_ADDED "\n");
	} else {
		e->off = e->end = v->line_end;
		sb_puts(&e->text, "imports = [\"" CTRD_DROPIN "\"]" M_ADDED "\n");
	}
	if (e->text.oom)
		return hook_fail(c->err, ENOMEM, "install");
	sb_puts(&d, "# " INSTALL_MARKER ": the CRI runtime handler `ioweight` (runc through the ioweight\n"
		    "# prestart hook), imported by " CTRD_CONFIG ". Remove with\n"
		    "# `ioweight-hook install --runtime containerd --uninstall`.\n"
		    "version = 3\n\n");
	if (c->o->set_default) {
		sb_header(&d, ct, 3);
		sb_puts(&d, "  default_runtime_name = \"" INSTALL_RUNTIME_NAME "\"\n\n");
	}
	if (runtime_tables(c, &d, false, !toml_has_under(c->d, rp, 4)) < 0) {
		free(d.s);
		return -1;
	}
	return sb_take(&d, dropin, NULL, c->err);
}

void ctrd_plan_free(struct ctrd_plan *plan)
{
	free(plan->config);
	free(plan->dropin);
	free(plan->warnings);
	memset(plan, 0, sizeof(*plan));
}

/* May a whole line be put at offset `at` of the parsed text: not inside a
 * key's value (a multi-line string or array) or a header, not above the
 * byte order mark that may only start the file? */
static bool at_line_between_items(const struct toml_doc *d, const struct sbuf *text, size_t at)
{
	if (at == NO_MARK)
		return true;
	if (at == 0 && text->len >= 3 && !memcmp(text->s, "\xef\xbb\xbf", 3))
		return false;
	for (size_t i = 0; i < d->n_keys; i++)
		if (d->keys[i].line_off < at && at < d->keys[i].line_end)
			return false;
	for (size_t i = 0; i < d->n_tables; i++)
		if (d->tables[i].line_off < at && at < d->tables[i].line_end)
			return false;
	return true;
}

/*
 * config.toml with install's lines put in: the edit in place of the lines
 * it replaces (or inserted where it says), the block at block_at, the
 * line-break marker at nl_at.  Where two land on one offset, the order is
 * the one a first install writes: an inserted key right below its table
 * header, then the block, then the marker; lines an edit replaces come
 * after the block and the marker that were above them.
 */
static void compose(struct sbuf *out, const struct sbuf *text, const struct edit *e,
		    const struct sbuf *block, size_t block_at, size_t nl_at)
{
	enum { EV_INSERT, EV_BLOCK, EV_NL, EV_REPLACE, NR_EV };
	size_t at[NR_EV] = { NO_MARK, NO_MARK, NO_MARK, NO_MARK }, pos = 0;
	const char *t = text->s ? text->s : "";

	at[e->off != NO_MARK && e->off == e->end ? EV_INSERT : EV_REPLACE] = e->off;
	at[EV_BLOCK] = block->len ? block_at : NO_MARK;
	at[EV_NL] = nl_at;
	for (;;) {
		int next = -1;

		for (int i = 0; i < NR_EV; i++)
			if (at[i] != NO_MARK && (next < 0 || at[i] < at[next]))
				next = i;
		if (next < 0)
			break;
		if (at[next] > pos) {
			sb_add(out, t + pos, at[next] - pos);
			pos = at[next];
		}
		at[next] = NO_MARK;
		switch (next) {
		case EV_INSERT:
		case EV_REPLACE:
			sb_add(out, e->text.s, e->text.len);
			pos = e->end;
			break;
		case EV_BLOCK:
			sb_add(out, block->s, block->len);
			break;
		case EV_NL:
			sb_puts(out, M_NL "\n");
			break;
		}
	}
	sb_add(out, t + pos, text->len - pos);
}

int install_containerd_config(const char *old, size_t len, const struct ctrd_opts *o,
			      struct ctrd_plan *plan, struct hook_err *err)
{
	struct ctrd_ctx c = { .o = o, .err = err };
	struct sbuf base = { 0 }, out = { 0 }, block = { 0 };
	struct edit e = { .off = NO_MARK, .end = NO_MARK };
	struct toml_doc d = { 0 };
	struct marks m;
	const struct toml_key *v;
	const char *vp[] = { "version" };
	bool rm, wrote_version = false;
	unsigned line;
	int ret = -1;

	memset(plan, 0, sizeof(*plan));
	if (strip_marks(old ? old : "", old ? len : 0, &base, &m, err) < 0) {
		hook_fail_prefix(err, CTRD_CONFIG ": ");
		goto out;
	}
	{
		/* what --uninstall would leave: is it the file install created, untouched? */
		struct sbuf u = { 0 };
		struct marks mu = m;

		sb_add(&u, base.s ? base.s : "", base.len);
		if (u.oom) {
			hook_fail(err, ENOMEM, "install");
			goto out;
		}
		drop_added_nl(&u, &mu);
		rm = created_and_untouched(&u, &mu);
		free(u.s);
	}
	c.created = m.created;
	/* no file, or one an earlier install created with nothing added since */
	if (!old || rm) {
		base.len = 0;
		if (base.s)
			base.s[0] = '\0';
		m = (struct marks){ .block_at = NO_MARK, .nl_at = NO_MARK };
		sb_puts(&out, CREATED_REST);
		c.created = wrote_version = true;
	}
	for (bool fresh = false;; fresh = true) {
		/* edits work on whole lines: give the last line its line break,
		 * and mark it so that --uninstall takes it away again */
		if (base.len && base.s[base.len - 1] != '\n') {
			/* one added line break at most: an earlier one now sits
			 * above lines the admin appended without theirs */
			if (m.nl_at != NO_MARK) {
				drop_added_nl(&base, &m);
				m.block_at = NO_MARK;
			}
			sb_add(&base, "\n", 1);
			m.nl_at = base.len;
		}
		if (base.oom) {
			hook_fail(err, ENOMEM, "install");
			goto out;
		}
		if (toml_parse(base.s ? base.s : "", base.len, CTRD_CONFIG, &d, err) < 0)
			goto out;
		if (fresh || (at_line_between_items(&d, &base, m.block_at) &&
			      at_line_between_items(&d, &base, m.nl_at)))
			break;
		/* an earlier install's lines were moved into a value (or above
		 * a byte order mark): start over from what --uninstall gives,
		 * as a first install would */
		toml_doc_free(&d);
		drop_added_nl(&base, &m);
		m.block_at = NO_MARK;
	}
	/* a line of the admin's that reads as install's own (a `was:` copy of
	 * a marker, lines joined by taking a line break away) would be taken
	 * out by --uninstall */
	if ((line = first_marker_line(base.s ? base.s : "", base.len))) {
		hook_fail(err, 0, CTRD_CONFIG ": without install's lines, line %u would read as one of them: edit it by hand, then install again", line);
		goto out;
	}
	c.text = base.s ? base.s : "";
	c.d = &d;
	v = toml_get(&d, vp, 1);
	/* without a version but with install's `version = 2` in the block: the
	 * admin's lines came after install made it a version 2 file */
	if (!v && (d.n_keys || d.n_tables) && !m.block_version) {
		hook_fail(err, 0, CTRD_CONFIG " has no `version`, so containerd reads it as a version 1 file, which install does not edit: if its tables already use full plugin names (plugins.\"io.containerd.grpc.v1.cri\"), add `version = 2` at the top; else start from `containerd config default`");
		goto out;
	}
	if (v && (v->type != TOML_SCALAR || v->table_depth || v->val_len != 1 ||
		  (c.text[v->val_off] != '2' && c.text[v->val_off] != '3'))) {
		hook_fail(err, 0, CTRD_CONFIG ":%u: version = %.*s: install understands version 2 (containerd 1.x) and 3 (containerd 2.x)",
			  v->line, (int)(v->val_len > 20 ? 20 : v->val_len), c.text + v->val_off);
		goto out;
	}
	c.version = v ? c.text[v->val_off] - '0' : 2;
	c.cri = c.version == 3 ? "io.containerd.cri.v1.runtime" : "io.containerd.grpc.v1.cri";
	plan->version = c.version;
	default_warnings(&c);
	c.block_at = m.block_at == NO_MARK ? base.len : m.block_at;
	if (c.version == 2) {
		if (ctrd_v2(&c, !v && !wrote_version, &e, &block) < 0)
			goto out;
	} else if (ctrd_v3(&c, &e, &plan->dropin) < 0) {
		goto out;
	}
	if (e.off == NO_MARK && !block.len) {
		/* nothing to add: the file as --uninstall leaves it */
		drop_added_nl(&base, &m);
		sb_add(&out, base.s ? base.s : "", base.len);
	} else {
		compose(&out, &base, &e, &block, c.block_at, m.nl_at);
	}
	if (out.oom) {
		hook_fail(err, ENOMEM, "install");
		goto out;
	}
	if (sb_take(&out, &plan->config, &plan->config_len, err) < 0 ||
	    sb_take(&c.warn, &plan->warnings, NULL, err) < 0) {
		out.s = NULL;
		c.warn.s = NULL;
		goto out;
	}
	out.s = NULL;
	c.warn.s = NULL;
	ret = 0;
out:
	if (ret < 0) {
		free(out.s);
		free(c.warn.s);
		ctrd_plan_free(plan);
		if (!strstr(err->msg, CTRD_CONFIG) && !strstr(err->msg, "imported"))
			hook_fail_prefix(err, CTRD_CONFIG ": ");
	}
	free(base.s);
	free(block.s);
	free(e.text.s);
	toml_doc_free(&d);
	return ret;
}

/* ---- texts of the files install owns ---- */

static int sfmt(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sfmt(char **out, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(out, fmt, ap);
	va_end(ap);
	if (r < 0)
		*out = NULL;
	return r < 0 ? -1 : 0;
}

static bool quotable(const char *s)
{
	/* paths go into a shell script in single quotes and into TOML/JSON strings */
	return s[0] == '/' && !strpbrk(s, "'\"\\\n\r\t");
}

static char *wrapper_text(const struct install_opts *o)
{
	char *t;

	return sfmt(&t,
		    "#!/bin/sh\n"
		    "# " INSTALL_MARKER ": runc with the ioweight prestart hook added on create.\n"
		    "# Remove with `ioweight-hook install --runtime ... --uninstall`.\n"
		    "exec '%s' runc-wrapper --runc '%s' --hook '%s' -- \"$@\"\n",
		    o->hook, o->runc, o->hook) < 0 ? NULL : t;
}

static char *hooksd_text(const struct install_opts *o)
{
	char *t;

	return sfmt(&t,
		    "{\n"
		    "  \"version\": \"1.0.0\",\n"
		    "  \"hook\": {\n"
		    "    \"path\": \"%s\",\n"
		    "    " HOOKSD_ARGS ",\n"
		    "    \"timeout\": %d\n"
		    "  },\n"
		    "  \"when\": {\n"
		    "    \"annotations\": {\n"
		    "      \"^(ioweight\\\\.dev/.+|io\\\\.kubernetes\\\\.cri\\\\.blockio-class|blockio\\\\.resources\\\\.beta\\\\.kubernetes\\\\.io/.+)$\": \".*\"\n"
		    "    }\n"
		    "  },\n"
		    "  \"stages\": [\"prestart\"]\n"
		    "}\n",
		    o->hook, WRAPPER_HOOK_TIMEOUT) < 0 ? NULL : t;
}

static int read_opt(const char *path, char **buf, size_t *len, struct hook_err *err)
{
	*buf = NULL;
	*len = 0;
	if (read_file_bounded(path, 1 << 20, buf, len, err) < 0) {
		if (err->code == ENOENT) {
			*buf = NULL;
			return 0;
		}
		return -1;
	}
	return 0;
}

/*
 * CRI-O's hooks_dir in effect: the last of crio.conf and the crio.conf.d
 * drop-ins (lexical order, ours left out) that sets crio.runtime.hooks_dir,
 * else CRI-O's default.  Returns a "…\n"-joined list in *dirs.
 */
static int crio_hooks_dirs(const struct install_opts *o, char **dirs, struct hook_err *err)
{
	const char *hp[] = { "crio", "runtime", "hooks_dir" };
	char pat[PATH_MAX], conf[PATH_MAX];
	struct sbuf b = { 0 };
	glob_t g = { 0 };
	int gr;

	sb_puts(&b, HOOKSD_DIR "\n");
	snprintf(conf, sizeof(conf), "%s" CRIO_CONF, o->prefix);
	snprintf(pat, sizeof(pat), "%s" CRIO_DROPIN_DIR "/*.conf", o->prefix);
	gr = glob(pat, 0, NULL, &g);
	for (size_t i = 0; i <= (gr == 0 ? g.gl_pathc : 0); i++) {
		const char *f = i == 0 ? conf : g.gl_pathv[i - 1];
		_cleanup_free_ char *buf = NULL;
		const struct toml_key *k;
		struct toml_doc d;
		size_t len;

		if (i > 0 && !strcmp(f + strlen(o->prefix), CRIO_DROPIN))
			continue;
		if (read_opt(f, &buf, &len, err) < 0)
			goto fail;
		if (!buf)
			continue;
		if (toml_parse(buf, len, f + strlen(o->prefix), &d, err) < 0)
			goto fail;
		k = toml_get(&d, hp, 3);
		if (k && (k->type != TOML_ARRAY || !k->all_strings)) {
			hook_fail(err, 0, "%s:%u: hooks_dir is not a list of strings", f + strlen(o->prefix), k->line);
			toml_doc_free(&d);
			goto fail;
		}
		if (k) {
			b.len = 0;
			if (b.s)
				b.s[0] = '\0';
			for (size_t j = 0; j < k->n_strs; j++)
				sb_printf(&b, "%s\n", k->strs[j]);
		}
		toml_doc_free(&d);
	}
	if (gr == 0)
		globfree(&g);
	return sb_take(&b, dirs, NULL, err);
fail:
	if (gr == 0)
		globfree(&g);
	free(b.s);
	return -1;
}

static bool in_list(const char *list, const char *dir)
{
	size_t n = strlen(dir);

	for (const char *l = list; *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, dir, n) && l[n] == '\n')
			return true;
	return false;
}

static char *crio_dropin_text(const char *dirs, const char *dir)
{
	struct sbuf b = { 0 };
	bool first = true;

	sb_puts(&b, "# " INSTALL_MARKER ": CRI-O reads the ioweight hook's hooks.d entry from " );
	sb_puts(&b, dir);
	sb_puts(&b, ".\n# Remove with `ioweight-hook install --runtime crio --hooks-dir ");
	sb_puts(&b, dir);
	sb_puts(&b, " --uninstall`.\n[crio.runtime]\nhooks_dir = [");
	for (const char *l = dirs; *l; l = strchr(l, '\n') + 1) {
		char *one = strndup(l, (size_t)(strchr(l, '\n') - l));

		if (!one) {
			free(b.s);
			return NULL;
		}
		sb_puts(&b, first ? "" : ", ");
		sb_string(&b, one);
		free(one);
		first = false;
	}
	sb_puts(&b, first ? "" : ", ");
	sb_string(&b, dir);
	sb_puts(&b, "]\n");
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- planning and applying changes ---- */

struct change {
	char path[PATH_MAX];
	char *old;		/* NULL: absent */
	size_t old_len;
	char *new_;		/* NULL: delete */
	size_t new_len;
	mode_t mode;
	const char *what;
};

static void change_free(struct change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].old);
		free(c[i].new_);
	}
}

static bool ours(const char *text)
{
	return strstr(text, INSTALL_MARKER) || strstr(text, HOOKSD_ARGS);
}

/* A file install owns: created (refused if someone else's file is there),
 * or, on uninstall (text == NULL), removed if it is ours. */
static int plan_owned(struct change *c, const char *path, char *text, bool uninstall, mode_t mode,
		      const char *what, struct hook_err *err)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->mode = mode;
	c->what = what;
	if (!uninstall && !text)
		return hook_fail(err, ENOMEM, "install");
	c->new_ = text;
	c->new_len = text ? strlen(text) : 0;
	if (read_opt(path, &c->old, &c->old_len, err) < 0)
		return -1;
	if (c->old && !ours(c->old)) {
		if (!uninstall)
			return hook_fail(err, 0, "%s exists and was not written by ioweight-hook install: move it away, then install again", path);
		free(c->old);
		c->old = NULL;	/* not ours: leave it alone */
	}
	return 0;
}

static void print_lines(FILE *out, const char *s, size_t len, char tag)
{
	const char *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);

		fprintf(out, "%c %.*s\n", tag, (int)l, s);
		s += l + (nl ? 1 : 0);
	}
}

struct lines {
	const char **at;	/* start of each line */
	size_t *len;		/* with its '\n' */
	size_t n;
};

static int split_lines(const char *s, size_t len, struct lines *l)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	n += len && s[len - 1] != '\n';
	l->n = 0;
	l->at = calloc(n + 1, sizeof(*l->at));
	l->len = calloc(n + 1, sizeof(*l->len));
	if (!l->at || !l->len)
		return -1;
	for (size_t off = 0; off < len; l->n++) {
		const char *nl = memchr(s + off, '\n', len - off);
		size_t m = nl ? (size_t)(nl - s - off) + 1 : len - off;

		l->at[l->n] = s + off;
		l->len[l->n] = m;
		off += m;
	}
	return 0;
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->at[i], b->at[j], a->len[i]);
}

static void print_line(FILE *out, char tag, const char *s, size_t n)
{
	if (n && s[n - 1] == '\n')
		n--;
	fprintf(out, "%c %.*s\n", tag, (int)n, s);
}

/*
 * A line diff of what install changes: common head and tail lines skipped,
 * the middle aligned by longest common subsequence (install's edits are a
 * few lines and a block, so the middle is small; past DIFF_MAX_CELLS it is
 * shown as all removed then all added).
 */
enum { DIFF_MAX_CELLS = 4 << 20 };

static void print_diff(FILE *out, const char *a, size_t la, const char *b, size_t lb)
{
	struct lines x = { 0 }, y = { 0 };
	size_t h = 0, t = 0, n, m;
	unsigned *dp = NULL;

	if (split_lines(a, la, &x) < 0 || split_lines(b, lb, &y) < 0)
		goto out;
	while (h < x.n && h < y.n && line_eq(&x, h, &y, h))
		h++;
	while (t < x.n - h && t < y.n - h && line_eq(&x, x.n - 1 - t, &y, y.n - 1 - t))
		t++;
	n = x.n - h - t;
	m = y.n - h - t;
	if ((n + 1) * (m + 1) <= DIFF_MAX_CELLS)
		dp = calloc((n + 1) * (m + 1), sizeof(*dp));
	if (dp) {
		/* dp[i][j]: common lines of x[h+i..] and y[h+j..] */
		for (size_t i = n; i-- > 0;)
			for (size_t j = m; j-- > 0;)
				dp[i * (m + 1) + j] = line_eq(&x, h + i, &y, h + j)
					? dp[(i + 1) * (m + 1) + j + 1] + 1
					: (dp[(i + 1) * (m + 1) + j] > dp[i * (m + 1) + j + 1]
					   ? dp[(i + 1) * (m + 1) + j] : dp[i * (m + 1) + j + 1]);
	}
	{
		size_t i = 0, j = 0;
		bool in_hunk = false;

		while (i < n || j < m) {
			if (dp && i < n && j < m && line_eq(&x, h + i, &y, h + j)) {
				i++, j++;
				in_hunk = false;
				continue;
			}
			if (!in_hunk)
				fprintf(out, "  @@ line %zu @@\n", h + i + 1);
			in_hunk = true;
			if (i < n && (j == m || !dp || dp[(i + 1) * (m + 1) + j] >= dp[i * (m + 1) + j + 1])) {
				print_line(out, '-', x.at[h + i], x.len[h + i]);
				i++;
			} else {
				print_line(out, '+', y.at[h + j], y.len[h + j]);
				j++;
			}
		}
	}
out:
	free(dp);
	free(x.at);
	free(x.len);
	free(y.at);
	free(y.len);
}

static int write_atomic(const char *path, const char *data, size_t len, mode_t mode,
			struct hook_err *err)
{
	char tmp[PATH_MAX + 32];
	_cleanup_close_ int fd = -1;

	snprintf(tmp, sizeof(tmp), "%s.ioweight-tmp", path);
	fd = TEMP_FAILURE_RETRY(open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
	if (fd < 0)
		return hook_fail(err, errno, "cannot create %s", tmp);
	if (fchmod(fd, mode) < 0 || TEMP_FAILURE_RETRY(write(fd, data, len)) != (ssize_t)len ||
	    fsync(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return hook_fail(err, e, "cannot write %s", path);
	}
	return 0;
}

static int mkdir_marked(const char *dir, bool dry, FILE *out, struct hook_err *err)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (stat(p, &st) < 0) {
			char m[PATH_MAX + 32];

			fprintf(out, "%s directory %s\n", dry ? "would create" : "create", p);
			if (!dry) {
				_cleanup_close_ int fd = -1;

				if (mkdir(p, 0755) < 0)
					return hook_fail(err, errno, "cannot create %s", p);
				/* remembered so --uninstall removes only what we made */
				snprintf(m, sizeof(m), "%s/" DIR_MARKER, p);
				fd = open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
				if (fd < 0)
					return hook_fail(err, errno, "cannot create %s", m);
			}
		}
		*s = c;
		if (!c)
			break;
	}
	return 0;
}

static void rmdir_marked(const char *dir, const char *prefix, bool dry, FILE *out)
{
	char p[PATH_MAX], m[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s", dir);
	/* innermost first, stop at the first directory we did not create */
	while (strlen(p) > strlen(prefix) + 1) {
		snprintf(m, sizeof(m), "%s/" DIR_MARKER, p);
		if (access(m, F_OK) < 0)
			return;
		if (!dry) {
			unlink(m);
			if (rmdir(p) < 0) {
				/* something else lives there now: keep it, and the marker */
				int fd = open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

				if (fd >= 0)
					close(fd);
				return;
			}
		}
		fprintf(out, "%s directory %s\n", dry ? "would remove" : "remove", p);
		*strrchr(p, '/') = '\0';
	}
}

static int apply_change(const struct install_opts *o, struct change *c, FILE *out,
			struct hook_err *err)
{
	bool dry = o->dry_run;
	const char *shown = c->path + strlen(o->prefix);

	if (!c->new_) {
		if (!c->old) {
			fprintf(out, "nothing to undo for %s\n", shown);
			return 0;
		}
		fprintf(out, "%s %s (%s)\n", dry ? "would remove" : "remove", shown, c->what);
		if (!dry && unlink(c->path) < 0)
			return hook_fail(err, errno, "cannot remove %s", c->path);
		return 0;
	}
	if (c->old && c->old_len == c->new_len && !memcmp(c->old, c->new_, c->new_len)) {
		fprintf(out, "unchanged %s (%s)\n", shown, c->what);
		return 0;
	}
	if (!c->old) {
		fprintf(out, "%s %s (%s, mode %04o):\n", dry ? "would create" : "create", shown, c->what,
			(unsigned)c->mode);
		print_lines(out, c->new_, c->new_len, '+');
	} else {
		struct stat st;

		fprintf(out, "%s %s (%s):\n", dry ? "would modify" : "modify", shown, c->what);
		print_diff(out, c->old, c->old_len, c->new_, c->new_len);
		if (stat(c->path, &st) == 0)
			c->mode = st.st_mode & 07777;
	}
	return dry ? 0 : write_atomic(c->path, c->new_, c->new_len, c->mode, err);
}

/* config.toml: our edits made (install) or taken out (uninstall). */
static int plan_ctrd_config(const struct install_opts *o, struct change *c, const char *path,
			    struct ctrd_plan *plan, struct hook_err *err)
{
	struct ctrd_opts co = { .set_default = o->set_default, .runc = o->runc, .prefix = o->prefix };

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->mode = 0644;
	c->what = "containerd config";
	if (read_opt(path, &c->old, &c->old_len, err) < 0)
		return -1;
	if (o->uninstall) {
		bool found, rm;

		if (!c->old)
			return 0;
		if (install_strip(c->old, c->old_len, &c->new_, &c->new_len, &found, &rm, err) < 0)
			return hook_fail_prefix(err, CTRD_CONFIG ": ");
		if (!found || rm) {
			free(c->new_);
			c->new_ = NULL;
			c->new_len = 0;
		}
		if (!found) {
			free(c->old);
			c->old = NULL;
		}
		return 0;
	}
	if (install_containerd_config(c->old, c->old_len, &co, plan, err) < 0)
		return -1;
	c->new_ = plan->config;
	c->new_len = plan->config_len;
	plan->config = NULL;
	c->what = plan->version == 3 ? "containerd config: imports the drop-in" : "containerd config: ioweight runtime";
	return 0;
}

int install_run(const struct install_opts *o, FILE *out, struct hook_err *err)
{
	struct change ch[4];
	struct ctrd_plan plan = { 0 };
	size_t n = 0;
	char p_wrap[PATH_MAX], p_conf[PATH_MAX], p_drop[PATH_MAX], p_hooks[PATH_MAX], p_crio[PATH_MAX];
	char d_drop[PATH_MAX], d_hooks[PATH_MAX], d_wrap[PATH_MAX], d_crio[PATH_MAX], d_ctrd[PATH_MAX];
	const char *hooks_dir = o->hooks_dir[0] ? o->hooks_dir : HOOKSD_DIR;
	bool un = o->uninstall, hooksd = o->runtime == RT_PODMAN || o->runtime == RT_CRIO;
	_cleanup_free_ char *crio_dirs = NULL;
	int ret = -1;

	if (!quotable(o->hook) || !quotable(o->runc) || !quotable(hooks_dir))
		return hook_fail(err, 0, "install: --hook-path, --runc and --hooks-dir must be absolute paths without quotes, backslashes or whitespace control characters");
	snprintf(p_wrap, sizeof(p_wrap), "%s" WRAPPER_PATH, o->prefix);
	snprintf(d_wrap, sizeof(d_wrap), "%s" WRAPPER_DIR, o->prefix);
	snprintf(p_conf, sizeof(p_conf), "%s" CTRD_CONFIG, o->prefix);
	snprintf(p_drop, sizeof(p_drop), "%s" CTRD_DROPIN, o->prefix);
	snprintf(d_ctrd, sizeof(d_ctrd), "%s" CTRD_DIR, o->prefix);
	snprintf(d_drop, sizeof(d_drop), "%s" CTRD_DROPIN_DIR, o->prefix);
	snprintf(d_hooks, sizeof(d_hooks), "%s%s", o->prefix, hooks_dir);
	snprintf(p_hooks, sizeof(p_hooks), "%s/" HOOKSD_NAME, d_hooks);
	snprintf(p_crio, sizeof(p_crio), "%s" CRIO_DROPIN, o->prefix);
	snprintf(d_crio, sizeof(d_crio), "%s" CRIO_DROPIN_DIR, o->prefix);

	/* compute every change first: nothing is touched if any step fails */
	if (!hooksd && plan_owned(&ch[n++], p_wrap, un ? NULL : wrapper_text(o), un, 0755, "runc wrapper", err) < 0)
		goto out;
	if (o->runtime == RT_CONTAINERD) {
		if (plan_ctrd_config(o, &ch[n++], p_conf, &plan, err) < 0)
			goto out;
		/* a version 2 install has no drop-in: remove one left from a version 3 install */
		if (plan_owned(&ch[n++], p_drop, plan.dropin, un || !plan.dropin, 0644, "containerd drop-in", err) < 0)
			goto out;
		plan.dropin = NULL;
	}
	if (hooksd && plan_owned(&ch[n++], p_hooks, un ? NULL : hooksd_text(o), un, 0644, "OCI hooks.d entry", err) < 0)
		goto out;
	if (o->runtime == RT_CRIO) {
		char *text = NULL;

		if (!un) {
			if (crio_hooks_dirs(o, &crio_dirs, err) < 0)
				goto out;
			if (!in_list(crio_dirs, hooks_dir) && !(text = crio_dropin_text(crio_dirs, hooks_dir))) {
				hook_fail(err, ENOMEM, "install");
				goto out;
			}
		}
		if (plan_owned(&ch[n++], p_crio, text, un || !text, 0644, "CRI-O drop-in: hooks_dir", err) < 0)
			goto out;
	}
	if (!un) {
		if (!hooksd && mkdir_marked(d_wrap, o->dry_run, out, err) < 0)
			goto out;
		if (o->runtime == RT_CONTAINERD && !ch[1].old && mkdir_marked(d_ctrd, o->dry_run, out, err) < 0)
			goto out;
		if (o->runtime == RT_CONTAINERD && ch[2].new_ && mkdir_marked(d_drop, o->dry_run, out, err) < 0)
			goto out;
		if (hooksd && mkdir_marked(d_hooks, o->dry_run, out, err) < 0)
			goto out;
		if (o->runtime == RT_CRIO && ch[n - 1].new_ && mkdir_marked(d_crio, o->dry_run, out, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		/* on install, an owned file that is not wanted (no drop-in) is not reported */
		if (!un && !ch[i].new_ && !ch[i].old)
			continue;
		if (apply_change(o, &ch[i], out, err) < 0)
			goto out;
	}
	if (un) {
		if (o->runtime == RT_CONTAINERD) {
			rmdir_marked(d_drop, o->prefix, o->dry_run, out);
			rmdir_marked(d_ctrd, o->prefix, o->dry_run, out);
		}
		if (o->runtime == RT_CRIO)
			rmdir_marked(d_crio, o->prefix, o->dry_run, out);
		if (hooksd)
			rmdir_marked(d_hooks, o->prefix, o->dry_run, out);
		else
			rmdir_marked(d_wrap, o->prefix, o->dry_run, out);
	}
	if (plan.warnings)
		fputs(plan.warnings, out);
	if (!o->dry_run && !un) {
		if (o->runtime == RT_CONTAINERD)
			fprintf(out, "next: restart containerd. Pods run the hook with runtime handler `ioweight`%s; for ctr: ctr run --runc-binary " WRAPPER_PATH " ...\n",
				o->set_default ? " (the CRI default now)" : " (a RuntimeClass with handler: ioweight)");
		else if (o->runtime == RT_RUNC_WRAPPER)
			fprintf(out, "next: ctr run --runc-binary " WRAPPER_PATH " ..., or point a runtime's BinaryName at it\n");
		else
			fprintf(out, "next: %s picks the hook up for containers with an ioweight.dev/ or blockio annotation%s\n",
				o->runtime == RT_CRIO ? "CRI-O" : "podman",
				o->runtime == RT_CRIO && ch[n - 1].new_ ? " (restart CRI-O for its new hooks_dir)" : "");
	}
	ret = 0;
out:
	change_free(ch, n);
	ctrd_plan_free(&plan);
	return ret;
}

static const char install_usage[] =
	"Usage: ioweight-hook install --runtime containerd|crio|podman|runc-wrapper [--dry-run] [--uninstall]\n"
	"                             [--set-as-default] [--hook-path PATH] [--runc PATH] [--hooks-dir DIR] [--prefix DIR]\n";

int install_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runtime", required_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "uninstall", no_argument, NULL, 'u' },
		{ "set-as-default", no_argument, NULL, 'D' },
		{ "hook-path", required_argument, NULL, 'H' },
		{ "runc", required_argument, NULL, 'R' },
		{ "hooks-dir", required_argument, NULL, 'k' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const runcs[] = { "/usr/sbin/runc", "/usr/bin/runc",
					     "/usr/local/sbin/runc", "/usr/local/bin/runc", NULL };
	struct install_opts o = { .runtime = RT_CONTAINERD };
	struct hook_err err = { 0 };
	bool have_rt = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			have_rt = true;
			if (!strcmp(optarg, "containerd"))
				o.runtime = RT_CONTAINERD;
			else if (!strcmp(optarg, "podman"))
				o.runtime = RT_PODMAN;
			else if (!strcmp(optarg, "crio") || !strcmp(optarg, "cri-o"))
				o.runtime = RT_CRIO;
			else if (!strcmp(optarg, "runc-wrapper"))
				o.runtime = RT_RUNC_WRAPPER;
			else {
				fprintf(stderr, "ioweight-hook install: --runtime must be containerd, crio, podman or runc-wrapper\n");
				return 2;
			}
			break;
		case 'n': o.dry_run = true; break;
		case 'u': o.uninstall = true; break;
		case 'D': o.set_default = true; break;
		case 'H': snprintf(o.hook, sizeof(o.hook), "%s", optarg); break;
		case 'R': snprintf(o.runc, sizeof(o.runc), "%s", optarg); break;
		case 'k':
			if (roots_set(o.hooks_dir, optarg, "--hooks-dir", &err) < 0) {
				fprintf(stderr, "ioweight-hook install: %s\n", err.msg);
				return 2;
			}
			break;
		case 'p':
			if (roots_set(o.prefix, optarg, "--prefix", &err) < 0) {
				fprintf(stderr, "ioweight-hook install: %s\n", err.msg);
				return 2;
			}
			if (!strcmp(o.prefix, "/"))
				o.prefix[0] = '\0';
			break;
		case 'h':
			fputs(install_usage, stdout);
			puts("  --set-as-default  containerd: make the `ioweight` runtime handler CRI's default\n"
			     "                    (else pods opt in with a RuntimeClass whose handler is ioweight)\n"
			     "  --hook-path  the hook binary the runtime runs (default: this binary)\n"
			     "  --runc       the real runc the wrapper execs (default: first found in\n"
			     "               /usr/sbin, /usr/bin, /usr/local/sbin, /usr/local/bin)\n"
			     "  --hooks-dir  crio/podman: where the hooks.d entry goes (default\n"
			     "               " HOOKSD_DIR "; CRI-O gets a drop-in that adds it)\n"
			     "  --prefix     install under DIR instead of / (for packaging and tests)");
			return 0;
		default:
			return 2;
		}
	}
	if (!have_rt || optind != argc) {
		fputs(install_usage, stderr);
		return 2;
	}
	if (o.set_default && o.runtime != RT_CONTAINERD) {
		fprintf(stderr, "ioweight-hook install: --set-as-default is for --runtime containerd\n");
		return 2;
	}
	if (o.hooks_dir[0] && o.runtime != RT_CRIO && o.runtime != RT_PODMAN) {
		fprintf(stderr, "ioweight-hook install: --hooks-dir is for --runtime crio or podman\n");
		return 2;
	}
	if (!o.hook[0] && !realpath("/proc/self/exe", o.hook)) {
		fprintf(stderr, "ioweight-hook install: cannot find own path; pass --hook-path\n");
		return 1;
	}
	for (int i = 0; !o.runc[0] && runcs[i]; i++) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s%s", o.prefix, runcs[i]);
		/* never point the wrapper at itself */
		if (access(p, X_OK) == 0 && strcmp(runcs[i], WRAPPER_PATH))
			snprintf(o.runc, sizeof(o.runc), "%s", runcs[i]);
	}
	if (!o.runc[0] && (o.runtime == RT_CONTAINERD || o.runtime == RT_RUNC_WRAPPER) && !o.uninstall) {
		fprintf(stderr, "ioweight-hook install: no runc found; pass --runc PATH\n");
		return 1;
	}
	if (!o.runc[0])
		strcpy(o.runc, "/usr/bin/runc");	/* unused by uninstall and the hooks.d modes */
	if (install_run(&o, stdout, &err) < 0) {
		fprintf(stderr, "ioweight-hook install: %s\n", err.msg);
		return 1;
	}
	return 0;
}
