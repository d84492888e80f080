#!/usr/bin/env bash
# Checks of the benchmark harness's resume, skip and budget logic, with no
# guest: BENCH_FAKE_GUEST=1 runs bench/guest/driver.py --fake on the host
# (fake figures, sleeps instead of measurements) and fake bzImages stand in
# for the kernels. About 3 minutes; state in build/bench/selftest/.
#
# usage: bench/selftest.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
base=build/bench/selftest
kd=$base/kernels
dir=$base/state
log=$base/log
t0=$(date +%s)
pass=0 fail=0

export BENCH_FAKE_GUEST=1 BENCH_TIME_SCALE=0.02 BENCH_KERNELS_DIR=$kd
unset BENCH_FAKE_DIE_AT BENCH_FAKE_DIE_KEY
# 136 cells: 2 repeats x (baseline: none 20 + iocost 20 + 2 overhead;
# ioweight: 4 none solos + ioweight 20 + 2 overhead); a cell takes ~0.4 s
sel=(--full --devices "virtio,nullb-nodelay" --controllers "none,iocost,ioweight"
	--repeat 2 --out-dir "$dir")
total=136

say() { echo "[selftest +$(( $(date +%s) - t0 ))s] $*"; }
ok() { pass=$((pass + 1)); say "ok: $*"; }
bad() { fail=$((fail + 1)); say "FAIL: $*"; }
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
bench() { bench/run.sh "${sel[@]}" "$@" > "$log" 2>&1; }
kernel() { # NAME: a new fake bzImage
	mkdir -p "$kd/kernel-$1/arch/x86/boot"
	head -c 65536 /dev/urandom > "$kd/kernel-$1/arch/x86/boot/bzImage"
}
# figures from the state, by bench/plan.py's own reading of it
state() { # FIELD: done | todo | blocked | failed | stale | cut
	"$py" - "$dir" "$1" <<-'EOF'
	import sys
	sys.path.insert(0, "bench")
	import plan
	st = plan.State(sys.argv[1], plan.load_plan(sys.argv[1]))
	print(len({"done": st.done, "todo": st.runnable, "blocked": st.blocked,
	           "failed": st.failed, "stale": st.stale, "cut": st.cut}[sys.argv[2]]))
	EOF
}
# no key has two result records: nothing measured twice
no_duplicates() {
	"$py" - "$dir" <<-'EOF'
	import collections, sys
	sys.path.insert(0, "bench")
	import plan
	n = collections.Counter(r["key"] for r in plan.load_records(sys.argv[1])
	                        if r.get("kind") in ("cell", "overhead") and r.get("key"))
	dup = [k for k, c in n.items() if c > 1]
	if dup:
	    print("measured twice:", *dup[:5])
	sys.exit(1 if dup else 0)
	EOF
}
# every start record of a boot that ended cleanly has its result
clean_stop() {
	"$py" - "$dir" <<-'EOF'
	import sys
	sys.path.insert(0, "bench")
	import plan
	recs = plan.load_records(sys.argv[1])
	ended = {r["boot"] for r in recs if r.get("kind") == "end"}
	res = {(r["boot"], r["key"]) for r in recs if r.get("kind") in ("cell", "overhead")}
	bad = [r["key"] for r in recs if r.get("kind") == "start" and r["boot"] in ended
	       and (r["boot"], r["key"]) not in res]
	sys.exit(1 if bad else 0)
	EOF
}
has() { grep -q -- "$1" "$2"; }

rm -rf "$base"
mkdir -p "$base"
kernel baseline
kernel ioweight

say "1. status of a new state"
bench --status
check "status: 0 of $total done" has "cells: 0 of $total done" "$log"
check "status wrote nothing" test ! -e "$dir/plan.json"
BENCH_TIME_SCALE=1 "$py" bench/plan.py estimate --mode quick > "$base/quick.est"
read -r _ qcells qsecs _ < "$base/quick.est"
check "--quick: 44 cells, model estimate $qsecs s <= 15 min" test "$qcells" = 44 -a "$qsecs" -le 900
BENCH_TIME_SCALE=1 "$py" bench/plan.py estimate --mode full > "$base/full.est"
read -r _ fcells fsecs fboots < "$base/full.est"
say "full run: $fcells cells, ~$((fsecs / 60)) min by the model, $fboots boots"
# --combos: the pairs asked for and the solos of their workloads, nothing else
"$py" bench/plan.py estimate --mode full --devices virtio --controllers ioweight \
	--repeat 1 --combos seqread+randread,seqread+seqread > "$base/combos.est"
read -r _ ccells _ < "$base/combos.est"
check "--combos seqread+randread,seqread+seqread: 4 cells ($ccells)" test "$ccells" = 4
check "--combos refuses a malformed pair" \
	sh -c '! "$1" bench/plan.py estimate --mode full --combos seqread-randread 2> "$2" &&
		grep -q "not .seqread-randread." "$2"' _ "$py" "$base/combos.err"

say "2. budget of 15 s: a clean stop"
s=$(date +%s)
bench --budget 0.25
took=$(( $(date +%s) - s ))
d1=$(state done)
check "stopped on the budget" has "budget: " "$log"
check "within the budget ($took s <= 17 s)" test "$took" -le 17
check "measured some cells ($d1)" test "$d1" -gt 5 -a "$d1" -lt "$total"
check "no cell left half done" clean_stop
check "calibration kept for the next boots" test -f "$dir/calibration-virtio.json"
check "the stop message gives what remains" has "cells remain" "$log"
bench --status
check "status: $d1 of $total done" has "cells: $d1 of $total done" "$log"
check "status gives an ETA" has "^remaining: $((total - d1)) cells" "$log"

say "3. resume: the same command continues, nothing measured twice"
bench --budget 0.2
d2=$(state done)
check "more cells done ($d1 -> $d2)" test "$d2" -gt "$d1"
check "no cell measured twice" no_duplicates
check "the calibration was reused" has "calibration of boot" "$log"

say "4. partial analysis"
bench --analyze-only
md=$(ls "$dir"/results/*.md)
check "PARTIAL in the markdown" has "PARTIAL: $d2 of $total cells" "$md"
check "FAKE in the markdown" has "FAKE DATA" "$md"
check "PARTIAL in the JSON" grep -q '"partial": true' "$dir"/results/*-virtio.json
check "PARTIAL in COMMAND.txt" has "PARTIAL" "$dir"/results/*-COMMAND.txt
check "a plot" test -s "$(ls "$dir"/results/*-virtio.png)"
check "bench/results untouched" test -z "$(git status --porcelain bench/results)"
# the overhead ratio comes from the interleaved on/off segments of a cell when
# it has them, not from the medians of cells taken apart
ovh_check() {
	"$py" - <<'PYEOF'
import sys
sys.path.insert(0, "bench")
import analyze
def rec(ctrl, iops, rep, inter=None):
    r = {"kind": "overhead", "kernel": "ioweight", "ctrl": ctrl, "rep": rep,
         "cpu_busy": 0.5, "groups": {"hi": {"fio": {"read": {"iops": iops}}}}}
    if inter:
        r["interleaved"] = {"ratio": inter, "on_iops": 1000 * inter, "off_iops": 1000}
    return r
recs = [rec("none", 40000, i) for i in range(3)]
recs += [rec("ioweight", 30000, i, r) for i, r in enumerate((0.95, 0.97, 0.90))]
o = analyze.overhead(recs)["ioweight"]
assert abs(o["ratio"] - 0.95) < 1e-9, o
assert abs(o["separate_cells_ratio"] - 0.75) < 1e-9, o
assert o["method"].startswith("interleaved"), o
o = analyze.overhead(recs[:3] + [rec("ioweight", 30000, 0)])["ioweight"]
assert abs(o["ratio"] - 0.75) < 1e-9 and o["method"] == "separate cells", o
PYEOF
}
check "overhead: the interleaved ratio is reported, separate cells the fallback" ovh_check
# the share arithmetic on a case worked by hand (10 s windows, MB = 1e6 B):
# alone with no control RR moves 100 MB (10 MB/s, p99 2 ms), SR 200 MB
# (20 MB/s). RR (hi) vs SR (lo), three repeats, hi/lo MB and hi p99:
#   60/80, 6 ms: norms 0.6, 0.4: share 0.6,    error 23.33 pts, wc 1.0, p99 3x
#   70/80, 8 ms: norms 0.7, 0.4: share 0.6364, error 19.70 pts, wc 1.1, p99 4x
#   50/100, 4 ms: norms 0.5, 0.5: share 0.5,   error 33.33 pts, wc 1.0, p99 2x
# medians: share 0.6, error 23.33 pts (spread 19.70-33.33), wc 1.0, p99 3x;
# byte share of the median repeat 60/140 = 0.4286 is not the normalised one.
# RR vs RR, one repeat, 50/10 MB, 4 ms: norms 0.5, 0.1: share 5/6 exactly,
# error 0, wc 0.6, p99 2x. Over the two pairs: mean error 11.67 pts, worst
# 23.33, 1 of 2 within 5 points, mean wc 0.8, worst p99 ratio 3.
share_check() {
	"$py" - <<'PYEOF'
import sys
sys.path.insert(0, "bench")
import analyze
MB = 1e6
def g(workload, mb, p99_ms=1):
    return {"workload": workload, "dev_bytes": mb * MB,
            "fio": {"read": {"bw_bytes": mb * MB / 10, "io_bytes": mb * MB,
                             "clat_p99_ns": p99_ms * 1e6}}}
def cell(ctrl, hi, lo, rep, groups):
    return {"kind": "cell", "device": "d", "kernel": "k", "ctrl": ctrl, "hi": hi,
            "lo": lo, "rep": rep, "window_s": 10, "cpu_busy": 0.5, "cpu_flag": False,
            "groups": groups}
recs = [cell("none", "randread", None, 0, {"hi": g("randread", 100, 2)}),
        cell("none", "seqread", None, 0, {"hi": g("seqread", 200, 2)})]
for rep, (h, l, p) in enumerate([(60, 80, 6), (70, 80, 8), (50, 100, 4)]):
    recs.append(cell("ioweight", "randread", "seqread", rep,
                     {"hi": g("randread", h, p), "lo": g("seqread", l)}))
recs.append(cell("ioweight", "randread", "randread", 0,
                 {"hi": g("randread", 50, 4), "lo": g("randread", 10)}))
table, _ = analyze.derive(recs)
def near(x, y):
    assert x is not None and abs(x - y) < 1e-4, (x, y)
a = table[("d", "ioweight", "randread", "seqread")]
near(a["share"], 0.6)
near(a["share_err"], 0.7 / 3)
near(a["share_err_spread"][0], 5 / 6 - 0.7 / 1.1)
near(a["share_err_spread"][1], 1 / 3)
near(a["wc"], 1.0)
near(a["p99_ratio"], 3.0)
near(a["byte_share"], 60 / 140)
b = table[("d", "ioweight", "randread", "randread")]
near(b["share_err"], 0.0)
near(b["wc"], 0.6)
[s] = analyze.summary(table, "d", ["ioweight"], {})
near(s["share_err_mean"], 0.35 / 3)
near(s["share_err_worst"], 0.7 / 3)
assert s["pairs"] == 2 and s["pairs_within_5pt"] == 1, s
near(s["wc_mean"], 0.8)
near(s["p99_ratio_worst"], 3.0)
PYEOF
}
check "share error, work conservation, p99 ratio of a case worked by hand" share_check
# README's results table is bench/analyze.py's, for the run README names
readme_table() {
	local p
	p=$(sed -n 's/^Generated by `bench\/analyze.py --readme-table \([^`]*\)`.*/\1/p' README.md)
	[ -n "$p" ] || { echo "README names no --readme-table run"; return 1; }
	"$py" bench/analyze.py --readme-table "$p" > "$base/readme-table.md"
	"$py" - "$base/readme-table.md" <<-'EOF'
	import sys
	table = open(sys.argv[1]).read().strip()
	sys.exit(0 if table in open("README.md").read() else 1)
	EOF
}
check "README's results table is bench/analyze.py --readme-table's" readme_table

say "5. a run killed hard mid-cell, and half a line at the end of the log"
setsid bench/run.sh "${sel[@]}" > "$log" 2>&1 &
pid=$!
sleep 4
# everything of that run at once, as a hard stop of the machine would: the
# run, its sampler, the (fake) guest under timeout in a group of its own
# shellcheck disable=SC2046 # a list of pids
kill -KILL $(ps -o pid= -s "$pid") 2>/dev/null || true
wait "$pid" 2>/dev/null || true
jl=$(find "$dir" -maxdepth 1 -name '*.jsonl' ! -name host.jsonl -printf '%T@ %p\n' |
	sort -n | tail -1 | cut -d' ' -f2)
printf '{"kind": "cell", "key": "cut-off-mid-wri' >> "$jl"
d3=$(state done)
cut=$(state cut)
check "the killed run kept its cells ($d2 -> $d3)" test "$d3" -gt "$d2"
say "cells started and not finished: $cut"
bench --budget 0.15
check "resumed after the kill ($d3 -> $(state done))" test "$(state done)" -gt "$d3"
check "the cut cell is measured again" test "$(state cut)" = 0
check "no cell measured twice" no_duplicates

say "6. a cell that kills its guest every time: recorded failed after 2 boots"
victim=$("$py" -c "
import json; p = json.load(open('$dir/plan.json'))
import sys; sys.path.insert(0, 'bench'); import plan
st = plan.State('$dir', p); print(st.runnable[2]['key'])")
BENCH_FAKE_DIE_KEY=$victim bench --budget 0.2 || true
check "the run went past it" test "$(state failed)" = 1
check "two cuts noted" test "$(grep -c '"kind": "cut"' "$dir/host.jsonl")" = 2
check "recorded failed" has "the guest died during this cell in 2 boots" "$dir/host.jsonl"

say "7. a boot that measures nothing stops the run"
set +e
BENCH_FAKE_DIE_AT=0 bench --budget 0.2
rc=$?
set -e
check "exit 1 (got $rc)" test "$rc" = 1
check "says why" has "ERROR: the boot measured nothing" "$log"

say "8. a budget too short for one boot: no boot at all"
bench --budget 0.005
check "stopped before booting" has "budget: stopping;" "$log"
check "no boot" bash -c "! grep -q 'boot 1 (' '$log'"

say "9. a rebuilt kernel: its cells are measured again, the old ones ignored"
before=$(state done)
kernel ioweight
bench --status
now=$(sed -n 's/^cells: \([0-9]*\) of.*/\1/p' "$log")
check "ioweight cells no longer count ($before -> $now)" test "$now" -lt "$before"
check "status says results were ignored" has "ignored: " "$log"
bench --budget 0
check "the plan names the kernel whose results no longer count" \
	has "results of ioweight@.* are not counted: the ioweight bzImage is now" "$log"

say "10. a missing kernel: its cells wait, the rest runs"
mv "$kd/kernel-ioweight" "$kd/away"
bench
check "noted" has "no ioweight kernel" "$log"
check "ended blocked" has "cells on a missing kernel remain" "$log"
check "only ioweight cells left" test "$(state todo)" = 0 -a "$(state blocked)" -gt 0
check "partial analysis ran" grep -q "PARTIAL" "$dir"/results/*.md
mv "$kd/away" "$kd/kernel-ioweight"

say "11. complete: analysis with no PARTIAL mark"
bench
check "all done" test "$(state done)" = "$total" -a "$(state todo)" = 0
check "analysis ran" has "analyze: " "$log"
check "no PARTIAL" bash -c "! grep -q PARTIAL $dir/results/*.md"
check "FAKE still marked" has "FAKE DATA" "$(ls "$dir"/results/*.md)"
check "complete in the JSON" grep -q '"partial": false' "$dir"/results/*-virtio.json
check "ignored results counted" has "results of an older kernel build or method ignored" \
	"$(ls "$dir"/results/*.md)"
check "no cell measured twice" no_duplicates
check "bench/results untouched" test -z "$(git status --porcelain bench/results)"
bench
check "a finished run measures nothing more" has "0 cells measured\|invocation: 0 cells" "$log"

say "12. --fresh sets the state aside"
bench --fresh --budget 0.05
check "old state kept" test -n "$(ls -d "$dir".* 2>/dev/null)"
check "new state starts at 0" test "$(state done)" -lt 10

say "$pass passed, $fail failed ($(( $(date +%s) - t0 )) s)"
[ "$fail" = 0 ]
