#!/usr/bin/env python3
"""Guest side of the benchmark: runs a list of cells in one boot.

Started by bench/run.sh through vm/run.sh with a plan (JSON) the host wrote
into the run directory; appends one JSON object per line to the output file as
each step ends, so a run cut short keeps what it measured.

The plan names devices (how to create and shape each one), and cells in the
order to run them:
  {"kind": "cell", "device": D, "ctrl": C, "hi": W, "lo": W|null, "rep": N}
  {"kind": "overhead", "device": D, "ctrl": C, "rep": N}
Controllers C: none, iocost, iocost-tuned, bfq, ioweight, ioweight-tuned.
Workloads W: randread, randwrite (direct, libaio, depth 64, 4 KiB, raw
device region), seqread (buffered, 128 KiB reads, raw device region, the
group's memory.max caps its page cache), seqwrite (buffered, 128 KiB writes
to the group's own file on ext4; vm.dirty_bytes bounds what the page cache
absorbs).

Per cell: drop caches, start one fio per group in its cgroup, wait until
every group has submitted IO, wait the ramp, snapshot io.stat and
/proc/stat, wait the window, snapshot again, stop fio (SIGINT) and collect
its JSON. Device bytes per cgroup come from the io.stat deltas over the
window, fio's own figures are kept beside them.

Resumable runs (bench/plan.py): each cell carries a key; the driver appends a
"start" record before a cell and the result, with the key and the cell's
wall time, after it. With plan["budget_s"] it stops cleanly before a cell
that would not end in time (a "stop" record). A device's calibration is
measured once per run directory and kept in calibration-<device>.json next
to the plan; every later boot, on either kernel, loads it, so both tuned
controllers get the same lines.

usage: driver.py [--fake] PLAN OUT
--fake runs on the host with stub devices and fake figures (tests of the
harness only: records say "fake": true).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

CG = "/sys/fs/cgroup"
BENCH_CG = CG + "/bench"
GROUPS = {"hi": 500, "lo": 100}
WORKLOADS = ("randread", "randwrite", "seqread", "seqwrite")
TOP = "/ioweight"


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def rd(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        if default is not None:
            return default
        raise


def wr(path, value):
    """One unbuffered write, so the kernel's error reaches us."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, str(value).encode())
    except OSError as e:
        raise OSError(e.errno, f"cannot write `{value}` to {path}: {e.strerror}")
    finally:
        os.close(fd)


def try_wr(path, value, notes):
    try:
        wr(path, value)
        return True
    except OSError as e:
        notes.append(str(e))
        return False


def run(cmd, timeout, **kw):
    return subprocess.run(cmd, timeout=timeout, check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def size_bytes(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", str(s))
    if not m:
        raise ValueError(f"bad size {s!r}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


# --- snapshots ------------------------------------------------------------

def cpu_times():
    """Aggregate /proc/stat cpu line: (busy, total) jiffies."""
    f = [int(x) for x in rd("/proc/stat").splitlines()[0].split()[1:]]
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    total = sum(f[:8])
    return total - idle, total


def io_stat(cg, devno):
    """Numeric keys of cg's io.stat line for devno (controller keys too)."""
    for line in rd(cg + "/io.stat", "").splitlines():
        parts = line.split()
        if parts and parts[0] == devno:
            out = {}
            for kv in parts[1:]:
                k, _, v = kv.partition("=")
                try:
                    out[k] = float(v) if "." in v else int(v)
                except ValueError:
                    pass
            return out
    return {}


def iostat_bytes(cg, devno):
    s = io_stat(cg, devno)
    return s.get("rbytes", 0) + s.get("wbytes", 0)


def wait_io_start(readers, timeout, poll=0.05, clock=time.monotonic, sleep=time.sleep):
    """Seconds until each group's byte counter first moved (None: not within
    timeout). readers: {group: function returning the group's bytes}."""
    t0 = clock()
    base = {g: f() for g, f in readers.items()}
    seen = {g: None for g in readers}
    while True:
        now = clock() - t0
        for g, f in readers.items():
            if seen[g] is None and f() > base[g]:
                seen[g] = round(now, 2)
        if None not in seen.values() or now >= timeout:
            return seen
        sleep(poll)


def writeback_bytes(cg):
    """Bytes of cg's pages under writeback: submitted, not yet completed."""
    for line in rd(cg + "/memory.stat", "").splitlines():
        k, _, v = line.partition(" ")
        if k == "file_writeback":
            return int(v)
    return 0


def disk_stat(d):
    """Completed bytes read and written by the whole device (/sys/block/X/stat)."""
    f = [int(x) for x in rd(d.sys + "/stat").split()]
    return {"read": f[2] * 512, "write": f[6] * 512}


def delta(a, b):
    return {k: b[k] - a.get(k, 0) for k in b if isinstance(b[k], (int, float))}


# --- devices --------------------------------------------------------------

class Device:
    def __init__(self, name, spec, plan):
        self.name, self.spec, self.plan = name, spec, plan
        self.notes = []
        self.mnt = None
        self.calib = None
        if spec["type"] == "virtio":
            self.dev = spec["dev"]
        elif spec["type"] == "nullb":
            self.dev = self._make_nullb(spec["nullb"])
        else:
            raise ValueError(f"device {name}: unknown type {spec['type']}")
        self.sys = f"/sys/block/{self.dev}"
        self.devno = rd(self.sys + "/dev")
        q = self.sys + "/queue/"
        wr(q + "rotational", spec.get("rotational", 0))
        if "max_sectors_kb" in spec:
            wr(q + "max_sectors_kb", spec["max_sectors_kb"])
        wr(q + "scheduler", "none")
        self.queue = {k: rd(q + k, "?") for k in (
            "rotational", "nr_requests", "max_sectors_kb", "max_hw_sectors_kb",
            "scheduler", "nomerges", "read_ahead_kb", "logical_block_size")}
        self.queue["size_bytes"] = int(rd(self.sys + "/size")) * 512

    def _make_nullb(self, attrs):
        # 6.1 names the disk after the configfs directory
        d = f"/sys/kernel/config/nullb/{self.name}"
        os.mkdir(d)
        for k, v in attrs.items():
            wr(f"{d}/{k}", v)
        wr(f"{d}/power", 1)
        for _ in range(50):
            if os.path.exists(f"/sys/block/{self.name}/dev"):
                return self.name
            time.sleep(0.1)
        raise RuntimeError(f"null_blk {self.name}: no /sys/block/{self.name} after power=1")

    def calibrate(self, runtime):
        log(f"{self.name}: calibrating /dev/{self.dev} ({6 * (runtime + 3)}s)")
        r = run([f"{TOP}/bench/calibrate.sh", "--yes", "--runtime", str(runtime),
                 f"/dev/{self.dev}"], timeout=6 * (runtime + 120))
        lines = dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)
        self.calib = {
            "model": lines["io.weight.cost_model"].split(" ", 1)[1],
            "iocost_model": lines["io.cost.model"].split(" ", 1)[1],
            "qos": lines["qos"].split(" ", 1)[1],
            "log": r.stderr.splitlines(),
        }
        log(f"{self.name}: model {self.calib['model']}; qos {self.calib['qos']}")

    def make_fs(self):
        fs = self.spec["fs_size"]
        self.mnt = f"/mnt/bench-{self.name}"
        os.makedirs(self.mnt, exist_ok=True)
        # few inodes, no lazy inode-table init thread: no background IO later
        run(["mkfs.ext4", "-q", "-F", "-N", "1024", "-J", "size=16",
             "-E", "nodiscard", f"/dev/{self.dev}", fs], timeout=300)
        run(["mount", "-o", "noinit_itable", f"/dev/{self.dev}", self.mnt],
            timeout=120)

    def region(self, group):
        """Raw byte range a group's random and seqread IO uses (past the fs)."""
        base = size_bytes(self.spec["raw_offset"])
        size = size_bytes(self.spec["region"])
        return base + (0 if group == "hi" else size), size

    def idle(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if all(x == "0" for x in rd(self.sys + "/inflight").split()):
                return True
            time.sleep(0.2)
        return False

    def info(self):
        return {"name": self.name, "dev": self.dev, "devno": self.devno,
                "spec": self.spec, "queue": self.queue, "calibration": self.calib,
                "notes": self.notes}


# --- controllers ----------------------------------------------------------

ROOT_FILES = {
    "iocost": (CG + "/io.cost.model", CG + "/io.cost.qos"),
    "ioweight": (CG + "/io.weight.cost_model", CG + "/io.weight.qos"),
}


def ctrl_off(d, notes):
    for model, qos in ROOT_FILES.values():
        if os.path.exists(qos):
            try_wr(qos, f"{d.devno} enable=0", notes)
            try_wr(model, f"{d.devno} ctrl=auto", notes)
            try_wr(qos, f"{d.devno} enable=0 ctrl=auto", notes)
    wr(d.sys + "/queue/scheduler", "none")


def ctrl_apply(ctrl, d, wait_idle=True):
    """Switch device d to controller ctrl; returns the root files' state."""
    notes = []
    if wait_idle:
        d.idle()
    ctrl_off(d, notes)
    base = ctrl.split("-")[0]
    if base == "bfq":
        wr(d.sys + "/queue/scheduler", "bfq")
    elif base in ROOT_FILES:
        model, qos = ROOT_FILES[base]
        if not os.path.exists(qos):
            raise RuntimeError(f"{ctrl}: {qos} missing on this kernel")
        if ctrl.endswith("-tuned"):
            wr(model, f"{d.devno} {d.calib['model']}")
            wr(qos, f"{d.devno} {d.calib['qos']}")
        else:
            wr(model, f"{d.devno} ctrl=auto")
            wr(qos, f"{d.devno} enable=1 ctrl=auto")
    elif base != "none":
        raise ValueError(f"unknown controller {ctrl}")
    return root_state(d, notes)


def root_state(d, notes=None):
    st = {"scheduler": rd(d.sys + "/queue/scheduler")}
    for model, qos in ROOT_FILES.values():
        for f in (model, qos):
            for line in rd(f, "").splitlines():
                if line.startswith(d.devno + " "):
                    st[os.path.basename(f)] = line
    if notes:
        st["notes"] = notes
    return st


# --- cgroups and fio --------------------------------------------------------

def setup_cgroups(plan):
    os.makedirs(BENCH_CG, exist_ok=True)
    wr(BENCH_CG + "/cgroup.subtree_control", "+io +memory")
    notes = []
    for g, w in GROUPS.items():
        p = f"{BENCH_CG}/{g}"
        os.makedirs(p, exist_ok=True)
        try_wr(p + "/io.weight", f"default {w}", notes)
        try_wr(p + "/io.bfq.weight", f"default {w}", notes)
    return {g: {"io.weight": rd(f"{BENCH_CG}/{g}/io.weight", ""),
                "io.bfq.weight": rd(f"{BENCH_CG}/{g}/io.bfq.weight", ""),
                "memory.max": rd(f"{BENCH_CG}/{g}/memory.max", "")}
            for g in GROUPS} | {"notes": notes}


def fio_args(w, group, d, plan, out):
    secs = plan["ramp"] + plan["runtime"] + 2
    a = ["fio", f"--name={group}-{w}", "--output-format=json", f"--output={out}",
         "--eta=never", "--time_based", f"--runtime={plan['runtime'] + 2}",
         f"--ramp_time={plan['ramp']}", "--percentile_list=50:90:99:99.9"]
    off, size = d.region(group)
    # invalidate=0: fio's default cache invalidation of a block device is
    # BLKFLSBUF, which syncs the filesystem mounted on it, so a raw job
    # starting next to the buffered writer waited for all of its dirty
    # data (up to 20 s and more, under every controller). prepare() has
    # already dropped the caches.
    raw = [f"--filename=/dev/{d.dev}", f"--offset={off}", f"--size={size}",
           "--invalidate=0"]
    if w in ("randread", "randwrite"):
        a += raw + ["--direct=1", "--ioengine=libaio", f"--iodepth={plan['iodepth']}",
                    "--bs=4k", f"--rw={w}"]
    elif w == "seqread":
        a += raw + ["--direct=0", "--ioengine=psync", "--bs=128k", "--rw=read"]
    elif w == "seqwrite" and d.mnt:
        a += [f"--filename={d.mnt}/{group}.seqwrite", f"--size={d.spec['sw_size']}",
              "--direct=0", "--ioengine=psync", "--bs=128k", "--rw=write",
              "--fallocate=none"]
    elif w == "seqwrite":
        # not on the raw device: both groups would dirty the block device's
        # one inode, and writeback is attributed per inode
        raise ValueError(f"device {d.name}: seqwrite needs fs_size")
    else:
        raise ValueError(f"unknown workload {w}")
    return a, secs


def start_in_cgroup(args, cg):
    def enter():
        with open(cg + "/cgroup.procs", "w") as f:
            f.write(str(os.getpid()))
    return subprocess.Popen(args, preexec_fn=enter, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def fio_summary(path):
    with open(path) as f:
        txt = f.read()
    # fio may print warnings before the JSON document
    j = json.loads(txt[txt.index("{"):])
    job = j["jobs"][0]
    out = {}
    for dirn in ("read", "write"):
        s = job[dirn]
        if s["io_bytes"] == 0:
            continue
        pct = s["clat_ns"].get("percentile", {})
        out[dirn] = {
            "bw_bytes": s["bw_bytes"], "iops": s["iops"], "io_bytes": s["io_bytes"],
            "runtime_ms": s["runtime"],
            "clat_mean_ns": s["clat_ns"]["mean"],
            "clat_p50_ns": pct.get("50.000000"), "clat_p90_ns": pct.get("90.000000"),
            "clat_p99_ns": pct.get("99.000000"), "clat_p999_ns": pct.get("99.900000"),
            "lat_mean_ns": s["lat_ns"]["mean"],
        }
    out["usr_cpu"] = job["usr_cpu"]
    out["sys_cpu"] = job["sys_cpu"]
    out["fio_version"] = j.get("fio version")
    return out


def prepare(d):
    """Same start for every cell: no dirty pages, no cache, device idle."""
    if d.mnt:
        for g in GROUPS:
            try:
                os.unlink(f"{d.mnt}/{g}.seqwrite")
            except FileNotFoundError:
                pass
    run(["sync"], timeout=300)
    wr("/proc/sys/vm/drop_caches", 3)
    if not d.idle():
        d.notes.append("device not idle 30 s after sync")


def run_cell(cell, d, plan, tmp):
    prepare(d)
    if cell["kind"] == "overhead":
        jobs = {"hi": "randread"}
    elif cell.get("lo") is None:
        jobs = {"hi": cell["hi"]}
    else:
        jobs = {"hi": cell["hi"], "lo": cell["lo"]}
    procs, outs, secs = {}, {}, 0
    for g in GROUPS:
        # cap buffered readers' page cache so they read the disk; nobody
        # else (a memcg dirty limit is a share of its memory.max)
        cap = plan["memory_max"] if jobs.get(g) == "seqread" else "max"
        wr(f"{BENCH_CG}/{g}/memory.max", cap)
    for g, w in jobs.items():
        outs[g] = f"{tmp}/{g}.json"
        a, secs = fio_args(w, g, d, plan, outs[g])
        procs[g] = start_in_cgroup(a, f"{BENCH_CG}/{g}")
    t0 = time.time()
    # fio takes 1-5 s under TCG before its first IO (measured): the ramp
    # starts when every group has submitted IO, so each controller gets the
    # same settling time and the window holds no start-up. fio's own window
    # (its ramp_time after its start, to the stop below) matches ours.
    io_start = wait_io_start(
        {g: (lambda g=g: iostat_bytes(f"{BENCH_CG}/{g}", d.devno)) for g in jobs},
        plan.get("io_start_timeout", 20))
    time.sleep(plan["ramp"])
    s0 = {g: io_stat(f"{BENCH_CG}/{g}", d.devno) for g in GROUPS}
    b0 = {g: writeback_bytes(f"{BENCH_CG}/{g}") for g in GROUPS}
    k0 = disk_stat(d)
    c0, w0 = cpu_times(), time.time()
    time.sleep(plan["runtime"])
    s1 = {g: io_stat(f"{BENCH_CG}/{g}", d.devno) for g in GROUPS}
    b1 = {g: writeback_bytes(f"{BENCH_CG}/{g}") for g in GROUPS}
    k1 = disk_stat(d)
    c1, w1 = cpu_times(), time.time()
    # The window is measured: stop fio now rather than wait out its own
    # runtime. fio's window [its start + ramp, now] is ours; on SIGINT it
    # still writes its JSON, and exits 128.
    stopped = {}
    for g, p in procs.items():
        stopped[g] = p.poll() is None
        if stopped[g]:
            p.send_signal(signal.SIGINT)
    res = {"groups": {}, "errors": []}
    for g, p in procs.items():
        try:
            _, err = p.communicate(timeout=secs + 60)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            res["errors"].append(f"{g}: fio did not finish in time")
        entry = {"workload": jobs[g], "weight": GROUPS[g], "fio_rc": p.returncode,
                 "fio_stopped": "sigint" if stopped[g] else "ended before the window closed"}
        if p.returncode not in ((0, 128) if stopped[g] else (0,)):
            res["errors"].append(f"{g}: fio exit {p.returncode}: {err.strip()[-300:]}")
        try:
            entry["fio"] = fio_summary(outs[g])
        except (OSError, ValueError, KeyError) as e:
            res["errors"].append(f"{g}: no fio result: {e}")
        res["groups"][g] = entry
    for g in GROUPS:
        dl = delta(s0[g], s1[g])
        if g in res["groups"]:
            # io.stat counts a bio when it is submitted, before any
            # controller holds it back; writeback can have megabytes
            # submitted and not done. Completed bytes = submitted minus the
            # growth of the group's pages under writeback over the window.
            sub = dl.get("rbytes", 0) + dl.get("wbytes", 0)
            res["groups"][g]["iostat"] = dl
            # the controller's gauges (vrate, hweight, usage) as the window
            # closed: their deltas above mean nothing
            res["groups"][g]["iostat_end"] = {
                k: v for k, v in s1[g].items() if "." in k}
            res["groups"][g]["submitted_bytes"] = sub
            res["groups"][g]["writeback_bytes"] = [b0[g], b1[g]]
            res["groups"][g]["dev_bytes"] = sub - (b1[g] - b0[g])
        elif dl.get("rbytes", 0) + dl.get("wbytes", 0):
            res.setdefault("idle_group_bytes", {})[g] = dl
    # the whole device's completed bytes over the window: tells a group that
    # was really stalled from an io.stat line that did not move
    res["disk_bytes"] = {k: k1[k] - k0[k] for k in k0}
    busy = (c1[0] - c0[0]) / max(1, c1[1] - c0[1])
    # the overhead device is CPU-bound by design: no flag there
    if None in io_start.values():
        res["errors"].append("no IO from " + ", ".join(g for g, v in io_start.items()
                                                         if v is None)
                             + f" within {plan.get('io_start_timeout', 20)} s of fio's start")
    res.update(window_s=w1 - w0, start_offset_s=w0 - t0, io_start_s=io_start, cpu_busy=busy,
               cpu_flag=cell["kind"] == "cell" and busy > plan["cpu_flag"])
    if cell["kind"] == "overhead" and cell["ctrl"] != "none" and not res["errors"]:
        res["interleaved"] = interleave_overhead(cell["ctrl"], d, plan, tmp)
    return res


def overhead_segments(plan):
    """The on/off order of an interleaved overhead measurement: ABBA blocks,
    so that a drift in the guest's speed (the host's load) that is linear
    over a block weighs on both states alike."""
    return ["on", "off", "off", "on"] * (plan.get("overhead_segments", 8) // 4)


def interleave_overhead(ctrl, d, plan, tmp):
    """One fio randread job at QD64 on the CPU-bound device while the
    controller is switched off and on in ABBA order; each segment's IOPS
    from the device's completions, after a settling time. Separate on and
    off cells, minutes or boots apart, differed by up to 40 % on a loaded
    host: more than the overhead being measured."""
    seg_s = plan.get("overhead_segment_s", 2.0)
    settle = plan.get("overhead_settle_s", 0.5)
    order = overhead_segments(plan)
    total = plan["ramp"] + len(order) * (seg_s + settle) + 10
    out = f"{tmp}/interleave.json"
    a, _ = fio_args("randread", "hi", d, plan, out)
    a = [x for x in a if not x.startswith(("--runtime=", "--ramp_time="))]
    a += [f"--runtime={int(total)}"]
    p = start_in_cgroup(a, f"{BENCH_CG}/hi")
    segs, notes = [], []
    try:
        start = wait_io_start({"hi": lambda: iostat_bytes(f"{BENCH_CG}/hi", d.devno)},
                              plan.get("io_start_timeout", 20))
        if start["hi"] is None:
            return {"error": "no IO within the start timeout"}
        time.sleep(plan["ramp"])
        for state in order:
            if state == "on":
                ctrl_apply(ctrl, d, wait_idle=False)
            else:
                ctrl_off(d, notes)
            time.sleep(settle)
            k0, t0 = disk_stat(d), time.time()
            time.sleep(seg_s)
            k1, t1 = disk_stat(d), time.time()
            if p.poll() is not None:
                return {"error": "fio ended during the segments", "segments": segs}
            segs.append({"state": state,
                         "iops": (k1["read"] - k0["read"]) / 4096 / (t1 - t0)})
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
        # the cells after this one expect the controller on
        ctrl_apply(ctrl, d, wait_idle=False)
    on = [x["iops"] for x in segs if x["state"] == "on"]
    off = [x["iops"] for x in segs if x["state"] == "off"]
    res = {"segments": segs, "segment_s": seg_s, "settle_s": settle,
           "on_iops": sum(on) / len(on), "off_iops": sum(off) / len(off)}
    res["ratio"] = res["on_iops"] / res["off_iops"] if res["off_iops"] else None
    if notes:
        res["notes"] = notes
    return res


# --- fake guest (tests of the harness, on the host) --------------------------

class FakeDevice:
    """Stands in for Device under --fake: sleeps where the real one works."""

    def __init__(self, name, spec, plan):
        self.name, self.spec, self.plan = name, spec, plan
        self.notes, self.mnt, self.calib = [], None, None
        self.dev, self.devno, self.sys = name, "254:0", None
        self.queue = {"scheduler": "none", "fake": True}
        time.sleep(plan["setup_s"])

    def calibrate(self, runtime):
        time.sleep(self.plan["calib_s"])
        line = "ctrl=user model=linear rbps=4096000 rseqiops=1000 rrandiops=1000 " \
               "wbps=4096000 wseqiops=1000 wrandiops=1000"
        self.calib = {"model": line, "iocost_model": line, "log": ["fake"],
                      "qos": "enable=1 ctrl=user rpct=95 rlat=16000 wpct=95 wlat=16000 "
                             "min=50 max=150"}

    def make_fs(self):
        self.mnt = f"/fake/{self.name}"

    def info(self):
        return {"name": self.name, "dev": self.dev, "devno": self.devno,
                "spec": self.spec, "queue": self.queue, "calibration": self.calib,
                "notes": self.notes}


# how much of the device hi gets under each controller, in the fake figures
FAKE_SHARE = {"none": 0.5, "iocost": 0.7, "iocost-tuned": 0.78, "bfq": 0.75,
              "ioweight": 0.8, "ioweight-tuned": 0.82}


def fake_cell(cell, plan, rng):
    """Plausible figures of the driver's shape; sleeps a cell's model time."""
    time.sleep(plan["model_cell_s"] * rng.uniform(0.9, 1.1))
    window = plan["runtime"] * rng.uniform(0.99, 1.01)
    cap = 4.1e6 if cell["device"] == "virtio" else 2.0e6
    jobs = ({"hi": "randread"} if cell["kind"] == "overhead"
            else {"hi": cell["hi"]} | ({"lo": cell["lo"]} if cell.get("lo") else {}))
    share = FAKE_SHARE[cell["ctrl"]] + rng.uniform(-0.04, 0.04)
    wc = rng.uniform(0.9, 1.0) if cell["ctrl"] != "none" else 1.0
    res = {"groups": {}, "errors": []}
    for g, w in jobs.items():
        part = 1.0 if len(jobs) == 1 else (share if g == "hi" else 1 - share)
        byts = int(cap * window * wc * part)
        dirn = "read" if w.endswith("read") else "write"
        iops = byts / 4096 / window
        if cell["kind"] == "overhead":
            iops = 50000 * (1.0 if cell["ctrl"] == "none" else rng.uniform(0.85, 0.99))
            if cell["ctrl"] != "none":
                segs = [{"state": st, "iops": iops if st == "on" else 50000.0}
                        for st in overhead_segments(plan)]
                res["interleaved"] = {"segments": segs, "on_iops": iops,
                                      "off_iops": 50000.0, "ratio": iops / 50000.0}
        res["groups"][g] = {
            "workload": w, "weight": GROUPS[g], "fio_rc": 128, "fio_stopped": "sigint",
            "fio": {dirn: {"bw_bytes": byts / window, "iops": iops, "io_bytes": byts,
                           "runtime_ms": window * 1000, "clat_mean_ns": 1e6,
                           "clat_p50_ns": 1e6, "clat_p90_ns": 2e6,
                           "clat_p99_ns": 4e6 / max(part, 0.1), "clat_p999_ns": 8e6,
                           "lat_mean_ns": 1e6},
                    "usr_cpu": 1.0, "sys_cpu": 5.0, "fio_version": "fake"},
            "iostat": {("rbytes" if dirn == "read" else "wbytes"): byts},
            "submitted_bytes": byts, "writeback_bytes": [0, 0], "dev_bytes": byts}
    total = sum(g["dev_bytes"] for g in res["groups"].values())
    busy = rng.uniform(0.2, 0.6)
    res.update(disk_bytes={"read": total, "write": 0}, window_s=window,
               start_offset_s=plan["ramp"] + 1, cpu_busy=busy,
               cpu_flag=cell["kind"] == "cell" and busy > plan["cpu_flag"])
    return res


def fake_die(cell, n):
    """Test hooks: BENCH_FAKE_DIE_AT=N dies in this process's N-th cell (0:
    before any cell), BENCH_FAKE_DIE_KEY=TEXT in every cell whose key
    contains TEXT."""
    at = os.environ.get("BENCH_FAKE_DIE_AT")
    key = os.environ.get("BENCH_FAKE_DIE_KEY")
    if (at and int(at) == n) or (cell and key and key in cell["key"]):
        log(f"FAKE: dying {'in cell ' + cell['key'] if cell else 'at boot'}")
        os._exit(125)


# --- main loop --------------------------------------------------------------

def load_calibration(path):
    try:
        with open(path) as f:
            c = json.load(f)
        return c if all(k in c for k in ("model", "iocost_model", "qos")) else None
    except (OSError, ValueError):
        return None


def save_calibration(path, calib):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(calib, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def main():
    argv = sys.argv[1:]
    fake = argv[:1] == ["--fake"]
    if fake:
        argv = argv[1:]
    plan_path, out_path = argv
    t_start = time.time()
    with open(plan_path) as f:
        plan = json.load(f)
    cells = plan["cells"]
    plan_dir = os.path.dirname(os.path.abspath(plan_path))
    # the budget is counted from the host's start of the boot: take off the
    # time the guest took to get here
    deadline = None
    if plan.get("budget_s") is not None:
        booted = 0.0 if fake else float(rd("/proc/uptime").split()[0])
        deadline = t_start - booted + plan["budget_s"] - plan["shutdown_s"]
    tmp = "/tmp/bench"
    os.makedirs(tmp, exist_ok=True)
    out = open(out_path, "a", buffering=1)
    boot_id = plan.get("boot_id", "")

    def emit(obj):
        obj.setdefault("t", time.time())
        obj["boot"] = boot_id
        out.write(json.dumps(obj, sort_keys=True) + "\n")

    if fake:
        import random
        rng = random.Random(boot_id)
        log(f"FAKE guest: {plan['kernel']} boot {boot_id}")
        time.sleep(plan.get("boot_s", 0) * 0.5)   # the other half is teardown
        clock, ident = "tsc", {"uname": "fake", "cmdline": "fake", "nproc": 1,
                               "meminfo_kb": 0, "fio": "fake", "fake": True}
    else:
        clock = rd("/sys/devices/system/clocksource/clocksource0/current_clocksource", "?")
        if clock != "tsc":
            log(f"WARNING: guest clocksource is {clock}, not tsc: timings are suspect")
        ident = {"uname": os.uname().release, "cmdline": rd("/proc/cmdline"),
                 "version": rd("/proc/version"), "nproc": os.cpu_count(),
                 "meminfo_kb": int(rd("/proc/meminfo").split()[1]),
                 "fio": run(["fio", "--version"], 60).stdout.strip()}
    emit({"kind": "boot", "kernel": plan["kernel"], "kernel_sha": plan.get("kernel_sha"),
          "method_id": plan.get("method_id"), "clocksource": clock,
          "python": sys.version.split()[0], "budget_s": plan.get("budget_s"),
          "cells_planned": len(cells), **ident})
    emit({"kind": "cgroups", "state": {"fake": True} if fake else setup_cgroups(plan)})
    if fake:
        fake_die(None, 0)

    devices, cur_ctrl, took = {}, {}, []
    t_boot = time.time()
    for i, cell in enumerate(cells):
        name = cell["device"]
        spec = plan["devices"][name]
        calib_path = os.path.join(plan_dir, f"calibration-{name}.json")
        per = max([plan["sec_per_cell"]] + ([sum(took) / len(took)] if took else []))
        if deadline is not None:
            need = per
            if name not in devices:
                need += plan["setup_s"]
                if spec.get("calibrate") and not load_calibration(calib_path):
                    need += plan["calib_s"]
            if time.time() + need > deadline:
                left = len(cells) - i
                log(f"budget: stopping before cell {plan['done_before'] + i + 1}/"
                    f"{plan['total_cells']} ({need:.1f} s needed, "
                    f"{max(0, deadline - time.time()):.1f} s left); {left} cells of this "
                    "boot remain")
                emit({"kind": "stop", "reason": "budget", "remaining_in_boot": left,
                      "next_key": cell["key"]})
                break
        if name not in devices:
            d = (FakeDevice if fake else Device)(name, spec, plan)
            if spec.get("calibrate"):
                cal = load_calibration(calib_path)
                if cal:
                    d.calib = cal
                    log(f"{name}: calibration of boot {cal.get('boot', '?')} "
                        f"({cal.get('kernel', '?')} kernel): {cal['model']}; qos {cal['qos']}")
                else:
                    d.calibrate(plan["calib_runtime"])
                    d.calib.update(boot=boot_id, kernel=plan["kernel"],
                                   kernel_sha=plan.get("kernel_sha"), t=time.time())
                    save_calibration(calib_path, d.calib)
            if spec.get("fs_size"):
                d.make_fs()
            if not fake:
                wr("/proc/sys/vm/dirty_bytes", spec.get("dirty_bytes", 32 << 20))
                wr("/proc/sys/vm/dirty_background_bytes",
                   spec.get("dirty_background_bytes", 16 << 20))
            devices[name] = d
            emit({"kind": "device", "kernel": plan["kernel"], **d.info()})
        d = devices[name]
        if cur_ctrl.get(name) != cell["ctrl"]:
            try:
                state = {"fake": True} if fake else ctrl_apply(cell["ctrl"], d)
                emit({"kind": "ctrl", "device": name, "ctrl": cell["ctrl"], "state": state})
                cur_ctrl[name] = cell["ctrl"]
            except (OSError, RuntimeError) as e:
                log(f"{name}: cannot switch to {cell['ctrl']}: {e}")
                emit({"kind": "ctrl", "device": name, "ctrl": cell["ctrl"],
                      "error": str(e)})
                cur_ctrl[name] = "failed:" + cell["ctrl"]
        if cur_ctrl[name] != cell["ctrl"]:
            emit({"devno": d.devno, **cell,
                  "errors": [f"controller {cell['ctrl']} could not be set up"]})
            continue
        gi = plan["done_before"] + i + 1
        desc = (f"{name} {cell['ctrl']} {cell.get('hi', 'randread')}"
                f"{'' if cell['kind'] == 'overhead' else ' vs ' + str(cell.get('lo') or 'none')}"
                f" rep {cell['rep']}")
        eta = per * (len(cells) - i) + plan.get("eta_after_s", 0)
        log(f"cell {gi}/{plan['total_cells']} {cell['kind']}: {desc}; this boot "
            f"{(time.time() - t_start) / 60:.1f} min, ETA {eta / 60:.1f} min")
        emit({"kind": "start", "key": cell["key"]})
        t_cell = time.time()
        if fake:
            fake_die(cell, i + 1)
        try:
            res = fake_cell(cell, plan, rng) if fake else run_cell(cell, d, plan, tmp)
        except Exception as e:  # keep going: one broken cell is a data point
            res = {"errors": [f"{type(e).__name__}: {e}"]}
        took.append(time.time() - t_cell)
        rec = {"devno": d.devno, **cell, **res, "cell_seconds": took[-1],
               "ctrl_state": {"fake": True} if fake else root_state(d)}
        emit(rec)
        for e in res.get("errors", []):
            log(f"  error: {e}")
        g = res.get("groups", {})
        if g:
            log("  " + ", ".join(
                f"{k} {v.get('dev_bytes', 0) / max(res['window_s'], 1e-9) / 1e6:.2f} MB/s"
                for k, v in g.items()) + f", cpu {res['cpu_busy'] * 100:.0f}%"
                + (" (FLAG: above limit)" if res["cpu_flag"] else ""))
    for name, d in devices.items():
        if fake:
            continue
        ctrl_off(d, d.notes)
        if d.mnt:
            run(["umount", d.mnt], timeout=120)
    if fake:
        time.sleep(min(plan.get("boot_s", 0), plan["shutdown_s"]) * 0.5)
    emit({"kind": "end", "seconds": time.time() - t_boot, "cells_run": len(took)})
    log(f"boot done: {len(took)} cells in {(time.time() - t_boot) / 60:.1f} min")


if __name__ == "__main__":
    main()
