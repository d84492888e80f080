#!/usr/bin/env bash
# io.weight interface: every accepted form reads back exactly, and malformed
# writes fail with the right errno and leave the previous settings intact.
#
# Runs on the ioweight kernel and on the baseline (upstream io.cost owns a
# file of the same name and format). Upstream's parser is lax (sscanf): cases
# it accepts are marked "lax" and skipped there, never on the ioweight kernel.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh

cg=$IOW_CG/t10
disk=/dev/vdb
nullb=/dev/nullb0
part=

setup() {
	[ -e "$IOW_CG/cgroup.controllers" ] || tap_skip_all "cgroup2 is not mounted at $IOW_CG"
	grep -qw io "$IOW_CG/cgroup.controllers" || tap_skip_all "no io controller in cgroup2"
	[ -b "$disk" ] || tap_skip_all "no test disk $disk"
	cg_make t10
	[ -e "$cg/io.weight" ] || tap_skip_all "kernel has no io.weight (neither ioweight nor io.cost)"
	kind=$(iow_kind)
	D=$(dev_majmin "$disk")
	# upstream io.cost attaches to a device only through its root files
	if [ "$kind" = iocost ]; then
		iow_disable "$disk"
		[ ! -b "$nullb" ] || iow_disable "$nullb"
	fi
	# a partition of the test disk, added with BLKPG (no partition table written)
	if addpart "$disk" 1 2048 2048 2>/dev/null && poll_until 5 test -e /sys/class/block/vdb1; then
		part=vdb1
		P=$(cat /sys/class/block/vdb1/dev)
	fi
}

cleanup() {
	[ -z "$part" ] || delpart "$disk" 1 2>/dev/null || true
	rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT

# expect_readback DESC WRITE EXPECTED_FILE_CONTENT
expect_readback() {
	local r
	r=$(cg_write "$cg/io.weight" "$2")
	if [ "$r" != OK ]; then
		tap_fail "$1: write '$2'" "write failed: $r"
		return
	fi
	tap_eq "$1: '$2' reads back" "$3" "$(cat "$cg/io.weight")"
}

valid_writes() {
	expect_readback "bare weight" "300" "default 300"
	expect_readback "default form" "default 250" "default 250"
	expect_readback "default with tab and newline" $'default\t42\n' "default 42"
	expect_readback "minimum" "default 1" "default 1"
	expect_readback "maximum" "10000" "default 10000"
	expect_readback "per-device weight" "$D 400" "default 10000"$'\n'"$D 400"
	expect_readback "per-device maximum" "$D 10000" "default 10000"$'\n'"$D 10000"
	expect_readback "per-device minimum" "$D 1" "default 10000"$'\n'"$D 1"
	if [ -b "$nullb" ]; then
		local N
		N=$(dev_majmin "$nullb")
		r=$(cg_write "$cg/io.weight" "$N 700")
		tap_eq "second device weight accepted" OK "$r"
		tap_check "both per-device lines listed" bash -c "grep -qx '$D 1' '$cg/io.weight' && grep -qx '$N 700' '$cg/io.weight'"
		expect_readback "MAJ:MIN default drops the device line" "$N default" "default 10000"$'\n'"$D 1"
	else
		tap_skip "second device weight" "no $nullb"
		tap_skip "both per-device lines listed" "no $nullb"
		tap_skip "MAJ:MIN default drops the device line" "no $nullb"
	fi
	expect_readback "default changes leave device weights" "default 100" "default 100"$'\n'"$D 1"
	expect_readback "MAJ:MIN default" "$D default" "default 100"
	# the state every malformed write below must leave untouched
	expect_readback "baseline state for the malformed writes" "$D 321" "default 100"$'\n'"$D 321"
	cg_set "$cg/io.weight" "default 77"
}

# bad ERRNO_OURS ERRNO_UPSTREAM|lax DESC INPUT: a malformed write
bad() {
	local want=$1 up=$2 desc=$3 input=$4
	if [ "$kind" = iocost ]; then
		if [ "$up" = lax ]; then
			tap_skip "rejects $desc" "upstream io.cost's sscanf parser accepts it"
			return
		fi
		want=$up
	fi
	expect_rejected "rejects $desc" "$want" "$cg/io.weight" "$input" cat "$cg/io.weight"
}

malformed_writes() {
	bad EINVAL EINVAL "weight 0" "0"
	bad EINVAL EINVAL "weight 10001" "10001"
	bad EINVAL EINVAL "negative weight" "-1"
	bad EINVAL EINVAL "hex weight" "0x64"
	bad EINVAL EINVAL "non-numeric weight" "abc"
	bad EINVAL lax "'default' without a weight" "default"
	bad EINVAL EINVAL "default 0" "default 0"
	bad EINVAL EINVAL "default 10001" "default 10001"
	bad EINVAL EINVAL "default negative" "default -5"
	bad EINVAL EINVAL "'defaults' keyword" "defaults 50"
	bad EINVAL lax "two numbers" "100 200"
	bad EINVAL lax "trailing garbage after the weight" "100abc"
	bad EINVAL lax "fractional weight" "1.5"
	bad EINVAL lax "exponent notation" "1e3"
	bad EINVAL lax "trailing word after default W" "default 50 x"
	bad EINVAL lax "an empty line" $'\n'
	bad EINVAL lax "weight overflowing 32 bits" "default 4294967396"
	bad EINVAL lax "a number with thousands of digits" "default $(printf '1%.0s' $(seq 4000))"
	bad E2BIG E2BIG "input longer than a page" "default $(printf '1%.0s' $(seq 5000))"
	bad EINVAL lax "MAJ without MIN" "${D%%:*} 100"
	bad EINVAL EINVAL "missing major" ":${D##*:} 100"
	bad EINVAL EINVAL "MAJ:MIN:extra" "$D:7 100"
	bad EINVAL EINVAL "device without a weight" "$D"
	bad EINVAL EINVAL "device weight 0" "$D 0"
	bad EINVAL EINVAL "device weight 10001" "$D 10001"
	bad EINVAL EINVAL "device weight negative" "$D -1"
	bad EINVAL EINVAL "device weight hex" "$D 0x10"
	bad EINVAL EINVAL "device weight non-numeric" "$D abc"
	bad EINVAL lax "device weight with trailing garbage" "$D 100 junk"
	bad EINVAL lax "device 'defaultx' keyword" "$D defaultx"
	bad EINVAL lax "device weight overflowing 32 bits" "$D 4294967397"
	bad EINVAL lax "two device lines in one write" "$D 100"$'\n'"$D 200"
	bad ENODEV ENODEV "a device that does not exist" "8:240 100"
	bad ENODEV ENODEV "a character device's MAJ:MIN" "1:3 100"
	if [ -n "$part" ]; then
		bad EINVAL ENODEV "a partition" "$P 100"
	else
		tap_skip "rejects a partition" "could not add a partition to $disk"
	fi
	tap_eq "io.weight is not offered at the root" "no" "$([ -e "$IOW_CG/io.weight" ] && echo yes || echo no)"
	tap_eq "writing io.weight at the root fails" "open:ENOENT" "$(cg_write "$IOW_CG/io.weight" "default 100")"
	tap_eq "settings intact after everything" "default 77"$'\n'"$D 321" "$(cat "$cg/io.weight")"
}

setup
echo "# controller: $kind, test disk $D${part:+, partition $P}"
valid_writes
malformed_writes
tap_done
