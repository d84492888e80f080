#!/bin/bash
# The hook writes the expected io.weight lines for each kind of annotation:
# a number, a class from the config, per-device weights, and the blockio-class
# annotations; and the config's device profile reaches the root files.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

tap_plan 9
e2e_use_config 10-e2e-fail.json
dev=$(e2e_dev)
trap pods_rm_all EXIT
declare -A layout # pod -> its cgroup

# pod_weight_test MANIFEST DESCRIPTION EXPECTED_POD_IO_WEIGHT [CONTAINER EXPECTED]
pod_weight_test() {
	local name=$1 desc=$2 want=$3 ctr=${4:-} cwant=${5:-} out cg
	if ! out=$(pod_run "$PODS/$name.yaml" 2>&1); then
		tap_fail "$desc: pod starts" "$out"
		[ -z "$ctr" ] || tap_fail "$desc: container weight" "pod did not start"
		return
	fi
	cg=$(pod_cg "$name")
	layout[$name]=$cg
	tap_eq "$desc: $cg/io.weight" "$want" "$(cg_file "$cg" io.weight)"
	if [ -n "$ctr" ]; then
		cg=$(pod_cg "$name" "$ctr")
		tap_eq "$desc: container $ctr io.weight" "$cwant" "$(cg_file "$cg" io.weight)"
	fi
	pod_rm "$name" > /dev/null
}

pod_weight_test weight-default "ioweight.dev/weight=300" "default 300"
pod_weight_test weight-class "ioweight.dev/class=gold (500 in the config)" "default 500"
pod_weight_test weight-device "ioweight.dev/weight=200 + device-weights /dev/vdb=800" \
	"default 200"$'\n'"$dev 800"
pod_weight_test weight-blockio "blockio pod class silver (250), container class best-effort (25)" \
	"default 250" app "default 25"

# kubelet's layout per QoS class, for the driver of this boot
if [ "$E2E_CGROUP_DRIVER" = systemd ]; then
	be=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod bu=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod
	gu=/kubepods.slice/kubepods-pod
else
	be=/kubepods/besteffort/pod bu=/kubepods/burstable/pod gu=/kubepods/pod
fi
if [[ ${layout[weight-default]:-} == "$be"* && ${layout[weight-class]:-} == "$bu"* &&
      ${layout[weight-device]:-} == "$gu"* ]]; then
	tap_ok "pod cgroups follow kubelet's $E2E_CGROUP_DRIVER layout: besteffort, burstable, guaranteed"
else
	tap_fail "pod cgroups follow kubelet's $E2E_CGROUP_DRIVER layout: besteffort, burstable, guaranteed" \
		"$(for k in "${!layout[@]}"; do echo "$k: ${layout[$k]}"; done)"
fi

# the device profile of the config reached the root, written by the hook
case $(e2e_kernel) in
ioweight) qos=io.weight.qos model=io.weight.cost_model ;;
iocost) qos=io.cost.qos model=io.cost.model ;;
*) qos=none model=none ;;
esac
q=$(grep "^$dev " "/sys/fs/cgroup/$qos" 2>/dev/null)
tap_check "root $qos: the config's profile enabled the controller on $dev" grep -q 'enable=1' <<< "$q"
m=$(grep "^$dev " "/sys/fs/cgroup/$model" 2>/dev/null)
tap_check "root $model: the profile's user cost model on $dev" \
	grep -qE 'ctrl=user.*rbps=4096000.*rrandiops=1000.*wrandiops=1000' <<< "$m"
tap_check "hook log names the annotation it applied" \
	grep -q 'ioweight.dev/weight=300' "$HOOK_LOG"
tap_done
