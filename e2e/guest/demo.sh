#!/bin/bash
# Guest side of `make demo` and `make demo-compare` (e2e/demo.sh boots the
# guest with this).
#
#   e2e/guest/demo.sh OUT_DIR RUN...    OUT_DIR relative to /ioweight
#
# Two saturating fio pods (examples/pods/demo-fio-{high,low}.yaml, weights
# 500 and 100, runtimeClassName ioweight) run through containerd's CRI
# (e2e/guest/kcri) on the 1000-IOPS disk, released together by a start gate,
# once per RUN:
#   off:    admin config examples/ioweight/demo-off.json - the disk's profile
#           has enable=false, so nothing enforces the weights
#   on:     e2e/config/demo-auto.json - io.weight enabled with the kernel's
#           automatic cost model and QoS: what a user gets out of the box
#   iocost: e2e/config/demo-iocost-auto.json - upstream io.cost enabled with
#           its automatic parameters (the baseline kernel)
# For each run it writes OUT_DIR/<run>-<pod>.json (fio's JSON output),
# OUT_DIR/<run>-timeline.csv (io.stat of both pod cgroups every 0.5 s) and
# OUT_DIR/<run>-qos.txt (the root QoS and cost model lines).
set -euo pipefail
source /ioweight/vm/tap.sh # poll_until
source /ioweight/e2e/guest/lib.sh

out=/ioweight/$1; shift
runtime=${DEMO_RUNTIME:-20}
gate=/run/ioweight-demo
say() { printf '[demo %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

# the root lines in effect for the test disk, after the pods started
root_lines() {
	local dev=$1 f
	for f in io.weight.qos io.weight.cost_model io.cost.qos io.cost.model; do
		[ -e "/sys/fs/cgroup/$f" ] || continue
		grep "^$dev " "/sys/fs/cgroup/$f" | sed "s|^|$f: |" || true
	done
}

run_case() {
	local run=$1 config=$2 what=$3 watcher p dev
	dev=$(e2e_dev)
	say "run '$run': $what"
	e2e_use_config "$config"
	rm -rf "$gate" && mkdir -p "$gate"
	drop_caches
	for p in high low; do
		pod_run "$PODS/demo-fio-$p.yaml" --env RUNTIME="$runtime" | sed 's/^/    /' \
			|| die "pod demo-fio-$p did not start"
	done
	root_lines "$dev" > "$out/$run-qos.txt"
	[ -s "$out/$run-qos.txt" ] || echo "$dev (no controller)" > "$out/$run-qos.txt"
	sed 's/^/    root /' "$out/$run-qos.txt"
	say "  both pods started; opening the gate, fio runs ${runtime}s + 2s ramp"
	# samples until both pods are done (fio may take seconds to start on a
	# loaded host), bounded by the same limit as the wait below
	"$CGIO" watch --dev "$dev" --interval 0.5 --duration $((runtime + 120)) --out "$out/$run-timeline.csv" \
		high="$(pod_cg demo-fio-high)" low="$(pod_cg demo-fio-low)" &
	watcher=$!
	poll_until 90 test -s "$out/$run-timeline.csv" || die "the io.stat sampler did not start within 90 s"
	touch "$gate/go"
	for p in high low; do
		"$KCRI" wait "demo-fio-$p" --timeout $((runtime + 120)) || die "pod demo-fio-$p did not finish"
	done
	sleep 1 # one more sample after the last IO
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
	for p in high low; do
		"$KCRI" logs "demo-fio-$p" fio > "$out/$run-$p.json"
		jq -e '.jobs[0].read.iops' "$out/$run-$p.json" > /dev/null \
			|| die "no fio JSON result from demo-fio-$p (see $out/$run-$p.json)"
		pod_rm "demo-fio-$p" > /dev/null
	done
	say "  done: high $(jq '.jobs[0].read.iops | floor' "$out/$run-high.json") IOPS, low $(jq '.jobs[0].read.iops | floor' "$out/$run-low.json") IOPS (fio)"
}

[ $# -gt 0 ] || die "no run given (off, on, iocost)"
mkdir -p "$out"
/ioweight/e2e/guest/setup.sh /ioweight/examples/ioweight/demo-off.json
for run in "$@"; do
	rm -f "$out/$run"-*
	case $run in
	off) run_case off /ioweight/examples/ioweight/demo-off.json "no IO control (profile enable=false)" ;;
	on)
		[ "$(e2e_kernel)" = ioweight ] || die "run 'on' needs the io.weight kernel, this one has: $(e2e_kernel)"
		run_case on "$E2E/config/demo-auto.json" "io.weight 500:100, automatic parameters" ;;
	iocost)
		[ "$(e2e_kernel)" = iocost ] || die "run 'iocost' needs the baseline kernel (io.cost), this one has: $(e2e_kernel)"
		run_case iocost "$E2E/config/demo-iocost-auto.json" "upstream io.cost 500:100, automatic parameters" ;;
	*) die "unknown run $run (off, on, iocost)" ;;
	esac
	e2e_kernel > "$out/$run-kernel.txt"
done
