#!/usr/bin/env bash
# Stress (debug kernel: PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, KASAN): while fio
# runs in several cgroups on three devices, keep enabling/disabling the
# controller, switching cost models and vrate bounds, changing weights,
# killing and removing cgroups with IO in flight, and powering a configfs
# null_blk off and on under IO; meanwhile the root files are read in a loop
# and blk-throttle holds one group's reads back on the same device, so that
# its timer takes the queue lock in softirq context (a root file read that
# enabled interrupts under that lock is then a lockdep report). Every step
# is bounded: a step that does not finish in time is a hang. Afterwards the
# devices must still do IO and the kernel log must hold no splat. It fails,
# rather than passing quietly, on a kernel without lockdep or KASAN.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh

DURATION=${STRESS_SECS:-60}
STEP_LIMIT=60		# seconds any single step may take
RANDOM=${STRESS_SEED:-4242}
devs=()
hot=nullbstress
dmesg_from=0
jobs_running=()

setup() {
	[ "$(iow_kind)" != none ] || tap_skip_all "no io.weight controller files (io.weight.cost_model)"
	command -v fio > /dev/null || tap_skip_all "fio not installed in the guest"
	local d
	for d in /dev/vdb /dev/nullb0; do [ ! -b "$d" ] || devs+=("$d"); done
	[ "${#devs[@]}" -gt 0 ] || tap_skip_all "no test device"
	dmesg_from=$(dmesg | wc -l)
	# the checkers this test relies on must really be there
	tap_eq "lockdep is on (/proc/lockdep)" yes "$([ -e /proc/lockdep ] && echo yes || echo no)"
	tap_eq "KASAN is on (boot log)" yes "$(dmesg | grep -q 'KernelAddressSanitizer initialized' && echo yes || echo no)"
	cg_make s/g1 s/g2 s/g3 s/g4
}

reader_pid=

# read both root files in a loop (each read walks every device's group
# under the queue lock), counting the reads in $IOW_TMP/root-reads
start_root_reader() {
	local qf mf
	qf=$(iow_qos_file); mf=$(iow_model_file)
	(
		n=0
		while cat "$qf" "$mf" > /dev/null; do
			n=$((n + 1))
			echo "$n" > "$IOW_TMP/root-reads"
			# paced, not a synchronisation: a few reads a second are
			# enough for lockdep, a tight loop starves the guest
			sleep 0.2
		done
	) &
	reader_pid=$!
}

stop_root_reader() {
	[ -z "$reader_pid" ] || kill "$reader_pid" 2> /dev/null || true
	[ -z "$reader_pid" ] || wait "$reader_pid" 2> /dev/null || true
	reader_pid=
}

# blk-throttle on the first device: s/g1's reads are held to 200 IOPS, so
# bios queue in blk-throttle and its timer runs
start_throttle() {
	local r
	if [ ! -e "$IOW_CG/s/g1/io.max" ]; then
		tap_fail "blk-throttle is active beside the controller" "no io.max: kernel without CONFIG_BLK_DEV_THROTTLING"
		return
	fi
	r=$(cg_write "$IOW_CG/s/g1/io.max" "$(dev_majmin "${devs[0]}") riops=200")
	tap_eq "blk-throttle is active beside the controller (io.max riops=200)" OK "$r"
}

cleanup() {
	stop_root_reader
	fio_stop "${jobs_running[@]}" 2> /dev/null
	cg_kill_rm s
	nullb_remove "$hot" 2> /dev/null || true
}
trap cleanup EXIT

# bounded DESC CMD...: run CMD in the background, fail the test if it does
# not return within STEP_LIMIT (a hang in the kernel keeps it in D state)
bounded() {
	local desc=$1 pid t0=$SECONDS; shift
	"$@" > /dev/null 2>&1 &
	pid=$!
	if ! poll_until "$STEP_LIMIT" pid_gone "$pid"; then
		tap_fail "no hang: $desc" "still running after ${STEP_LIMIT}s: $*"
		echo "# blocked tasks:"; echo w > /proc/sysrq-trigger 2> /dev/null
		return 1
	fi
	wait "$pid" 2> /dev/null
	[ $((SECONDS - t0)) -lt 5 ] || echo "# $desc took $((SECONDS - t0))s"
	return 0
}

start_io() {
	local i=0 g d
	for g in g1 g2 g3 g4; do
		d=${devs[$((i % ${#devs[@]}))]}
		fio_start "st$g" "s/$g" "$d" "$([ $((i % 2)) = 0 ] && echo randread || echo randwrite)" --iodepth=16
		jobs_running+=("st$g")
		i=$((i + 1))
	done
}

# hot_add: a configfs null_blk with fio in s/g1 on it
hot_add() {
	local dev
	dev=$(nullb_create "$hot" "irqmode=2 completion_nsec=200000 hw_queue_depth=4 size=512 memory_backed=0") || return 1
	cg_set "$(iow_qos_file)" "$(dev_majmin "$dev") enable=1 ctrl=auto"
	cg_set "$IOW_CG/s/g1/io.weight" "$(dev_majmin "$dev") 300"
	fio_start sthot s/g1 "$dev" randread --iodepth=8
	jobs_running+=(sthot)
}

hot_remove() {
	bounded "null_blk power-off under IO" nullb_remove "$hot" || return 1
	fio_stop sthot 2> /dev/null
}

# put FILE STRING: one write, errors ignored (many are expected: random
# settings may be out of range); bash's echo, no python start-up per write
put() { echo "$2" > "$1"; } 2> /dev/null

# config_batch SEED: 20 random configuration writes on random devices. It
# runs in a subshell (bounded), so it is seeded by the caller.
config_batch() {
	local i d m qf mf RANDOM=$1
	qf=$(iow_qos_file); mf=$(iow_model_file)
	for i in $(seq 20); do
		d=${devs[$((RANDOM % ${#devs[@]}))]}
		m=$(dev_majmin "$d")
		case $((RANDOM % 8)) in
		0) put "$qf" "$m enable=0" ;;
		1) put "$qf" "$m enable=1 ctrl=auto" ;;
		2) put "$qf" "$m enable=1 ctrl=user rpct=95 rlat=$((RANDOM % 20000 + 1000)) wpct=90 wlat=20000 min=$((RANDOM % 75 + 25)) max=$((RANDOM % 200 + 100))" ;;
		3) put "$mf" "$m ctrl=user model=linear rbps=$((RANDOM % 100 * 1000000 + 1000000)) rseqiops=$((RANDOM % 20000 + 200)) rrandiops=$((RANDOM % 20000 + 200)) wbps=$((RANDOM % 100 * 1000000 + 1000000)) wseqiops=$((RANDOM % 20000 + 200)) wrandiops=$((RANDOM % 20000 + 200))" ;;
		4) put "$mf" "$m ctrl=auto" ;;
		5) put "$IOW_CG/s/g$((RANDOM % 4 + 1))/io.weight" "default $((RANDOM % 10000 + 1))" ;;
		6) put "$IOW_CG/s/g$((RANDOM % 4 + 1))/io.weight" "$m $((RANDOM % 10000 + 1))" ;;
		7) put "$IOW_CG/s/g$((RANDOM % 4 + 1))/io.weight" "$m default" ;;
		esac
	done
}

# a short-lived cgroup: fio in it, then kill and rmdir with IO in flight
churn_step() {
	local n=s/churn$((RANDOM % 3)) d=${devs[$((RANDOM % ${#devs[@]}))]}
	cg_make "$n"
	cg_weight "$n" $((RANDOM % 1000 + 1)) > /dev/null 2>&1 || true
	fio_start churn "$n" "$d" randwrite --iodepth=32
	poll_until 10 cgroups_doing_io "$(dev_majmin "$d")" "$n" || echo "# $n did no IO within 10 s"
	bounded "kill and rmdir a cgroup under IO" cg_kill_rm "$n" || return 1
	fio_stop churn 2> /dev/null
	! [ -d "$IOW_CG/$n" ]
}

# rounds of: 20 configuration writes, a cgroup removed under IO, a null_blk
# power cycle under IO; at least MIN_ROUNDS, then until DURATION has passed
stress_loop() {
	local end=$(($(date +%s) + DURATION)) rounds=0 fails=0 t0
	while [ "$rounds" -lt "${MIN_ROUNDS:-3}" ] || [ "$(date +%s)" -lt "$end" ]; do
		t0=$(date +%s)
		bounded "configuration writes" config_batch $RANDOM || fails=$((fails + 1))
		bounded "configuration writes" config_batch $RANDOM || fails=$((fails + 1))
		churn_step || fails=$((fails + 1))
		hot_remove || fails=$((fails + 1))
		hot_add || fails=$((fails + 1))
		rounds=$((rounds + 1))
		echo "# round $rounds: 40 writes, 1 cgroup removal, 1 null_blk power cycle in $(($(date +%s) - t0))s"
		[ "$rounds" -lt 50 ] || break
	done
	tap_eq "$rounds stress rounds finished without a stuck or failed step" 0 "$fails"
}

# after the storm: controller on with a simple setup, every device does IO
still_works() {
	local d m a
	fio_stop "${jobs_running[@]}"
	jobs_running=()
	! bounded "final null_blk removal" nullb_remove "$hot" || tap_ok "no hang: final null_blk removal"
	for d in "${devs[@]}"; do
		m=$(dev_majmin "$d")
		cg_write "$(iow_qos_file)" "$m enable=1 ctrl=auto" > /dev/null
		cg_write "$(iow_model_file)" "$m ctrl=auto" > /dev/null
		a=$(cg_ios s/g2 "$m")
		FIO_RUNTIME=3 fio_start final s/g2 "$d" randread
		if fio_wait final 60 && [ "$(cg_ios s/g2 "$m")" -gt "$a" ]; then
			tap_ok "$(basename "$d") still does IO under the controller"
		else
			tap_fail "$(basename "$d") still does IO under the controller" "$(cat "$IOW_TMP/final.log" 2> /dev/null)"
		fi
		cg_write "$(iow_qos_file)" "$m enable=0" > /dev/null
	done
	! bounded "final cgroup removal" cg_kill_rm s || tap_eq "all stress cgroups removed" no "$([ -d "$IOW_CG/s" ] && echo yes || echo no)"
}

no_splat() {
	local log
	log=$(dmesg | tail -n +"$((dmesg_from + 1))")
	local bad
	bad=$(grep -nE 'BUG:|WARNING:|Oops|KASAN|UBSAN|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU|sleeping function called|hung_task|blocked for more than|general protection fault|list_(add|del) corruption' <<< "$log" | head -n 20)
	if [ -z "$bad" ]; then
		tap_ok "kernel log has no BUG/WARNING/lockdep/KASAN report"
	else
		tap_fail "kernel log has no BUG/WARNING/lockdep/KASAN report" "$bad"
	fi
}

setup
echo "# controller $(iow_kind), devices ${devs[*]} + configfs $hot, ${DURATION}s, seed ${STRESS_SEED:-4242}"
start_throttle
start_io
rm -f "$IOW_TMP/root-reads"
start_root_reader
if hot_add; then tap_ok "configfs null_blk added with IO running"; else tap_fail "configfs null_blk added with IO running"; fi
stress_loop
stop_root_reader
reads=$(cat "$IOW_TMP/root-reads" 2> /dev/null || echo 0)
tap_check "the root files were read during the stress ($reads reads)" test "$reads" -gt 0
still_works
no_splat
tap_done
