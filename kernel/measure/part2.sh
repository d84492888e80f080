#!/usr/bin/env bash
# Acceptance figures, part 2: automatic parameters, no user cost model
# (qos "enable=1 ctrl=auto", cost model ctrl=auto).
#
#   kernel/measure/part2.sh [--kernel ioweight|baseline|PATH] [--secs N]
#                           [--only vdb-rot0,vdb-rot1,nullb0]
#
# On the host it boots the guest (1000-IOPS throttled virtio disk /dev/vdb,
# null_blk QD2 1 ms /dev/nullb0) and runs itself inside. For vdb with
# rotational=0, vdb with rotational=1 and nullb0:
#   - no control: two 4k QD32 rand-read groups together (the device's
#     throughput), and one alone
#   - 500:100 rand-read: hi share within ±5 of 83.3% AND total >= 95% of the
#     no-control pair; a lone group >= 95% of no-control solo
#   - hi frozen (cgroup.freeze) -> lo >= 90% of the device within 1 s;
#     hi thawed -> back at >= 80% of its share (66.7%) within 1 s
#     (250 ms windows from io.stat sampled every 50 ms)
#   - 4k QD1 rand-read at 500 next to a 1 MiB sequential direct write flood
#     (QD16) at 100: reader >= 80% of its solo IOPS and p99 < 3x solo p99
# Prints a human line and a JSON line per figure (JSON also saved under
# build/measure/), with "ok" true or false. Exit status 0 even if a figure
# misses its target: kernel/measure/acceptance.sh (make acceptance) judges.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS

cleanup() {
	fio_stop solo job0 job1 rd flood 2> /dev/null || true
	[ ! -e "$IOW_CG/m2/hi/cgroup.freeze" ] || echo 0 > "$IOW_CG/m2/hi/cgroup.freeze"
	cg_kill_rm m2
}
trap cleanup EXIT

# auto DEV: controller on with automatic parameters
auto() {
	prep_device "$1"
	[ "$(iow_kind)" = none ] || iow_enable_auto "$1"
}

# pair DEV: "HI_SHARE TOTAL_IOPS" of hi/lo (weights already set)
pair() { pair_figures "$1" m2/hi m2/lo; }

# qd1 DEV LABEL: the QD1 reader, alone then against the write flood
qd1() {
	local dev=$1 label=$2 s_iops s_p99 w_iops w_p99 ok
	cg_weight m2/hi 500 && cg_weight m2/lo 100
	FIO_RUNTIME=$SECS fio_start rd m2/hi "$dev" randread --iodepth=1
	fio_wait rd
	read -r s_iops s_p99 < <(fio_json rd)
	flood_start m2/lo "$dev"
	sleep "$IOW_SETTLE"
	FIO_RUNTIME=$SECS fio_start rd m2/hi "$dev" randread --iodepth=1
	fio_wait rd
	fio_stop flood
	read -r w_iops w_p99 < <(fio_json rd)
	ok=false
	awk -v a="$w_iops" -v b="$s_iops" -v c="$w_p99" -v d="$s_p99" 'BEGIN { exit !(a >= 0.8 * b && c < 3 * d) }' && ok=true
	emit "$label: QD1 reader at 500 vs 1 MiB write flood at 100: $w_iops IOPS (solo $s_iops, ratio $(calc "$w_iops / $s_iops")), p99 ${w_p99}us (solo ${s_p99}us, x$(calc "$w_p99 / ($s_p99 > 0 ? $s_p99 : 1)")) -> $ok" \
		"{\"part\":2,\"figure\":\"qd1_vs_flood\",\"dev\":\"$label\",\"solo_iops\":$s_iops,\"solo_p99_us\":$s_p99,\"iops\":$w_iops,\"p99_us\":$w_p99,\"ok\":$ok}"
}

# stop_start DEV LABEL SOLO_IOPS: hi frozen at 2 s, thawed at 5 s
stop_start() {
	local dev=$1 label=$2 solo=$3 d csv ev1 ev2 t_lo t_hi ok
	d=$(dev_majmin "$dev")
	csv=$IOW_TMP/ss-$label.csv
	cg_weight m2/hi 500 && cg_weight m2/lo 100
	fio_start job0 m2/hi "$dev" randread
	fio_start job1 m2/lo "$dev" randread
	poll_until 30 cgroups_doing_io "$d" m2/hi m2/lo
	sleep "$IOW_SETTLE"
	python3 "$IOW_LIB/iosample.py" sample --dev "$d" --duration 8 \
		--at 2 "$IOW_CG/m2/hi/cgroup.freeze" 1 --at 5 "$IOW_CG/m2/hi/cgroup.freeze" 0 \
		m2/hi m2/lo > "$csv"
	fio_stop job0 job1
	ev1=$(sed -nE 's/^# at ([0-9.]+) wrote.*/\1/p' "$csv" | sed -n 1p)
	ev2=$(sed -nE 's/^# at ([0-9.]+) wrote.*/\1/p' "$csv" | sed -n 2p)
	t_lo=$(python3 "$IOW_LIB/iosample.py" first --csv "$csv" --after "$ev1" --window 0.25 --col 1 --iops "$(calc "0.9 * $solo")")
	t_hi=$(python3 "$IOW_LIB/iosample.py" first --csv "$csv" --after "$ev2" --window 0.25 --col 0 --share 0.6667)
	ok=false
	[ "$t_lo" != never ] && [ "$t_hi" != never ] && in_range "$t_lo" 0 1 && in_range "$t_hi" 0 1 && ok=true
	emit "$label: hi stops -> lo at >= 90% of $solo IOPS after ${t_lo} s; hi restarts -> >= 80% of its share after ${t_hi} s (need < 1 s each) -> $ok" \
		"{\"part\":2,\"figure\":\"stop_start\",\"dev\":\"$label\",\"lo_takeover_s\":$([ "$t_lo" = never ] && echo null || echo "$t_lo"),\"hi_return_s\":$([ "$t_hi" = never ] && echo null || echo "$t_hi"),\"ok\":$ok}"
}

scenario() {
	local dev=$1 rot=$2 label nc_pair nc_total nc_solo share total lone ok1 ok2
	label=$(basename "$dev")${rot:+-rot$rot}
	measure_wants "$label" || return 0
	[ -z "$rot" ] || set_rotational "$dev" "$rot"
	cg_make m2/hi m2/lo
	# no control
	prep_device "$dev"
	cg_weight m2/hi 100 && cg_weight m2/lo 100
	nc_pair=$(pair "$dev"); nc_total=${nc_pair#* }
	nc_solo=$(solo_iops "$dev" randread "$SECS" m2/hi)
	emit "$label: no control: pair $nc_total IOPS, solo $nc_solo IOPS" \
		"{\"part\":2,\"figure\":\"no_control\",\"dev\":\"$label\",\"pair_iops\":$nc_total,\"solo_iops\":$nc_solo}"
	# automatic parameters
	auto "$dev"
	cg_weight m2/hi 500 && cg_weight m2/lo 100
	read -r share total < <(pair "$dev")
	ok1=false
	in_range "$share" 0.7833 0.8833 && awk -v a="$total" -v b="$nc_total" 'BEGIN { exit !(a >= 0.95 * b) }' && ok1=true
	emit "$label: auto 500:100: hi share $(calc "$share * 100")% (83.3 ±5), total $total IOPS = $(calc "100 * $total / $nc_total")% of no control (need >= 95) -> $ok1" \
		"{\"part\":2,\"figure\":\"split_auto\",\"dev\":\"$label\",\"hi_share\":$share,\"total_iops\":$total,\"conservation\":$(calc "$total / $nc_total"),\"ok\":$ok1}"
	lone=$(solo_iops "$dev" randread "$SECS" m2/lo)
	ok2=$(verdict "$(calc "$lone / $nc_solo")" 0.95 100)
	emit "$label: auto lone group: $lone IOPS = $(calc "100 * $lone / $nc_solo")% of no-control solo (need >= 95) -> $ok2" \
		"{\"part\":2,\"figure\":\"lone_auto\",\"dev\":\"$label\",\"iops\":$lone,\"ratio\":$(calc "$lone / $nc_solo"),\"ok\":$ok2}"
	stop_start "$dev" "$label" "$nc_solo"
	qd1 "$dev" "$label"
	echo "# $label: $(dev_line "$(iow_qos_file)" "$(dev_majmin "$dev")")"
	echo "# $label: $(dev_line "$(iow_model_file)" "$(dev_majmin "$dev")")"
	prep_device "$dev"
	cg_kill_rm m2
}

[ ! -b /dev/vdb ] || { scenario /dev/vdb 0; scenario /dev/vdb 1; }
[ ! -b /dev/nullb0 ] || scenario /dev/nullb0 ""
