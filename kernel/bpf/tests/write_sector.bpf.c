// SPDX-License-Identifier: GPL-2.0
/* must be rejected by the verifier: only cost is writable */
#include "../io_cost.h"

SEC("io_cost")
int write_sector(struct bpf_io_cost *ctx)
{
	ctx->sector = 0;
	ctx->cost = 1000;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
