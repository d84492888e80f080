#!/usr/bin/env python3
"""Build the benchmark's per-boot plans and estimate how long they take.

usage: bench/plan.py --mode full|quick --out RUNDIR [--devices a,b]
                     [--controllers a,b] [--repeat N] [--kernels-present a,b]

Writes RUNDIR/plan-<kernel>.json for each kernel variant to boot (the guest
driver, bench/guest/driver.py, runs one of them per boot) and RUNDIR/plan.json
(the whole run: modes, devices, order, the estimate). Prints one line per boot
"KERNEL CELLS SECONDS QEMU-DISK-ARGS" for bench/run.sh, and the estimate.
"""
import argparse
import json
import os
import sys
import time

WORKLOADS = ["randread", "seqread", "randwrite", "seqwrite"]
ALL_COMBOS = [[hi, lo] for hi in WORKLOADS for lo in [None] + WORKLOADS]
# --quick: three solos (needed to normalise) and three pairs that mix direct
# and buffered, read and write (seqwrite vs seqread is left out: with no
# control at all it already sits near 5/6, so it tells controllers apart
# least)
QUICK_COMBOS = [["randread", None], ["seqread", None], ["seqwrite", None],
                ["randread", "randread"], ["randread", "seqwrite"],
                ["seqread", "randread"]]

# Which kernel each controller needs. "none" runs on both kernels: every
# controller is normalised to the solo throughput of "none" on its own boot.
KERNEL_OF = {"none": None, "iocost": "baseline", "iocost-tuned": "baseline",
             "bfq": "baseline", "ioweight": "ioweight", "ioweight-tuned": "ioweight"}
ALL_CONTROLLERS = ["none", "iocost", "iocost-tuned", "bfq", "ioweight", "ioweight-tuned"]

# Emulated devices. "disk" is the vm/run.sh --disk spec (virtio, in order
# vdb, vdc...); null_blk devices are made through configfs in the guest.
# Random and seqread IO use raw regions past the ext4 filesystem the buffered
# writers need (cgroup writeback attribution needs a filesystem).
DEVICES = {
    "virtio": {
        "type": "virtio", "dev": "vdb", "disk": "size=2G,iops=1000,iops-size=4096",
        "capacity": "QEMU throttle, one bucket: throttling.iops-total=1000 with "
                    "iops-size=4096, so an IO of N bytes costs ceil(N/4096) of "
                    "1000 tokens/s: 1000 IOPS of 4 KiB = 4.1 MB/s at any IO size",
        "rotational": 0, "calibrate": True, "fs_size": "768M",
        "raw_offset": "1G", "region": "512M", "sw_size": "256M",
        # about two seconds of device time in dirty pages
        "dirty_bytes": 8 << 20, "dirty_background_bytes": 4 << 20,
    },
    "nullb": {
        "type": "nullb",
        "nullb": {"size": 1280, "memory_backed": 1, "irqmode": 2,
                  "completion_nsec": 4000000, "hw_queue_depth": 2,
                  "submit_queues": 1, "blocksize": 4096},
        "capacity": "null_blk, memory-backed, timer completions after 4 ms, "
                    "2 tags, one queue: at most 500 requests/s of up to 16 KiB "
                    "(max_sectors_kb=16) — a per-request cost, not a per-byte "
                    "one; see the calibration for what was measured",
        "max_sectors_kb": 16, "rotational": 0, "calibrate": True,
        # memory-backed for the filesystem the buffered writers need: each
        # group writes its own file (own inode, own writeback owner); on the
        # raw device both would share the block device's one inode
        "fs_size": "512M", "raw_offset": "512M", "region": "384M", "sw_size": "192M",
        "dirty_bytes": 16 << 20, "dirty_background_bytes": 8 << 20,
    },
    # CPU overhead: no delay at all, the guest CPU is the bottleneck
    "nullb-nodelay": {
        "type": "nullb",
        "nullb": {"size": 1024, "memory_backed": 0, "irqmode": 0,
                  "hw_queue_depth": 64, "submit_queues": 1, "blocksize": 4096},
        "capacity": "null_blk, no delay (irqmode=0): CPU-bound, for overhead",
        "rotational": 0, "raw_offset": "0", "region": "512M", "overhead_only": True,
    },
}

MODES = {
    "full": {"runtime": 12, "ramp": 3, "repeat": 3, "calib_runtime": 6,
             "devices": ["virtio", "nullb", "nullb-nodelay"], "combos": ALL_COMBOS},
    "quick": {"runtime": 5, "ramp": 2, "repeat": 1, "calib_runtime": 2,
              "devices": ["virtio", "nullb-nodelay"], "combos": QUICK_COMBOS},
}
# measured per-cell cost beyond ramp + window (fio start/exit under TCG,
# sync, drop_caches), per boot (boot, cgroups) and per calibration
CELL_OVERHEAD_S, BOOT_S, CALIB_OVERHEAD_S = 6, 45, 5
DEVICE_SETUP_S = 10


def build(args):
    mode = MODES[args.mode]
    repeat = args.repeat or mode["repeat"]
    devices = args.devices.split(",") if args.devices else mode["devices"]
    ctrls = args.controllers.split(",") if args.controllers else ALL_CONTROLLERS
    for c in ctrls:
        if c not in KERNEL_OF:
            sys.exit(f"plan: unknown controller {c} (one of {', '.join(ALL_CONTROLLERS)})")
    for d in devices:
        if d not in DEVICES:
            sys.exit(f"plan: unknown device {d} (one of {', '.join(DEVICES)})")
    present = set(args.kernels_present.split(",")) if args.kernels_present else {"baseline", "ioweight"}
    kernels = []
    for k in ("baseline", "ioweight"):
        if any(KERNEL_OF[c] == k for c in ctrls):
            if k in present:
                kernels.append(k)
            else:
                print(f"plan: no {k} kernel: skipping "
                      f"{', '.join(c for c in ctrls if KERNEL_OF[c] == k)}", file=sys.stderr)
    if not kernels and "none" in ctrls:
        kernels = [k for k in ("baseline", "ioweight") if k in present][:1]
    cell_s = mode["ramp"] + mode["runtime"] + CELL_OVERHEAD_S
    boots = []
    for k in kernels:
        mine = [c for c in ctrls if KERNEL_OF[c] == k]
        # "none" is measured in full on the first kernel booted; the other
        # boots run its solos only (their own normalisation reference)
        full_none = "none" in ctrls and k == kernels[0]
        cells, calib = [], 0
        for dname in devices:
            dev = DEVICES[dname]
            if dev.get("overhead_only"):
                for rep in range(repeat):
                    for c in ["none"] + [c for c in mine if not c.endswith("-tuned")]:
                        cells.append({"kind": "overhead", "device": dname, "ctrl": c, "rep": rep})
                continue
            if dev.get("calibrate"):
                calib += 1
            for rep in range(repeat):
                for c in ["none"] + mine:
                    for hi, lo in mode["combos"]:
                        if c == "none" and not full_none and lo is not None:
                            continue
                        cells.append({"kind": "cell", "device": dname, "ctrl": c,
                                      "hi": hi, "lo": lo, "rep": rep})
        secs = (BOOT_S + len(cells) * cell_s
                + calib * 6 * (mode["calib_runtime"] + 1 + CALIB_OVERHEAD_S)
                + len(devices) * DEVICE_SETUP_S)
        boots.append({"kernel": k, "cells": cells, "est_seconds": secs})
    used = [d for d in devices]
    return mode, repeat, used, boots, cell_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=MODES, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--devices")
    ap.add_argument("--controllers")
    ap.add_argument("--repeat", type=int)
    ap.add_argument("--kernels-present")
    ap.add_argument("--estimate-only", action="store_true")
    args = ap.parse_args()
    mode, repeat, devices, boots, cell_s = build(args)
    total = sum(len(b["cells"]) for b in boots)
    est = sum(b["est_seconds"] for b in boots)
    os.makedirs(args.out, exist_ok=True)
    done, elapsed = 0, 0
    for b in boots:
        plan = {
            "kernel": b["kernel"], "cells": b["cells"],
            "devices": {d: DEVICES[d] for d in devices},
            "runtime": mode["runtime"], "ramp": mode["ramp"], "iodepth": 64,
            "calib_runtime": mode["calib_runtime"], "memory_max": 128 << 20,
            "cpu_flag": 0.70, "done_before": done, "elapsed_before": elapsed,
            "total_cells": total, "sec_per_cell": cell_s,
        }
        with open(f"{args.out}/plan-{b['kernel']}.json", "w") as f:
            json.dump(plan, f, indent=1)
        done += len(b["cells"])
        elapsed += b["est_seconds"]
        disks = " ".join(f"--disk {DEVICES[d]['disk']}" for d in devices if "disk" in DEVICES[d])
        print(f"BOOT {b['kernel']} {len(b['cells'])} {b['est_seconds']} {disks}")
    with open(f"{args.out}/plan.json", "w") as f:
        json.dump({"mode": args.mode, "repeat": repeat, "devices": devices,
                   "boots": [{"kernel": b["kernel"], "cells": len(b["cells"]),
                              "est_seconds": b["est_seconds"]} for b in boots],
                   "total_cells": total, "est_seconds": est,
                   "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, f, indent=1)
    print(f"ESTIMATE {total} {est}")


if __name__ == "__main__":
    main()
