#!/usr/bin/env bash
# The cgroup v2 io controller is present and this kernel's io.weight
# implementation is the one its variant promises.
source /ioweight/vm/tap.sh
cg=/sys/fs/cgroup

tap_check "cgroup2 mounted at $cg" grep -qw io "$cg/cgroup.controllers"
tap_check "io enabled in the root's subtree_control" grep -qw io "$cg/cgroup.subtree_control"
mkdir -p "$cg/t01"
tap_check "child cgroup has io.weight" test -f "$cg/t01/io.weight"
tap_check "child cgroup has io.stat" test -f "$cg/t01/io.stat"

if zcat /proc/config.gz | grep -q '^CONFIG_BLK_CGROUP_IOWEIGHT=y'; then
	tap_check "root has io.weight.cost_model" test -f "$cg/io.weight.cost_model"
	tap_check "root has io.weight.qos" test -f "$cg/io.weight.qos"
	tap_check "upstream io.cost is absent" test ! -e "$cg/io.cost.qos"
	tap_eq "io.weight default reads back" "default 100" "$(head -n1 "$cg/t01/io.weight")"
elif zcat /proc/config.gz | grep -q '^CONFIG_BLK_CGROUP_IOCOST=y'; then
	tap_check "root has io.cost.model (baseline variant)" test -f "$cg/io.cost.model"
	tap_check "root has io.cost.qos (baseline variant)" test -f "$cg/io.cost.qos"
	tap_eq "io.weight default reads back" "default 100" "$(head -n1 "$cg/t01/io.weight")"
else
	tap_fail "kernel has neither CONFIG_BLK_CGROUP_IOWEIGHT nor CONFIG_BLK_CGROUP_IOCOST"
fi
tap_check "BFQ is available on a data disk" grep -q bfq /sys/block/vdb/queue/scheduler
rmdir "$cg/t01"
tap_done
