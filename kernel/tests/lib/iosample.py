#!/usr/bin/env python3
"""Sample cgroups' completed IOs on one device over time, and analyse samples.

    iosample.py sample --dev MAJ:MIN --duration S [--interval S]
                       [--at T FILE STRING]... CGROUP...
        Every INTERVAL (default 0.05 s) read each CGROUP's io.stat (paths
        relative to /sys/fs/cgroup) and print CSV "t,IOS1,IOS2,...": t in
        seconds since the start, IOSn = rios + wios of CGROUPn on the device.
        --at writes STRING to FILE (one write(2)) T seconds after the start
        and prints "# at T wrote FILE" so analyses know the exact moment.
        A first line "# start EPOCH" gives the wall-clock start.

    iosample.py first --csv FILE --after T --window W --col N
                      (--share X | --iops X)
        First time t >= T+W at which, over the window [t-W, t], column N's
        share of all columns (--share) or column N's IOPS (--iops) reached X.
        Prints the delay t - T in seconds, or "never".

    iosample.py rate --csv FILE --from T1 --to T2
        IOPS of each column over [T1, T2] and each one's share, as JSON.
"""
import argparse
import json
import os
import sys
import time

CG = "/sys/fs/cgroup"


def cg_ios(path, dev):
    try:
        with open(os.path.join(CG, path, "io.stat")) as f:
            for line in f:
                fields = line.split()
                if fields and fields[0] == dev:
                    kv = dict(x.split("=", 1) for x in fields[1:] if "=" in x)
                    return int(kv.get("rios", 0)) + int(kv.get("wios", 0))
    except FileNotFoundError:
        pass
    return 0


def cmd_sample(a):
    at = sorted((float(t), f, s) for t, f, s in (a.at or []))
    start = time.time()
    print("# start %.6f" % start, flush=True)
    n = 0
    while True:
        now = time.time() - start
        while at and at[0][0] <= now:
            t, f, s = at.pop(0)
            fd = os.open(f, os.O_WRONLY)
            try:
                os.write(fd, s.encode())
            finally:
                os.close(fd)
            print("# at %.4f wrote %s" % (time.time() - start, f), flush=True)
        vals = [cg_ios(c, a.dev) for c in a.cgroups]
        print("%.4f,%s" % (now, ",".join(map(str, vals))), flush=True)
        if now >= a.duration:
            return 0
        n += 1
        nxt = start + n * a.interval
        delay = nxt - time.time()
        if delay > 0:
            time.sleep(delay)


def load(path):
    rows, events = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("# at "):
                events.append(float(line.split()[2]))
            elif line and not line.startswith("#"):
                p = line.strip().split(",")
                rows.append((float(p[0]), [int(x) for x in p[1:]]))
    return rows, events


def at_time(rows, t):
    """the last sample taken at or before t"""
    best = rows[0]
    for r in rows:
        if r[0] <= t:
            best = r
        else:
            break
    return best


def cmd_first(a):
    rows, _ = load(a.csv)
    for t, vals in rows:
        if t < a.after + a.window:
            continue
        t0, v0 = at_time(rows, t - a.window)
        if t - t0 <= 0:
            continue
        d = [x - y for x, y in zip(vals, v0)]
        tot = sum(d)
        if a.share is not None:
            ok = tot > 0 and d[a.col] / tot >= a.share
        else:
            ok = d[a.col] / (t - t0) >= a.iops
        if ok:
            print("%.3f" % (t - a.after))
            return 0
    print("never")
    return 0


def cmd_rate(a):
    rows, _ = load(a.csv)
    t1, v1 = at_time(rows, a.frm)
    t2, v2 = at_time(rows, a.to)
    d = [x - y for x, y in zip(v2, v1)]
    tot = sum(d) or 1
    dt = (t2 - t1) or 1
    print(json.dumps({"seconds": round(dt, 3),
                      "iops": [round(x / dt, 1) for x in d],
                      "share": [round(x / tot, 4) for x in d]}))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--dev", required=True)
    s.add_argument("--duration", type=float, required=True)
    s.add_argument("--interval", type=float, default=0.05)
    s.add_argument("--at", nargs=3, action="append", metavar=("T", "FILE", "STRING"))
    s.add_argument("cgroups", nargs="+")
    f = sub.add_parser("first")
    f.add_argument("--csv", required=True)
    f.add_argument("--after", type=float, required=True)
    f.add_argument("--window", type=float, default=0.25)
    f.add_argument("--col", type=int, required=True)
    f.add_argument("--share", type=float)
    f.add_argument("--iops", type=float)
    r = sub.add_parser("rate")
    r.add_argument("--csv", required=True)
    r.add_argument("--from", dest="frm", type=float, required=True)
    r.add_argument("--to", type=float, required=True)
    a = p.parse_args()
    return {"sample": cmd_sample, "first": cmd_first, "rate": cmd_rate}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
