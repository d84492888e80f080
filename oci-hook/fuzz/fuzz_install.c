// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_install.c - the containerd config editor, with its round-trip
 * invariant: for any file without install's markers, install either
 * refuses or gives a text that parses, that a second install leaves as it
 * is, and from which --uninstall gives back the input byte for byte.  The
 * first byte picks --set-as-default; the rest is config.toml.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install.h"
#include "toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what, const char *in, size_t len)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_install: %s\n--- input (%zu bytes) ---\n%.*s\n", what, len, (int)len, in);
	abort();
}

static void parses(const char *text, size_t len, const char *what, const char *in, size_t in_len)
{
	struct toml_doc d;
	struct hook_err err = { 0 };
	int r = toml_parse(text, len, what, &d, &err);

	if (r < 0)
		fprintf(stderr, "fuzz_install: %s\n", err.msg);
	check(r == 0, "install wrote a file its own reader rejects", in, in_len);
	toml_doc_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctrd_opts o = { .runc = "/usr/sbin/runc" };
	struct ctrd_plan p1, p2;
	struct hook_err err = { 0 };
	const char *in;
	char *s = NULL, *back = NULL;
	size_t len, slen, blen;
	bool found, rm;

	if (size < 1 || size > (1 << 16))
		return 0;
	o.set_default = data[0] & 1;
	in = (const char *)data + 1;
	len = size - 1;
	if (install_strip(in, len, &s, &slen, &found, &rm, &err) < 0)
		return 0;
	free(s);
	if (found)
		return 0;	/* only inputs without install's markers round-trip */
	if (install_containerd_config(in, len, &o, &p1, &err) < 0)
		return 0;	/* refused: fine, as long as it did not crash */
	parses(p1.config, p1.config_len, "config.toml", in, len);
	if (p1.dropin)
		parses(p1.dropin, strlen(p1.dropin), "drop-in", in, len);
	check(install_strip(p1.config, p1.config_len, &back, &blen, &found, &rm, &err) == 0,
	      "uninstall refused what install wrote", in, len);
	check(blen == len && !memcmp(back, in, len), "uninstall did not give back the input", in, len);
	check(!rm, "uninstall would delete a file that existed", in, len);
	free(back);
	check(install_containerd_config(p1.config, p1.config_len, &o, &p2, &err) == 0,
	      "a second install refused what the first wrote", in, len);
	check(p2.config_len == p1.config_len && !memcmp(p2.config, p1.config, p1.config_len),
	      "a second install changed the config", in, len);
	check((!p1.dropin && !p2.dropin) || (p1.dropin && p2.dropin && !strcmp(p1.dropin, p2.dropin)),
	      "a second install changed the drop-in", in, len);
	ctrd_plan_free(&p1);
	ctrd_plan_free(&p2);
	return 0;
}
