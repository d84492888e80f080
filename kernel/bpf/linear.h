/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The linear cost model of block/blk-ioweight.c, computed the same way and
 * in the same unit (vtime: 1/16 ns) so that a program built on it charges
 * what the kernel would: a base cost per IO, sequential or random, plus a
 * cost per sector.  The six figures are those of io.weight.cost_model;
 * ioweight-bpf --model copies the device's into the program's read-only
 * data before loading it.
 */
#ifndef IOWEIGHT_LINEAR_H
#define IOWEIGHT_LINEAR_H

#include "io_cost.h"

#define VTIME_PER_NSEC		16ULL
#define VTIME_PER_SEC		(VTIME_PER_NSEC * 1000000000ULL)
/* an IO within 2 MiB of the end of the previous one is sequential */
#define SEQ_WINDOW_SECTORS	((2ULL << 20) >> 9)
/* the iops figures are for 4 KiB IOs */
#define MODEL_IO_SECTORS	8

/* defaults: the kernel's hdd parameter set */
const volatile __u64 rbps = 160ULL << 20;
const volatile __u64 rseqiops = 1400;
const volatile __u64 rrandiops = 180;
const volatile __u64 wbps = 150ULL << 20;
const volatile __u64 wseqiops = 1400;
const volatile __u64 wrandiops = 260;

static __always_inline __u64 rate_to_cost(__u64 per_sec)
{
	if (!per_sec)
		per_sec = 1;
	return (VTIME_PER_SEC + per_sec - 1) / per_sec;
}

/* cost of the IO in @ctx by the linear model, in vtime units; 0 if none */
static __always_inline __u64 linear_cost_vtime(struct bpf_io_cost *ctx)
{
	__u64 bps, seqiops, randiops, sector, xfer, base, dist;

	switch (ctx->opf & REQ_OP_MASK) {
	case REQ_OP_READ:
		bps = rbps;
		seqiops = rseqiops;
		randiops = rrandiops;
		break;
	case REQ_OP_WRITE:
		bps = wbps;
		seqiops = wseqiops;
		randiops = wrandiops;
		break;
	default:
		return 0;
	}

	sector = rate_to_cost(bps >> 9);
	xfer = sector * MODEL_IO_SECTORS;
	if (ctx->is_merge)
		return ctx->nr_sectors * sector;

	dist = ctx->sector > ctx->last_sector ?
	       ctx->sector - ctx->last_sector : ctx->last_sector - ctx->sector;
	if (ctx->last_sector && dist <= SEQ_WINDOW_SECTORS)
		base = rate_to_cost(seqiops);
	else
		base = rate_to_cost(randiops);
	base = base > xfer ? base - xfer : 0;
	return ctx->nr_sectors * sector + base;
}

#endif
