#!/bin/bash
# Two saturating 4 KiB random readers at io.weight 500:100 split the
# 1000-IOPS disk about 5:1; alone, one gets the whole disk; when the
# heavier one is removed, the other gets the disk within 2 s.
# Shares come from device bytes per pod cgroup (io.stat), not from fio.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

kernel=$(e2e_kernel)
[ "$kernel" != none ] || tap_skip_all "no IO controller in this kernel (neither io.weight.qos nor io.cost.qos)"
tap_plan 5
e2e_use_config 10-e2e-fail.json
dev=$(e2e_dev)
trap pods_rm_all EXIT
export RUN_ENV="--env RUNTIME=600"
results=/ioweight/${E2E_RESULTS_DIR:-build/e2e}/shares-two.json

drop_caches

# alone: the pod's device rate with io.weight on, then - same fio, next
# seconds - with the controller switched off at the root: the ratio is the
# share of the disk the controller lets a lone pod have. The hook switches
# the controller back on at the next container start (its device profile).
pod_run "$PODS/fio-randread-high.yaml" $RUN_ENV > /dev/null || { tap_fail "pod fio-randread-high starts"; exit 1; }
wait_pods_io fio-randread-high || { tap_fail "fio-randread-high does IO"; exit 1; }
tap_check "the hook enabled the controller on $dev (root $(basename "$(qos_file)"))" \
	grep -q "^$dev .*enable=1" "$(qos_file)"
sleep 2 # warm-up before a fixed measurement window
lone=$("$CGIO" share --dev "$dev" --window 10 high="$(pod_cg fio-randread-high)")
echo "$dev enable=0" > "$(qos_file)"
sleep 1 # let the device queue settle without the controller
off=$("$CGIO" share --dev "$dev" --window 10 high="$(pod_cg fio-randread-high)")
lone_rate=$(jq '.pods.high.rate | floor' <<< "$lone")
cap=$(jq '.pods.high.rate | floor' <<< "$off")
lone_pct=$(awk -v a="$lone_rate" -v c="$cap" 'BEGIN { printf "%.1f", 100 * a / c }')
e2e_log "alone: $lone_rate IO/s with io.weight on, $cap IO/s with the controller off (QEMU limit 1000): $lone_pct%"
if at_least "$lone_pct" 95; then
	tap_ok "a lone pod gets >= 95% of the disk ($lone_pct%: $lone_rate of $cap IO/s)"
else
	tap_fail "a lone pod gets >= 95% of the disk" "got $lone_pct% ($lone_rate of $cap IO/s)"
fi

# 500:100
pod_run "$PODS/fio-randread-low.yaml" $RUN_ENV > /dev/null || { tap_fail "pod fio-randread-low starts"; exit 1; }
wait_pods_io fio-randread-low || { tap_fail "fio-randread-low does IO"; exit 1; }
grep -q "^$dev .*enable=1" "$(qos_file)" || { tap_fail "the hook re-enabled the controller"; exit 1; }
sleep 3 # warm-up
pair=$("$CGIO" share --dev "$dev" --window 15 high="$(pod_cg fio-randread-high)" low="$(pod_cg fio-randread-low)")
hi=$(share_pct "$pair" high) lo=$(share_pct "$pair" low)
total=$(jq '.total_rate | floor' <<< "$pair")
e2e_log "500:100: high $hi% low $lo% of $total IO/s"
if within "$hi" 83.3 5; then
	tap_ok "500:100 split the disk about 5:1 (high $hi%, expected 83.3 +-5)"
else
	tap_fail "500:100 split the disk about 5:1" "high $hi%, low $lo% (expected 83.3% +- 5); cgio: $pair"
fi
if at_least "$total" "$(awk -v c="$cap" 'BEGIN { print 0.85 * c }')"; then
	tap_ok "the pair keeps the disk busy ($total of $cap IO/s)"
else
	tap_fail "the pair keeps the disk busy" "$total of $cap IO/s (< 85%)"
fi

# remove the heavy pod: its share goes to the other within 2 s, i.e. the
# other reaches 85% of what a lone pod gets under the controller
min=$(awk -v c="$lone_rate" 'BEGIN { print int(0.85 * c) }')
"$CGIO" handover --dev "$dev" --from high="$(pod_cg fio-randread-high)" \
	--to low="$(pod_cg fio-randread-low)" --min-rate "$min" --timeout 30 \
	--ready /tmp/handover.ready > /tmp/handover.json &
hpid=$!
# a loaded TCG guest may take seconds to start python: wait, bounded
if ! poll_until 60 test -e /tmp/handover.ready; then
	tap_fail "removing a pod frees its share within 2 s" "the hand-over measurement did not start within 60 s"
	tap_done; exit
fi
pod_rm fio-randread-high > /dev/null
wait "$hpid"
ho=$(cat /tmp/handover.json)
delay=$(jq -r '.delay // "none"' <<< "$ho")
e2e_log "removal: $ho"
if [ "$delay" != none ] && at_least 2 "$delay"; then
	tap_ok "removing a pod frees its share within 2 s (low reached $min IO/s ${delay}s after high's last IO)"
else
	tap_fail "removing a pod frees its share within 2 s" "$ho"
fi
mkdir -p "$(dirname "$results")"
jq -n --argjson cap "$cap" --argjson lone "$lone" --argjson off "$off" --argjson pair "$pair" --argjson handover "$ho" \
	--arg kernel "$kernel" '{kernel: $kernel, capacity: $cap, lone: $lone, lone_controller_off: $off, pair: $pair, handover: $handover}' \
	> "$results" 2>/dev/null || true
tap_done
