#!/usr/bin/env bash
# Work conservation of part2.sh's 500:100 rand-read pair, traced: how close
# the controlled pair gets to the no-control pair, and what vrate did.
#
#   kernel/measure/wctrace.sh [--kernel ioweight|PATH] [--secs N]
#
# For nullb0 (null_blk QD2 1 ms) and vdb rotational=0: the pair (4k QD32
# rand-read in two groups) with no control, then at 500:100 with automatic
# parameters; prints both totals (IOPS), their ratio and each group's share
# (JSON lines under build/measure/), then every ioweight_vrate event of the
# controlled run (verdict: 1 overloaded, -1 short of work, 0 fine, 2 set
# from measured capacity), times relative to the run's start.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

cleanup() {
	fio_stop job0 job1 2> /dev/null || true
	trace_off
	cg_kill_rm wc
}
trap cleanup EXIT
trace_init

case_of() {
	local dev=$1 rot=$2 name none auto share t0
	name=$(basename "$dev")${rot:+-rot$rot}
	[ -z "$rot" ] || set_rotational "$dev" "$rot"
	prep_device "$dev"
	cg_make wc/hi wc/lo
	cg_weight wc/hi 500 && cg_weight wc/lo 100
	read -r _ none < <(pair_figures "$dev" wc/hi wc/lo)
	iow_model_auto "$dev"
	iow_enable_auto "$dev"
	trace_fit_vrate
	t0=$(awk '{ print $1 }' /proc/uptime)
	read -r share auto < <(pair_figures "$dev" wc/hi wc/lo)
	trace_off
	emit "$name: pair at 500:100 $auto IOPS of no control's $none ($(calc "100 * $auto / $none")%), hi share $share" \
		"{\"figure\":\"wc_trace\",\"dev\":\"$name\",\"none_iops\":$none,\"iops\":$auto,\"hi_share\":$share}"
	echo "# $name: trace from the controlled run's start (s)"
	trace_dump "$t0" 1
	prep_device "$dev"
	cg_kill_rm wc
}

[ ! -b /dev/nullb0 ] || case_of /dev/nullb0 ""
[ ! -b /dev/vdb ] || case_of /dev/vdb 0
