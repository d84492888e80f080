#!/usr/bin/env bash
# The benchmark's "SR vs RR" cell, traced: a buffered 128 KiB sequential
# reader at weight 500 against a 4k QD64 direct random reader at weight 100
# with automatic parameters. On the 1000-IOPS throttled virtio disk the
# 2026-12-04 bench run gave the random reader nothing at all for 12 s.
#
#   kernel/measure/mixtrace.sh [--kernel ioweight|PATH] [--secs N]
#
# For vdb rotational=0 and rotational=1: both readers for N s once both are
# doing IO; prints each group's share of the device bytes (target 83.3/16.7:
# the disk charges per 4 KiB, so bytes are device time) and its normalised
# IOPS, as JSON lines under build/measure/, then the trace from the start:
# every ioweight_fit sample and every 8th ioweight_vrate event. Then the
# bench's "SR vs SR" cell on rotational=0: two such buffered readers, where
# the 2026-12-05 bench gave the weight-100 reader 97% of the device; and
# its "RR vs SR" cell, the random reader at 500 and the buffered one at 100,
# with the bench's 16 KiB max_sectors_kb (the reader at 100 got 35%).
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS

cleanup() {
	fio_stop hi lo 2> /dev/null || true
	trace_off
	cg_kill_rm mx
}
trap cleanup EXIT
trace_init

# reader GROUP WORKLOAD DEV: sr = buffered 128 KiB, rr = 4k QD64 direct
reader() {
	if [ "$2" = rr ]; then
		fio_start "$1" "mx/$1" "$3" randread --iodepth=64 --offset=512M --size=256M
	else
		fio_start "$1" "mx/$1" "$3" read --bs=128k --direct=0 --ioengine=psync \
			--offset="$([ "$1" = hi ] && echo 0 || echo 512M)" --size=384M
	fi
}

# case_of DEV ROT [HI LO [MAX_SECTORS_KB]]: HI at 500 and LO at 100
case_of() {
	local dev=$1 rot=$2 hiw=${3:-sr} low=${4:-rr} msk=${5:-} name d t0 hb lb hb2 lb2 hs
	local q msk0
	q=/sys/block/$(basename "$dev")/queue
	name=$(basename "$dev")-rot$rot
	[ "$hiw$low" = srrr ] || name+="-$hiw-vs-$low"
	msk0=$(cat "$q/max_sectors_kb")
	[ -z "$msk" ] || echo "$msk" > "$q/max_sectors_kb"
	set_rotational "$dev" "$rot"
	d=$(dev_majmin "$dev")
	prep_device "$dev"
	iow_model_auto "$dev"
	iow_enable_auto "$dev"
	cg_make mx/hi mx/lo
	cg_weight mx/hi 500 && cg_weight mx/lo 100
	echo 3 > /proc/sys/vm/drop_caches
	trace_fit_vrate
	t0=$(awk '{ print $1 }' /proc/uptime)
	reader lo "$low" "$dev"
	reader hi "$hiw" "$dev"
	if ! poll_until 30 cgroups_doing_io "$d" mx/hi mx/lo; then
		emit "$name: a reader did no IO within 30 s" \
			"{\"part\":2,\"figure\":\"mix_trace\",\"dev\":\"$name\",\"error\":\"lo never did IO\"}"
		fio_stop hi lo
		cg_kill_rm mx
		echo "$msk0" > "$q/max_sectors_kb"
		return
	fi
	hb=$(cg_bytes mx/hi "$d"); lb=$(cg_bytes mx/lo "$d")
	sleep "$SECS"
	hb2=$(cg_bytes mx/hi "$d"); lb2=$(cg_bytes mx/lo "$d")
	fio_stop hi lo
	trace_off
	hs=$(share $((hb2 - hb)) $((hb2 - hb + lb2 - lb)))
	emit "$name: ${hiw^^}(500) vs ${low^^}(100): hi $(( (hb2 - hb) / SECS )) B/s, lo $(( (lb2 - lb) / SECS )) B/s, hi share $hs (target 0.8333)" \
		"{\"part\":2,\"figure\":\"mix_trace\",\"dev\":\"$name\",\"hi_Bps\":$(( (hb2 - hb) / SECS )),\"lo_Bps\":$(( (lb2 - lb) / SECS )),\"hi_share\":$hs}"
	echo "# $name: $(dev_line "$(iow_model_file)" "$d")"
	echo "# $name: trace from the readers' start (s)"
	trace_dump "$t0" 8
	cg_kill_rm mx
	echo "$msk0" > "$q/max_sectors_kb"
}

[ -b /dev/vdb ] || { echo "no /dev/vdb" >&2; exit 1; }
case_of /dev/vdb 0
case_of /dev/vdb 1
case_of /dev/vdb 0 sr sr
case_of /dev/vdb 0 rr sr 16
