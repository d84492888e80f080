#!/usr/bin/env bash
# Acceptance figures, part 1: sharing at a fixed device rate (a user cost
# model, vrate pinned at 100%).
#
#   kernel/measure/part1.sh [--kernel ioweight|baseline|PATH] [--secs N]
#                           [--only vdb,nullb0,nullbfast]
#
# On the host it boots the guest with a 1000-IOPS throttled virtio disk
# (/dev/vdb) and null_blk QD2 1 ms (/dev/nullb0) and runs itself inside.
# For each device: solo 4k QD32 rand-read/rand-write IOPS with the
# controller off; then a user cost model set from them (IOW_MODEL_FACTOR,
# default 0.90, of the solo rate) with vrate fixed at 100% (min=100 max=100):
#   - 500:100 siblings, rand-read and rand-write: share vs 83.3% (±3 points)
#   - A:100{A1:100, A2:300}, B:200 rand-read: shares vs 8.3/25/66.7% (±5)
#   - a weight change 100:100 -> 500:100: delay until a 250 ms window shows
#     the new split (share >= 80.3%), required < 1 s
#   - no cgroups: root-only IOPS with the controller on vs off (±3%), also on
#     a no-delay null_blk where CPU overhead would show
# Prints a human line and a JSON line per figure (JSON also saved under
# build/measure/), with "ok" true or false. Exit status 0 even if a figure
# misses its target: kernel/measure/acceptance.sh (make acceptance) judges.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh" 2> /dev/null ||
	source /ioweight/kernel/measure/common.sh
measure_main "$0" "$@"

SECS=$MEASURE_SECS
declare -A SOLO_R SOLO_W

cleanup() {
	fio_stop solo job0 job1 job2 wa wb 2> /dev/null || true
	cg_kill_rm m1
	nullb_remove nullbfast 2> /dev/null || true
}
trap cleanup EXIT

# solo DEV: controller off, solo rand-read and rand-write IOPS
solo() {
	local dev=$1 n
	n=$(basename "$dev")
	prep_device "$dev"
	SOLO_R[$n]=$(solo_iops "$dev" randread "$((SECS / 2 + 1))")
	SOLO_W[$n]=$(solo_iops "$dev" randwrite "$((SECS / 2 + 1))")
	emit "$n: solo randread ${SOLO_R[$n]} IOPS, randwrite ${SOLO_W[$n]} IOPS (controller off)" \
		"{\"part\":1,\"figure\":\"solo\",\"dev\":\"$n\",\"randread_iops\":${SOLO_R[$n]},\"randwrite_iops\":${SOLO_W[$n]}}"
}

# configure DEV: the user model matching the device, vrate fixed at 100%
configure() {
	local dev=$1 n bpi=4096
	n=$(basename "$dev")
	# null_blk's completion time does not depend on the IO size
	[[ $n == nullb* ]] && bpi=1048576
	user_model "$dev" "${SOLO_R[$n]}" "${SOLO_W[$n]}" "$bpi"
	iow_enable_fixed "$dev" 100 100
	echo "# $n: $(dev_line "$(iow_model_file)" "$(dev_majmin "$dev")")"
	echo "# $n: $(dev_line "$(iow_qos_file)" "$(dev_majmin "$dev")")"
}

# split DEV RW: 500:100 siblings
split() {
	local dev=$1 rw=$2 n out hi tot ok
	n=$(basename "$dev")
	cg_make m1/hi m1/lo
	cg_weight m1/hi 500 && cg_weight m1/lo 100
	out=$(compete "$dev" "$rw" "$SECS" m1/hi m1/lo | shares_of)
	hi=$(awk '$1 == "m1/hi" { print $3 }' <<< "$out")
	tot=$(awk -v s="$SECS" '{ t += $2 } END { printf "%.1f", t / s }' <<< "$out")
	ok=$(verdict "$hi" 0.8033 0.8633)
	emit "$n: 500:100 $rw: hi share $(calc "$hi * 100")% (target 83.3 ±3) total $tot IOPS -> $ok" \
		"{\"part\":1,\"figure\":\"split\",\"dev\":\"$n\",\"rw\":\"$rw\",\"hi_share\":$hi,\"target\":0.8333,\"tolerance\":0.03,\"total_iops\":$tot,\"ok\":$ok}"
	cg_kill_rm m1
}

# hierarchy DEV: A:100{A1:100, A2:300}, B:200
hierarchy() {
	local dev=$1 n out a1 a2 b ok
	n=$(basename "$dev")
	cg_make m1/A/A1 m1/A/A2 m1/B
	cg_weight m1/A 100 && cg_weight m1/A/A1 100 && cg_weight m1/A/A2 300 && cg_weight m1/B 200
	out=$(compete "$dev" randread "$SECS" m1/A/A1 m1/A/A2 m1/B | shares_of)
	a1=$(awk '$1 == "m1/A/A1" { print $3 }' <<< "$out")
	a2=$(awk '$1 == "m1/A/A2" { print $3 }' <<< "$out")
	b=$(awk '$1 == "m1/B" { print $3 }' <<< "$out")
	ok=false
	if in_range "$a1" 0.0333 0.1333 && in_range "$a2" 0.20 0.30 && in_range "$b" 0.6167 0.7167; then ok=true; fi
	emit "$n: hierarchy A1 $(calc "$a1 * 100")% (8.3) A2 $(calc "$a2 * 100")% (25.0) B $(calc "$b * 100")% (66.7), ±5 -> $ok" \
		"{\"part\":1,\"figure\":\"hierarchy\",\"dev\":\"$n\",\"A1\":$a1,\"A2\":$a2,\"B\":$b,\"ideal\":[0.0833,0.25,0.6667],\"tolerance\":0.05,\"ok\":$ok}"
	cg_kill_rm m1
}

# weight_change DEV: 100:100, then hi set to 500 at a known instant
weight_change() {
	local dev=$1 n d csv ev delay after ok
	n=$(basename "$dev")
	d=$(dev_majmin "$dev")
	csv=$IOW_TMP/wc-$n.csv
	cg_make m1/hi m1/lo
	cg_weight m1/hi 100 && cg_weight m1/lo 100
	fio_start job0 m1/hi "$dev" randread
	fio_start job1 m1/lo "$dev" randread
	poll_until 30 cgroups_doing_io "$d" m1/hi m1/lo
	sleep "$IOW_SETTLE"
	python3 "$IOW_LIB/iosample.py" sample --dev "$d" --duration 6 \
		--at 2 "$IOW_CG/m1/hi/io.weight" "default 500" m1/hi m1/lo > "$csv"
	fio_stop job0 job1
	ev=$(sed -nE 's/^# at ([0-9.]+) wrote.*/\1/p' "$csv")
	delay=$(python3 "$IOW_LIB/iosample.py" first --csv "$csv" --after "$ev" --window 0.25 --col 0 --share 0.8033)
	after=$(python3 "$IOW_LIB/iosample.py" rate --csv "$csv" --from "$(calc "$ev + 2")" --to 6)
	ok=false
	[ "$delay" != never ] && in_range "$delay" 0 1 && ok=true
	[ "$delay" = never ] && delay=null
	emit "$n: weight change 100->500: new split within ${delay} s (250 ms windows, need < 1 s); afterwards $after -> $ok" \
		"{\"part\":1,\"figure\":\"weight_change\",\"dev\":\"$n\",\"delay_s\":$delay,\"after\":$after,\"ok\":$ok}"
	cg_kill_rm m1
}

# onoff DEV CONFIG: root-only IOPS, controller off / on, twice alternating
onoff() {
	local dev=$1 how=$2 n off1 on1 off2 on2 off on ratio ok t=$((SECS / 2 + 1))
	n=$(basename "$dev")
	prep_device "$dev"
	off1=$(solo_iops "$dev" randread "$t")
	enable_as "$dev" "$how"
	on1=$(solo_iops "$dev" randread "$t")
	prep_device "$dev"
	off2=$(solo_iops "$dev" randread "$t")
	enable_as "$dev" "$how"
	on2=$(solo_iops "$dev" randread "$t")
	prep_device "$dev"
	off=$(calc "($off1 + $off2) / 2"); on=$(calc "($on1 + $on2) / 2")
	ratio=$(calc "$on / $off")
	ok=$(verdict "$ratio" 0.97 10)
	emit "$n: no cgroups, controller on ($how) $on vs off $off IOPS: ratio $ratio (need >= 0.97) -> $ok" \
		"{\"part\":1,\"figure\":\"on_off\",\"dev\":\"$n\",\"config\":\"$how\",\"off_iops\":[$off1,$off2],\"on_iops\":[$on1,$on2],\"ratio\":$ratio,\"ok\":$ok}"
}
enable_as() {
	local n
	n=$(basename "$1")
	case $2 in
	user) configure "$1" > /dev/null ;;
	auto) iow_enable_auto "$1" ;;
	esac
}

for dev in /dev/vdb /dev/nullb0; do
	measure_wants "$(basename "$dev")" || continue
	[ -b "$dev" ] || { echo "# $dev missing, skipped"; continue; }
	solo "$dev"
	configure "$dev"
	split "$dev" randread
	split "$dev" randwrite
	hierarchy "$dev"
	weight_change "$dev"
	onoff "$dev" user
	onoff "$dev" auto
done
# CPU overhead: a null_blk with no completion delay, CPU-bound in the guest
if measure_wants nullbfast &&
	fast=$(nullb_create nullbfast "irqmode=0 completion_nsec=0 hw_queue_depth=64 size=1024 memory_backed=0"); then
	n=$(basename "$fast")
	SOLO_R[$n]=$(solo_iops "$fast" randread 3)
	SOLO_W[$n]=${SOLO_R[$n]}
	onoff "$fast" user
	onoff "$fast" auto
	nullb_remove nullbfast
fi
