#!/usr/bin/env bash
# Benchmark io.weight against io.cost, BFQ and no control on emulated devices.
#
# usage: bench/run.sh --full|--quick [--devices D,D] [--controllers C,C]
#                     [--repeat N] [--out-dir DIR] [--no-analyze]
#   --full         every device, the 20 combinations, 3 repeats (hours)
#   --quick        the 1000-IOPS disk and the overhead device, 7 combinations,
#                  1 repeat, short cells (< 15 min)
#   --devices      virtio, nullb, nullb-nodelay (overhead) — see bench/plan.py
#   --controllers  none, iocost, iocost-tuned, bfq, ioweight, ioweight-tuned
#   --repeat N     repeats per cell (default 3 full, 1 quick)
#   --out-dir DIR  run directory (default build/bench/<time>-<mode>)
#   --no-analyze   only measure; run bench/analyze.py DIR later
# Results go to bench/results/ for a plain --full or --quick, to DIR/results/
# when --devices, --controllers or --repeat narrowed or changed the run.
#
# Boots each kernel variant once (baseline: none, io.cost, BFQ; ioweight: ours)
# with the same devices; the guest driver (bench/guest/driver.py) runs all of
# that kernel's cells in the one boot and appends JSON lines to
# DIR/<kernel>.jsonl. Then bench/analyze.py writes bench/results/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mode="" devices="" ctrls="" repeat="" outdir="" analyze=1
argv=("$@")

die() { echo "bench: $*" >&2; exit 2; }
say() { echo "[bench $(date +%H:%M:%S)] $*"; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--full) mode=full; shift ;;
		--quick) mode=quick; shift ;;
		--devices) devices=$2; shift 2 ;;
		--controllers) ctrls=$2; shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--out-dir) outdir=$2; shift 2 ;;
		--no-analyze) analyze=""; shift ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown option $1 (see --help)" ;;
		esac
	done
	[ -n "$mode" ] || die "give --full or --quick (see --help)"
	[ -n "$outdir" ] || outdir=build/bench/$(date +%Y%m%d-%H%M%S)-$mode
}

check_prereqs() {
	[ -f build/vm/root.img ] || die "no guest image (make image)"
	command -v qemu-system-x86_64 >/dev/null || die "qemu missing (make deps)"
	present=""
	for k in baseline ioweight; do
		[ -f "build/kernel-$k/arch/x86/boot/bzImage" ] && present+=${present:+,}$k
	done
	[ -n "$present" ] || die "no kernel built (make kernel KVARIANT=baseline)"
	if pgrep -f kernel/scripts/build.sh >/dev/null; then
		say "NOTE: a kernel build is running: this run is made on a loaded machine"
	fi
}

# Host load and other VMs, before and after: the results say whether the
# machine was quiet.
host_state() { # LABEL
	{
		echo "== $1 $(date -Is)"
		echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg) nproc $(nproc)"
		echo "kernel-builds $(pgrep -fc kernel/scripts/build.sh || true)"
		echo "qemu-processes $(pgrep -c qemu-system || true)"
	} >> "$outdir/host-state.txt"
}

# Every 30 s while measuring: load average, kernel builds, QEMU processes
# (ours is one of them), so the results can say the machine was loaded.
sample_load() {
	while sleep 30; do
		echo "$(date +%s) $(cut -d' ' -f1 /proc/loadavg)" \
			"$(pgrep -fc kernel/scripts/build.sh || true)" \
			"$(pgrep -c qemu-system || true)"
	done >> "$outdir/host-load.txt"
}

make_plan() {
	mkdir -p "$outdir"
	# the guest sees the work tree only: keep the run dir inside it
	outdir=$(realpath --relative-to="$top" "$outdir")
	case $outdir in ../*|/*) die "--out-dir must be inside $top" ;; esac
	printf '%q ' bench/run.sh "${argv[@]}" > "$outdir/command.txt"
	echo >> "$outdir/command.txt"
	python3 bench/plan.py --mode "$mode" --out "$outdir" --kernels-present "$present" \
		${devices:+--devices "$devices"} ${ctrls:+--controllers "$ctrls"} \
		${repeat:+--repeat "$repeat"} > "$outdir/boots.txt"
	read -r _ total est < <(grep '^ESTIMATE' "$outdir/boots.txt")
	say "$mode run: $total cells over $(grep -c '^BOOT' "$outdir/boots.txt") boot(s);" \
		"estimated $((est / 60)) min $((est % 60)) s (ends ~$(date -d "+$est sec" +%H:%M)); run dir $outdir"
	if [ "$mode" = quick ]; then
		local full
		full=$(python3 bench/plan.py --mode full --out "$outdir/full-plan" --kernels-present baseline,ioweight |
			awk '/^ESTIMATE/ {print $3}')
		say "(a --full run with both kernels would take ~$((full / 3600)) h $((full % 3600 / 60)) min)"
	fi
}

run_boots() {
	local start elapsed kernel cells est disks rc
	start=$(date +%s)
	while read -r tag kernel cells est disks; do
		[ "$tag" = BOOT ] || continue
		elapsed=$(( $(date +%s) - start ))
		# elapsed time so far, for the driver's ETA
		python3 - "$outdir/plan-$kernel.json" "$elapsed" <<-'EOF'
		import json, sys
		p = json.load(open(sys.argv[1])); p["elapsed_before"] = int(sys.argv[2])
		json.dump(p, open(sys.argv[1], "w"), indent=1)
		EOF
		say "boot $kernel: $cells cells, ~$((est / 60)) min"
		# shellcheck disable=SC2086 # disks is a list of --disk SPEC words
		set +e
		# vm/run.sh hands the guest the host's TSC frequency: without it the
		# guest runs on the jiffies clock, which loses ticks under load
		# (the driver records the clocksource and warns if it is not tsc)
		vm/run.sh --kernel "$kernel" $disks --mem 3072 --timeout $((est * 3 + 600)) \
			--run-dir "$outdir/vm-$kernel" \
			-- python3 /ioweight/bench/guest/driver.py \
			"/ioweight/$outdir/plan-$kernel.json" "/ioweight/$outdir/$kernel.jsonl"
		rc=$?
		set -e
		[ "$rc" = 0 ] || say "WARNING: $kernel boot exited $rc; its results are partial (see $outdir/vm-$kernel)"
	done < "$outdir/boots.txt"
	elapsed=$(( $(date +%s) - start ))
	say "measurements done in $((elapsed / 60)) min $((elapsed % 60)) s"
	echo "$elapsed" > "$outdir/elapsed_seconds"
}

main() {
	parse_args "$@"
	check_prereqs
	make_plan
	host_state start
	sample_load &
	sampler=$!
	trap 'kill "$sampler" 2>/dev/null || true' EXIT
	run_boots
	kill "$sampler" 2>/dev/null || true
	host_state end
	if [ -n "$analyze" ]; then
		# only the standard runs go to bench/results; a subset must not
		# overwrite them
		local res=bench/results
		[ -z "$devices$ctrls$repeat" ] || res=$outdir/results
		/usr/bin/python3 bench/analyze.py --results-dir "$res" "$outdir" # Debian python3-matplotlib
	fi
}

main "$@"
