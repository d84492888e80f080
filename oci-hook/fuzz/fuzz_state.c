// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_state.c - OCI state JSON -> struct oci_state -> annotations -> request. */
#include <stdint.h>
#include <string.h>

#include "annotations.h"
#include "config.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ioweight_config cfg;
	struct oci_state st;
	struct hook_err err = { 0 };
	struct ann_values av;
	struct hook_request req;

	if (size > MAX_STATE_BYTES)
		return 0;
	config_default(&cfg);
	if (state_parse((const char *)data, size, &st, &err) < 0)
		return 0;
	if (annotations_parse(st.ann, st.n_ann, &av, &err) == 0) {
		request_build(&av, &cfg, true, &req, &err);
		request_build(&av, &cfg, false, &req, &err);
	}
	state_free(&st);
	return 0;
}
