#!/usr/bin/env bash
# The device matrix: the controller's sharing figures with automatic
# parameters (no user cost model) on each type of device it may be put on.
#
#   kernel/measure/matrix.sh [--kernel ioweight|baseline|PATH] [--secs N]
#                            [--only LABEL,...] [--figures NAME,...]
#
# Devices, all in one guest boot (virtio disks throttled by QEMU, null_blk
# devices made through configfs), scheduler none unless said:
#   vd1000-rot0, vd1000-rot1  virtio, 1000 IO/s counted in 4 KiB units
#   vd1000-dl                 the same disk behind mq-deadline, rotational=1
#   vdcloud                   virtio limited to 1500 requests/s and 24 MB/s,
#                             like a cloud volume
#   vdfast                    virtio unthrottled, rotational=1 as virtio says
#   nb-2t-1ms, nb-32t-250us, nb-1t-8ms
#                             null_blk with that many tags and completion time
#   nb-nodelay                null_blk completing at submission (scale only)
# References, controller off: a lone 4k QD32 rand-reader, two of them
# together, a lone 128 KiB rand-reader, a lone 4k QD1 reader. Figures
# (names for --figures), each with its target:
#   pair      500:100 4k QD32 rand-read: hi share 83.3 ±5 points and the
#             pair's total >= 95% of the no-control pair; a lone group
#             (weight 100) >= 95% of the no-control lone reader
#   three     siblings 50/150/800: each within ±5 points of 5/15/80%
#   mixed     4k rand-read (500) vs 128 KiB rand-read (100): device-time
#             share (each rate over its lone rate, normalised) 83.3 ±7, the
#             sum of the two fractions >= 0.9 (not on vdcloud, where requests
#             and bytes are separate resources)
#   qd1       4k QD1 reader (500) vs 1 MiB sequential write flood (100):
#             reader >= 80% of its lone IOPS, p99 < 3x its lone p99
#   flips     500:100 swapped every 2 s: after each swap the new hi group
#             within 8 points of its share within 1 s, and over the second
#             half of the phase
#   handover  two pods 500:100; the 500 pod's tasks killed and its cgroups
#             removed: the other at >= 85% of its lone rate within 1 s
#   scale     (nb-nodelay) 4k rand-read IOPS with the controller on over off:
#             >= 0.97 with 1 group, >= 0.95 with 16 and with 64 groups
# Prints a human line and a JSON line per figure (JSON also saved under
# build/measure/), with "ok" true or false; exit status 0 even when a figure
# misses (kernel/measure/acceptance.sh judges). About 3 minutes per device
# at --secs 8.
set -euo pipefail
# shellcheck disable=SC2034,SC2054 # read by measure_main (common.sh)
MEASURE_VM=(--disk size=1G,iops=1000,iops-size=4096,serial=vd1000
	--disk size=1G,iops=1500,bps=24000000,serial=vdcloud
	--disk size=1G,serial=vdfast)
# shellcheck disable=SC2034
MEASURE_TIMEOUT=5400
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS
CGIO=/ioweight/e2e/guest/cgio
JOBS=(solo job0 job1 job2 rd flood hi lo)
NULLBS=()

cleanup() {
	fio_stop "${JOBS[@]}" 2> /dev/null || true
	cg_kill_rm mx 2> /dev/null || true
	local n
	for n in "${NULLBS[@]}"; do nullb_remove "$n" 2> /dev/null || true; done
}
trap cleanup EXIT

# rate CG DEV SECS [FIO_ARGS...]: IO/s of one 4k QD32 rand-reader (fio
# arguments may change that) in CG, alone on DEV
rate() {
	local cg=$1 dev=$2 secs=$3 m; shift 3
	m=$(dev_majmin "$dev")
	fio_start solo "$cg" "$dev" randread "$@"
	poll_until 30 cgroups_doing_io "$m" "$cg" || { fio_stop solo; echo 0; return 0; }
	sleep "$IOW_SETTLE"	# warm-up before the window, not a synchronisation
	measure_ios "$m" "$secs" "$cg" | awk -v s="$secs" '{ printf "%.1f\n", $2 / s }'
	fio_stop solo
}

# weights W... : mx/g0, mx/g1, ... get these default weights
weights() {
	local i=0 w
	for w in "$@"; do cg_weight "mx/g$i" "$w"; i=$((i + 1)); done
}

# split DEV SECS W... : one 4k QD32 rand-reader per weight, in mx/g0...;
# prints "SHARE0 SHARE1 ... TOTAL_IOPS"
split() {
	local dev=$1 secs=$2 i cgs=(); shift 2
	for i in $(seq 0 $(($# - 1))); do cgs+=("mx/g$i"); done
	weights "$@"
	compete "$dev" randread "$secs" "${cgs[@]}" | shares_of |
		awk -v s="$secs" '{ printf "%s ", $3; t += $2 } END { printf "%.1f\n", t / s }'
}

# qd1_run DEV -> "IOPS P99_US" of a 4k QD1 reader in mx/g0 over SECS
qd1_run() {
	FIO_RUNTIME=$SECS fio_start rd mx/g0 "$1" randread --iodepth=1
	fio_wait rd
	fio_json rd
}

# device LABEL DEV ROT SCHED: every figure on one device
device() {
	local label=$1 dev=$2 rot=$3 sched=$4
	local m nc_solo nc_pair nc_big q_iops q_p99
	measure_wants "$label" || return 0
	[ -b "$dev" ] || { echo "# $label: no $dev, skipped"; return 0; }
	m=$(dev_majmin "$dev")
	echo "# $label: $dev ($m) rotational=$rot scheduler=$sched, $(date +%T)"
	cg_make mx/g0 mx/g1 mx/g2

	# references, controller off
	prep_device "$dev"
	set_rotational "$dev" "$rot"
	set_scheduler "$dev" "$sched"
	weights 100 100 100
	nc_solo=$(rate mx/g0 "$dev" "$SECS")
	nc_pair=$(split "$dev" "$SECS" 100 100 | awk '{ print $NF }')
	nc_big=0
	if measure_figure mixed && [ "$label" != vdcloud ]; then
		nc_big=$(rate mx/g0 "$dev" "$SECS" --bs=128k)
	fi
	q_iops=0 q_p99=0
	if measure_figure qd1; then read -r q_iops q_p99 < <(qd1_run "$dev"); fi
	emit "$label: no control: lone $nc_solo IO/s, pair $nc_pair IO/s, lone 128k $nc_big IO/s, lone QD1 $q_iops IO/s p99 ${q_p99}us" \
		"{\"figure\":\"reference\",\"dev\":\"$label\",\"solo_iops\":$nc_solo,\"pair_iops\":$nc_pair,\"solo_128k_iops\":$nc_big,\"qd1_iops\":$q_iops,\"qd1_p99_us\":$q_p99}"

	# automatic parameters from a fresh fit: the class is switched away
	# and back, which drops what an earlier measurement taught it
	if [ "$(iow_kind)" != none ]; then
		set_rotational "$dev" $((1 - rot))
		set_rotational "$dev" "$rot"
		iow_model_auto "$dev"
		iow_enable_auto "$dev"
	fi
	! measure_figure pair || fig_pair "$label" "$dev" "$nc_solo" "$nc_pair"
	! measure_figure three || fig_three "$label" "$dev"
	if measure_figure mixed && [ "$label" != vdcloud ]; then
		fig_mixed "$label" "$dev" "$nc_solo" "$nc_big"
	fi
	! measure_figure qd1 || fig_qd1 "$label" "$dev" "$q_iops" "$q_p99"
	! measure_figure flips || fig_flips "$label" "$dev"
	! measure_figure handover || fig_handover "$label" "$dev"
	echo "# $label: $(dev_line "$(iow_qos_file)" "$m")"
	echo "# $label: $(dev_line "$(iow_model_file)" "$m")"
	prep_device "$dev"
	cg_kill_rm mx
}

fig_pair() {
	local label=$1 dev=$2 nc_solo=$3 nc_pair=$4 hi total cons lone lr ok
	read -r hi _ total < <(split "$dev" "$SECS" 500 100)
	cons=$(share "$total" "$nc_pair")
	ok=false
	in_range "$hi" 0.7833 0.8833 && in_range "$cons" 0.95 100 && ok=true
	emit "$label: 500:100: hi $(calc "100 * $hi")% (83.3 ±5), total $total IO/s = $(calc "100 * $cons")% of no control (>= 95) -> $ok" \
		"{\"figure\":\"pair\",\"dev\":\"$label\",\"hi_share\":$hi,\"total_iops\":$total,\"conservation\":$cons,\"ok\":$ok}"
	lone=$(rate mx/g1 "$dev" "$SECS")
	lr=$(share "$lone" "$nc_solo")
	emit "$label: lone group: $lone IO/s = $(calc "100 * $lr")% of no control (>= 95) -> $(verdict "$lr" 0.95 100)" \
		"{\"figure\":\"lone\",\"dev\":\"$label\",\"iops\":$lone,\"ratio\":$lr,\"ok\":$(verdict "$lr" 0.95 100)}"
}

fig_three() {
	local label=$1 dev=$2 a b c total ok
	read -r a b c total < <(split "$dev" "$SECS" 50 150 800)
	ok=false
	in_range "$a" 0 0.10 && in_range "$b" 0.10 0.20 && in_range "$c" 0.75 0.85 && ok=true
	emit "$label: 50/150/800: $(calc "100 * $a")/$(calc "100 * $b")/$(calc "100 * $c")% (5/15/80 ±5), total $total IO/s -> $ok" \
		"{\"figure\":\"three\",\"dev\":\"$label\",\"shares\":[$a,$b,$c],\"total_iops\":$total,\"ok\":$ok}"
}

fig_mixed() {
	local label=$1 dev=$2 solo_small=$3 solo_big=$4 out r_small r_big f_small f_big share sum ok
	weights 500 100
	out=$(FIO_ARGS_1=--bs=128k compete "$dev" randread "$SECS" mx/g0 mx/g1)
	r_small=$(awk -v s="$SECS" '$1 == "mx/g0" { printf "%.1f", $2 / s }' <<< "$out")
	r_big=$(awk -v s="$SECS" '$1 == "mx/g1" { printf "%.1f", $2 / s }' <<< "$out")
	f_small=$(share "$r_small" "$solo_small")
	f_big=$(share "$r_big" "$solo_big")
	share=$(share "$f_small" "$(calc "$f_small + $f_big")")
	sum=$(calc "$f_small + $f_big")
	ok=false
	in_range "$share" 0.7633 0.9033 && in_range "$sum" 0.9 100 && ok=true
	emit "$label: 4k (500) vs 128k (100): 4k at $f_small of lone, 128k at $f_big of lone: device-time share $(calc "100 * $share")% (83.3 ±7), sum $sum (>= 0.9) -> $ok" \
		"{\"figure\":\"mixed\",\"dev\":\"$label\",\"small_iops\":$r_small,\"big_iops\":$r_big,\"small_frac\":$f_small,\"big_frac\":$f_big,\"share\":$share,\"sum\":$sum,\"ok\":$ok}"
}

fig_qd1() {
	local label=$1 dev=$2 s_iops=$3 s_p99=$4 iops p99 ok
	weights 500 100
	if ! flood_start mx/g1 "$dev"; then
		emit "$label: QD1 reader vs write flood: the flood did no IO -> false" \
			"{\"figure\":\"qd1\",\"dev\":\"$label\",\"ok\":false,\"error\":\"flood did no IO\"}"
		return 0
	fi
	sleep "$IOW_SETTLE"	# the flood fills the device before the reader starts
	read -r iops p99 < <(qd1_run "$dev")
	fio_stop flood
	ok=false
	awk -v a="$iops" -v b="$s_iops" -v c="$p99" -v d="$s_p99" 'BEGIN { exit !(a >= 0.8 * b && c < 3 * d) }' && ok=true
	emit "$label: QD1 reader (500) vs 1 MiB write flood (100): $iops IO/s = $(calc "100 * $(share "$iops" "$s_iops")")% of lone (>= 80), p99 ${p99}us = x$(share "$p99" "$s_p99") lone (< 3) -> $ok" \
		"{\"figure\":\"qd1\",\"dev\":\"$label\",\"iops\":$iops,\"p99_us\":$p99,\"solo_iops\":$s_iops,\"solo_p99_us\":$s_p99,\"ok\":$ok}"
}

# flips: g0/g1 at 500:100, swapped at 2, 4, 6 and 8 s; phase k (after the
# k-th swap) wants the group now at 500 at >= 75.3% of a 0.25 s window
# within 1 s, and its share over the phase's second second within ±8 points
fig_flips() {
	local label=$1 dev=$2 m csv ats=() t k col d h json ok=true delays="" halves="" evs
	local w0=$IOW_CG/mx/g0/io.weight w1=$IOW_CG/mx/g1/io.weight
	m=$(dev_majmin "$dev")
	csv=$IOW_TMP/flips-$label.csv
	weights 500 100
	fio_start job0 mx/g0 "$dev" randread
	fio_start job1 mx/g1 "$dev" randread
	poll_until 30 cgroups_doing_io "$m" mx/g0 mx/g1 || echo "# $label: a group did no IO within 30 s"
	sleep "$IOW_SETTLE"	# warm-up before sampling, not a synchronisation
	for k in 1 2 3 4; do
		t=$((2 * k))
		if [ $((k % 2)) = 1 ]; then
			ats+=(--at "$t" "$w0" "default 100" --at "$t" "$w1" "default 500")
		else
			ats+=(--at "$t" "$w1" "default 100" --at "$t" "$w0" "default 500")
		fi
	done
	python3 "$IOW_LIB/iosample.py" sample --dev "$m" --duration 10 "${ats[@]}" mx/g0 mx/g1 > "$csv"
	fio_stop job0 job1
	mapfile -t evs < <(sed -nE 's/^# at ([0-9.]+) wrote.*/\1/p' "$csv" | awk 'NR % 2 == 0')
	for k in 1 2 3 4; do
		col=$((k % 2))
		t=${evs[$((k - 1))]}
		d=$(python3 "$IOW_LIB/iosample.py" first --csv "$csv" --after "$t" --window 0.25 --col "$col" --share 0.7533)
		json=$(python3 "$IOW_LIB/iosample.py" rate --csv "$csv" --from "$(calc "$t + 1")" --to "$(calc "$t + 2")")
		h=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["share"][int(sys.argv[2])])' "$json" "$col")
		delays+="${delays:+,}$([ "$d" = never ] && echo null || echo "$d")"
		halves+="${halves:+,}$h"
		{ [ "$d" != never ] && in_range "$d" 0 1 && in_range "$h" 0.7533 0.9133; } || ok=false
	done
	emit "$label: weight swaps every 2 s: new hi within 8 points after [$delays] s (< 1), second-half shares [$halves] (83.3 ±8) -> $ok" \
		"{\"figure\":\"flips\",\"dev\":\"$label\",\"delays_s\":[$delays],\"second_half_shares\":[$halves],\"ok\":$ok}"
}

# handover: pods as kubelet lays them out; the 100 pod's lone rate first
fig_handover() {
	local label=$1 dev=$2 m lone min ho delay ok
	m=$(dev_majmin "$dev")
	cg_make mx/pa/ctr mx/pb/ctr
	cg_weight mx/pa 500
	cg_weight mx/pb 100
	lone=$(rate mx/pb/ctr "$dev" "$SECS")
	min=$(awk -v c="$lone" 'BEGIN { print int(0.85 * c) }')
	fio_start hi mx/pa/ctr "$dev" randread
	fio_start lo mx/pb/ctr "$dev" randread
	poll_until 30 cgroups_doing_io "$m" mx/pa/ctr mx/pb/ctr || echo "# $label: a pod did no IO within 30 s"
	sleep "$IOW_SETTLE"	# the pair shares the device before the removal
	rm -f "$IOW_TMP/handover.ready"
	"$CGIO" handover --dev "$m" --from hi=/mx/pa/ctr --to lo=/mx/pb/ctr \
		--min-rate "$min" --timeout 15 --ready "$IOW_TMP/handover.ready" > "$IOW_TMP/handover.json" &
	local hpid=$!
	poll_until 60 test -e "$IOW_TMP/handover.ready" || echo "# $label: the hand-over measurement did not arm"
	echo 1 > "$IOW_CG/mx/pa/cgroup.kill"
	poll_until 10 cg_empty "$IOW_CG/mx/pa" || echo "# $label: the removed pod still has tasks after 10 s"
	rmdir "$IOW_CG/mx/pa/ctr" "$IOW_CG/mx/pa"
	wait "$hpid" || true
	ho=$(cat "$IOW_TMP/handover.json")
	delay=$(sed -nE 's/.*"delay": ([0-9.]+).*/\1/p' <<< "$ho")
	ok=false
	[ -z "$delay" ] || ok=$(verdict "$delay" 0 1)
	emit "$label: the 500 pod removed -> the 100 pod at >= 85% of its lone $lone IO/s after ${delay:-never} s (< 1) -> $ok" \
		"{\"figure\":\"handover\",\"dev\":\"$label\",\"lone_iops\":$lone,\"delay_s\":${delay:-null},\"ok\":$ok,\"cgio\":$ho}"
	fio_stop hi lo
	cg_kill_rm mx/pb
}

# scale_iops DEV N ON: device IO/s of N 4k QD8 rand-readers, one per group
# (the guest schedules them on both vCPUs), controller on (1) or off (0)
scale_iops() {
	local dev=$1 n=$2 on=$3 m i a b t0 t1 names=()
	m=$(dev_majmin "$dev")
	if [ "$on" = 1 ]; then iow_enable_auto "$dev"; else iow_disable "$dev"; fi
	for i in $(seq 1 "$n"); do cg_make "mx/s$i"; done
	for i in $(seq 1 "$n"); do
		fio_start "s$i" "mx/s$i" "$dev" randread --iodepth=8
		names+=("s$i")
	done
	a=$(dev_ios "$m")
	poll_until 60 dev_moved "$m" "$a" || true
	sleep "$IOW_SETTLE"	# every job running before the window
	a=$(dev_ios "$m"); t0=$(date +%s%N)
	sleep "$SECS"
	b=$(dev_ios "$m"); t1=$(date +%s%N)
	# their results are not wanted: SIGKILL, as 64 fio processes
	# writing JSON on 2 vCPUs would take minutes; all at once, then wait
	for i in "${names[@]}"; do echo 1 > "$IOW_CG/mx/$i/cgroup.kill"; done
	cg_kill_rm "${names[@]/#/mx/}"
	for i in "${names[@]}"; do rm -f "$IOW_TMP/$i.pid"; done
	awk -v n=$((b - a)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f\n", n / (ns / 1e9) }'
}

# fig_scale DEV: controller on over off, measured off-on-on-off so that a
# drift of the guest's speed cancels out
fig_scale() {
	local label=nb-nodelay dev=$1 n i off1 on1 on2 off2 r need ok
	for n in 1 16 64; do
		off1=$(scale_iops "$dev" "$n" 0)
		on1=$(scale_iops "$dev" "$n" 1)
		on2=$(scale_iops "$dev" "$n" 1)
		off2=$(scale_iops "$dev" "$n" 0)
		r=$(calc "($on1 + $on2) / ($off1 + $off2)")
		need=0.95
		[ "$n" != 1 ] || need=0.97
		ok=$(verdict "$r" "$need" 100)
		emit "$label: $n groups: on/off $r (on $on1 $on2, off $off1 $off2 IO/s; >= $need) -> $ok" \
			"{\"figure\":\"scale\",\"dev\":\"$label\",\"groups\":$n,\"on_iops\":[$on1,$on2],\"off_iops\":[$off1,$off2],\"ratio\":$r,\"ok\":$ok}"
		cg_kill_rm mx
	done
}

# nullb LABEL NAME "ATTRS": a configfs null_blk device for LABEL, if wanted
nullb() {
	measure_wants "$1" || return 0
	nullb_create "$2" "$3" > /dev/null || { echo "# $1: cannot create null_blk $2"; return 0; }
	NULLBS+=("$2")
}

# disk SERIAL: the virtio disk the host gave that serial
disk() {
	local s
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s")" != "$1" ] || { echo "/dev/$(basename "$(dirname "$s")")"; return 0; }
	done
	echo "/dev/no-disk-$1"
}

device vd1000-rot0 "$(disk vd1000)" 0 none
device vd1000-rot1 "$(disk vd1000)" 1 none
device vd1000-dl "$(disk vd1000)" 1 mq-deadline
device vdcloud "$(disk vdcloud)" 1 none
device vdfast "$(disk vdfast)" 1 none
nullb nb-2t-1ms nbm2 "irqmode=2 completion_nsec=1000000 hw_queue_depth=2"
device nb-2t-1ms /dev/nbm2 0 none
nullb nb-32t-250us nbm32 "irqmode=2 completion_nsec=250000 hw_queue_depth=32"
device nb-32t-250us /dev/nbm32 0 none
nullb nb-1t-8ms nbm1 "irqmode=2 completion_nsec=8000000 hw_queue_depth=1"
device nb-1t-8ms /dev/nbm1 0 none
if measure_figure scale; then
	nullb nb-nodelay nbm0 "irqmode=0 hw_queue_depth=64 submit_queues=2"
	[ ! -b /dev/nbm0 ] || { prep_device /dev/nbm0; fig_scale /dev/nbm0; iow_disable /dev/nbm0; }
fi
echo "# matrix done $(date +%T)"
