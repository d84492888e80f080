// SPDX-License-Identifier: GPL-2.0
/* a valid program of another type: BLKBPFIOCOST must refuse it (EINVAL) */
#include "../io_cost.h"

SEC("socket")
int not_io_cost(void *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
