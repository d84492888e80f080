#!/usr/bin/env bash
# BPF_PROG_TYPE_IO_COST: the verifier's context rules, the
# BLKBPFIOCOST ioctl (wrong program type, second attach, detach), and what
# a program does to the split: the linear-equivalent program shares the
# device like the built-in model (500:100 random reads, within 3 points)
# and a program charging one LBA zone four times as much moves the split
# away from the cgroup working in that zone.
#
# Needs the loader and programs built on the host (make -C kernel/bpf, into
# build/bpf) and a kernel with CONFIG_BLK_BPF_IO_COST; skips without them.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh
source /ioweight/kernel/tests/lib/scenarios.sh

BPF=${IOW_BPF_DIR:-/ioweight/build/bpf}
LOADER=$BPF/ioweight-bpf
SECS=${BPF_COST_SECS:-6}
ZONE_PCT=400
dev=""

setup() {
	[ "$(iow_kind)" = ioweight ] || tap_skip_all "no io.weight.cost_model (ioweight controller absent)"
	if [ ! -x "$LOADER" ] || [ ! -f "$BPF/linear.bpf.o" ]; then
		tap_skip_all "no $LOADER or programs (run make -C kernel/bpf on the host)"
	fi
	"$LOADER" probe 2> /dev/null ||
		tap_skip_all "the kernel has no BPF_PROG_TYPE_IO_COST (CONFIG_BLK_BPF_IO_COST)"
	command -v fio > /dev/null || tap_skip_all "fio not installed in the guest"
	local d
	for d in /dev/vdb /dev/nullb0; do
		if [ -b "$d" ]; then dev=$d; break; fi
	done
	[ -n "$dev" ] || tap_skip_all "no test device (/dev/vdb, /dev/nullb0)"
	cg_make t40/hi t40/lo
}

cleanup() {
	fio_stop solo job0 job1 2> /dev/null
	cg_kill_rm t40
	if [ -n "$dev" ]; then
		"$LOADER" detach "$dev" 2> /dev/null || true
		prep_device "$dev" 2> /dev/null || true
	fi
}
trap cleanup EXIT

model_line() { dev_line "$(iow_model_file)" "$(dev_majmin "$dev")"; }

# expect_reject DESC OBJ PATTERN: loading OBJ fails and the output matches
expect_reject() {
	local out
	if out=$("$LOADER" load "$2" 2>&1); then
		tap_fail "$1" "the program was accepted"
	elif grep -qE "$3" <<< "$out"; then
		tap_ok "$1"
	else
		tap_fail "$1" "$out"
	fi
}

# expect_errno DESC ERRNO CMD...: CMD fails naming ERRNO
expect_errno() {
	local desc=$1 err=$2 out; shift 2
	if out=$("$@" 2>&1); then
		tap_fail "$desc" "succeeded"
	elif grep -q "($err)" <<< "$out"; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "$out"
	fi
}

verifier() {
	expect_reject "verifier rejects a write to sector" \
		"$BPF/tests/write_sector.bpf.o" "invalid bpf_context access off=16"
	expect_reject "verifier rejects a read past the context" \
		"$BPF/tests/read_past.bpf.o" "invalid bpf_context access off=40"
	tap_check "linear.bpf.o passes the verifier" "$LOADER" load "$BPF/linear.bpf.o"
	tap_check "zone.bpf.o passes the verifier" "$LOADER" load "$BPF/zone.bpf.o"
}

# split NAME: 4k random reads at QD32 in t40/hi and t40/lo; prints "share
# of t40/hi" and logs the IOs
split() {
	local out
	out=$(compete "$dev" randread "$SECS" t40/hi t40/lo | shares_of)
	sed "s/^/# $1: /" <<< "$out" >&2
	awk '$1 == "t40/hi" { print $3 }' <<< "$out"
}

# points A B: |A - B| in percentage points
points() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) * 100; printf "%.1f\n", d < 0 ? -d : d }'; }

main() {
	local name iops builtin linear zone_base zone line0 half

	name=$(basename "$dev")
	verifier

	prep_device "$dev"
	iops=$(solo_iops "$dev" randread 3)
	echo "# $name: solo randread $iops IOPS"
	user_model "$dev" "$iops" "$iops" 4096
	iow_enable_fixed "$dev" 100 100
	line0=$(model_line)

	cg_weight t40/hi 500 && cg_weight t40/lo 100
	builtin=$(split "built-in 500:100")

	expect_errno "BLKBPFIOCOST with a socket filter fd: EINVAL" EINVAL \
		"$LOADER" attach "$dev" "$BPF/tests/socket.bpf.o"
	tap_check "attach linear.bpf.o with the device's model" \
		"$LOADER" attach --model "$dev" "$BPF/linear.bpf.o"
	tap_check "io.weight.cost_model shows model=bpf" grep -q "model=bpf" <<< "$(model_line)"
	expect_errno "a second attach: EEXIST" EEXIST \
		"$LOADER" attach "$dev" "$BPF/linear.bpf.o"

	linear=$(split "linear.bpf 500:100")
	if [ -n "$builtin" ] && [ -n "$linear" ] &&
		awk -v p="$(points "$builtin" "$linear")" 'BEGIN { exit !(p <= 3) }'; then
		tap_ok "linear.bpf shares like the built-in model: $linear vs $builtin"
	else
		tap_fail "linear.bpf shares like the built-in model: ${linear:-none} vs ${builtin:-none}"
	fi

	tap_check "detach" "$LOADER" detach "$dev"
	tap_eq "detach restores the built-in model" "$line0" "$(model_line)"

	# equal weights, t40/hi in the lower half of the device, t40/lo in
	# the upper half, which the zone program charges ZONE_PCT %
	half=$(( $(cat "/sys/block/$name/size") / 2 ))
	cg_weight t40/hi 100 && cg_weight t40/lo 100
	export FIO_ARGS_0="--offset=0 --size=$((half * 512))"
	export FIO_ARGS_1="--offset=$((half * 512)) --size=$((half * 512))"
	zone_base=$(split "built-in 100:100 by halves")
	if "$LOADER" attach --model "$dev" "$BPF/zone.bpf.o" \
		zone_start="$half" zone_pct=$ZONE_PCT; then
		zone=$(split "zone.bpf upper half x$((ZONE_PCT / 100)) 100:100")
		"$LOADER" detach "$dev"
	fi
	unset FIO_ARGS_0 FIO_ARGS_1
	# expected: lo gets a quarter of hi's IOs, hi's share 0.80
	if [ -n "${zone:-}" ] && in_range "$zone" 0.70 0.90 &&
		awk -v z="$zone" -v b="${zone_base:-0}" 'BEGIN { exit !(z >= b + 0.15) }'; then
		tap_ok "zone program x$((ZONE_PCT / 100)) on t40/lo's half: t40/hi $zone_base -> $zone"
	else
		tap_fail "zone program x$((ZONE_PCT / 100)) on t40/lo's half: t40/hi ${zone_base:-none} -> ${zone:-none} (want 0.70..0.90)"
	fi
	prep_device "$dev"
}

setup
echo "# device: $dev; programs: $BPF"
main
tap_done
