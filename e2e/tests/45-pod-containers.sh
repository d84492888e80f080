#!/bin/bash
# Weights at two levels: a pod of io.weight 500 with two saturating readers
# weighted 1:3 inside it (ioweight.dev/container.<name>) against a pod of
# 100. The pods split the disk 5:1 and the pod's share splits 1:3 between its
# containers, each within 8 points. One io.stat window covers all four
# cgroups (the pods' and the two containers'), so the figures add up.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

kernel=$(e2e_kernel)
[ "$kernel" != none ] || tap_skip_all "no IO controller in this kernel"
tap_plan 4
e2e_use_config 10-e2e-fail.json
dev=$(e2e_dev)
trap pods_rm_all EXIT
results=/ioweight/${E2E_RESULTS_DIR:-build/e2e}/shares-containers.json

drop_caches
for p in fio-two-containers fio-randread-low; do
	pod_run "$PODS/$p.yaml" --env RUNTIME=600 > /dev/null || { tap_fail "pod $p starts"; exit 1; }
done
two=$(pod_cg fio-two-containers) light=$(pod_cg fio-two-containers light) heavy=$(pod_cg fio-two-containers heavy)
tap_eq "container weights inside the pod: light, heavy" "default 100|default 300" \
	"$(cg_file "$light" io.weight)|$(cg_file "$heavy" io.weight)"
poll_until 30 cg_io_started "$light" && poll_until 30 cg_io_started "$heavy" &&
	wait_pods_io fio-randread-low || { tap_fail "all three readers do IO"; exit 1; }
sleep 4 # warm-up before a fixed measurement window
m=$("$CGIO" share --dev "$dev" --window 20 pod="$two" low="$(pod_cg fio-randread-low)" \
	light="$light" heavy="$heavy")
# shares of the pods among the pods, of the containers within their pod
pct() { jq -r --arg a "$1" --arg b "$2" '.pods[$a].rate / (.pods[$a].rate + .pods[$b].rate) * 1000 | round / 10' <<< "$m"; }
pod=$(pct pod low) low=$(pct low pod) lt=$(pct light heavy) hv=$(pct heavy light)
total=$(jq '(.pods.pod.rate + .pods.low.rate) | floor' <<< "$m")
e2e_log "pods: fio-two-containers $pod% fio-randread-low $low% of $total IO/s; inside the pod: light $lt% heavy $hv%"
if within "$pod" 83.3 8; then
	tap_ok "pods 500:100 split the disk 5:1 (pod $pod%, expected 83.3 +-8)"
else
	tap_fail "pods 500:100 split the disk 5:1" "pod $pod%, low $low% (expected 83.3 +-8); cgio: $m"
fi
if within "$lt" 25 8 && within "$hv" 75 8; then
	tap_ok "containers 1:3 split their pod's share (light $lt%, heavy $hv%, expected 25/75 +-8)"
else
	tap_fail "containers 1:3 split their pod's share" "light $lt%, heavy $hv% (expected 25/75 +-8); cgio: $m"
fi
# the containers' IO is the pod's IO (nothing else runs in the pod cgroup)
sum=$(jq '(.pods.light.work + .pods.heavy.work) / .pods.pod.work * 1000 | round / 10' <<< "$m")
if within "$sum" 100 2; then
	tap_ok "the two containers account for the pod's IO ($sum%)"
else
	tap_fail "the two containers account for the pod's IO" "$sum% of the pod cgroup's work; cgio: $m"
fi
mkdir -p "$(dirname "$results")"
jq -n --argjson m "$m" --arg kernel "$kernel" '{kernel: $kernel, shares: $m}' > "$results" 2>/dev/null || true
tap_done
