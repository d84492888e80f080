#!/bin/bash
# The second path to the hook: the same Pod manifests played by `podman kube
# play`, the hook installed by `ioweight-hook install --runtime podman` (a
# hooks.d entry), the pause image as podman's infra image in containers.conf
# and podman's storage pre-loaded on the host (e2e/guest/podman-setup.sh).
# The pod's cgroup shows the pod's weight, and two pods of 500 and 100 split
# the 1000-IOPS disk 5:1. Podman puts a pod's containers in the pod's own
# cgroup (a slice under machine.slice with its systemd cgroup manager), so
# pods compete as siblings, as kubelet's pods do.
#
# Systemd driver only: podman 4.3's cgroupfs manager attaches a deny-all
# device program to the pod cgroup on cgroup v2, and no container of a pod
# can open /dev/null.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

[ "$E2E_CGROUP_DRIVER" = systemd ] || tap_skip_all "podman pods need its systemd cgroup manager (cgroupfs pods on cgroup v2 get a deny-all device program)"
kernel=$(e2e_kernel)
[ "$kernel" != none ] || tap_skip_all "no IO controller in this kernel"
tap_plan 6
e2e_use_config 10-e2e-fail.json
dev=$(e2e_dev)
results=/ioweight/${E2E_RESULTS_DIR:-build/e2e}/shares-podman.json
played=()
cleanup() { local p; for p in "${played[@]}"; do podman pod rm -f -t 0 "$p" > /dev/null 2>&1 || true; done; }
trap cleanup EXIT

if ! out=$(/ioweight/e2e/guest/podman-setup.sh 2>&1); then
	tap_fail "podman setup: pre-loaded storage, infra image, install --runtime podman" "$out"
	tap_done; exit
fi
tap_ok "podman setup: $out"

# kplay NAME [--env NAME=VALUE]...: play examples/pods/NAME.yaml on the host
# network (no CNI in the guest, as with kcri), kubelet's $(VAR) expansion
# done first; the caller adds NAME to $played (this runs in $(...))
kplay() {
	local name=$1; shift
	"$E2E/guest/kube-expand" "$PODS/$name.yaml" "$@" > "/tmp/$name.yaml" || return 1
	podman kube play --network host "/tmp/$name.yaml" 2>&1
}
# pod_cgroup NAME: the pod's cgroup, as podman made it
pod_cgroup() { local p; p=$(podman pod inspect "$1" --format '{{.CgroupPath}}') && echo "/${p#/}"; }

played+=(weight-default)
if out=$(kplay weight-default); then
	infra=$(podman pod inspect weight-default --format '{{.InfraContainerID}}')
	what="$(podman pod inspect weight-default --format '{{.State}}') $(podman inspect "$infra" --format '{{.ImageName}}')"
	tap_eq "weight-default plays; its infra container runs the local pause image" "Running $PAUSE_IMAGE" "$what"
	cg=$(pod_cgroup weight-default)
	tap_eq "ioweight.dev/weight=300: the pod's cgroup $cg has io.weight" "default 300" "$(cg_file "$cg" io.weight)"
	podman pod rm -f -t 0 weight-default > /dev/null
else
	tap_fail "weight-default plays; its infra container runs the local pause image" "$out"
	tap_fail "ioweight.dev/weight=300: the pod's cgroup has io.weight 300" "the pod did not start"
fi

drop_caches
for p in fio-randread-high fio-randread-low; do
	played+=("$p")
	if ! out=$(kplay "$p" --env RUNTIME=600); then
		tap_fail "fio-randread-high and fio-randread-low play" "$p: $out"
		tap_done; exit
	fi
done
tap_ok "fio-randread-high and fio-randread-low play (RUNTIME=600)"
hi=$(pod_cgroup fio-randread-high) lo=$(pod_cgroup fio-randread-low)
tap_eq "the pods' cgroups: fio-randread-high, fio-randread-low" "default 500|default 100" \
	"$(cg_file "$hi" io.weight)|$(cg_file "$lo" io.weight)"
if ! poll_until 30 cg_io_started "$hi" || ! poll_until 30 cg_io_started "$lo"; then
	tap_fail "pods 500:100 split the disk 5:1" "the pods did no IO on $dev within 30 s"
	tap_done; exit
fi
sleep 3 # warm-up before a fixed measurement window
m=$("$CGIO" share --dev "$dev" --window 15 high="$hi" low="$lo")
h=$(share_pct "$m" high) l=$(share_pct "$m" low)
e2e_log "podman pods 500:100: high $h% low $l% of $(jq '.total_rate | floor' <<< "$m") IO/s"
if within "$h" 83.3 8; then
	tap_ok "pods 500:100 split the disk 5:1 (high $h%, expected 83.3 +-8)"
else
	tap_fail "pods 500:100 split the disk 5:1" "high $h%, low $l% (expected 83.3 +-8); cgio: $m"
fi
mkdir -p "$(dirname "$results")"
jq -n --argjson m "$m" --arg kernel "$kernel" '{kernel: $kernel, podman_pair: $m}' > "$results" 2>/dev/null || true
tap_done
