#!/usr/bin/python3
"""The benchmark's plan, its resumable state, and how long the rest will take.

usage: bench/plan.py plan   --mode full|quick --dir DIR [SELECTION]
       bench/plan.py status --mode full|quick --dir DIR [SELECTION]
       bench/plan.py next   --dir DIR [--budget-left SECONDS]
       bench/plan.py after  --dir DIR --kernel K --boot ID --offset BYTES --rc RC
       bench/plan.py estimate --mode full|quick [SELECTION]
SELECTION: [--devices a,b] [--controllers a,b] [--repeat N] [--combos HI+LO,..]
           [--kernels-dir build]

A run directory DIR is the state of one benchmark run. `plan` writes
DIR/plan.json: every cell of the run in the order to measure it, each with a
key

    <method id>/<kernel>@<bzImage sha256, 12 hex>/<device>/<ctrl>/<hi>+<lo>/r<rep>

(overhead cells: .../<ctrl>/overhead/r<rep>). The method id is PLAN_VERSION
plus a hash of everything that shapes a measurement (window, ramp, devices,
fio settings), so a cell is done when DIR holds a result record with its key
— measured with this method on this exact kernel. A rebuilt kernel or a
changed method makes the old records stale: they stay in DIR, are ignored,
and the cells are measured again. `plan` copies each bzImage to
DIR/kernels/<kernel>-<sha>.bzImage and the guests boot the copy, so a kernel
rebuilt mid-run cannot slip in under the old key.

The guest driver (bench/guest/driver.py) appends a "start" record before a
cell and the cell's record after it to DIR/<kernel>.jsonl, so a cell cut off
by a killed run has a start and no result: it is simply measured again.
`after` checks a finished boot: a cell the guest died in (the boot failed) is
noted in DIR/host.jsonl, and after CUT_LIMIT such boots it is recorded as a
failed cell, so one crashing cell cannot stall the run.

`next` picks the next boot: the first remaining cell's kernel and every
remaining cell after it on the same kernel up to the first one on another
kernel; it writes DIR/boot-plan-<kernel>.json for the driver and prints
  BOOT <kernel> <bzImage> <cells> <est seconds> <vm timeout> <boot id> <disk args...>
or DONE, BLOCKED <cells> (only cells on a missing kernel remain) or
BUDGET <cells> <est seconds> (the next boot does not fit the budget).

Order of cells: for each repeat, for each kernel (baseline first on even
repeats, ioweight first on odd ones, so drifts of the host spread over both
kernels), for each device, for each controller, for each combination. A boot
is one (repeat, kernel) block unless a budget stop splits it.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import statistics
import sys
import time

# Bump when the guest driver changes how a cell is measured in a way the
# method hash below does not see: every earlier record becomes stale.
PLAN_VERSION = 2

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
# controller is normalised to the solo throughput of "none" on its own kernel.
KERNEL_OF = {"none": None, "iocost": "baseline", "iocost-tuned": "baseline",
             "bfq": "baseline", "ioweight": "ioweight", "ioweight-tuned": "ioweight"}
ALL_CONTROLLERS = ["none", "iocost", "iocost-tuned", "bfq", "ioweight", "ioweight-tuned"]
KERNELS = ["baseline", "ioweight"]

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
# What shapes one measurement besides the mode's window: part of the method id.
MEASURE = {"iodepth": 64, "memory_max": 128 << 20, "cpu_flag": 0.70,
           # fio is stopped (SIGINT) as soon as the io.stat window closes;
           # its own window [start + ramp, stop] still covers ours
           "fio_stop": "sigint-after-window",
           # the ramp starts when every group's io.stat has moved (fio takes
           # 1-5 s to start under TCG), not at a fixed second after fio starts
           "window_start": "io-start+ramp", "io_start_timeout": 20,
           # raw-device jobs do not BLKFLSBUF (sync) the writer's filesystem
           "fio_invalidate": 0,
           # overhead: besides the on and off cells, each controller's cell
           # switches it off and on in ABBA order under one fio job
           # (segments of 2 s after 0.5 s to settle): the ratio reported
           "overhead": "interleaved-abba", "overhead_segments": 8,
           "overhead_segment_s": 2.0, "overhead_settle_s": 0.5}

# Time model, seconds. Per cell beyond ramp + window: fio start-up under TCG
# (1-5 s to its first IO, ~3 typical), its exit, sync and drop_caches; per boot: QEMU start, kernel boot,
# cgroups, shutdown; per device and boot: null_blk/mkfs/mount; a calibration
# is 6 fio runs. Measured cell times replace CELL once DIR has some.
CELL_OVERHEAD_S, BOOT_S, DEVICE_SETUP_S, CALIB_OVERHEAD_S = 5, 45, 10, 5
SHUTDOWN_S = 20          # the driver keeps this much of a budget for teardown
CUT_LIMIT = 2            # boots a cell may kill before it is recorded as failed
SITTING_MIN = 170        # what --status plans a sitting of --budget with (3 h, minus slack)


def time_scale():
    """BENCH_TIME_SCALE shrinks every time constant (tests with a fake guest)."""
    return float(os.environ.get("BENCH_TIME_SCALE", "1"))


def consts(mode):
    s = time_scale()
    m = MODES[mode]
    return {"cell": (m["ramp"] + m["runtime"] + CELL_OVERHEAD_S) * s,
            "boot": BOOT_S * s, "setup": DEVICE_SETUP_S * s,
            "calib": 6 * (m["calib_runtime"] + 1 + CALIB_OVERHEAD_S) * s,
            "shutdown": SHUTDOWN_S * s}


def method(mode):
    m = MODES[mode]
    return {"plan_version": PLAN_VERSION, "runtime": m["runtime"], "ramp": m["ramp"],
            "calib_runtime": m["calib_runtime"], "devices": DEVICES, **MEASURE}


def method_id(mode):
    h = hashlib.sha256(json.dumps(method(mode), sort_keys=True).encode()).hexdigest()
    return f"v{PLAN_VERSION}-{h[:8]}"


def fmt_s(s):
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 60} min {s % 60:02d} s"


# --- the plan -----------------------------------------------------------------

def bz_path(kdir, k):
    return os.path.join(kdir, f"kernel-{k}", "arch", "x86", "boot", "bzImage")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def kernel_info(kdir, kernels):
    out = {}
    for k in kernels:
        p = bz_path(kdir, k)
        if os.path.isfile(p):
            out[k] = {"source": p, "sha": sha256(p)[:12], "mtime": os.path.getmtime(p)}
        else:
            out[k] = {"source": p, "sha": None}
    return out


def selection(args):
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
    if repeat < 1:
        sys.exit("plan: --repeat must be at least 1")
    return repeat, devices, ctrls


def combos_of(args):
    """The mode's combinations, or those of --combos HI+LO,... with the solo
    of every workload in them (each group's throughput is normalised to its
    solo): a narrowed run to look at a few pairs."""
    mode = MODES[args.mode]
    if not getattr(args, "combos", None):
        return mode["combos"]
    want = []
    for item in args.combos.split(","):
        parts = item.split("+")
        if len(parts) != 2 or parts[0] not in WORKLOADS or \
                parts[1] not in WORKLOADS + ["none"]:
            sys.exit(f"plan: --combos takes HI+LO pairs of {', '.join(WORKLOADS)} "
                     f"(LO may be none), not '{item}'")
        want.append([parts[0], None if parts[1] == "none" else parts[1]])
    solos = {w for pair in want for w in pair if w}
    return [c for c in ALL_COMBOS if c in want or (c[1] is None and c[0] in solos)]


def build_cells(mode_name, repeat, devices, ctrls, kinfo, combos):
    """Every cell of the run, in measuring order, with its key."""
    mid = method_id(mode_name)
    kernels = [k for k in KERNELS if any(KERNEL_OF[c] == k for c in ctrls)]
    if not kernels and "none" in ctrls:
        kernels = ["baseline"]
    # "none" is measured in full on the first kernel (upstream's, when it is
    # in the run); the other kernel runs its solos only, as its own
    # normalisation reference
    full_none = kernels[0] if kernels else None
    cells = []
    for rep in range(repeat):
        for k in (kernels if rep % 2 == 0 else kernels[::-1]):
            sha = kinfo[k]["sha"] or "missing"
            mine = [c for c in ctrls if KERNEL_OF[c] == k]
            if "none" in ctrls:
                mine = ["none"] + mine
            for dname in devices:
                base = f"{mid}/{k}@{sha}/{dname}"
                if DEVICES[dname].get("overhead_only"):
                    ovh = [c for c in mine if not c.endswith("-tuned")]
                    if "none" not in ovh:
                        ovh = ["none"] + ovh   # the "off" the ratio needs
                    for c in ovh:
                        cells.append({"kind": "overhead", "kernel": k, "device": dname,
                                      "ctrl": c, "rep": rep,
                                      "key": f"{base}/{c}/overhead/r{rep}"})
                    continue
                for c in mine:
                    for hi, lo in combos:
                        if c == "none" and k != full_none and lo is not None:
                            continue
                        cells.append({"kind": "cell", "kernel": k, "device": dname,
                                      "ctrl": c, "hi": hi, "lo": lo, "rep": rep,
                                      "key": f"{base}/{c}/{hi}+{lo or 'none'}/r{rep}"})
    return cells


# --- the state ------------------------------------------------------------------

def read_jsonl(path, offset=0):
    recs = []
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return recs
    for line in data.decode(errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            pass    # a line cut off by a killed guest
    return recs


def load_records(d):
    recs = []
    for p in sorted(glob.glob(os.path.join(d, "*.jsonl"))):
        if os.path.basename(p) != "invocations.jsonl":
            recs += read_jsonl(p)
    return recs


def results_by_key(recs):
    """The last result record per key (cell or overhead, failed ones too)."""
    out = {}
    for r in recs:
        if r.get("key") and r.get("kind") in ("cell", "overhead"):
            out[r["key"]] = r
    return out


def cell_time(recs, mode, mid):
    """Seconds per cell: the median of this method's last 60 measured cells,
    or the model's figure when fewer than 3 exist."""
    xs = [r["cell_seconds"] for r in recs
          if r.get("kind") in ("cell", "overhead") and r.get("cell_seconds")
          and str(r.get("key", "")).startswith(mid + "/") and not r.get("errors")]
    xs = xs[-60:]
    if len(xs) >= 3:
        return statistics.median(xs), f"median of {len(xs)} measured cells"
    return consts(mode)["cell"], "model"


def calibrated(d):
    return {os.path.basename(p)[len("calibration-"):-len(".json")]
            for p in glob.glob(os.path.join(d, "calibration-*.json"))}


def split_boots(cells):
    """Consecutive runs of cells on one kernel: one boot each."""
    boots = []
    for c in cells:
        if boots and boots[-1][0] == c["kernel"]:
            boots[-1][1].append(c)
        else:
            boots.append((c["kernel"], [c]))
    return boots


def boot_cost(cells, per_cell, k, calib_done):
    """Seconds for one boot of these cells; adds the devices it calibrates."""
    devs = []
    for c in cells:
        if c["device"] not in devs:
            devs.append(c["device"])
    s = k["boot"] + len(cells) * per_cell + len(devs) * k["setup"]
    for dv in devs:
        if DEVICES[dv].get("calibrate") and dv not in calib_done:
            s += k["calib"]
            calib_done.add(dv)
    return s


def remaining_estimate(cells, per_cell, k, calib_done):
    calib_done = set(calib_done)
    boots = split_boots(cells)
    return sum(boot_cost(b, per_cell, k, calib_done) for _, b in boots), len(boots)


class State:
    def __init__(self, d, plan):
        self.dir, self.plan = d, plan
        self.recs = load_records(d)
        self.res = results_by_key(self.recs)
        self.cells = plan["cells"]
        self.present = {k for k, v in plan["kernels"].items() if v.get("sha")}
        self.done = [c for c in self.cells if c["key"] in self.res]
        self.todo = [c for c in self.cells if c["key"] not in self.res]
        self.runnable = [c for c in self.todo if c["kernel"] in self.present]
        self.blocked = [c for c in self.todo if c["kernel"] not in self.present]
        self.failed = [c for c in self.done if self.res[c["key"]].get("errors")]
        keys = {c["key"] for c in self.cells}
        self.stale = [r for r in self.res.values() if r["key"] not in keys]
        self.k = consts(plan["mode"])
        self.per_cell, self.per_cell_src = cell_time(self.recs, plan["mode"], plan["method_id"])
        self.calib = calibrated(d)
        started = {r["key"] for r in self.recs if r.get("kind") == "start"}
        self.cut = [c for c in self.todo if c["key"] in started]

    def eta(self, cells=None):
        return remaining_estimate(self.runnable if cells is None else cells,
                                  self.per_cell, self.k, self.calib)


# --- commands ---------------------------------------------------------------------

def make_plan(args, write):
    repeat, devices, ctrls = selection(args)
    needed = [k for k in KERNELS if any(KERNEL_OF[c] == k for c in ctrls)] or ["baseline"]
    kinfo = kernel_info(args.kernels_dir, needed)
    cells = build_cells(args.mode, repeat, devices, ctrls, kinfo, combos_of(args))
    plan = {"mode": args.mode, "method_id": method_id(args.mode), "method": method(args.mode),
            "repeat": repeat, "devices": devices, "controllers": ctrls,
            "kernels": kinfo, "cells": cells, "total_cells": len(cells),
            "plan_version": PLAN_VERSION}
    old = {}
    try:
        with open(os.path.join(args.dir, "plan.json")) as f:
            old = json.load(f)
    except (OSError, ValueError):
        pass
    plan["created"] = old.get("created") or time.strftime("%Y-%m-%dT%H:%M:%S%z")
    plan["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    full_k = consts(args.mode)
    plan["est_seconds"] = remaining_estimate(cells, full_k["cell"], full_k, set())[0]
    if write:
        os.makedirs(os.path.join(args.dir, "kernels"), exist_ok=True)
        for k, v in kinfo.items():
            if not v["sha"]:
                continue
            dst = os.path.join(args.dir, "kernels", f"{k}-{v['sha']}.bzImage")
            if not os.path.exists(dst):
                tmp = dst + ".tmp"
                shutil.copyfile(v["source"], tmp)
                if sha256(tmp)[:12] != v["sha"]:
                    os.unlink(tmp)
                    sys.exit(f"plan: {v['source']} changed while copying it "
                             "(a kernel build running?); try again")
                os.replace(tmp, dst)
            v["bzImage"] = dst
            # older copies of this kernel are no longer booted
            for p in glob.glob(os.path.join(args.dir, "kernels", f"{k}-*.bzImage")):
                if p != dst:
                    os.unlink(p)
        tmp = os.path.join(args.dir, "plan.json.tmp")
        with open(tmp, "w") as f:
            json.dump(plan, f, indent=1)
        os.replace(tmp, os.path.join(args.dir, "plan.json"))
    return plan


def load_plan(d):
    with open(os.path.join(d, "plan.json")) as f:
        return json.load(f)


def stale_notes(st, plan):
    """Results of this method that the current kernels do not match, per
    kernel build: after a rebuild this says at once that a
    bzImage is not byte-identical to the one the results were measured on."""
    stale = {}
    for r in st.stale:
        parts = r["key"].split("/")
        if len(parts) > 1 and parts[0] == plan["method_id"]:
            stale[parts[1]] = stale.get(parts[1], 0) + 1
    out = []
    for kern, n in sorted(stale.items()):
        k = kern.split("@")[0]
        if k not in plan["kernels"]:
            continue    # a narrowed run that leaves this kernel out
        now = plan["kernels"][k].get("sha")
        if now and kern == f"{k}@{now}":
            # the kernel is right: the cells are ones this plan leaves out
            why = ("this plan has no such cells (e.g. the whole 'none' matrix "
                   "measured on this kernel by a narrowed run)")
        elif now:
            why = f"the {k} bzImage is now {now} (a different source, config or toolchain)"
        else:
            why = f"no {k} bzImage yet (make kernel KVARIANT={k})"
        out.append(f"{n} results of {kern} are not counted: {why}")
    return out


def cmd_plan(args):
    plan = make_plan(args, write=True)
    st = State(args.dir, plan)
    for k, v in plan["kernels"].items():
        if not v["sha"]:
            n = sum(1 for c in plan["cells"] if c["kernel"] == k)
            print(f"NOTE no {k} kernel ({v['source']}): its {n} cells wait for it "
                  f"(make kernel KVARIANT={k})")
    for line in stale_notes(st, plan):
        print(f"NOTE {line}")
    eta, nboots = st.eta()
    print(f"PLAN {plan['total_cells']} {len(st.done)} {len(st.runnable)} {len(st.blocked)} "
          f"{int(eta)} {nboots} {int(plan['est_seconds'])}")


def cmd_estimate(args):
    repeat, devices, ctrls = selection(args)
    kinfo = {k: {"sha": "x"} for k in KERNELS}
    cells = build_cells(args.mode, repeat, devices, ctrls, kinfo, combos_of(args))
    k = consts(args.mode)
    est, nboots = remaining_estimate(cells, k["cell"], k, set())
    print(f"ESTIMATE {len(cells)} {int(est)} {nboots}")


def cmd_status(args):
    if not os.path.exists(os.path.join(args.dir, "plan.json")) and not os.path.isdir(args.dir):
        print(f"status: {args.dir} does not exist yet: nothing measured")
    plan = make_plan(args, write=False)
    st = State(args.dir, plan)
    total = plan["total_cells"]
    print(f"run dir {args.dir}: {plan['mode']}, method {plan['method_id']}, "
          f"{plan['repeat']} repeats, devices {','.join(plan['devices'])}")
    for k, v in plan["kernels"].items():
        print(f"  kernel {k}: " + (f"bzImage sha {v['sha']}" if v["sha"]
                                   else f"MISSING ({v['source']})"))
    print(f"cells: {len(st.done)} of {total} done ({len(st.failed)} of them failed), "
          f"{len(st.runnable)} to run, {len(st.blocked)} waiting for a missing kernel")
    by = {}
    for c in plan["cells"]:
        b = by.setdefault((c["kernel"], c["device"]), [0, 0])
        b[0] += c["key"] in st.res
        b[1] += 1
    for (kk, dv), (dn, n) in by.items():
        print(f"  {kk:9} {dv:14} {dn:4}/{n}")
    if st.cut:
        print(f"cut off mid-cell earlier (measured again next time): "
              f"{', '.join(c['key'].split('/', 2)[2] for c in st.cut[:5])}")
    if st.stale:
        print(f"ignored: {len(st.stale)} results of an older kernel build or method")
        for line in stale_notes(st, plan):
            print(f"  {line}")
    print(f"calibrated devices: {', '.join(sorted(st.calib)) or 'none yet'}")
    if st.runnable:
        eta, nboots = st.eta()
        print(f"remaining: {len(st.runnable)} cells in {nboots} boot(s), ~{fmt_s(eta)} "
              f"({st.per_cell:.1f} s per cell: {st.per_cell_src}); at --budget {SITTING_MIN}: "
              f"{int(-(-eta // (SITTING_MIN * 60)))} invocation(s)")
        print(f"next: the same bench/run.sh --{plan['mode']} command with --budget MIN "
              f"(e.g. --budget {SITTING_MIN})")
    elif st.blocked:
        print("remaining: only cells on a missing kernel")
    else:
        print("complete: every cell is measured")
    for line in open_lines(os.path.join(args.dir, "invocations.jsonl"))[-3:]:
        try:
            s = json.loads(line)
            print(f"invocation {s.get('start_iso', '?')}: {s.get('cells', '?')} cells in "
                  f"{fmt_s(s.get('seconds', 0))}, ended: {s.get('ended', '?')}")
        except ValueError:
            pass


def open_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


def ensure_newline(path):
    """A guest killed mid-write leaves half a line: end it, so the next
    boot's first record starts a line of its own."""
    try:
        with open(path, "rb+") as f:
            f.seek(0, os.SEEK_END)
            if f.tell():
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    f.write(b"\n")
    except FileNotFoundError:
        pass


def cmd_next(args):
    plan = load_plan(args.dir)
    st = State(args.dir, plan)
    if not st.runnable:
        print(f"BLOCKED {len(st.blocked)}" if st.blocked else "DONE")
        return
    kernel, cells = split_boots(st.runnable)[0]
    k = st.k
    est = boot_cost(cells, st.per_cell, k, set(st.calib))
    first = boot_cost(cells[:1], st.per_cell, k, set(st.calib)) + k["shutdown"]
    budget = args.budget_left
    if budget is not None and budget < first:
        eta, _ = st.eta()
        print(f"BUDGET {len(st.runnable)} {int(eta)}")
        return
    boot_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{kernel}"
    after = st.runnable[len(cells):]
    plan_b = {
        "kernel": kernel, "kernel_sha": plan["kernels"][kernel]["sha"], "boot_id": boot_id,
        "method_id": plan["method_id"], "cells": cells,
        "devices": {d: DEVICES[d] for d in dict.fromkeys(c["device"] for c in cells)},
        "runtime": plan["method"]["runtime"], "ramp": plan["method"]["ramp"],
        "calib_runtime": plan["method"]["calib_runtime"],
        **{m: plan["method"][m] for m in MEASURE},
        "budget_s": budget, "sec_per_cell": st.per_cell,
        "setup_s": k["setup"], "calib_s": k["calib"], "shutdown_s": k["shutdown"],
        "boot_s": k["boot"], "model_cell_s": k["cell"],
        "done_before": len(st.done), "total_cells": plan["total_cells"],
        "eta_after_s": st.eta(after)[0],
    }
    ensure_newline(os.path.join(args.dir, f"{kernel}.jsonl"))
    path = os.path.join(args.dir, f"boot-plan-{kernel}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(plan_b, f, indent=1)
    os.replace(path + ".tmp", path)
    # the guest's hard limit: generous, but inside the budget
    timeout = int(est * 2 + 600)
    if budget is not None:
        timeout = int(min(timeout, budget + 120))
    disks = " ".join(f"--disk {DEVICES[d]['disk']}" for d in plan_b["devices"]
                     if "disk" in DEVICES[d])
    print(f"BOOT {kernel} {plan['kernels'][kernel]['bzImage']} {len(cells)} {int(est)} "
          f"{timeout} {boot_id} {disks}".rstrip())


def cmd_after(args):
    """Account for one finished boot. Exit 0: progress; 4: the driver stopped
    on the budget; 3: no progress at all (stop the run: it would loop)."""
    plan = load_plan(args.dir)
    new = [r for r in read_jsonl(os.path.join(args.dir, f"{args.kernel}.jsonl"), args.offset)
           if r.get("boot") == args.boot]
    finished = [r for r in new if r.get("kind") in ("cell", "overhead") and r.get("key")]
    fin_keys = {r["key"] for r in finished}
    started = [r["key"] for r in new if r.get("kind") == "start"]
    stopped = any(r.get("kind") == "stop" for r in new)
    failed = sum(1 for r in finished if r.get("errors"))
    cells = {c["key"]: c for c in plan["cells"]}
    progress = len(finished)
    host = os.path.join(args.dir, "host.jsonl")
    for key in [k for k in started if k not in fin_keys]:
        if args.rc == 0:
            continue
        ensure_newline(host)
        with open(host, "a") as f:
            f.write(json.dumps({"kind": "cut", "key": key, "rc": args.rc, "boot": args.boot,
                                "t": time.time()}, sort_keys=True) + "\n")
        cuts = [r for r in read_jsonl(host) if r.get("kind") == "cut" and r.get("key") == key]
        progress += 1
        print(f"after: the guest died (exit {args.rc}) during {key.split('/', 2)[2]} "
              f"({len(cuts)} time(s))")
        if len(cuts) >= CUT_LIMIT and key in cells:
            c = cells[key]
            with open(host, "a") as f:
                f.write(json.dumps({**c, "boot": args.boot, "t": time.time(),
                                    "errors": [f"the guest died during this cell in {len(cuts)} "
                                               f"boots (exit {', '.join(str(x['rc']) for x in cuts)}); "
                                               "recorded as failed"]},
                                   sort_keys=True) + "\n")
            print(f"after: recorded {key.split('/', 2)[2]} as failed")
    st = State(args.dir, plan)
    print(f"PROGRESS {len(finished)} {failed} {len(st.done)} {plan['total_cells']} "
          f"{len(st.runnable)} {int(st.eta()[0])}")
    if stopped:
        sys.exit(4)
    if not progress:
        sys.exit(3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("plan", "status", "estimate"):
        p = sub.add_parser(name)
        p.add_argument("--mode", choices=MODES, required=True)
        p.add_argument("--devices")
        p.add_argument("--controllers")
        p.add_argument("--repeat", type=int)
        p.add_argument("--combos")
        p.add_argument("--kernels-dir", default="build")
        if name != "estimate":
            p.add_argument("--dir", required=True)
    p = sub.add_parser("next")
    p.add_argument("--dir", required=True)
    p.add_argument("--budget-left", type=float)
    p = sub.add_parser("after")
    p.add_argument("--dir", required=True)
    p.add_argument("--kernel", required=True)
    p.add_argument("--boot", required=True)
    p.add_argument("--offset", type=int, required=True)
    p.add_argument("--rc", type=int, required=True)
    args = ap.parse_args()
    {"plan": cmd_plan, "status": cmd_status, "estimate": cmd_estimate,
     "next": cmd_next, "after": cmd_after}[args.cmd](args)


if __name__ == "__main__":
    main()
