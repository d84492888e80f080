#!/usr/bin/python3
"""Turn kernel/measure/matrix.sh results into one Markdown table.

    matrix-table.py [--png FILE] --label NAME=FILE.jsonl... > table.md

Each --label is the JSON lines of one kernel's run (e.g. io.weight=...,
io.cost=...); the table has a row per device and figure and a column per
kernel, with the figure's key numbers and a mark: ok (target met) or MISS.
--png also plots, per device and kernel, the 500:100 pair's hi share and
total and the lone group against their targets (Debian's
python3-matplotlib).
"""
import argparse
import json
import sys

ORDER = ["vd1000-rot0", "vd1000-rot1", "vd1000-dl", "vdcloud", "vdfast",
         "nb-2t-1ms", "nb-32t-250us", "nb-1t-8ms", "nb-nodelay"]
FIGS = ["reference", "pair", "lone", "three", "mixed", "qd1", "flips",
        "handover", "scale"]


def pct(x):
    return "%.1f" % (100 * x)


def cell(f):
    k = f["figure"]
    if k == "reference":
        return "solo %.0f, pair %.0f IO/s" % (f["solo_iops"], f["pair_iops"])
    if k == "pair":
        s = "hi %s%%, total %s%%" % (pct(f["hi_share"]), pct(f["conservation"]))
    elif k == "lone":
        s = "%s%% of solo" % pct(f["ratio"])
    elif k == "three":
        s = "/".join(pct(x) for x in f["shares"]) + "%"
    elif k == "mixed":
        s = "share %s%%, sum %.2f" % (pct(f["share"]), f["sum"])
    elif k == "qd1":
        if "iops" not in f:
            s = f.get("error", "?")
        else:
            s = "%s%% of solo, p99 x%.1f" % (
                pct(f["iops"] / f["solo_iops"]) if f["solo_iops"] else "?",
                f["p99_us"] / f["solo_p99_us"] if f["solo_p99_us"] else 0)
    elif k == "flips":
        d = ["-" if x is None else "%.2f" % x for x in f["delays_s"]]
        s = "after %s s; %s%%" % ("/".join(d), "/".join(pct(x) for x in f["second_half_shares"]))
    elif k == "handover":
        s = "never" if f["delay_s"] is None else "%.2f s" % f["delay_s"]
    elif k == "scale":
        s = "%d groups: on/off %.3f" % (f["groups"], f["ratio"])
    else:
        s = json.dumps(f)
    return s + (" ok" if f.get("ok") else " **MISS**")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", action="append", required=True, metavar="NAME=FILE")
    ap.add_argument("--png")
    a = ap.parse_args()
    runs = []
    for spec in a.label:
        name, _, path = spec.partition("=")
        figs = {}
        with open(path) as fh:
            for line in fh:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                f = json.loads(line)
                key = (f.get("dev"), f.get("figure"), f.get("groups"))
                figs[key] = f
        runs.append((name, figs))
    keys = set()
    for _, figs in runs:
        keys |= set(figs)

    def order(k):
        dev, fig, groups = k
        return (ORDER.index(dev) if dev in ORDER else 99,
                FIGS.index(fig) if fig in FIGS else 99, groups or 0)

    print("| device | figure | " + " | ".join(n for n, _ in runs) + " |")
    print("|---|---|" + "---|" * len(runs))
    missed = {n: 0 for n, _ in runs}
    for k in sorted(keys, key=order):
        row = []
        for n, figs in runs:
            f = figs.get(k)
            row.append(cell(f) if f else "-")
            if f and f.get("ok") is False:
                missed[n] += 1
        print("| %s | %s | %s |" % (k[0], k[1], " | ".join(row)))
    print()
    print("Misses: " + ", ".join("%s %d" % kv for kv in missed.items()))
    if a.png:
        plot(a.png, runs)
    return 0


def plot(path, runs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    devs = [d for d in ORDER if any((d, "pair", None) in f for _, f in runs)]
    panels = [("pair", "hi_share", "500:100: hi share (%)", (78.3, 88.3)),
              ("pair", "conservation", "500:100: total / no control (%)", (95, None)),
              ("lone", "ratio", "lone group / no control (%)", (95, None))]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 9), sharex=True)
    width = 0.8 / max(len(runs), 1)
    for ax, (fig_name, key, title, (lo, hi)) in zip(axes, panels):
        for i, (name, figs) in enumerate(runs):
            ys = [100 * figs.get((d, fig_name, None), {}).get(key, 0) for d in devs]
            ax.bar([x + i * width for x in range(len(devs))], ys, width, label=name)
        ax.axhline(lo, color="k", lw=0.8, ls="--")
        if hi:
            ax.axhline(hi, color="k", lw=0.8, ls="--")
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, 110)
    axes[-1].set_xticks([x + 0.4 - width / 2 for x in range(len(devs))])
    axes[-1].set_xticklabels(devs, rotation=20, fontsize=8)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    sys.exit(main())
