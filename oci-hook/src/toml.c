// SPDX-License-Identifier: GPL-2.0-or-later
/* toml.c - TOML 1.0 reader that keeps every site's position, and sbuf. */
#include "toml.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct parser {
	const char *s;
	size_t len, pos;
	unsigned line;
	const char *name;
	struct hook_err *err;
	struct toml_doc *doc;
	char *table[TOML_MAX_PATH];	/* current header path (borrowed) */
	size_t table_depth;
};

static int perr(struct parser *p, const char *what)
{
	return hook_fail(p->err, 0, "%s:%u: %s", p->name, p->line, what);
}

static int cur(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static bool at(const struct parser *p, const char *lit)
{
	size_t n = strlen(lit);

	return p->len - p->pos >= n && !memcmp(p->s + p->pos, lit, n);
}

static void skip_ws(struct parser *p)
{
	while (cur(p) == ' ' || cur(p) == '\t')
		p->pos++;
}

static bool at_newline(const struct parser *p)
{
	return cur(p) == '\n' || at(p, "\r\n");
}

static void eat_newline(struct parser *p)
{
	p->pos += cur(p) == '\r' ? 2 : 1;
	p->line++;
}

/* A comment runs to the end of the line; control characters other than tab
 * are not allowed in it. */
static int skip_comment(struct parser *p)
{
	if (cur(p) != '#')
		return 0;
	while (p->pos < p->len && !at_newline(p)) {
		int c = cur(p);

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return perr(p, "control character in a comment");
		p->pos++;
	}
	return 0;
}

/* After a header or a key = value: blanks, an optional comment, end of line. */
static int end_of_line(struct parser *p)
{
	skip_ws(p);
	if (skip_comment(p) < 0)
		return -1;
	if (p->pos >= p->len)
		return 0;
	if (!at_newline(p))
		return perr(p, "expected the end of the line");
	eat_newline(p);
	return 0;
}

static bool bare_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static void put_utf8(char *o, size_t *n, unsigned long cp)
{
	if (cp < 0x80) {
		o[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		o[(*n)++] = (char)(0xc0 | (cp >> 6));
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		o[(*n)++] = (char)(0xe0 | (cp >> 12));
		o[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*n)++] = (char)(0xf0 | (cp >> 18));
		o[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* Basic ("…", """…""") or literal ('…', '''…''') string at p->pos, decoded
 * into *out (NUL-terminated; a \u0000 escape is refused). */
static int parse_string(struct parser *p, bool allow_multi, char **out)
{
	char q = (char)cur(p);
	bool multi = allow_multi && at(p, q == '"' ? "\"\"\"" : "'''");
	bool basic = q == '"';
	char *o;
	size_t n = 0;

	*out = NULL;
	p->pos += multi ? 3 : 1;
	/* a newline right after the opening delimiter is trimmed */
	if (multi && at_newline(p))
		eat_newline(p);
	/* decoded text is never longer than the source */
	o = malloc(p->len - p->pos + 1);
	if (!o)
		return hook_fail(p->err, ENOMEM, "%s", p->name);
	for (;;) {
		int c = cur(p);

		if (c < 0) {
			free(o);
			return perr(p, "unterminated string");
		}
		if (c == q && (!multi || at(p, basic ? "\"\"\"" : "'''"))) {
			if (multi) {
				/* up to two quotes may end the content: """a"""" */
				size_t extra = 0;

				while (extra < 2 && p->pos + 3 + extra < p->len && p->s[p->pos + 3 + extra] == q)
					extra++;
				for (size_t i = 0; i < extra; i++)
					o[n++] = q;
				p->pos += 3 + extra;
			} else {
				p->pos++;
			}
			break;
		}
		if (at_newline(p)) {
			if (!multi) {
				free(o);
				return perr(p, "newline in a single-line string");
			}
			if (c == '\r')
				o[n++] = '\r';
			o[n++] = '\n';
			eat_newline(p);
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			free(o);
			return perr(p, "control character in a string");
		}
		if (c != '\\' || !basic) {
			o[n++] = (char)c;
			p->pos++;
			continue;
		}
		p->pos++;
		c = cur(p);
		switch (c) {
		case 'b': o[n++] = '\b'; p->pos++; break;
		case 't': o[n++] = '\t'; p->pos++; break;
		case 'n': o[n++] = '\n'; p->pos++; break;
		case 'f': o[n++] = '\f'; p->pos++; break;
		case 'r': o[n++] = '\r'; p->pos++; break;
		case '"': o[n++] = '"'; p->pos++; break;
		case '\\': o[n++] = '\\'; p->pos++; break;
		case 'u':
		case 'U': {
			size_t digits = c == 'u' ? 4 : 8;
			unsigned long cp = 0;

			p->pos++;
			for (size_t i = 0; i < digits; i++, p->pos++) {
				int h = cur(p);

				if (h >= '0' && h <= '9')
					cp = cp * 16 + (unsigned long)(h - '0');
				else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
					cp = cp * 16 + (unsigned long)((h | 0x20) - 'a' + 10);
				else {
					free(o);
					return perr(p, "bad \\u escape in a string");
				}
			}
			if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
				free(o);
				return perr(p, "\\u escape is not a Unicode scalar value (or is NUL)");
			}
			/* 4 output bytes from at least 6 input bytes */
			put_utf8(o, &n, cp);
			break;
		}
		default:
			if (multi && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
				/* line-ending backslash: trim up to the next non-blank */
				size_t save = p->pos;

				skip_ws(p);
				if (!at_newline(p)) {
					p->pos = save;
					free(o);
					return perr(p, "bad escape in a string");
				}
				while (cur(p) == ' ' || cur(p) == '\t' || at_newline(p)) {
					if (at_newline(p))
						eat_newline(p);
					else
						p->pos++;
				}
				break;
			}
			free(o);
			return perr(p, "bad escape in a string");
		}
	}
	o[n] = '\0';
	*out = o;
	return 0;
}

static int parse_key(struct parser *p, char **segs, size_t *n, size_t max)
{
	*n = 0;
	for (;;) {
		char *seg;

		skip_ws(p);
		if (*n == max)
			return perr(p, "key path too deep");
		if (cur(p) == '"' || cur(p) == '\'') {
			if (parse_string(p, false, &seg) < 0)
				return -1;
		} else {
			size_t st = p->pos;

			while (bare_char(cur(p)))
				p->pos++;
			if (p->pos == st)
				return perr(p, "expected a key");
			seg = strndup(p->s + st, p->pos - st);
			if (!seg)
				return hook_fail(p->err, ENOMEM, "%s", p->name);
		}
		segs[(*n)++] = seg;
		skip_ws(p);
		if (cur(p) != '.')
			return 0;
		p->pos++;
	}
}

static void free_segs(char **segs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(segs[i]);
}

static char **dup_path(char *const *a, size_t na, char *const *b, size_t nb)
{
	char **r = calloc(na + nb + 1, sizeof(*r));

	if (!r)
		return NULL;
	for (size_t i = 0; i < na + nb; i++) {
		r[i] = strdup(i < na ? a[i] : b[i - na]);
		if (!r[i]) {
			free_segs(r, i);
			free(r);
			return NULL;
		}
	}
	return r;
}

static struct toml_key *new_key(struct parser *p, char *const *rel, size_t nrel, size_t site_depth)
{
	struct toml_doc *d = p->doc;
	struct toml_key *k, *keys;

	if (p->table_depth + nrel > TOML_MAX_PATH) {
		perr(p, "key path too deep");
		return NULL;
	}
	keys = realloc(d->keys, (d->n_keys + 1) * sizeof(*keys));
	if (!keys) {
		hook_fail(p->err, ENOMEM, "%s", p->name);
		return NULL;
	}
	d->keys = keys;
	k = &keys[d->n_keys];
	memset(k, 0, sizeof(*k));
	k->path = dup_path(p->table, p->table_depth, rel, nrel);
	if (!k->path) {
		hook_fail(p->err, ENOMEM, "%s", p->name);
		return NULL;
	}
	d->n_keys++;
	k->depth = p->table_depth + nrel;
	k->table_depth = p->table_depth;
	k->site_depth = p->table_depth + site_depth;
	k->line = p->line;
	return k;
}

static int parse_value(struct parser *p, char **rel, size_t nrel, size_t site_depth, size_t level,
		       struct toml_key **out);

/* Scalars other than strings: booleans, numbers, dates and times. */
static int parse_scalar(struct parser *p)
{
	size_t st = p->pos;

	while (bare_char(cur(p)) || cur(p) == '+' || cur(p) == '.' || cur(p) == ':') {
		p->pos++;
		/* a date-time may use a space between date and time */
		if (p->pos - st == 10 && cur(p) == ' ' && p->pos + 1 < p->len &&
		    p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9' && p->s[st + 4] == '-')
			p->pos++;
	}
	if (p->pos == st)
		return perr(p, "expected a value");
	{
		const char *t = p->s + st;
		size_t n = p->pos - st;
		bool word = (n == 4 && !memcmp(t, "true", 4)) || (n == 5 && !memcmp(t, "false", 5));
		const char *u = (t[0] == '+' || t[0] == '-') ? t + 1 : t;
		size_t un = n - (size_t)(u - t);
		bool special = (un == 3 && (!memcmp(u, "inf", 3) || !memcmp(u, "nan", 3)));

		if (!word && !special && !(un > 0 && u[0] >= '0' && u[0] <= '9'))
			return perr(p, "expected a value (string, number, boolean, date, array or table)");
	}
	return 0;
}

static int parse_array(struct parser *p, struct toml_key *k, size_t level)
{
	p->pos++;	/* [ */
	for (;;) {
		char *s = NULL;

		/* blanks, newlines and comments are allowed between elements */
		for (;;) {
			skip_ws(p);
			if (skip_comment(p) < 0)
				return -1;
			if (!at_newline(p))
				break;
			eat_newline(p);
		}
		if (cur(p) == ']') {
			p->pos++;
			return 0;
		}
		if (cur(p) == '"' || cur(p) == '\'') {
			if (parse_string(p, true, &s) < 0)
				return -1;
			if (k && k->all_strings) {
				char **v = realloc(k->strs, (k->n_strs + 1) * sizeof(*v));

				if (!v) {
					free(s);
					return hook_fail(p->err, ENOMEM, "%s", p->name);
				}
				k->strs = v;
				k->strs[k->n_strs++] = s;
			} else {
				free(s);
			}
		} else {
			if (k)
				k->all_strings = false;
			if (parse_value(p, NULL, 0, 0, level + 1, NULL) < 0)
				return -1;
		}
		for (;;) {
			skip_ws(p);
			if (skip_comment(p) < 0)
				return -1;
			if (!at_newline(p))
				break;
			eat_newline(p);
		}
		if (cur(p) == ',') {
			p->pos++;
			continue;
		}
		if (cur(p) == ']') {
			p->pos++;
			return 0;
		}
		return perr(p, "expected `,` or `]` in an array");
	}
}

/* { k = v, ... } on one line; leaves are recorded with their full paths
 * when rel != NULL (a value reached from a key, not an array element). */
static int parse_inline_table(struct parser *p, char **rel, size_t nrel, size_t site_depth,
			      size_t level)
{
	p->pos++;	/* { */
	skip_ws(p);
	if (cur(p) == '}') {
		p->pos++;
		return 0;
	}
	for (;;) {
		char *segs[TOML_MAX_PATH];
		size_t n = 0;
		int r;

		if (nrel >= TOML_MAX_PATH)
			return perr(p, "key path too deep");
		if (parse_key(p, segs, &n, TOML_MAX_PATH - nrel) < 0) {
			free_segs(segs, n);
			return -1;
		}
		if (cur(p) != '=') {
			free_segs(segs, n);
			return perr(p, "expected `=` after a key");
		}
		p->pos++;
		skip_ws(p);
		{
			char *full[TOML_MAX_PATH];

			for (size_t i = 0; rel && i < nrel; i++)
				full[i] = rel[i];
			for (size_t i = 0; i < n; i++)
				full[nrel + i] = segs[i];
			/* inside an array element nothing is recorded: no path to carry */
			r = rel ? parse_value(p, full, nrel + n, site_depth, level + 1, NULL)
				: parse_value(p, NULL, 0, 0, level + 1, NULL);
		}
		free_segs(segs, n);
		if (r < 0)
			return -1;
		skip_ws(p);
		if (cur(p) == ',') {
			p->pos++;
			continue;
		}
		if (cur(p) == '}') {
			p->pos++;
			return 0;
		}
		return perr(p, "expected `,` or `}` in an inline table");
	}
}

static int parse_value(struct parser *p, char **rel, size_t nrel, size_t site_depth, size_t level,
		       struct toml_key **out)
{
	struct toml_key *k = NULL;
	size_t st = p->pos, idx = 0;
	int c = cur(p);

	if (level > TOML_MAX_DEPTH)
		return perr(p, "arrays or inline tables nested too deep");
	if (rel) {
		k = new_key(p, rel, nrel, site_depth);
		if (!k)
			return -1;
		idx = (size_t)(k - p->doc->keys);
		k->val_off = st;
	}
	/* new_key() may move the keys array: refetch k by index after parsing */
	if (c == '"' || c == '\'') {
		char *s;

		if (parse_string(p, true, &s) < 0)
			return -1;
		if (k) {
			k = &p->doc->keys[idx];
			k->type = TOML_STRING;
			k->str = s;
		} else {
			free(s);
		}
	} else if (c == '[') {
		if (k) {
			k->type = TOML_ARRAY;
			k->all_strings = true;
		}
		if (parse_array(p, k, level) < 0)
			return -1;
	} else if (c == '{') {
		if (k)
			k->type = TOML_INLINE_TABLE;
		if (parse_inline_table(p, rel, nrel, site_depth, level) < 0)
			return -1;
	} else {
		if (k)
			k->type = TOML_SCALAR;
		if (parse_scalar(p) < 0)
			return -1;
	}
	if (k) {
		k = &p->doc->keys[idx];
		k->val_len = p->pos - st;
		if (out)
			*out = k;
	}
	return 0;
}

static size_t line_start(const struct parser *p, size_t pos)
{
	while (pos > 0 && p->s[pos - 1] != '\n')
		pos--;
	return pos;
}

static int parse_header(struct parser *p)
{
	struct toml_doc *d = p->doc;
	struct toml_table *t, *tables;
	bool array = at(p, "[[");
	char *segs[TOML_MAX_PATH];
	size_t n = 0, st = line_start(p, p->pos);
	unsigned line = p->line;

	p->pos += array ? 2 : 1;
	if (parse_key(p, segs, &n, TOML_MAX_PATH) < 0) {
		free_segs(segs, n);
		return -1;
	}
	if (!at(p, array ? "]]" : "]")) {
		free_segs(segs, n);
		return perr(p, array ? "expected `]]` after a table-array header" : "expected `]` after a table header");
	}
	p->pos += array ? 2 : 1;
	tables = realloc(d->tables, (d->n_tables + 1) * sizeof(*tables));
	if (!tables) {
		free_segs(segs, n);
		return hook_fail(p->err, ENOMEM, "%s", p->name);
	}
	d->tables = tables;
	t = &tables[d->n_tables++];
	memset(t, 0, sizeof(*t));
	t->path = calloc(n + 1, sizeof(*t->path));
	if (!t->path) {
		free_segs(segs, n);
		d->n_tables--;
		return hook_fail(p->err, ENOMEM, "%s", p->name);
	}
	memcpy(t->path, segs, n * sizeof(*segs));
	t->depth = n;
	t->array = array;
	t->line = line;
	t->line_off = st;
	memcpy(p->table, t->path, n * sizeof(*segs));
	p->table_depth = n;
	if (end_of_line(p) < 0)
		return -1;
	t->line_end = p->pos;
	return 0;
}

static int parse_keyval(struct parser *p)
{
	char *segs[TOML_MAX_PATH];
	size_t n = 0, st = line_start(p, p->pos);
	struct toml_key *k = NULL;
	size_t idx;
	int r;

	if (p->table_depth >= TOML_MAX_PATH)
		return perr(p, "key path too deep");
	if (parse_key(p, segs, &n, TOML_MAX_PATH - p->table_depth) < 0) {
		free_segs(segs, n);
		return -1;
	}
	if (cur(p) != '=') {
		free_segs(segs, n);
		return perr(p, "expected `=` after a key");
	}
	p->pos++;
	skip_ws(p);
	r = parse_value(p, segs, n, n, 0, &k);
	free_segs(segs, n);
	if (r < 0)
		return -1;
	idx = (size_t)(k - p->doc->keys);
	if (end_of_line(p) < 0)
		return -1;
	k = &p->doc->keys[idx];
	k->line_off = st;
	k->line_end = p->pos;
	k->own_lines = true;
	/* the leaves of an inline table share the site's lines */
	for (size_t i = idx + 1; i < p->doc->n_keys; i++) {
		p->doc->keys[i].line_off = st;
		p->doc->keys[i].line_end = p->pos;
		p->doc->keys[i].line = k->line;
	}
	return 0;
}

int toml_parse(const char *text, size_t len, const char *name, struct toml_doc *doc,
	       struct hook_err *err)
{
	struct parser p = { .s = text, .len = len, .line = 1, .name = name, .err = err, .doc = doc };

	memset(doc, 0, sizeof(*doc));
	if (memchr(text, '\0', len))
		return hook_fail(err, 0, "%s: contains a NUL byte", name);
	/* a UTF-8 byte order mark is allowed at the very start */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		p.pos = 3;
	while (p.pos < p.len) {
		skip_ws(&p);
		if (cur(&p) == '#' || at_newline(&p) || p.pos >= p.len) {
			if (end_of_line(&p) < 0)
				goto fail;
			continue;
		}
		if (cur(&p) == '[') {
			if (parse_header(&p) < 0)
				goto fail;
		} else if (parse_keyval(&p) < 0) {
			goto fail;
		}
	}
	return 0;
fail:
	toml_doc_free(doc);
	return -1;
}

void toml_doc_free(struct toml_doc *doc)
{
	for (size_t i = 0; i < doc->n_keys; i++) {
		struct toml_key *k = &doc->keys[i];

		free_segs(k->path, k->depth);
		free(k->path);
		free(k->str);
		free_segs(k->strs, k->n_strs);
		free(k->strs);
	}
	for (size_t i = 0; i < doc->n_tables; i++) {
		free_segs(doc->tables[i].path, doc->tables[i].depth);
		free(doc->tables[i].path);
	}
	free(doc->keys);
	free(doc->tables);
	memset(doc, 0, sizeof(*doc));
}

static bool prefix_eq(char *const *a, const char *const *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

const struct toml_key *toml_get(const struct toml_doc *doc, const char *const *path, size_t depth)
{
	for (size_t i = 0; i < doc->n_keys; i++)
		if (doc->keys[i].depth == depth && prefix_eq(doc->keys[i].path, path, depth))
			return &doc->keys[i];
	return NULL;
}

bool toml_has_under(const struct toml_doc *doc, const char *const *path, size_t depth)
{
	for (size_t i = 0; i < doc->n_keys; i++)
		if (doc->keys[i].depth >= depth && prefix_eq(doc->keys[i].path, path, depth))
			return true;
	for (size_t i = 0; i < doc->n_tables; i++)
		if (doc->tables[i].depth >= depth && prefix_eq(doc->tables[i].path, path, depth))
			return true;
	return false;
}

bool toml_can_add_table(const struct toml_doc *doc, const char *const *path, size_t depth,
			char *why, size_t whylen)
{
	for (size_t i = 0; i < doc->n_tables; i++) {
		const struct toml_table *t = &doc->tables[i];

		if (t->depth == depth && prefix_eq(t->path, path, depth)) {
			snprintf(why, whylen, "line %u already defines this table", t->line);
			return false;
		}
		if (t->array && t->depth <= depth && prefix_eq(t->path, path, t->depth)) {
			snprintf(why, whylen, "line %u makes a parent an array of tables", t->line);
			return false;
		}
	}
	for (size_t i = 0; i < doc->n_keys; i++) {
		const struct toml_key *k = &doc->keys[i];
		size_t common = k->depth < depth ? k->depth : depth;

		if (!prefix_eq(k->path, path, common))
			continue;
		/* a value (or an inline table, which is closed) at the path or above it */
		if (k->site_depth <= depth && prefix_eq(k->path, path, k->site_depth)) {
			snprintf(why, whylen, "line %u sets a value at or above it", k->line);
			return false;
		}
		/* the table itself created by a dotted key: TOML forbids a header for it */
		if (k->table_depth < depth && depth < k->site_depth) {
			snprintf(why, whylen, "line %u defines it with a dotted key", k->line);
			return false;
		}
	}
	return true;
}

/* ---- sbuf ---- */

void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *t = realloc(b->s, cap);

		if (!t) {
			b->oom = true;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char *t = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	sb_add(b, t, (size_t)n);
	free(t);
}

void sb_string(struct sbuf *b, const char *s)
{
	sb_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			sb_printf(b, "\\u%04x", c);
		else
			sb_add(b, s, 1);
	}
	sb_add(b, "\"", 1);
}

void sb_key(struct sbuf *b, const char *seg)
{
	bool bare = *seg != '\0';

	for (const char *c = seg; *c; c++)
		if (!bare_char((unsigned char)*c))
			bare = false;
	if (bare)
		sb_puts(b, seg);
	else
		sb_string(b, seg);
}

void sb_path(struct sbuf *b, const char *const *path, size_t depth)
{
	for (size_t i = 0; i < depth; i++) {
		if (i)
			sb_add(b, ".", 1);
		sb_key(b, path[i]);
	}
}
