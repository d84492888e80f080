#!/usr/bin/env bash
# Benchmark io.weight against io.cost, BFQ and no control on emulated devices.
#
# usage: bench/run.sh --full|--quick [--budget MIN] [--status] [--fresh]
#                     [--devices D,D] [--controllers C,C] [--repeat N]
#                     [--combos HI+LO,HI+LO]
#                     [--out-dir DIR] [--no-analyze] [--analyze-only]
#   --full         every device, the 20 combinations, 3 repeats (hours, so it
#                  is resumable: its state is build/bench/state/full; run the
#                  same command again and it continues where it stopped)
#   --quick        the 1000-IOPS disk and the overhead device, 6 combinations,
#                  1 repeat, short cells (< 15 min); a new run dir each time
#   --budget MIN   stop cleanly before a cell that would not end within MIN
#                  minutes of the start (boots included); prints what is left
#                  (default: $BENCH_BUDGET, e.g. BENCH_BUDGET=170 make bench)
#   --status       print done / remaining cells and the time left; measure nothing
#   --fresh        set the existing state aside (DIR.<time>) and start over
#   --devices      virtio, nullb, nullb-nodelay (overhead) — see bench/plan.py
#   --controllers  none, iocost, iocost-tuned, bfq, ioweight, ioweight-tuned
#   --repeat N     repeats per cell (default 3 full, 1 quick)
#   --combos       only these pairs (randread+seqread, seqread+none, ...) and
#                  the solos of their workloads: to look at a few pairs (use
#                  with --out-dir, away from the full run's state)
#   --out-dir DIR  run directory (the state; default build/bench/state/full for
#                  --full, build/bench/<time>-quick for --quick); an existing
#                  one is resumed
#   --no-analyze   only measure; analyse later with --analyze-only
#   --analyze-only analyse DIR as it is (a partial state is marked PARTIAL)
# Every finished cell is in DIR/<kernel>.jsonl the moment it ends, keyed by
# method, kernel (bzImage sha), device, controller, combination and repeat:
# a killed run loses only the cell it was in. When every cell is done,
# bench/analyze.py writes bench/results/ (a plain --full or --quick) or
# DIR/results/ (a narrowed run). Exit status 0 also when the budget stopped
# the run; --status says what is left.
#
# Boots the kernels from build/kernel-<variant>/arch/x86/boot/bzImage as they
# are (copied into DIR/kernels/): it never builds a kernel. A missing kernel's
# cells wait for it (reported, the rest runs). Test hook: BENCH_FAKE_GUEST=1
# runs bench/guest/driver.py --fake on the host instead of a guest (fake
# figures; with BENCH_TIME_SCALE=0.05 a cell takes ~1 s); BENCH_KERNELS_DIR
# replaces build/ as the place of kernel-<variant>/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
py=/usr/bin/python3 # Debian's, with matplotlib (python3-matplotlib)
[ -x "$py" ] || py=python3
mode="" devices="" ctrls="" combos="" repeat="" outdir="" analyze=1 budget=${BENCH_BUDGET:-} status=""
fresh="" analyze_only=""
fake=${BENCH_FAKE_GUEST:-}
kdir=${BENCH_KERNELS_DIR:-build}
argv=("$@")
t_start=$(date +%s)

die() { echo "bench: $*" >&2; exit 2; }
say() {
	local e=$(( $(date +%s) - t_start ))
	printf '[bench %s +%dm%02ds] %s\n' "$(date +%H:%M:%S)" $((e / 60)) $((e % 60)) "$*"
}
hms() { # SECONDS -> "2 h 05 min" / "7 min 30 s"
	local s=$1
	if [ "$s" -ge 3600 ]; then printf '%d h %02d min' $((s / 3600)) $((s % 3600 / 60))
	else printf '%d min %02d s' $((s / 60)) $((s % 60)); fi
}
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--full) mode=full; shift ;;
		--quick) mode=quick; shift ;;
		--budget) budget=${2:?--budget needs minutes}; shift 2 ;;
		--status) status=1; shift ;;
		--fresh) fresh=1; shift ;;
		--devices) devices=$2; shift 2 ;;
		--controllers) ctrls=$2; shift 2 ;;
		--combos) combos=$2; shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--out-dir) outdir=$2; shift 2 ;;
		--no-analyze) analyze=""; shift ;;
		--analyze-only) analyze_only=1; shift ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown option $1 (see --help)" ;;
		esac
	done
	[ -n "$mode" ] || die "give --full or --quick (see --help)"
	if [ -n "$budget" ]; then
		[[ $budget =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--budget takes minutes, e.g. --budget 170"
	fi
	if [ -z "$outdir" ]; then
		if [ "$mode" = full ]; then
			outdir=build/bench/state/full
		elif [ -n "$status$analyze_only" ]; then
			die "--quick makes a new run dir each time: give --out-dir DIR with --status / --analyze-only"
		else
			outdir=build/bench/$(date +%Y%m%d-%H%M%S)-quick
		fi
	fi
	# the guest sees the work tree only: keep the run dir inside it
	mkdir -p "$(dirname "$outdir")"
	outdir=$(realpath -m --relative-to="$top" "$outdir")
	case $outdir in ../*|/*) die "--out-dir must be inside $top" ;; esac
}

selection() { # the arguments that choose the cells, for bench/plan.py
	sel=(--mode "$mode" --dir "$outdir" --kernels-dir "$kdir")
	[ -z "$devices" ] || sel+=(--devices "$devices")
	[ -z "$ctrls" ] || sel+=(--controllers "$ctrls")
	[ -z "$repeat" ] || sel+=(--repeat "$repeat")
	[ -z "$combos" ] || sel+=(--combos "$combos")
}

check_prereqs() {
	if [ -n "$fake" ]; then
		say "FAKE GUEST (BENCH_FAKE_GUEST): driver.py --fake on the host, fake figures"
		return
	fi
	[ -f build/vm/root.img ] || die "no guest image (make image)"
	command -v qemu-system-x86_64 >/dev/null || die "qemu missing (make deps)"
	if pgrep -f kernel/scripts/build.sh >/dev/null; then
		say "NOTE: a kernel build is running: this run is made on a loaded machine"
	fi
}

# Host load and other VMs at the start and end of every invocation: the results
# say whether the machine was quiet.
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

stop_sampler() {
	[ -n "${sampler:-}" ] || return 0
	pkill -P "$sampler" 2>/dev/null || true
	kill "$sampler" 2>/dev/null || true
	sampler=""
}

set_aside() {
	if [ -d "$outdir" ] && [ -n "$(ls -A "$outdir")" ]; then
		local old
		old=$outdir.$(date +%Y%m%d-%H%M%S)
		mv "$outdir" "$old"
		say "--fresh: the previous state is now $old"
	fi
}

lock() {
	mkdir -p "$outdir"
	exec 9>"$outdir/lock"
	# children keep the lock: a guest still running from a killed run
	# holds it until it ends, so two guests never write one state
	flock -n 9 || die "another bench/run.sh, or a guest it started, is using $outdir"
}

make_plan() {
	local line total ndone runnable blocked eta nboots full
	selection
	printf '%q ' bench/run.sh "${argv[@]}" > "$outdir/command.txt"
	echo >> "$outdir/command.txt"
	"$py" bench/plan.py plan "${sel[@]}" > "$outdir/plan.out"
	while read -r l; do
		[[ $l != NOTE* ]] || say "${l#NOTE }"
	done < "$outdir/plan.out"
	line=$(grep '^PLAN' "$outdir/plan.out")
	read -r _ total ndone runnable blocked eta nboots full <<< "$line"
	say "$mode run, state $outdir: $total cells (whole run ~$(hms "$full") at the model's" \
		"cell time); $ndone done, $runnable to run in $nboots boot(s): ~$(hms "$eta")" \
		"(ends ~$(date -d "+$eta sec" +%H:%M))${budget:+; budget $budget min}"
	[ "$blocked" = 0 ] || say "$blocked cells wait for a missing kernel"
	if [ "$mode" = quick ]; then
		read -r _ total full nboots < <("$py" bench/plan.py estimate --mode full)
		say "(a --full run with both kernels: $total cells, ~$(hms "$full"), in $nboots boots)"
	fi
}

# One guest boot: the driver runs the boot plan's cells and appends to
# DIR/<kernel>.jsonl.
boot() { # KERNEL BZIMAGE TIMEOUT BOOT-ID DISK-ARGS...
	local kernel=$1 bz=$2 timeout=$3 id=$4
	shift 4
	local plan=$outdir/boot-plan-$kernel.json out=$outdir/$kernel.jsonl
	if [ -n "$fake" ]; then
		timeout -k 5 "$timeout" "$py" bench/guest/driver.py --fake "$plan" "$out"
		return
	fi
	# vm/run.sh hands the guest the host's TSC frequency: without it the
	# guest runs on the jiffies clock, which loses ticks under load (the
	# driver records the clocksource and warns if it is not tsc)
	# shellcheck disable=SC2068 # the disk args are words
	vm/run.sh --kernel "$top/$bz" $@ --mem 3072 --timeout "$timeout" \
		--run-dir "$outdir/vm-$id" \
		-- python3 /ioweight/bench/guest/driver.py "/ioweight/$plan" "/ioweight/$out"
}

run_boots() {
	local line tag kernel bz n est timeout id disks offset rc arc left nb=0 prog budget_end=""
	local failed ndone total
	[ -z "$budget" ] || budget_end=$("$py" -c "print($t_start + $budget * 60)")
	stopped=complete
	while :; do
		left=""
		[ -z "$budget_end" ] || left=$("$py" -c "import time; print(max(0, $budget_end - time.time()))")
		line=$("$py" bench/plan.py next --dir "$outdir" ${left:+--budget-left "$left"})
		read -r tag kernel <<< "$line"
		case $tag in
		DONE) stopped=complete; break ;;
		BLOCKED) stopped=blocked; say "the $kernel remaining cells wait for a missing kernel"; break ;;
		BUDGET)
			read -r _ n est <<< "$line"
			stopped=budget
			say "budget: stopping; $n cells remain, ~$(hms "$est") (run the same command again to continue)"
			break ;;
		BOOT) ;;
		*) die "bench/plan.py next said: $line" ;;
		esac
		read -r _ kernel bz n est timeout id disks <<< "$line"
		nb=$((nb + 1))
		offset=$(stat -c %s "$outdir/$kernel.jsonl" 2>/dev/null || echo 0)
		say "boot $nb ($kernel, $id): $n cells, ~$(hms "$est")"
		set +e
		# shellcheck disable=SC2086 # disks is a list of --disk SPEC words
		boot "$kernel" "$bz" "$timeout" "$id" $disks
		rc=$?
		prog=$("$py" bench/plan.py after --dir "$outdir" --kernel "$kernel" --boot "$id" \
			--offset "$offset" --rc "$rc")
		arc=$?
		set -e
		while read -r l; do
			case $l in
			PROGRESS*) read -r _ n failed ndone total left est <<< "$l" ;;
			?*) say "$l" ;;
			esac
		done <<< "$prog"
		measured=$((measured + n))
		[ "$rc" = 0 ] || say "WARNING: the $kernel boot exited $rc (see $outdir/vm-$id)"
		say "boot $nb done: $n cells measured ($failed failed); $ndone of $total done," \
			"$left to run, ~$(hms "$est")"
		case $arc in
		0) ;;
		4) stopped=budget
		   say "budget: the guest stopped before a cell that would not fit; $left cells" \
			"remain, ~$(hms "$est") (run the same command again to continue)"
		   break ;;
		3) stopped=error
		   say "ERROR: the boot measured nothing (see $outdir/vm-$id/console.log); stopping"
		   break ;;
		*) die "bench/plan.py after failed ($arc)" ;;
		esac
	done
}

analyze_state() {
	# --publish: a standard run (nothing narrowed) that is complete goes to
	# bench/results; anything else (partial, narrowed, fake) to DIR/results
	local publish=""
	[ -n "$devices$ctrls$combos$repeat" ] || publish=--publish
	say "analysis"
	"$py" bench/analyze.py $publish "$outdir"
}

main() {
	parse_args "$@"
	if [ -n "$status" ]; then
		selection
		"$py" bench/plan.py status "${sel[@]}"
		exit 0
	fi
	if [ -n "$analyze_only" ]; then
		[ -f "$outdir/plan.json" ] || die "no state in $outdir"
		analyze_state
		exit 0
	fi
	check_prereqs
	[ -z "$fresh" ] || set_aside
	lock
	make_plan
	host_state start
	# no terminal for the sampler: a pipe reading our output must not wait
	# for its last sleep
	sample_load < /dev/null > /dev/null 2>&1 &
	sampler=$!
	trap 'stop_sampler' EXIT
	local t0
	t0=$(date +%s)
	measured=0
	run_boots
	stop_sampler
	host_state end
	printf '{"start": %d, "start_iso": "%s", "seconds": %d, "cells": %d, "budget_min": %s, "ended": "%s", "fake": %s}\n' \
		"$t0" "$(date -d "@$t0" -Is)" $(( $(date +%s) - t0 )) "$measured" \
		"${budget:-null}" "$stopped" "$([ -n "$fake" ] && echo true || echo false)" \
		>> "$outdir/invocations.jsonl"
	say "this invocation: $measured cells in $(hms $(( $(date +%s) - t0 ))) ($stopped)"
	case $stopped in
	complete)
		if [ -n "$analyze" ]; then analyze_state
		else say "all cells measured; analyse with: bench/run.sh --$mode --out-dir $outdir --analyze-only"; fi ;;
	blocked)
		say "every runnable cell is measured; cells on a missing kernel remain"
		[ -z "$analyze" ] || analyze_state ;;
	budget)
		say "status: bench/run.sh --$mode --out-dir $outdir --status;" \
			"partial analysis: bench/run.sh --$mode --out-dir $outdir --analyze-only" ;;
	error) exit 1 ;;
	esac
}

main "$@"
