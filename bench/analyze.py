#!/usr/bin/python3
"""Turn a benchmark run directory into results: JSON, markdown, PNG plots.

usage: bench/analyze.py RUNDIR [--publish | --results-dir DIR] [--prefix P]
       bench/analyze.py --readme-table [P]

--readme-table prints README's results table from the committed
bench/results/P-*.json (default P: the newest full run there), one row per
device and controller setting, the rows where io.weight loses included.

Reads RUNDIR/plan.json, RUNDIR/*.jsonl (bench/guest/driver.py, and the
host's notes of cells a guest died in), RUNDIR/command.txt, invocations.jsonl,
host-state.txt, host-load.txt and build/vm/guest-versions.txt. Of a resumable
run (bench/plan.py) it takes only the records whose key is a cell of the
current plan, and from boots of the planned kernels: results of an older
kernel build or method are ignored. When cells are missing the outputs say
"PARTIAL: n of m cells" (title, summary, JSON, plots). Output goes to
RUNDIR/results, or with --publish to bench/results when the run is complete
and real (a partial or fake run stays in RUNDIR/results). With P = <date>
(full) or <date>-quick:
  P-<device>.json     every raw cell record plus the derived figures
  P.md                tables per device and comparison, summary, overhead
  P-<device>.png      share error per combination per controller (signed)
  P-overhead.png      IOPS with each controller on / off, null_blk no delay
  P-COMMAND.txt       the exact command, run dir, duration, machine load

Definitions (all from device bytes per cgroup: the io.stat delta over the
measurement window minus the growth of the group's pages under writeback, i.e.
completed bytes; fio's rates are reported alongside):
  norm(g)      group g's rate / rate of g's workload running alone with no
               controller on the same kernel (median over repeats)
  share        norm(hi) / (norm(hi) + norm(lo)); target 5/6 (weights 500:100)
  share error  |share - 5/6|, in points (x100)
  work cons.   norm(hi) + norm(lo) (solo cells: norm(hi))
  p99 ratio    hi's fio p99 completion latency / same workload alone with no
               controller (for buffered IO fio's latency is the syscall's)
  overhead     fio IOPS with the controller on / off (null_blk, no delay)
Per cell: median over repeats, spread = [min, max].
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys

TARGET = 5 / 6
WORKLOADS = ["randread", "seqread", "randwrite", "seqwrite"]
SHORT = {"randread": "RR", "seqread": "SR", "randwrite": "RW", "seqwrite": "SW", None: "-"}
OOB = ["none", "iocost", "bfq", "ioweight"]
TUNED = ["none", "bfq", "iocost-tuned", "ioweight-tuned"]
ORDER = ["none", "iocost", "iocost-tuned", "bfq", "ioweight", "ioweight-tuned"]
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(rundir):
    recs = []
    for f in sorted(os.listdir(rundir)):
        if f.endswith(".jsonl") and f != "invocations.jsonl":
            with open(os.path.join(rundir, f)) as fh:
                for line in fh:
                    line = line.strip()
                    if line:
                        try:
                            recs.append(json.loads(line))
                        except json.JSONDecodeError:
                            print(f"analyze: {f}: skipping a truncated line", file=sys.stderr)
    return recs


def select(recs, plan):
    """The records of the current plan: for each planned cell its last result,
    and the other records (boot, device, ctrl) of boots on the planned
    kernels. Returns (records, completeness). A run directory from before
    keyed cells (no "key" in the plan) is taken whole."""
    cells = plan.get("cells")
    if not cells or not isinstance(cells, list) or "key" not in cells[0]:
        n = sum(1 for r in recs if r.get("kind") in ("cell", "overhead"))
        return recs, {"done": n, "total": plan.get("total_cells", n), "stale": 0,
                      "failed_by_host": 0}
    keys = {c["key"] for c in cells}
    shas = {k: v.get("sha") for k, v in plan.get("kernels", {}).items()}
    boots = {r["boot"] for r in recs if r.get("kind") == "boot" and r.get("boot")
             and shas.get(r.get("kernel")) == r.get("kernel_sha")
             and r.get("method_id") == plan.get("method_id")}
    last, other, stale = {}, [], set()
    for r in recs:
        if r.get("kind") in ("cell", "overhead") and r.get("key"):
            if r["key"] in keys:
                last[r["key"]] = r
            else:
                stale.add(r["key"])
        elif r.get("kind") not in ("cell", "overhead", "start", "cut", "stop") \
                and r.get("boot") in boots:
            other.append(r)
    picked = [r for r in recs if r.get("key") in last and last[r["key"]] is r]
    return other + picked, {"done": len(last), "total": len(keys), "stale": len(stale),
                            "failed_by_host": sum(1 for r in picked if any(
                                "guest died during this cell" in e for e in r.get("errors", [])))}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    return [min(xs), max(xs)] if xs else None


def fio_dir(g):
    f = g.get("fio", {})
    return f.get("read") or f.get("write") or {}


def rate(g, window):
    return g.get("dev_bytes", 0) / window if window else None


def stale_iostat(r):
    """A group whose fio moved more than 1 MiB while its io.stat line did not
    move at all over the window. If the driver recorded the whole device's
    completed bytes (disk_bytes) and they exceed what the other groups'
    io.stat accounts for by more than 1 MiB, the counter froze (seen on both
    kernels); if the device was idle too, the group really was stalled and
    the cell stands. Without disk_bytes (older runs) the two cannot be told
    apart and the cell is left out."""
    bad = []
    groups = r.get("groups", {})
    disk = r.get("disk_bytes")
    for gname, g in groups.items():
        moved = fio_dir(g).get("io_bytes") or 0
        if moved <= (1 << 20) or g.get("submitted_bytes", g.get("dev_bytes")):
            continue
        if disk is not None:
            others = sum(o.get("dev_bytes", 0) for n, o in groups.items() if n != gname)
            if disk["read"] + disk["write"] - others <= (1 << 20):
                continue  # a real stall: the device did nothing for it
            bad.append(f"{gname}: io.stat froze (device moved "
                       f"{(disk['read'] + disk['write']) >> 20} MiB, fio {moved >> 20} MiB)")
        else:
            bad.append(f"{gname}: io.stat did not move while fio did {moved >> 20} MiB "
                       "(frozen counter or stall: this run cannot tell)")
    return bad


def derive(recs):
    """Figures per (device, ctrl, hi, lo): list of per-repeat dicts + medians."""
    cells = [r for r in recs if r.get("kind") == "cell"]
    good = [r for r in cells if not r.get("errors") and r.get("groups")
            and not stale_iostat(r)]
    # solo reference: ctrl none, lo None, per (device, kernel, workload)
    ref = collections.defaultdict(lambda: {"rate": [], "fio": [], "p99": []})
    for r in good:
        if r["ctrl"] == "none" and r.get("lo") is None:
            g = r["groups"]["hi"]
            k = (r["device"], r["kernel"], r["hi"])
            ref[k]["rate"].append(rate(g, r["window_s"]))
            ref[k]["fio"].append(fio_dir(g).get("bw_bytes"))
            ref[k]["p99"].append(fio_dir(g).get("clat_p99_ns"))
    solo = {k: {"rate": med(v["rate"]), "fio": med(v["fio"]), "p99": med(v["p99"])}
            for k, v in ref.items()}

    out = collections.defaultdict(list)
    for r in cells:
        key = (r["device"], r["ctrl"], r["hi"], r.get("lo"))
        row = {"rep": r["rep"], "kernel": r["kernel"], "errors": list(r.get("errors", []))}
        row["errors"] += stale_iostat(r)
        if row["errors"] or not r.get("groups"):
            out[key].append(row)
            continue
        w = r["window_s"]
        row["cpu_busy"] = r["cpu_busy"]
        row["cpu_flag"] = r["cpu_flag"]
        norms, fnorms = {}, {}
        for gname, g in r["groups"].items():
            s = solo.get((r["device"], r["kernel"], g["workload"]))
            row[f"{gname}_rate"] = rate(g, w)
            row[f"{gname}_fio_rate"] = fio_dir(g).get("bw_bytes")
            if s and s["rate"]:
                norms[gname] = rate(g, w) / s["rate"]
            if s and s["fio"] and fio_dir(g).get("bw_bytes") is not None:
                fnorms[gname] = fio_dir(g)["bw_bytes"] / s["fio"]
        row["hi_norm"] = norms.get("hi")
        row["lo_norm"] = norms.get("lo")
        row["wc"] = sum(norms.values()) if norms else None
        if "hi" in norms and "lo" in norms and norms["hi"] + norms["lo"] > 0:
            row["share"] = norms["hi"] / (norms["hi"] + norms["lo"])
            row["share_err"] = abs(row["share"] - TARGET)
            hb, lb = r["groups"]["hi"]["dev_bytes"], r["groups"]["lo"]["dev_bytes"]
            row["byte_share"] = hb / (hb + lb) if hb + lb else None
        if "hi" in fnorms and "lo" in fnorms and fnorms["hi"] + fnorms["lo"] > 0:
            row["fio_share"] = fnorms["hi"] / (fnorms["hi"] + fnorms["lo"])
        s = solo.get((r["device"], r["kernel"], r["hi"]))
        p99 = fio_dir(r["groups"]["hi"]).get("clat_p99_ns")
        row["hi_p99_ms"] = p99 / 1e6 if p99 else None
        row["p99_ratio"] = p99 / s["p99"] if p99 and s and s["p99"] else None
        out[key].append(row)

    table = {}
    for key, rows in out.items():
        ok = [x for x in rows if not x["errors"]]
        agg = {"reps": len(rows), "ok_reps": len(ok),
               "errors": [e for x in rows for e in x["errors"]]}
        for m in ("hi_norm", "lo_norm", "wc", "share", "share_err", "byte_share",
                  "fio_share", "p99_ratio", "hi_p99_ms", "cpu_busy"):
            vals = [x.get(m) for x in ok]
            agg[m] = med(vals)
            agg[m + "_spread"] = spread(vals)
        agg["cpu_flagged_reps"] = sum(1 for x in ok if x.get("cpu_flag"))
        agg["rows"] = rows
        table[key] = agg
    return table, solo


def overhead(recs):
    by = collections.defaultdict(list)
    for r in recs:
        if r.get("kind") == "overhead" and not r.get("errors") and r.get("groups"):
            by[(r["kernel"], r["ctrl"])].append(
                {"iops": fio_dir(r["groups"]["hi"]).get("iops"),
                 "cpu_busy": r["cpu_busy"], "rep": r["rep"],
                 "interleaved": r.get("interleaved") or {}})
    res = {}
    for (k, c), rows in by.items():
        if c == "none":
            continue
        base = med([x["iops"] for x in by.get((k, "none"), [])])
        on = med([x["iops"] for x in rows])
        res[c] = {"kernel": k, "iops_on": on, "iops_off": base,
                  "ratio": on / base if on and base else None,
                  "ratio_spread": spread([x["iops"] / base for x in rows]) if base else None,
                  "method": "separate cells",
                  "rows": rows, "off_rows": by.get((k, "none"), [])}
        # the controller switched off and on under one fio job (driver's
        # interleave_overhead()): the ratio of the same minute, not of cells
        # minutes or boots apart, so it is the one reported when present
        inter = [x["interleaved"] for x in rows if x.get("interleaved", {}).get("ratio")]
        if inter:
            ratios = [x["ratio"] for x in inter]
            res[c].update(
                iops_on=med([x["on_iops"] for x in inter]),
                iops_off=med([x["off_iops"] for x in inter]),
                ratio=med(ratios), ratio_spread=spread(ratios),
                method="interleaved on/off (ABBA) in each cell",
                separate_cells_ratio=on / base if on and base else None)
    return res


def combos(table, device):
    seen = {(hi, lo) for (d, _, hi, lo) in table if d == device}
    return [(hi, lo) for hi in WORKLOADS for lo in [None] + WORKLOADS if (hi, lo) in seen]


def fmt(x, f="{:.2f}", none="–"):
    return none if x is None else f.format(x)


def fmt_spread(a, sp, scale=1, f="{:.2f}"):
    if a is None:
        return "–"
    s = f.format(a * scale)
    if sp and sp[0] != sp[1]:
        s += f" ({f.format(sp[0] * scale)}–{f.format(sp[1] * scale)})"
    return s


def nondiscriminating(table, device):
    """Combos where no control at all already meets the target (≤ 5 points)."""
    out = set()
    for (d, c, hi, lo), a in table.items():
        if d == device and c == "none" and lo and a.get("share_err") is not None \
                and a["share_err"] <= 0.05:
            out.add((hi, lo))
    return out


def summary(table, device, ctrls, ovh):
    rows = []
    for c in ctrls:
        pairs = [a for (d, cc, hi, lo), a in table.items()
                 if d == device and cc == c and lo and a.get("share_err") is not None]
        solos = [a for (d, cc, hi, lo), a in table.items()
                 if d == device and cc == c and lo is None and a.get("wc") is not None]
        if not pairs and not solos:
            continue
        failed = sum(1 for (d, cc, hi, lo), a in table.items()
                     if d == device and cc == c and a["ok_reps"] == 0)
        errs = [a["share_err"] for a in pairs]
        wcs = [a["wc"] for a in pairs if a.get("wc") is not None]
        p99 = [a["p99_ratio"] for a in pairs if a.get("p99_ratio") is not None]
        rows.append({
            "ctrl": c, "pairs": len(pairs), "failed_cells": failed,
            "share_err_mean": statistics.mean(errs) if errs else None,
            "share_err_worst": max(errs) if errs else None,
            "pairs_within_5pt": sum(1 for e in errs if e <= 0.05),
            "wc_mean": statistics.mean(wcs) if wcs else None,
            "solo_norm_mean": statistics.mean([a["wc"] for a in solos]) if solos else None,
            "p99_ratio_worst": max(p99) if p99 else None,
            "overhead_ratio": ovh.get(c.replace("-tuned", ""), {}).get("ratio"),
            "cpu_flagged_cells": sum(1 for (d, cc, _, _), a in table.items()
                                     if d == device and cc == c and a["cpu_flagged_reps"]),
        })
    return rows


def md_summary(rows):
    out = ["| controller | pairs | share error mean / worst (pts) | pairs ≤ 5 pts "
           "| work cons. mean | solo ÷ none-solo | worst hi p99 ratio | overhead on/off "
           "| cells CPU > 70% |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        pts = [None if r[k] is None else r[k] * 100 for k in ("share_err_mean", "share_err_worst")]
        failed = f" (+{r['failed_cells']} failed)" if r["failed_cells"] else ""
        out.append(
            f"| {r['ctrl']} | {r['pairs']}{failed} "
            f"| {fmt(pts[0], '{:.1f}')} / {fmt(pts[1], '{:.1f}')} "
            f"| {r['pairs_within_5pt']}/{r['pairs']} | {fmt(r['wc_mean'])} "
            f"| {fmt(r['solo_norm_mean'])} | {fmt(r['p99_ratio_worst'], '{:.1f}')} "
            f"| {fmt(r['overhead_ratio'], '{:.3f}')} | {r['cpu_flagged_cells']} |")
    return out


def md_cells(table, device, ctrls, nd):
    out = ["| hi vs lo | controller | share (target 0.83) | share error pts | hi norm "
           "| lo norm | work cons. | hi p99 ms | p99 ratio | byte share | fio share | CPU |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for hi, lo in combos(table, device):
        for c in ctrls:
            a = table.get((device, c, hi, lo))
            if not a:
                continue
            name = f"{SHORT[hi]} vs {SHORT[lo]}" + (" ‡" if (hi, lo) in nd else "")
            if a["ok_reps"] == 0:
                out.append(f"| {name} | {c} | failed: {a['errors'][0][:80]} |||||||||||")
                continue
            cpu = fmt(None if a["cpu_busy"] is None else a["cpu_busy"] * 100, "{:.0f}%")
            if a["cpu_flagged_reps"]:
                cpu += f" ⚠{a['cpu_flagged_reps']}"
            buffered = " †" if hi in ("seqwrite", "seqread") else ""
            out.append(
                f"| {name} | {c} | {fmt_spread(a['share'], a['share_spread'])} "
                f"| {fmt_spread(a['share_err'], a['share_err_spread'], 100, '{:.1f}')} "
                f"| {fmt_spread(a['hi_norm'], a['hi_norm_spread'])} "
                f"| {fmt_spread(a['lo_norm'], a['lo_norm_spread'])} "
                f"| {fmt_spread(a['wc'], a['wc_spread'])} "
                f"| {fmt(a['hi_p99_ms'], '{:.1f}')}{buffered} "
                f"| {fmt(a['p99_ratio'], '{:.2f}')} | {fmt(a['byte_share'])} "
                f"| {fmt(a['fio_share'])} | {cpu} |")
    return out


def plot_share(table, device, path, comparisons, mark=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pairs = [(hi, lo) for hi, lo in combos(table, device) if lo]
    if not pairs:
        return False
    fig, axes = plt.subplots(len(comparisons), 1, figsize=(max(8, len(pairs) * 0.9), 4 * len(comparisons)),
                             squeeze=False)
    for ax, (title, ctrls) in zip(axes[:, 0], comparisons):
        ctrls = [c for c in ctrls if any((device, c, hi, lo) in table for hi, lo in pairs)]
        width = 0.8 / max(1, len(ctrls))
        for i, c in enumerate(ctrls):
            xs, ys, lo_err, hi_err = [], [], [], []
            for j, (hi, lo) in enumerate(pairs):
                a = table.get((device, c, hi, lo))
                if not a or a.get("share_err") is None:
                    continue
                # signed: above 0 hi got more than 5/6, below 0 less
                xs.append(j + (i - (len(ctrls) - 1) / 2) * width)
                ys.append((a["share"] - TARGET) * 100)
                sp = a["share_spread"]
                lo_err.append(ys[-1] - (sp[0] - TARGET) * 100)
                hi_err.append((sp[1] - TARGET) * 100 - ys[-1])
            ax.bar(xs, ys, width, label=c, yerr=[lo_err, hi_err], capsize=2)
        ax.axhspan(-5, 5, color="tab:green", alpha=0.15, label="target ±5 pts")
        ax.axhline(0, color="k", linewidth=0.6)
        ax.set_xticks(range(len(pairs)))
        ax.set_xticklabels([f"{SHORT[h]}/{SHORT[l]}" for h, l in pairs])
        ax.set_ylabel("share error hi/(hi+lo) − 5/6 (pts)")
        ax.set_title(f"{device}: {title} (median, bars = min–max over repeats)")
        ax.legend(fontsize=8, ncol=3)
    if mark:
        fig.suptitle(mark, color="tab:red", fontweight="bold")
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
    return True


def plot_overhead(ovh, path, mark=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ctrls = [c for c in ORDER if c in ovh and ovh[c]["ratio"]]
    if not ctrls:
        return False
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ys = [ovh[c]["ratio"] for c in ctrls]
    ax.bar(ctrls, ys, color="tab:blue")
    for i, c in enumerate(ctrls):
        sp = ovh[c]["ratio_spread"]
        if sp:
            ax.plot([i, i], sp, color="k")
    ax.axhline(0.97, color="k", linestyle="--", linewidth=0.8, label="target 0.97")
    ax.set_ylim(min(0.5, min(ys) - 0.05), 1.1)
    ax.set_ylabel("IOPS on / off")
    ax.set_title("CPU overhead: null_blk, no delay, 4k randread QD64")
    ax.legend(fontsize=8)
    if mark:
        fig.suptitle(mark, color="tab:red", fontweight="bold", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
    return True


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def measured_seconds(rundir):
    """Measuring time over all invocations of run.sh on the run
    (invocations.jsonl), or the one figure of a run made before it existed."""
    total, n = 0, 0
    for l in read(f"{rundir}/invocations.jsonl").splitlines():
        try:
            total += json.loads(l).get("seconds", 0)
            n += 1
        except ValueError:
            pass
    if n:
        return total, n
    try:
        return float(read(f"{rundir}/elapsed_seconds").strip()), 1
    except ValueError:
        return 0, 0


def provenance(rundir, plan):
    def git(*a):
        try:
            return subprocess.run(["git", "-C", TOP, *a], capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    kernels = {}
    for k in ("baseline", "ioweight"):
        planned = plan.get("kernels", {}).get(k)
        if planned:   # what the guests booted (sha of the bzImage copy)
            kernels[k] = {"bzImage_sha256_12": planned.get("sha"),
                          "bzImage_mtime": planned.get("mtime")}
            continue
        bz = f"{TOP}/build/kernel-{k}/arch/x86/boot/bzImage"
        if os.path.exists(bz):
            kernels[k] = {"bzImage_mtime": os.path.getmtime(bz),
                          "stamp": read(f"{TOP}/build/kernel-{k}/.ioweight-stamp").strip()}
    secs, invocations = measured_seconds(rundir)
    return {
        "git_head": git("rev-parse", "HEAD"),
        "git_kernel_series_commit": git("log", "-1", "--format=%H", "--", "kernel"),
        "linux_source": read(f"{TOP}/build/linux-source.version").strip(),
        "kernels": kernels,
        "guest_versions": dict(l.split("\t", 1) for l in
                               read(f"{TOP}/build/vm/guest-versions.txt").splitlines() if "\t" in l),
        "command": read(f"{rundir}/command.txt").strip(),
        "host_state": read(f"{rundir}/host-state.txt"),
        "elapsed_seconds": secs, "invocations": invocations,
    }


def machine_load(rundir, prov):
    """Was the host busy with other work? From run.sh's 30 s samples
    (time, 1-min load average, kernel builds, QEMU processes incl. ours) and
    the start/end states (QEMU processes there are other people's)."""
    why = []
    samples = [l.split() for l in read(f"{rundir}/host-load.txt").splitlines()]
    samples = [s for s in samples if len(s) == 4]
    if samples:
        builds = sum(1 for s in samples if s[2] != "0")
        others = sum(1 for s in samples if int(s[3]) > 1)
        load = statistics.mean(float(s[1]) for s in samples)
        if builds:
            why.append(f"kernel build running in {builds}/{len(samples)} samples")
        if others:
            why.append(f"other VMs running in {others}/{len(samples)} samples")
        if load > 2.5:
            why.append(f"mean 1-min load average {load:.1f} on 2 cores")
    for l in prov["host_state"].splitlines():
        k, _, v = l.partition(" ")
        if k in ("kernel-builds", "qemu-processes") and v.strip() not in ("", "0"):
            why.append(f"{k} {v.strip()} at start or end")
    return bool(why), sorted(set(why))


def calibration_lines(info):
    """Distinct (model, qos) calibrations a device's boots used."""
    return sorted({(v["calibration"]["model"], v["calibration"]["qos"])
                   for v in info if v.get("calibration")})


def newest_full_run(resdir):
    """The prefix of the newest complete full run in RESDIR (full runs are
    named by date alone: <date>.md)."""
    full = sorted(f[:-3] for f in os.listdir(resdir)
                  if f.endswith(".md") and len(f) == len("YYYY-MM-DD.md"))
    if not full:
        sys.exit(f"analyze: no full run in {resdir}")
    return full[-1]


def readme_table(prefix, resdir=None):
    """README's results table, from the committed JSON of run PREFIX."""
    resdir = resdir or f"{TOP}/bench/results"
    prefix = prefix or newest_full_run(resdir)
    paths = sorted(p for p in os.listdir(resdir) if p.startswith(prefix + "-")
                   and p.endswith(".json") and not p.endswith("-nullb-nodelay.json")
                   and p[len(prefix) + 1:-5] and "-" not in p[len(prefix) + 1:-5])
    if not paths:
        sys.exit(f"analyze: no {prefix}-<device>.json in {resdir}")
    out = ["| device | controller | pairs within 5 pts | share error mean / worst (pts) "
           "| work cons. mean | worst hi p99 ratio | overhead on/off |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    notes = set()
    for p in paths:
        with open(os.path.join(resdir, p)) as f:
            res = json.load(f)
        if res.get("completeness", {}).get("mark"):
            notes.add(f"the run is marked {res['completeness']['mark']}")
        if res.get("machine_loaded"):
            notes.add("the machine was LOADED during the run ("
                      + "; ".join(res.get("machine_load_reasons", [])) + ")")
        rows = {}
        for title in sorted(res.get("summary", {})):
            for r in res["summary"][title]:
                rows.setdefault(r["ctrl"], r)
        order = [c for c in ORDER if c in rows] + sorted(c for c in rows if c not in ORDER)
        for c in order:
            r = rows[c]
            pts = [None if r[k] is None else r[k] * 100
                   for k in ("share_err_mean", "share_err_worst")]
            out.append(
                f"| {res['device']} | {c} | {r['pairs_within_5pt']}/{r['pairs']} "
                f"| {fmt(pts[0], '{:.1f}')} / {fmt(pts[1], '{:.1f}')} "
                f"| {fmt(r['wc_mean'])} | {fmt(r['p99_ratio_worst'], '{:.1f}')} "
                f"| {fmt(r['overhead_ratio'], '{:.3f}')} |")
    out += ["", f"Generated by `bench/analyze.py --readme-table {prefix}` from "
            + ", ".join(f"`bench/results/{p}`" for p in paths)
            + (f" and `bench/results/{prefix}-nullb-nodelay.json` (overhead)"
               if os.path.exists(os.path.join(resdir, f"{prefix}-nullb-nodelay.json")) else "")
            + "."]
    out += [f"Note: {n}." for n in sorted(notes)]
    return "\n".join(out)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--readme-table":
        if len(sys.argv) > 3:
            sys.exit("usage: bench/analyze.py --readme-table [PREFIX]")
        print(readme_table(sys.argv[2] if len(sys.argv) == 3 else None))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("rundir")
    ap.add_argument("--results-dir", help="default RUNDIR/results")
    ap.add_argument("--publish", action="store_true",
                    help="write to bench/results if the run is complete and real")
    ap.add_argument("--prefix")
    args = ap.parse_args()
    plan = json.loads(read(f"{args.rundir}/plan.json", "{}"))
    recs, comp = select(load(args.rundir), plan)
    if not any(r.get("kind") in ("cell", "overhead") for r in recs):
        sys.exit(f"analyze: no cell records in {args.rundir}")
    boots = [r for r in recs if r.get("kind") == "boot"]
    fake = any(b.get("fake") for b in boots)
    partial = comp["done"] < comp["total"]
    marks = []
    if partial:
        marks.append(f"PARTIAL: {comp['done']} of {comp['total']} cells")
    if fake:
        marks.append("FAKE DATA (BENCH_FAKE_GUEST test run, not a measurement)")
    mark = "; ".join(marks) or None
    if args.results_dir is None:
        args.results_dir = (f"{TOP}/bench/results" if args.publish and not mark
                            else os.path.join(args.rundir, "results"))
    table, solo = derive(recs)
    ovh = overhead(recs)
    date = plan.get("created", "")[:10] or "undated"
    prefix = args.prefix or (date + ("-quick" if plan.get("mode") == "quick" else ""))
    os.makedirs(args.results_dir, exist_ok=True)
    prov = provenance(args.rundir, plan)
    devinfo = {}
    for r in recs:
        if r.get("kind") == "device":
            # one entry per kernel: the last boot's (all share the calibration)
            devinfo.setdefault(r["name"], {})[r.get("kernel") or next(
                (b["kernel"] for b in reversed(boots) if b["t"] <= r["t"]), "?")] = r
    ctrl_states = [r for r in recs if r.get("kind") == "ctrl"]
    loaded, why = machine_load(args.rundir, prov)
    secs = int(prov["elapsed_seconds"] or 0)
    completeness = {**comp, "partial": partial, "fake": fake, "mark": mark}

    md = [f"# Benchmark results {prefix}" + (f" — {mark}" if mark else ""), ""]
    if mark:
        md += [f"**{mark}.** " + ("Cells still to measure: run the same bench/run.sh "
                                 "command again; figures below cover the measured cells only."
                                 if partial else ""), ""]
    md += [f"Command: `{prov['command']}` (run dir `{os.path.relpath(args.rundir, TOP)}`, "
           f"{comp['done']} of {comp['total']} cells, measured in {secs // 60} min over "
           f"{prov['invocations']} invocation(s) of run.sh; {len(boots)} boots"
           + (f"; {comp['stale']} results of an older kernel build or method ignored"
              if comp["stale"] else "") + ").",
           f"Machine: {'LOADED: ' + '; '.join(why) if loaded else 'quiet (no kernel build, no other VM, load average < 2.5)'}.",
           f"Guest: {', '.join(sorted({b['uname'] for b in boots}))}, {boots[0]['nproc'] if boots else '?'} vCPU (TCG), "
           f"clocksource {', '.join(sorted({b.get('clocksource', '?') for b in boots}))}, "
           f"{boots[0]['fio'] if boots else '?'}; repeats per cell: {plan.get('repeat')}.", "",
           "Shares are from device bytes per cgroup (io.stat deltas over the window, net of "
           "writeback still in flight), "
           "normalised to each workload's solo rate with no controller on the same kernel "
           "(median over its repeats, which are separate boots). "
           "‡ = no control already within 5 points (does not discriminate); "
           "† = buffered hi: fio's p99 is syscall latency; ⚠n = n repeats with guest CPU above 70%. "
           "Figures: median (min–max over repeats).", ""]
    comparisons = [("out of the box", OOB), ("tuned: same calibrated model and QoS", TUNED)]
    devices = [d for d in plan.get("devices", []) if not d.startswith("nullb-nodelay")]
    written = []
    for dev in devices:
        if not any(k[0] == dev for k in table):
            continue
        nd = nondiscriminating(table, dev)
        info = devinfo.get(dev, {})
        first = next(iter(info.values()), {})
        md += [f"## {dev}", "", f"Capacity: {first.get('spec', {}).get('capacity', '?')}.", ""]
        devrecs = [r for r in recs if r.get("kind") == "device" and r.get("name") == dev]
        cals = calibration_lines(devrecs)
        shared = all("boot" in r["calibration"] for r in devrecs if r.get("calibration"))
        if not shared:   # a run from before shared calibrations: one per boot
            for k, v in info.items():
                if v.get("calibration"):
                    md.append(f"- calibrated on the {k} boot: `{v['calibration']['model']}`; "
                              f"QoS `{v['calibration']['qos']}`")
        for model, qos in (cals if shared else []):
            src = next((r["calibration"] for r in devrecs if r.get("calibration")
                        and r["calibration"]["model"] == model), {})
            md.append(f"- calibrated once, on the {src.get('kernel', '?')} kernel "
                      f"(boot {src.get('boot', '?')}), for every boot of the run: `{model}`; "
                      f"QoS `{qos}`")
        if shared and len(cals) > 1:
            md.append(f"- WARNING: {len(cals)} different calibrations were used (a "
                      "calibration file was removed mid-run): the tuned cells do not all "
                      "share one model")
        autos = {(s["ctrl"]): s["state"] for s in ctrl_states
                 if s.get("device") == dev and s.get("state") and s["ctrl"] in ("iocost", "ioweight")}
        for c, st in autos.items():
            md.append(f"- {c} automatic parameters: "
                      + "; ".join(f"`{v}`" for k, v in st.items() if k not in ("scheduler", "notes")))
        md.append("")
        sums = {}
        for title, ctrls in comparisons:
            rows = summary(table, dev, ctrls, ovh)
            sums[title] = rows
            md += [f"### {title}: summary over pairs with both groups active"
                   + (f" ({mark})" if mark else ""), ""]
            md += md_summary(rows) + [""]
        md += ["### every combination", ""]
        md += md_cells(table, dev, [c for c in ORDER], nd) + [""]
        png = f"{prefix}-{dev}.png"
        if plot_share(table, dev, f"{args.results_dir}/{png}", comparisons, mark):
            md += [f"![share error, {dev}]({png})", ""]
        res = {
            "device": dev, "mode": plan.get("mode"), "completeness": completeness,
            "plan": {k: v for k, v in plan.items() if k != "cells"},
            "plan_cells": [c["key"] if "key" in c else c for c in plan.get("cells", [])],
            "provenance": prov,
            "machine_loaded": loaded, "machine_load_reasons": why, "device_info": info,
            "controller_states": [s for s in ctrl_states if s.get("device") == dev],
            "solo_reference": {f"{k[1]}/{k[2]}": v for k, v in solo.items() if k[0] == dev},
            "summary": sums, "nondiscriminating": sorted(f"{h}/{l}" for h, l in nd),
            "cells": [{"ctrl": c, "hi": hi, "lo": lo, **a}
                      for (d, c, hi, lo), a in sorted(table.items(), key=lambda kv: str(kv[0]))
                      if d == dev],
            "raw": [r for r in recs if r.get("device") == dev],
        }
        with open(f"{args.results_dir}/{prefix}-{dev}.json", "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        written.append(f"{prefix}-{dev}.json")
    if ovh:
        md += ["## CPU overhead (null_blk, no delay: the guest CPU is the bottleneck)"
               + (f" ({mark})" if mark else ""), "",
               "| controller | kernel | IOPS on | IOPS off | on ÷ off | measured as | separate cells |",
               "| --- | --- | ---: | ---: | ---: | --- | ---: |"]
        for c in [c for c in ORDER if c in ovh]:
            o = ovh[c]
            md.append(f"| {c} | {o['kernel']} | {fmt(o['iops_on'], '{:.0f}')} | "
                      f"{fmt(o['iops_off'], '{:.0f}')} | {fmt_spread(o['ratio'], o['ratio_spread'], 1, '{:.3f}')} "
                      f"| {o['method']} | {fmt(o.get('separate_cells_ratio', o['ratio']), '{:.3f}')} |")
        md += ["", "Interleaved: one fio job per cell while the controller is switched "
               "off and on in ABBA order (2 s segments after 0.5 s to settle); "
               "separate cells: the medians of the controller's cells and of the "
               "no-control cells, taken minutes or boots apart.", ""]
        if plot_overhead(ovh, f"{args.results_dir}/{prefix}-overhead.png", mark):
            md += [f"![overhead]({prefix}-overhead.png)", ""]
        with open(f"{args.results_dir}/{prefix}-nullb-nodelay.json", "w") as f:
            json.dump({"device": "nullb-nodelay", "overhead": ovh, "provenance": prov,
                       "completeness": completeness,
                       "machine_loaded": loaded, "device_info": devinfo.get("nullb-nodelay"),
                       "raw": [r for r in recs if r.get("device") == "nullb-nodelay"]},
                      f, indent=1, sort_keys=True)
        written.append(f"{prefix}-nullb-nodelay.json")
    md += ["## host state", "", "```", prov["host_state"].strip(), "```", ""]
    with open(f"{args.results_dir}/{prefix}.md", "w") as f:
        f.write("\n".join(md))
    with open(f"{args.results_dir}/{prefix}-COMMAND.txt", "w") as f:
        f.write((f"# {mark}\n" if mark else "")
                + f"{prov['command']}\n# run dir {os.path.relpath(args.rundir, TOP)}; "
                f"git {prov['git_head'][:12]}; {comp['done']} of {comp['total']} cells; "
                f"measured in {secs} s over {prov['invocations']} invocation(s); "
                f"machine {'LOADED: ' + '; '.join(why) if loaded else 'quiet'}\n# host state:\n"
                + "".join(f"#   {l}\n" for l in prov["host_state"].splitlines()))
    print(f"analyze: {mark + ': ' if mark else ''}wrote {prefix}.md, {', '.join(written)} in "
          f"{os.path.relpath(args.results_dir, TOP)}")


if __name__ == "__main__":
    main()
