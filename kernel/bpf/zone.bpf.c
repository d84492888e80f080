// SPDX-License-Identifier: GPL-2.0
/*
 * Cost by LBA zone, which the built-in model cannot express: IOs that
 * start in [zone_start, zone_end) (sectors) cost zone_pct percent of what
 * the linear model says.  Think of a disk whose inner tracks are slower,
 * a hybrid device with a slow tier, or a region that must be protected:
 * a cgroup working there gets fewer IOs for the same weight.
 *
 *   ioweight-bpf attach --model /dev/vdb zone.bpf.o \
 *           zone_start=1048576 zone_end=2097152 zone_pct=400
 */
#include "linear.h"

const volatile __u64 zone_start;
const volatile __u64 zone_end = ~0ULL;
const volatile __u64 zone_pct = 100;

SEC("io_cost")
int zone_cost(struct bpf_io_cost *ctx)
{
	__u64 cost = linear_cost_vtime(ctx);

	if (ctx->sector >= zone_start && ctx->sector < zone_end)
		cost = cost * zone_pct / 100;
	ctx->cost = cost / VTIME_PER_NSEC;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
