#!/usr/bin/env bash
# Where part 2's QD1 reader loses its share: the reader-first QD1 case on the
# 1000-IOPS throttled disk (rotational=1) at fixed vrates, then with
# automatic parameters. At a fixed vrate the vrate feedback is out of the
# picture, so what is left is the share logic itself.
#
#   kernel/measure/qd1fixed.sh [--kernel ioweight|PATH] [--secs N]
#
# The cost model is set to what the automatic fit settles on for this disk
# (a 4k read costs 1/180 s at 100%), so that the disk's capacity is about
# 556% (1000 reads/s): vrate 556 is the capacity, 585 5% above it, 650 and
# 800 well above. For each: the 4k QD1 rand-reader at weight 500 alone for
# N s, then a 1 MiB direct-write flood (QD16) at weight 100 and, once it did
# IO, the reader again for N s. Prints per run the reader's IOPS over the
# whole run (from its first IO let out: its join included) and after its
# first 2 s (fio's ramp), the
# flood's share of the device (its writes x 256 units / 1000 units/s), the
# time the reader waited in the controller (ms/s) and the mean vrate.
# JSON lines under build/measure/.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS
MODEL="ctrl=user model=linear rbps=778059 rseqiops=188 rrandiops=180 wbps=729434 wseqiops=176 wrandiops=171"

cleanup() {
	fio_stop rd flood 2> /dev/null || true
	cg_kill_rm q1
}
trap cleanup EXIT

# reader_started MAJ:MIN N: the reader's group read more than N IOs
reader_started() { [ "$(cg_ios q1/r "$1" r)" -gt "$2" ]; }

# case_of VRATE ("auto" for automatic parameters)
case_of() {
	local vrate=$1 dev=/dev/vdb d solo ramped t0 t1 r0 r1 w0 w1 wt0 wt1 vsum=0 n=0
	d=$(dev_majmin "$dev")
	fresh_fit "$dev" 1
	if [ "$vrate" != auto ]; then
		iow_model "$dev" "$MODEL"
		iow_qos "$dev" "enable=1 ctrl=user min=$vrate max=$vrate"
	fi
	cg_make q1/r q1/f
	cg_weight q1/r 500 && cg_weight q1/f 100
	FIO_RUNTIME=$SECS fio_start rd q1/r "$dev" randread --iodepth=1
	fio_wait rd
	read -r solo _ < <(fio_json rd)
	flood_start q1/f "$dev"
	r0=$(cg_ios q1/r "$d" r)
	FIO_RUNTIME=$SECS fio_start rd q1/r "$dev" randread --iodepth=1 --ramp_time=2
	# from the moment the reader's first IO is let out: fio's start-up
	# takes the guest most of a second
	poll_until 30 reader_started "$d" "$r0"
	r0=$(cg_ios q1/r "$d" r); w0=$(cg_ios q1/f "$d" w)
	wt0=$(cg_stat q1/r "$d" ioweight.wait_us); t0=$(date +%s%N)
	while ! pid_gone "$(cat "$IOW_TMP/rd.pid")"; do
		vsum=$(calc "$vsum + $(cg_stat q1/r "$d" ioweight.vrate)"); n=$((n + 1))
		sleep 0.5
	done
	t1=$(date +%s%N)
	r1=$(cg_ios q1/r "$d" r); w1=$(cg_ios q1/f "$d" w)
	wt1=$(cg_stat q1/r "$d" ioweight.wait_us)
	fio_stop flood
	read -r ramped _ < <(fio_json rd)
	# per second of the run: reader IOs, flood's device share (a 1 MiB
	# write is 256 of the disk's 1000 units a second), reader's wait in ms
	local iops fshare wait vmean
	read -r iops fshare wait vmean < <(awk -v s=$(((t1 - t0) / 1000000)) \
		-v r=$((r1 - r0)) -v w=$((w1 - w0)) -v us=$((wt1 - wt0)) \
		-v vs="$vsum" -v n="$n" 'BEGIN { s /= 1000
		printf "%.1f %.3f %.0f %.0f\n", r / s, w * 256 / 1000 / s,
			us / 1000 / s, n ? vs / n : 0 }')
	emit "vrate $vrate: reader $iops IOPS from its join, $ramped after 2 s (solo $solo): $(calc "$iops / $solo") / $(calc "$ramped / $solo"); flood $fshare of the device; reader waited ${wait} ms/s; mean vrate $vmean%" \
		"{\"part\":2,\"figure\":\"qd1_fixed\",\"vrate\":\"$vrate\",\"solo_iops\":$solo,\"iops\":$iops,\"ramped_iops\":$ramped,\"flood_share\":$fshare,\"reader_wait_ms_per_s\":$wait,\"mean_vrate\":$vmean}"
	cg_kill_rm q1
}

for v in 556 585 650 800 auto; do
	case_of "$v"
done
