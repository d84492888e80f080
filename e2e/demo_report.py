#!/usr/bin/python3
"""Table and plot for `make demo` / `make demo-compare` from what
e2e/guest/demo.sh left in DIR.

  e2e/demo_report.py DIR [PNG]

Per run found in DIR (off: no IO control; on: io.weight 500:100 with
automatic parameters; iocost: upstream io.cost 500:100 with automatic
parameters, baseline kernel) and pod: fio's throughput and p99 completion
latency, and the pod's share of the disk computed from device bytes in its
cgroup's io.stat over the seconds fio measured (after its 2 s ramp). The plot
shows device throughput per pod over time, one panel per run.
"""
import csv
import json
import os
import sys

UNIT = 4096
RAMP = 2.0
ALL_RUNS = (("off", "no IO control"), ("iocost", "io.cost 500:100, automatic"),
            ("on", "io.weight 500:100, automatic"))
PODS = (("high", 500), ("low", 100))


def fio_stats(path):
    with open(path) as f:
        text = f.read()
    # the log may hold a line before the JSON (e.g. a shell message)
    j, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
    r = j["jobs"][0]["read"]
    pct = r.get("clat_ns", {}).get("percentile", {})
    p99 = next((v for k, v in pct.items() if k.startswith("99.0")), None)
    return {"mbps": r["bw_bytes"] / 1e6, "iops": r["iops"], "p99_ms": p99 / 1e6 if p99 else float("nan"),
            "runtime_s": r["runtime"] / 1000}


def timeline(path):
    """{pod: [(t, work units cumulative)]}"""
    series = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            w = (int(row["rbytes"]) + int(row["wbytes"])) / UNIT
            series.setdefault(row["name"], []).append((float(row["t"]), w))
    return series


def active_window(series):
    """From when both pods' IO started + the ramp, to when the first one stopped."""
    starts, ends = [], []
    for pts in series.values():
        moving = [pts[i][0] for i in range(1, len(pts)) if pts[i][1] > pts[i - 1][1]]
        if not moving:
            return None
        starts.append(moving[0])
        ends.append(moving[-1])
    t0, t1 = max(starts) + RAMP, min(ends)
    return (t0, t1) if t1 - t0 > 2 else (max(starts), min(ends))


def at(pts, t):
    best = pts[0][1]
    for ti, w in pts:
        if ti <= t:
            best = w
    return best


def shares(series):
    win = active_window(series)
    if not win:
        return {n: float("nan") for n in series}, None
    work = {n: at(pts, win[1]) - at(pts, win[0]) for n, pts in series.items()}
    total = sum(work.values()) or 1
    return {n: 100 * w / total for n, w in work.items()}, (win, total / (win[1] - win[0]))


def runs_in(d):
    runs = tuple(r for r in ALL_RUNS if os.path.exists(os.path.join(d, f"{r[0]}-timeline.csv")))
    if not runs:
        sys.exit(f"demo_report.py: no <run>-timeline.csv in {d}")
    return runs


def table(d, runs):
    res = {}
    for run, _ in runs:
        tl = timeline(os.path.join(d, f"{run}-timeline.csv"))
        sh, info = shares(tl)
        res[run] = {"share": sh, "disk_rate": info[1] if info else float("nan")}
        for pod, _ in PODS:
            res[run][pod] = fio_stats(os.path.join(d, f"{run}-{pod}.json"))
        res[run]["timeline"] = tl
    hdr = f"{'pod (io.weight)':<20}" + "".join(f"| {label:^31} " for _, label in runs)
    sub = f"{'':<20}" + "| {:>6} {:>6} {:>8} {:>7} ".format("MB/s", "IOPS", "p99 ms", "share") * len(runs)
    lines = [hdr, sub, "-" * len(sub)]
    for pod, w in PODS:
        row = f"{'demo-fio-' + pod + ' (' + str(w) + ')':<20}"
        for run, _ in runs:
            s = res[run][pod]
            row += f"| {s['mbps']:6.2f} {s['iops']:6.0f} {s['p99_ms']:8.1f} {res[run]['share'][pod]:6.1f}% "
        lines.append(row)
    row = f"{'disk (IO units/s)':<20}"
    for run, _ in runs:
        row += f"| {res[run]['disk_rate']:>31.0f} "
    lines.append(row)
    return "\n".join(lines), res


def plot(res, png, runs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(6 * len(runs), 4.5), sharey=True, squeeze=False)
    axes = axes[0]
    colors = {"high": "tab:blue", "low": "tab:orange"}
    for ax, (run, label) in zip(axes, runs):
        # time 0 = the first IO of either pod; idle samples around the run dropped
        moves = [b[0] for pts in res[run]["timeline"].values() for a, b in zip(pts, pts[1:]) if b[1] > a[1]]
        first, last = (min(moves), max(moves)) if moves else (0, float("inf"))
        for pod, w in PODS:
            pts = res[run]["timeline"].get(pod, [])
            xs, ys = [], []
            for (t0, w0), (t1, w1) in zip(pts, pts[1:]):
                if t1 > t0 and first - 1 <= t1 <= last + 1:
                    xs.append(t1 - first)
                    ys.append((w1 - w0) * UNIT / (t1 - t0) / 1e6)
            ax.plot(xs, ys, color=colors[pod], label=f"demo-fio-{pod} (weight {w}): "
                    f"{res[run]['share'][pod]:.0f}% of the disk")
        ax.set_title(label)
        ax.set_xlabel("seconds since the first IO")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper center", fontsize=8)
    axes[0].set_ylabel("device throughput (MB/s, from io.stat)")
    top = max([ln.get_ydata().max() for ax in axes for ln in ax.get_lines() if len(ln.get_ydata())] or [1])
    axes[0].set_ylim(0, top * 1.35)
    fig.suptitle("Two 4 KiB random readers (QD32) on a 1000-IOPS disk")
    fig.tight_layout()
    fig.savefig(png, dpi=100, metadata={"Software": None})


def main():
    d = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else os.path.join(d, "ioweight-demo.png")
    runs = runs_in(d)
    text, res = table(d, runs)
    print(text)
    with open(os.path.join(d, "table.txt"), "w") as f:
        f.write(text + "\n")
    plot(res, png, runs)
    print(f"\nplot: {png}")


if __name__ == "__main__":
    main()
