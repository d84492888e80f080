// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_annotations.c - annotation values and keys straight into the parser
 * (no JSON layer), plus the cgroup path parsers that see runtime input.
 * Input: lines "key=value"; the first line is also fed to the cgroupsPath
 * and kubelet-pattern parsers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "cgroup.h"
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ioweight_config cfg;
	struct kv kv[64];
	size_t n = 0;
	char *buf, *line, *save = NULL;
	struct hook_err err = { 0 };
	struct ann_values av;
	struct hook_request req;
	char out[PATH_MAX];

	if (size > 65536)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	config_default(&cfg);
	cfg.min_weight = 10;
	cfg.max_weight = 1000;
	{
		size_t l = strcspn(buf, "\n");
		char first[512];

		if (l < sizeof(first)) {
			memcpy(first, buf, l);
			first[l] = '\0';
			cgroup_from_spec(first, out, sizeof(out), &err);
			cgroup_kubelet_pod(first, out, sizeof(out));
			cgroup_check_path(first, "fuzz", &err);
		}
	}
	for (line = strtok_r(buf, "\n", &save); line && n < 64; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		kv[n].key = line;
		kv[n++].value = eq + 1;
	}
	if (annotations_parse(kv, n, &av, &err) == 0) {
		request_build(&av, &cfg, true, &req, &err);
		request_build(&av, &cfg, false, &req, &err);
	}
	free(buf);
	return 0;
}
