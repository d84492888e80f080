// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_install.c - the containerd config editor, with its round-trip
 * invariants.  For a file without install's markers, install either
 * refuses or gives a text that parses, that a second install leaves as it
 * is, and from which --uninstall gives back the input byte for byte.  For
 * any file, with markers too (an installed file the admin edited since):
 * install either refuses or gives a text that a second install leaves as
 * it is and from which --uninstall gives what it gave before, so that any
 * number of installs with edits in between uninstall to the admin's file.
 *
 * Input: byte 0: bit 0 --set-as-default, bits 1-2 where an admin edit
 * goes into the installed file (0 none, 1 at the end, 2 above the block,
 * 3 below it); byte 1: the edit's length, taken from the input's end; the
 * rest is config.toml.  An edit of comments and blank lines only must
 * leave a further install with nothing to change.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install.h"
#include "toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *in_text;
static size_t in_len;

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_install: %s\n--- input (%zu bytes) ---\n%.*s\n", what, in_len, (int)in_len, in_text);
	abort();
}

static void parses(const char *text, size_t len, const char *what)
{
	struct toml_doc d;
	struct hook_err err = { 0 };
	int r = toml_parse(text, len, what, &d, &err);

	if (r < 0)
		fprintf(stderr, "fuzz_install: %s\n", err.msg);
	check(r == 0, "install wrote a file its own reader rejects");
	toml_doc_free(&d);
}

static bool same(const char *a, size_t la, const char *b, size_t lb)
{
	return la == lb && !memcmp(a, b, la);
}

/* Comment and blank lines only, whole lines, nothing install would read as its own. */
static bool inert(const char *s, size_t n)
{
	if (!n || s[n - 1] != '\n' || memmem(s, n, INSTALL_MARKER, strlen(INSTALL_MARKER)))
		return false;
	for (size_t i = 0; i < n;) {
		size_t j = i + strspn(s + i, " \t");

		if (s[j] != '#' && s[j] != '\n')
			return false;
		i = (size_t)((const char *)memchr(s + i, '\n', n - i) - s) + 1;
	}
	return true;
}

/*
 * Install on any text: refused, or a parsing text that a second install
 * keeps and that uninstalls to what `text` uninstalls to.  Returns the
 * install's plan (config NULL when refused).
 */
static struct ctrd_plan reinstall(const char *text, size_t len, const struct ctrd_opts *o)
{
	struct ctrd_plan p1, p2;
	struct hook_err err = { 0 };
	char *u0 = NULL, *u1 = NULL;
	size_t l0, l1;
	bool f0, f1, rm0, rm1;
	int s0;

	s0 = install_strip(text, len, &u0, &l0, &f0, &rm0, &err);
	if (install_containerd_config(text, len, o, &p1, &err) < 0) {
		free(u0);
		return (struct ctrd_plan){ 0 };
	}
	check(s0 == 0, "install accepted markers that uninstall refuses");
	parses(p1.config, p1.config_len, "config.toml");
	if (p1.dropin)
		parses(p1.dropin, strlen(p1.dropin), "drop-in");
	check(install_strip(p1.config, p1.config_len, &u1, &l1, &f1, &rm1, &err) == 0,
	      "uninstall refused what install wrote");
	check(same(u1, l1, u0, l0), "uninstall after this install gives another text than before it");
	check(rm1 == rm0, "uninstall after this install would delete the file, or keep it, where before it would not");
	check(install_containerd_config(p1.config, p1.config_len, o, &p2, &err) == 0,
	      "a second install refused what the first wrote");
	check(same(p2.config, p2.config_len, p1.config, p1.config_len), "a second install changed the config");
	check((!p1.dropin && !p2.dropin) || (p1.dropin && p2.dropin && !strcmp(p1.dropin, p2.dropin)),
	      "a second install changed the drop-in");
	free(u0);
	free(u1);
	ctrd_plan_free(&p2);
	return p1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctrd_opts o = { .runc = "/usr/sbin/runc" };
	struct ctrd_plan p1, p3;
	struct hook_err err = { 0 };
	const char *in, *edit, *at;
	char *s = NULL, *back = NULL, *edited;
	size_t len, slen, blen, elen;
	bool found, rm;
	unsigned place;

	if (size < 2 || size > (1 << 16))
		return 0;
	o.set_default = data[0] & 1;
	place = (data[0] >> 1) & 3;
	elen = data[1] < size - 2 ? data[1] : size - 2;
	in = (const char *)data + 2;
	len = size - 2 - elen;
	edit = in + len;
	in_text = in;
	in_len = size - 2;
	if (install_strip(in, len, &s, &slen, &found, &rm, &err) < 0)
		return 0;
	free(s);
	if (found) {
		/* an installed file, as the admin left it */
		p1 = reinstall(in, len, &o);
		ctrd_plan_free(&p1);
		return 0;
	}
	p1 = reinstall(in, len, &o);
	if (!p1.config)
		return 0;	/* refused: fine, as long as it did not crash */
	check(install_strip(p1.config, p1.config_len, &back, &blen, &found, &rm, &err) == 0,
	      "uninstall refused what install wrote");
	check(same(back, blen, in, len), "uninstall did not give back the input");
	check(!rm, "uninstall would delete a file that existed");
	free(back);

	/* the admin edits the installed file; install runs again */
	at = place == 2 ? strstr(p1.config, "# >>> " INSTALL_MARKER)
	   : place == 3 ? strstr(p1.config, "# <<< " INSTALL_MARKER "\n") : p1.config + p1.config_len;
	if (place && at) {
		size_t off = (size_t)(at - p1.config) + (place == 3 ? strlen("# <<< " INSTALL_MARKER "\n") : 0);

		edited = malloc(p1.config_len + elen + 1);
		check(edited != NULL, "out of memory");
		memcpy(edited, p1.config, off);
		memcpy(edited + off, edit, elen);
		memcpy(edited + off + elen, p1.config + off, p1.config_len - off + 1);
		p3 = reinstall(edited, p1.config_len + elen, &o);
		if (p3.config && inert(edit, elen))
			check(same(p3.config, p3.config_len, edited, p1.config_len + elen),
			      "install after an edit of comments next to its lines changed the file");
		ctrd_plan_free(&p3);
		free(edited);
	}
	ctrd_plan_free(&p1);
	return 0;
}
