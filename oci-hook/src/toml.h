/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * toml.h - a TOML 1.0 reader for editing a file in place, and the text
 * buffer the installer builds files with.
 *
 * Owns: parsing a document into its key/value sites and table headers, each
 * with its full key path, decoded strings and the byte range of its lines, so
 * that the installer can copy values verbatim, know whether a table header
 * may be added, and change one line without reformatting anything else.
 * It does not build a value tree and does not check that keys are unique:
 * the files it reads are parsed by their owners (containerd, CRI-O), and the
 * installer only needs to know what it is about to touch.
 */
#ifndef IOWEIGHT_TOML_H
#define IOWEIGHT_TOML_H

#include <stddef.h>

#include "util.h"

enum {
	TOML_MAX_DEPTH = 32,	/* nested arrays / inline tables */
	TOML_MAX_PATH = 64,	/* segments of one key path */
};

enum toml_type { TOML_STRING, TOML_ARRAY, TOML_INLINE_TABLE, TOML_SCALAR };

/* One key = value site, or a leaf inside an inline table. */
struct toml_key {
	char **path;		/* full path, decoded segments */
	size_t depth;
	size_t table_depth;	/* segments from the [header] in effect */
	size_t site_depth;	/* segments up to the key written at the `=` */
	enum toml_type type;
	char *str;		/* TOML_STRING: decoded value */
	char **strs;		/* TOML_ARRAY of strings only: decoded elements */
	size_t n_strs;
	bool all_strings;	/* TOML_ARRAY: every element a string (or none) */
	size_t val_off, val_len;	/* raw value text */
	size_t line_off, line_end;	/* first line's start .. after the last line's '\n' */
	bool own_lines;		/* a whole key = value, alone on its lines */
	unsigned line;		/* 1-based */
};

struct toml_table {
	char **path;
	size_t depth;
	bool array;		/* [[header]] */
	size_t line_off, line_end;
	unsigned line;
};

struct toml_doc {
	struct toml_key *keys;
	size_t n_keys;
	struct toml_table *tables;
	size_t n_tables;
};

/* Parse text (len bytes, no NUL inside); name prefixes error messages. */
int toml_parse(const char *text, size_t len, const char *name, struct toml_doc *doc,
	       struct hook_err *err);
void toml_doc_free(struct toml_doc *doc);

/* The key site or leaf whose path is exactly path[0..depth). */
const struct toml_key *toml_get(const struct toml_doc *doc, const char *const *path, size_t depth);
/* Does any key or header live at or below path? */
bool toml_has_under(const struct toml_doc *doc, const char *const *path, size_t depth);
/* Could `[path]` be added at the end of the document without redefining a
 * table, reopening an inline table or value, or landing in an array of
 * tables?  On false, *why says which line is in the way. */
bool toml_can_add_table(const struct toml_doc *doc, const char *const *path, size_t depth,
			char *why, size_t whylen);

/* Append a key segment, bare if it can be, else as a basic string. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void sb_add(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_key(struct sbuf *b, const char *seg);
void sb_string(struct sbuf *b, const char *s);	/* a TOML basic string, quoted */
void sb_path(struct sbuf *b, const char *const *path, size_t depth);

#endif
