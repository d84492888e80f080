#!/usr/bin/env bash
# The QD1-reader-against-a-write-flood case of part2.sh, traced: how the
# automatic parameters (vrate, the model fit) behave from the flood's start.
#
#   kernel/measure/qd1trace.sh [--kernel ioweight|PATH] [--secs N]
#                              [--only vdb-rot0,vdb-rot1,nullb0]
#
# For vdb rotational=0, vdb rotational=1 and nullb0, with the controller on
# and automatic parameters: a 4k QD1 rand-read reader at weight 500 alone for
# N s, then a 1 MiB sequential direct-write flood (QD16) at weight 100 starts
# and the reader runs twice more for N s each (the first run starts 3 s into
# the flood, as part2.sh's reader does after its settle time). Prints the
# reader's IOPS and p99 per run (also as JSON lines under build/measure/),
# then the trace from the flood's start: every ioweight_fit sample, every
# vrate set from measured capacity (verdict=2) and every 4th ioweight_vrate
# event, times relative to the flood's start.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS

cleanup() {
	fio_stop rd flood 2> /dev/null || true
	trace_off
	cg_kill_rm q1
}
trap cleanup EXIT
trace_init

# reader LABEL DEVNAME DEV: one QD1 run of SECS; prints and emits its figures
reader() {
	local label=$1 name=$2 dev=$3 iops p99
	FIO_RUNTIME=$SECS fio_start rd q1/r "$dev" randread --iodepth=1
	fio_wait rd
	read -r iops p99 < <(fio_json rd)
	emit "$name: QD1 reader, $label: $iops IOPS, p99 ${p99}us" \
		"{\"part\":2,\"figure\":\"qd1_trace\",\"dev\":\"$name\",\"run\":\"$label\",\"iops\":$iops,\"p99_us\":$p99}"
}

case_of() {
	local dev=$1 rot=$2 name d t0
	name=$(basename "$dev")${rot:+-rot$rot}
	measure_wants "$name" || return 0
	[ -z "$rot" ] || set_rotational "$dev" "$rot"
	d=$(dev_majmin "$dev")
	prep_device "$dev"
	iow_model_auto "$dev"
	iow_enable_auto "$dev"
	cg_make q1/r q1/f
	cg_weight q1/r 500 && cg_weight q1/f 100
	reader solo "$name" "$dev"
	trace_fit_vrate
	t0=$(awk '{ print $1 }' /proc/uptime)
	flood_start q1/f "$dev"
	sleep 3
	reader "flood run 1" "$name" "$dev"
	reader "flood run 2" "$name" "$dev"
	fio_stop flood
	trace_off
	echo "# $name: $(dev_line "$(iow_model_file)" "$d")"
	echo "# $name: trace from the flood's start (s)"
	trace_dump "$t0" 4
	cg_kill_rm q1
}

[ ! -b /dev/vdb ] || { case_of /dev/vdb 0; case_of /dev/vdb 1; }
[ ! -b /dev/nullb0 ] || case_of /dev/nullb0 ""
