// SPDX-License-Identifier: GPL-2.0
/* must be rejected by the verifier: reads past the end of the context */
#include "../io_cost.h"

SEC("io_cost")
int read_past(struct bpf_io_cost *ctx)
{
	ctx->cost = *(volatile __u64 *)((char *)ctx + sizeof(*ctx));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
