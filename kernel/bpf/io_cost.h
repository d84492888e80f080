/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a BPF_PROG_TYPE_IO_COST program needs, without the kernel's uapi
 * headers: the host's predate the type.  Mirrors struct bpf_io_cost of
 * include/uapi/linux/bpf.h in the ioweight kernel series.
 */
#ifndef IOWEIGHT_IO_COST_H
#define IOWEIGHT_IO_COST_H

typedef unsigned char __u8;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef long long __s64;

struct bpf_io_cost {
	__u64	cost;		/* out: device time of the bio, in ns */
	__u32	opf;		/* bio->bi_opf: REQ_OP_* and REQ_* flags */
	__u32	nr_sectors;	/* size in 512 byte sectors */
	__u64	sector;		/* first sector */
	__u64	last_sector;	/* where the cgroup's previous IO ended, 0 if none */
	__u8	is_merge;	/* merged into a request already charged */
};

/* the low 8 bits of opf are the operation (include/linux/blk_types.h) */
#define REQ_OP_MASK	0xff
#define REQ_OP_READ	0
#define REQ_OP_WRITE	1

#define SEC(name) __attribute__((section(name), used))
#define __always_inline inline __attribute__((always_inline))

#endif
