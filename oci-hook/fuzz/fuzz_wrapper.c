// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_wrapper.c - the runc wrapper's bundle handling: runc's argv and the
 * bundle's config.json, with the invariants runc relies on:
 *   - the bundle found in argv is one of its words (or runc's default ".")
 *     and only for create/run;
 *   - after an injection config.json still parses, holds the hook once,
 *     with its timeout, and keeps every top-level member;
 *   - a second injection (a retried create) changes nothing, byte for byte.
 * Input: line 1 runc's arguments separated by spaces, the rest config.json.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "wrapper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char hook[] = "/usr/libexec/ioweight/ioweight-hook";

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_wrapper: %s\n", what);
	abort();
}

static void argv_invariants(char *line)
{
	char *argv[64], *save = NULL, *w;
	int argc = 0;
	bool is_create;
	const char *b;

	for (w = strtok_r(line, " ", &save); w && argc < 64; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	b = wrapper_bundle_of(argc, argv, &is_create);
	check(!b || is_create, "a bundle for a command that is not create/run");
	if (b && strcmp(b, ".")) {
		bool inside = false;

		for (int i = 0; i < argc; i++)
			inside |= b >= argv[i] && b <= argv[i] + strlen(argv[i]);
		check(inside, "a bundle that is none of runc's words");
	}
}

/* How many hooks.prestart entries run our hook; *last_ok: the last entry
 * is ours with the wrapper's timeout */
static size_t ours(yajl_val root, bool *last_ok)
{
	const char *p_pre[] = { "hooks", "prestart", NULL };
	yajl_val pre = YAJL_IS_OBJECT(root) ? yajl_tree_get(root, p_pre, yajl_t_array) : NULL;
	size_t mine = 0;

	*last_ok = false;
	for (size_t i = 0; pre && i < pre->u.array.len; i++) {
		const char *p_path[] = { "path", NULL }, *p_to[] = { "timeout", NULL };
		yajl_val e = pre->u.array.values[i], path, to;

		path = YAJL_IS_OBJECT(e) ? yajl_tree_get(e, p_path, yajl_t_string) : NULL;
		if (!path || strcmp(path->u.string, hook))
			continue;
		mine++;
		to = yajl_tree_get(e, p_to, yajl_t_number);
		*last_ok = i == pre->u.array.len - 1 && to && YAJL_IS_INTEGER(to) &&
			   to->u.number.i == WRAPPER_HOOK_TIMEOUT;
	}
	return mine;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct hook_err err = { 0 };
	char *buf, *nl, *spec, *after = NULL, *again = NULL;
	size_t spec_len, alen, glen;
	yajl_val before = NULL, root = NULL;
	const char *p_hooks[] = { "hooks", NULL };
	bool last_ok;
	size_t had;
	FILE *f;

	if (size > (1 << 16))
		return 0;
	if (!path[0]) {
		/* tmpfs: the wrapper fsyncs every config.json it writes */
		snprintf(path, sizeof(path), "/dev/shm/fuzz-wrapper-%d.json", (int)getpid());
	}
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	nl = memchr(buf, '\n', size);
	spec = nl ? nl + 1 : buf + size;
	spec_len = size - (size_t)(spec - buf);
	if (nl)
		*nl = '\0';
	if (memchr(buf, '\0', nl ? (size_t)(nl - buf) : size) == NULL)
		argv_invariants(buf);
	f = fopen(path, "w");
	check(f && fwrite(spec, 1, spec_len, f) == spec_len && fclose(f) == 0, "cannot write the spec");
	json_parse(spec, spec_len, "fuzz", &before, &err);
	if (wrapper_inject(path, hook, &err) == 0) {
		struct hook_err e2 = { 0 };

		check(read_file_bounded(path, MAX_SPEC_BYTES, &after, &alen, &e2) == 0, "spec unreadable");
		check(json_parse(after, alen, "after", &root, &e2) == 0, "the injected config.json does not parse");
		check(before && YAJL_IS_OBJECT(before) && YAJL_IS_OBJECT(root), "injected into a non-object");
		had = ours(before, &last_ok);
		if (had)
			check(ours(root, &last_ok) == had, "the hook added to a spec that had it");
		else
			check(ours(root, &last_ok) == 1 && last_ok,
			      "the hook is not in hooks.prestart once, last, with its timeout");
		check(root->u.object.len == before->u.object.len + !yajl_tree_get(before, p_hooks, yajl_t_any),
		      "a top-level member was lost or added");
		for (size_t i = 0; i < before->u.object.len; i++)
			check(!strcmp(before->u.object.keys[i], root->u.object.keys[i]),
			      "top-level members reordered or renamed");
		check(wrapper_inject(path, hook, &e2) == 0, "a retried create was refused");
		check(read_file_bounded(path, MAX_SPEC_BYTES, &again, &glen, &e2) == 0, "spec unreadable");
		check(glen == alen && !memcmp(again, after, alen), "a retried create changed config.json");
	}
	yajl_tree_free(before);
	yajl_tree_free(root);
	free(after);
	free(again);
	free(buf);
	unlink(path);
	return 0;
}
