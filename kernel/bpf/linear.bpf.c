// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in linear model of io.weight as a BPF_PROG_TYPE_IO_COST
 * program: with the device's figures (ioweight-bpf attach --model) it
 * charges every IO what the kernel's own model would, to the nanosecond.
 */
#include "linear.h"

SEC("io_cost")
int linear_cost(struct bpf_io_cost *ctx)
{
	ctx->cost = linear_cost_vtime(ctx) / VTIME_PER_NSEC;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
