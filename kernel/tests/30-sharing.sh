#!/usr/bin/env bash
# Proportional sharing at a fixed device rate: with a user cost
# model matching the device and vrate held at 100%, two sibling cgroups at
# 500:100 running 4k random reads at QD32 split the device about 5:1, and a
# weight change shows within a few seconds. Margins are wide (CI on a loaded
# 2-core host); kernel/measure/part1.sh gives the exact figures.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh
source /ioweight/kernel/tests/lib/scenarios.sh

SECS=${SHARING_SECS:-6}
devices=()

setup() {
	case $(iow_kind) in
	ioweight | iocost) ;;
	*) tap_skip_all "no io.weight.cost_model/io.weight.qos (controller absent)" ;;
	esac
	command -v fio > /dev/null || tap_skip_all "fio not installed in the guest"
	local d
	for d in /dev/vdb /dev/nullb0; do [ ! -b "$d" ] || devices+=("$d"); done
	[ "${#devices[@]}" -gt 0 ] || tap_skip_all "no test device (/dev/vdb, /dev/nullb0)"
	cg_make t30/hi t30/lo
}

cleanup() {
	fio_stop solo job0 job1 2> /dev/null
	cg_kill_rm t30
	local d
	for d in "${devices[@]}"; do prep_device "$d" 2> /dev/null || true; done
}
trap cleanup EXIT

# sharing DEV: the 500:100 split and a weight change on one device
sharing() {
	local dev=$1 name iops out hi lo share
	name=$(basename "$dev")
	prep_device "$dev"
	iops=$(solo_iops "$dev" randread 3)
	echo "# $name: solo randread $iops IOPS"
	user_model "$dev" "$iops" "$iops" 4096
	iow_enable_fixed "$dev" 100 100
	cg_weight t30/hi 500 && cg_weight t30/lo 100
	out=$(compete "$dev" randread "$SECS" t30/hi t30/lo | shares_of)
	echo "$out" | sed 's/^/# /'
	share=$(awk '$1 == "t30/hi" { print $3 }' <<< "$out")
	if in_range "${share:-0}" 0.70 0.95; then
		tap_ok "$name: 500:100 randread share $share in [0.70, 0.95]"
	else
		tap_fail "$name: 500:100 randread share ${share:-none} in [0.70, 0.95]" "$out"
	fi
	# swap the weights: the other group must now get the larger share
	cg_weight t30/hi 100 && cg_weight t30/lo 500
	out=$(compete "$dev" randread "$SECS" t30/hi t30/lo | shares_of)
	share=$(awk '$1 == "t30/lo" { print $3 }' <<< "$out")
	if in_range "${share:-0}" 0.70 0.95; then
		tap_ok "$name: swapped weights give the other group $share"
	else
		tap_fail "$name: swapped weights give the other group ${share:-none}" "$out"
	fi
	prep_device "$dev"
}

setup
echo "# controller: $(iow_kind); devices: ${devices[*]}"
for d in "${devices[@]}"; do sharing "$d"; done
tap_done
