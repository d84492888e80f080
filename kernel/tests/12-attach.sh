#!/usr/bin/env bash
# When the controller attaches to a disk: a malformed configuration line,
# in a child's io.weight or in either root file, attaches nothing; a valid
# root line attaches it; a valid per-device weight in a child attaches it
# disabled (documented in cgroup-v2.rst), so that weights can be set before
# the admin enables the disk.
#
# Each case runs on a fresh configfs null_blk, which nothing has configured.
# "Attached" is read from the root io.weight.qos, which lists exactly the
# disks the controller is attached to. Skips without the ioweight
# controller or without configfs null_blk.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh

cg=$IOW_CG/t12
name=iowt12
dev=

setup() {
	[ "$(iow_kind)" = ioweight ] || tap_skip_all "no io.weight.cost_model (kernel without the ioweight controller)"
	[ -d "$NULLB_CFS" ] || tap_skip_all "no $NULLB_CFS (configfs null_blk)"
	model=$(iow_model_file)
	qos=$(iow_qos_file)
	cg_make t12
}

cleanup() {
	[ -z "$dev" ] || nullb_remove "$name" || true
	rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT

# fresh_disk: a new null_blk that the controller has never seen; sets D
fresh_disk() {
	[ -z "$dev" ] || nullb_remove "$name"
	dev=$(nullb_create "$name" "size=64 hw_queue_depth=2") || { echo "cannot create null_blk $name" >&2; exit 1; }
	D=$(dev_majmin "$dev")
}

attached() { grep -q "^$D " "$qos" && echo attached || echo detached; }

# refused DESC FILE LINE: on a fresh disk LINE fails with EINVAL, and the
# controller is still not attached
refused() {
	local desc=$1 file=$2 line=$3 r
	fresh_disk
	tap_eq "fresh disk: not attached before '$line'" detached "$(attached)"
	r=$(cg_write "$file" "$D $line")
	tap_eq "$desc: '$D $line' is refused" EINVAL "$r"
	tap_eq "$desc: '$D $line' attached nothing" detached "$(attached)"
	tap_eq "$desc: the cost model file does not list the disk" "" "$(grep "^$D " "$model" || true)"
}

# accepted DESC FILE LINE: on a fresh disk LINE succeeds and attaches
accepted() {
	local desc=$1 file=$2 line=$3 r
	fresh_disk
	r=$(cg_write "$file" "$D $line")
	tap_eq "$desc: '$D $line' is accepted" OK "$r"
	tap_eq "$desc: '$D $line' attached the controller" attached "$(attached)"
}

setup
refused "child io.weight, junk" "$cg/io.weight" "junk"
refused "child io.weight, weight 0" "$cg/io.weight" "0"
refused "child io.weight, weight 10001" "$cg/io.weight" "10001"
refused "root qos, bad enable" "$qos" "enable=2"
refused "root qos, unknown key" "$qos" "enable=1 latency=5"
refused "root qos, min above max" "$qos" "ctrl=user min=150 max=100"
refused "root qos, min above max with ctrl=auto" "$qos" "ctrl=auto min=150 max=100"
refused "root cost model, bad model" "$model" "ctrl=user model=cubic"
refused "root cost model, zero rbps" "$model" "ctrl=user rbps=0"
refused "root cost model, junk" "$model" "junk"

accepted "root qos" "$qos" "enable=0"
tap_eq "root qos: the attached controller is disabled" "enable=0" \
	"$(grep "^$D " "$qos" | grep -o 'enable=[01]')"
accepted "root cost model" "$model" "ctrl=auto"
accepted "child io.weight" "$cg/io.weight" "200"
tap_eq "child io.weight: the weight reads back" "$D 200" "$(grep "^$D " "$cg/io.weight")"
tap_eq "child io.weight: the controller it attached is disabled" "enable=0" \
	"$(grep "^$D " "$qos" | grep -o 'enable=[01]')"
tap_done
