#!/usr/bin/env bash
# The flood-first order of qd1stat.sh, traced: a 1 MiB sequential
# direct-write flood (QD16) at weight 100 starts from a fresh model fit and
# a 4k QD1 rand-reader at weight 500 joins it at once. Prints the reader's
# IOPS and p99, then every ioweight_fit and ioweight_vrate event from the
# flood's start (seconds), to see why the fit does or does not solve.
#
#   kernel/measure/fftrace.sh [--kernel ioweight|PATH] [--secs N]
#
# For vdb rotational=1 and rotational=0, three times each: the outcome
# hangs on the first windows' mix. JSON lines: the reader's figures.
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

case_of() {
	local dev=$1 rot=$2 name d t0 iops p99
	name=$(basename "$dev")-rot$rot
	d=$(dev_majmin "$dev")
	fresh_fit "$dev" "$rot"
	cg_make q1/r q1/f
	cg_weight q1/r 500 && cg_weight q1/f 100
	trace_fit_vrate
	t0=$(awk '{ print $1 }' /proc/uptime)
	flood_start q1/f "$dev"
	FIO_RUNTIME=$SECS fio_start rd q1/r "$dev" randread --iodepth=1
	fio_wait rd
	fio_stop flood
	trace_off
	read -r iops p99 < <(fio_json rd)
	emit "$name, flood first: QD1 reader $iops IOPS, p99 ${p99}us" \
		"{\"part\":2,\"figure\":\"ff_trace\",\"dev\":\"$name\",\"iops\":$iops,\"p99_us\":$p99}"
	echo "# $name: $(dev_line "$(iow_model_file)" "$d")"
	echo "# $name: trace from the flood's start (s)"
	trace_dump "$t0" 1
	cg_kill_rm q1
}

for _ in 1 2 3; do
	case_of /dev/vdb 1
	case_of /dev/vdb 0
done
