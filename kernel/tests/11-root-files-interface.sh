#!/usr/bin/env bash
# Root-only files io.weight.cost_model and io.weight.qos: valid lines read
# back exactly, malformed ones fail with the right errno and leave both
# files' settings for the device intact, and neither file exists in a child.
#
# Skips when the kernel has no io.weight.cost_model. IOW_ALLOW_IOCOST=1 runs
# it against upstream io.cost's io.cost.model/io.cost.qos (same formats) to
# check the test itself on the baseline kernel; cases upstream accepts are
# then skipped as "lax".
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh

disk=/dev/vdb
cg=$IOW_CG/t11
part=

setup() {
	kind=$(iow_kind)
	case $kind in
	ioweight) ;;
	iocost) [ "${IOW_ALLOW_IOCOST:-0}" = 1 ] || tap_skip_all "no io.weight.cost_model (kernel without the ioweight controller)" ;;
	*) tap_skip_all "no io.weight.cost_model (kernel without the ioweight controller)" ;;
	esac
	[ -b "$disk" ] || tap_skip_all "no test disk $disk"
	model=$(iow_model_file)
	qos=$(iow_qos_file)
	D=$(dev_majmin "$disk")
	cg_make t11
	if addpart "$disk" 1 2048 2048 2>/dev/null && poll_until 5 test -e /sys/class/block/vdb1; then
		part=vdb1
		P=$(cat /sys/class/block/vdb1/dev)
	fi
}

cleanup() {
	[ -z "$part" ] || delpart "$disk" 1 2>/dev/null || true
	rmdir "$cg" 2>/dev/null || true
	# leave the device as the next test expects it: controller off, automatic
	cg_write "$qos" "$D enable=0 ctrl=auto" > /dev/null 2>&1 || true
	cg_write "$model" "$D ctrl=auto" > /dev/null 2>&1 || true
}
trap cleanup EXIT

# upstream prints percentages with two decimals ("95.00"); ours as written
norm() { sed -E 's/=([0-9]+)\.00( |$)/=\1\2/g'; }

# expect_line DESC FILE WRITE EXPECTED_LINE
expect_line() {
	local r
	r=$(cg_write "$2" "$3")
	if [ "$r" != OK ]; then
		tap_fail "$1: write '$3'" "write failed: $r"
		return
	fi
	tap_eq "$1 reads back" "$4" "$(dev_line "$2" "$D" | norm)"
}

user_model="ctrl=user model=linear rbps=4096000 rseqiops=1000 rrandiops=1000 wbps=4096000 wseqiops=1000 wrandiops=1000"
user_qos="enable=1 ctrl=user rpct=95 rlat=5000 wpct=95 wlat=10000 min=100 max=100"

valid_writes() {
	expect_line "user cost model" "$model" "$D $user_model" "$D $user_model"
	expect_line "a second user cost model" "$model" \
		"$D ctrl=user model=linear rbps=2000000 rseqiops=500 rrandiops=400 wbps=1000000 wseqiops=300 wrandiops=200" \
		"$D ctrl=user model=linear rbps=2000000 rseqiops=500 rrandiops=400 wbps=1000000 wseqiops=300 wrandiops=200"
	expect_line "user qos" "$qos" "$D $user_qos" "$D $user_qos"
	expect_line "qos with a vrate range" "$qos" \
		"$D enable=1 ctrl=user rpct=90 rlat=20000 wpct=99 wlat=30000 min=50 max=150" \
		"$D enable=1 ctrl=user rpct=90 rlat=20000 wpct=99 wlat=30000 min=50 max=150"
	local r
	r=$(cg_write "$qos" "$D enable=0")
	tap_eq "enable=0 accepted" OK "$r"
	tap_check "enable=0 reads back" bash -c "grep -E '^$D enable=0 ' '$qos'"
	r=$(cg_write "$model" "$D ctrl=auto")
	tap_eq "ctrl=auto cost model accepted" OK "$r"
	tap_check "ctrl=auto reads back" bash -c "grep -E '^$D ctrl=auto model=linear ' '$model'"
	# the state every malformed write below must leave untouched
	cg_set "$model" "$D $user_model"
	cg_set "$qos" "$D $user_qos"
	tap_check "io.weight.cost_model absent in a child" test ! -e "$cg/$(basename "$model")"
	tap_check "io.weight.qos absent in a child" test ! -e "$cg/$(basename "$qos")"
}

# both root files' lines for the test device: what a bad write must not change
root_state() { dev_line "$model" "$D"; dev_line "$qos" "$D"; }

# bad FILE ERRNO_OURS ERRNO_UPSTREAM|lax DESC INPUT
bad() {
	local file=$1 want=$2 up=$3 desc=$4 input=$5
	desc="$(basename "$file") rejects $desc"
	if [ "$kind" = iocost ]; then
		if [ "$up" = lax ]; then
			tap_skip "$desc" "upstream io.cost accepts it"
			return
		fi
		want=$up
	fi
	expect_rejected "$desc" "$want" "$file" "$input" root_state
}

malformed_model() {
	local m=$model
	bad "$m" EINVAL EINVAL "an unknown ctrl" "$D ctrl=bogus"
	bad "$m" EINVAL EINVAL "an unknown model" "$D model=quadratic"
	bad "$m" EINVAL EINVAL "an unknown key" "$D rbps=1000 foo=1"
	bad "$m" EINVAL EINVAL "a non-numeric value" "$D rbps=abc"
	bad "$m" EINVAL EINVAL "a negative value" "$D rrandiops=-5"
	bad "$m" EINVAL EINVAL "an empty value" "$D rbps="
	bad "$m" EINVAL EINVAL "a key without '='" "$D rbps"
	bad "$m" EINVAL lax "trailing garbage in a value" "$D rbps=100x"
	bad "$m" EINVAL lax "a duplicate key" "$D rbps=1000 rbps=2000"
	bad "$m" EINVAL lax "a value overflowing 64 bits" "$D rbps=18446744073709551616"
	bad "$m" EINVAL EINVAL "a line without a device" "ctrl=user rbps=1000"
	bad "$m" EINVAL EINVAL "a device with nothing after it" "$D"
	bad "$m" ENODEV ENODEV "a device that does not exist" "8:240 ctrl=auto"
	bad "$m" ENODEV ENODEV "a character device's MAJ:MIN" "1:3 ctrl=auto"
	if [ -n "$part" ]; then
		bad "$m" EINVAL ENODEV "a partition" "$P ctrl=auto"
	else
		tap_skip "$(basename "$m") rejects a partition" "could not add a partition to $disk"
	fi
	bad "$m" E2BIG E2BIG "input longer than a page" "$D $(printf 'rbps=1 %.0s' $(seq 700))"
}

malformed_qos() {
	local q=$qos
	bad "$q" EINVAL lax "enable=2" "$D enable=2"
	bad "$q" EINVAL EINVAL "enable=yes" "$D enable=yes"
	bad "$q" EINVAL EINVAL "an unknown ctrl" "$D ctrl=maybe"
	bad "$q" EINVAL EINVAL "rpct above 100" "$D rpct=101"
	bad "$q" EINVAL EINVAL "a negative wpct" "$D wpct=-1"
	bad "$q" EINVAL EINVAL "a non-numeric rlat" "$D rlat=fast"
	bad "$q" EINVAL EINVAL "min above max" "$D min=150 max=100"
	bad "$q" EINVAL EINVAL "an unknown key" "$D enable=1 speed=9"
	bad "$q" EINVAL lax "a duplicate key" "$D enable=1 enable=0"
	bad "$q" EINVAL EINVAL "a line without a device" "enable=1"
	bad "$q" ENODEV ENODEV "a device that does not exist" "8:240 enable=1"
	if [ -n "$part" ]; then
		bad "$q" EINVAL ENODEV "a partition" "$P enable=1"
	else
		tap_skip "$(basename "$q") rejects a partition" "could not add a partition to $disk"
	fi
	bad "$q" E2BIG E2BIG "input longer than a page" "$D $(printf 'enable=1 %.0s' $(seq 600))"
	tap_eq "writing io.weight.cost_model in a child fails" "open:ENOENT" \
		"$(cg_write "$cg/$(basename "$model")" "$D ctrl=auto")"
	tap_eq "writing io.weight.qos in a child fails" "open:ENOENT" \
		"$(cg_write "$cg/$(basename "$qos")" "$D enable=1")"
	tap_eq "cost model intact after everything" "$D $user_model" "$(dev_line "$model" "$D" | norm)"
	tap_eq "qos intact after everything" "$D $user_qos" "$(dev_line "$qos" "$D" | norm)"
}

setup
echo "# controller: $kind ($model, $qos), test disk $D${part:+, partition $P}"
valid_writes
malformed_model
malformed_qos
tap_done
