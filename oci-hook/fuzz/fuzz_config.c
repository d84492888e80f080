// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_config.c - admin config JSON through the strict validator. */
#include <stdint.h>
#include <stdlib.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ioweight_config cfg;
	struct hook_err err = { 0 };

	if (size > MAX_CONFIG_BYTES)
		return 0;
	config_parse((const char *)data, size, "fuzz.json", &cfg, &err);
	return 0;
}
