#!/usr/bin/env bash
# The QD1-reader-against-a-write-flood case of part2.sh, sampled from
# io.stat every 250 ms or as often as the guest manages: the reader's IOPS,
# the flood's bytes in 4k units per second, both groups' usage, hweight and
# budget wait, and the device's vrate. Shows who takes what share of a
# byte-priced device, sample by sample, and whether the reader keeps its
# hweight while it waits behind the flood's writes.
#
#   kernel/measure/qd1stat.sh [--kernel ioweight|PATH] [--secs N]
#                             [--only vdb-rot0,vdb-rot1,nullb0]
#
# For vdb rotational=0, vdb rotational=1 and nullb0, each from a fresh
# model fit: the reader alone for N s, then with the flood for N s
# (sampled), as part2.sh does; then the other way round, the flood first
# and the reader joining it at once, the solo reference taken afterwards.
# JSON lines: the reader's IOPS solo and with the flood, per order.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS

cleanup() {
	fio_stop rd flood 2> /dev/null || true
	cg_kill_rm q1
}
trap cleanup EXIT

# stat_line CG MAJ:MIN: "rios wbytes vrate usage hweight wait_us" of the
# group, zeros (and "-") before its first IO on the device
stat_line() {
	dev_line "$IOW_CG/$1/io.stat" "$2" | awk '
	function or_dash(x) { return x == "" ? "-" : x }
	{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	} END {
		printf "%d %d %s %s %s %d\n", v["rios"], v["wbytes"],
			or_dash(v["ioweight.vrate"]), or_dash(v["ioweight.usage"]),
			or_dash(v["ioweight.hweight"]), v["ioweight.wait_us"] }'
}

sample() {
	local d=$1 secs=$2 t0 now prev r0 w0 rr ww ra wa
	t0=$(date +%s%N); prev=$t0
	read -r r0 _ _ _ _ ra < <(stat_line q1/r "$d")
	read -r _ w0 _ _ _ wa < <(stat_line q1/f "$d")
	echo "#   t(s)  rd_iops fl_4k/s  vrate  rd_use rd_hw  fl_use fl_hw  rd_wait fl_wait(ms/s)"
	while :; do
		sleep 0.25
		now=$(date +%s%N)
		local rv ru rh rw fu fh fw
		read -r rr _ rv ru rh rw < <(stat_line q1/r "$d")
		read -r _ ww _ fu fh fw < <(stat_line q1/f "$d")
		awk -v t=$(((now - t0) / 1000000)) -v dt=$(((now - prev) / 1000000)) \
			-v r=$((rr - r0)) -v w=$((ww - w0)) \
			-v v="$rv" -v ru="$ru" -v rh="$rh" -v fu="$fu" -v fh="$fh" \
			-v rwt=$((rw - ra)) -v fwt=$((fw - wa)) 'BEGIN {
			printf "#  %6.2f %7.0f %7.0f %6s %7s %5s %7s %5s %8.0f %8.0f\n",
				t / 1000, r * 1000 / dt, w / 4096 * 1000 / dt, v, ru, rh, fu, fh,
				rwt / dt, fwt / dt }'
		r0=$rr; w0=$ww; ra=$rw; wa=$fw; prev=$now
		[ $(((now - t0) / 1000000000)) -lt "$secs" ] || break
	done
}

# case_of DEV ROT ORDER: ORDER "reader-first" as in part2.sh (the reader
# alone, then with the flood) or "flood-first" (the flood, then the reader
# with it, from a fresh fit; the solo reference is taken afterwards)
case_of() {
	local dev=$1 rot=$2 order=$3 name d solo flood
	name=$(basename "$dev")${rot:+-rot$rot}
	measure_wants "$name" || return 0
	d=$(dev_majmin "$dev")
	# every case starts from no model fit
	fresh_fit "$dev" "${rot:-0}"
	cg_make q1/r q1/f
	cg_weight q1/r 500 && cg_weight q1/f 100
	if [ "$order" = reader-first ]; then
		FIO_RUNTIME=$SECS fio_start rd q1/r "$dev" randread --iodepth=1
		fio_wait rd
		read -r solo _ < <(fio_json rd)
	fi
	echo "# $name, $order:"
	flood_start q1/f "$dev" || return 1
	FIO_RUNTIME=$((SECS + 1)) fio_start rd q1/r "$dev" randread --iodepth=1
	sample "$d" "$SECS"
	fio_wait rd
	read -r flood _ < <(fio_json rd)
	fio_stop flood
	echo "# $name: $(dev_line "$(iow_model_file)" "$d")"
	if [ "$order" = flood-first ]; then
		FIO_RUNTIME=$SECS fio_start rd q1/r "$dev" randread --iodepth=1
		fio_wait rd
		read -r solo _ < <(fio_json rd)
	fi
	emit "$name, $order: QD1 reader solo $solo IOPS, with the flood $flood IOPS" \
		"{\"part\":2,\"figure\":\"qd1_stat\",\"dev\":\"$name\",\"order\":\"$order\",\"solo_iops\":$solo,\"flood_iops\":$flood}"
	cg_kill_rm q1
}

for order in reader-first flood-first; do
	[ ! -b /dev/vdb ] || { case_of /dev/vdb 0 "$order"; case_of /dev/vdb 1 "$order"; }
	[ ! -b /dev/nullb0 ] || case_of /dev/nullb0 "" "$order"
done
