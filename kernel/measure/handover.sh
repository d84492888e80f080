#!/usr/bin/env bash
# Hand-over on removal: what a pod deletion does to the remaining pod.
#
#   kernel/measure/handover.sh [--kernel K] [--secs S] [--only vdb-rot0,vdb-rot1,nullb0]
#
# Two pods laid out as kubelet does (kubepods/podA/ctr, kubepods/podB/ctr),
# pod weights 500:100, a 4k QD32 rand-read in each container, automatic
# parameters. After S seconds together, the 500 pod's tasks are killed
# (cgroup.kill) and both of its cgroups removed, as a pod deletion does; the
# figure is the time from its last IO until the 100 pod's rate over a
# sliding 0.25 s window reaches 85% of what it gets alone (target: < 1 s).
# The same is measured with the 500 pod frozen instead (cgroup.freeze), the
# path part2.sh measures, for comparison. One JSON line per device and path.
source "$(dirname "$0")/common.sh"
measure_main "$0" "$@"

CGIO=/ioweight/e2e/guest/cgio
cleanup() {
	fio_stop solo hi lo 2> /dev/null || true
	cg_kill_rm kp 2> /dev/null || true
}
trap cleanup EXIT

# one_run DEV LABEL PATH(kill|freeze) LONE_RATE
one_run() {
	local dev=$1 label=$2 path=$3 lone=$4 m min ho delay ok
	m=$(dev_majmin "$dev")
	cg_make kp/podA/ctr kp/podB/ctr
	cg_weight kp/podA 500
	cg_weight kp/podB 100
	fio_start hi kp/podA/ctr "$dev" randread
	fio_start lo kp/podB/ctr "$dev" randread
	poll_until 20 cgroups_doing_io "$m" kp/podA/ctr kp/podB/ctr || echo "# $label: a pod did no IO within 20 s"
	sleep "$MEASURE_SECS"	# the pair runs together: a measurement window, not a synchronisation
	min=$(awk -v c="$lone" 'BEGIN { print int(0.85 * c) }')
	rm -f /tmp/handover.ready
	"$CGIO" handover --dev "$m" --from hi=/kp/podA/ctr --to lo=/kp/podB/ctr \
		--min-rate "$min" --timeout 30 --ready /tmp/handover.ready > /tmp/handover.json &
	local hpid=$!
	poll_until 60 test -e /tmp/handover.ready || echo "# $label: the measurement did not arm within 60 s"
	if [ "$path" = kill ]; then
		echo 1 > "$IOW_CG/kp/podA/cgroup.kill"
		poll_until 10 cg_empty "$IOW_CG/kp/podA" || echo "# $label: podA still has tasks after 10 s"
		rmdir "$IOW_CG/kp/podA/ctr" "$IOW_CG/kp/podA"
	else
		echo 1 > "$IOW_CG/kp/podA/cgroup.freeze"
	fi
	wait "$hpid" || true
	ho=$(cat /tmp/handover.json)
	delay=$(sed -nE 's/.*"delay": ([0-9.]+).*/\1/p' <<< "$ho")
	ok=false
	[ -z "$delay" ] || ok=$(verdict "$delay" 0 1)
	emit "$label: $path the 500 pod -> the 100 pod at >= 85% of its lone $lone IO/s after ${delay:-never} s (need < 1 s) -> $ok" \
		"{\"figure\":\"handover\",\"dev\":\"$label\",\"path\":\"$path\",\"lone\":$lone,\"delay_s\":${delay:-null},\"ok\":$ok,\"cgio\":$ho}"
	[ ! -e "$IOW_CG/kp/podA/cgroup.freeze" ] || echo 0 > "$IOW_CG/kp/podA/cgroup.freeze"
	fio_stop hi lo 2> /dev/null || true
	cg_kill_rm kp
}

# lone_rate DEV: IO/s of one container alone under the controller
lone_rate() {
	local m a b
	m=$(dev_majmin "$1")
	cg_make kp/podB/ctr
	fio_start solo kp/podB/ctr "$1" randread
	poll_until 20 cgroups_doing_io "$m" kp/podB/ctr || true
	sleep 2	# settle: a warm-up, not a synchronisation
	a=$(cg_ios kp/podB/ctr "$m")
	sleep "$MEASURE_SECS"	# the measurement window
	b=$(cg_ios kp/podB/ctr "$m")
	fio_stop solo
	cg_kill_rm kp
	awk -v a="$a" -v b="$b" -v s="$MEASURE_SECS" 'BEGIN { printf "%d\n", (b - a) / s }'
}

for spec in "vdb-rot0 /dev/vdb 0" "vdb-rot1 /dev/vdb 1" "nullb0 /dev/nullb0 -"; do
	read -r label dev rot <<< "$spec"
	measure_wants "$label" || continue
	[ -b "$dev" ] || { echo "# $label: no $dev"; continue; }
	[ "$rot" = - ] || set_rotational "$dev" "$rot"
	iow_model_auto "$dev"
	iow_enable_auto "$dev"
	lone=$(lone_rate "$dev")
	echo "# $label: lone container $lone IO/s"
	one_run "$dev" "$label" kill "$lone"
	one_run "$dev" "$label" freeze "$lone"
	iow_disable "$dev"
done
