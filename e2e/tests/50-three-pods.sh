#!/bin/bash
# Three pods with different IO patterns - 4 KiB random read (weight 500),
# 128 KiB sequential read (class silver, 250), 4 KiB random write (blockio
# class bronze, 100) - each get their weight's share of the disk's work
# within 8 points. Work = device bytes / 4 KiB, the disk's own cost model.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

kernel=$(e2e_kernel)
[ "$kernel" != none ] || tap_skip_all "no IO controller in this kernel"
tap_plan 4
e2e_use_config 10-e2e-fail.json
dev=$(e2e_dev)
trap pods_rm_all EXIT
results=/ioweight/${E2E_RESULTS_DIR:-build/e2e}/shares-three.json

drop_caches
for p in fio-randread-high fio-seqread fio-randwrite; do
	pod_run "$PODS/$p.yaml" --env RUNTIME=600 > /dev/null || { tap_fail "pod $p starts"; exit 1; }
done
wait_pods_io fio-randread-high fio-seqread fio-randwrite || { tap_fail "all three pods do IO"; exit 1; }
sleep 4 # warm-up before a fixed measurement window
m=$("$CGIO" share --dev "$dev" --window 20 randread="$(pod_cg fio-randread-high)" \
	seqread="$(pod_cg fio-seqread)" randwrite="$(pod_cg fio-randwrite)")
total=$(jq '.total_rate | floor' <<< "$m")
e2e_log "three pods: randread $(share_pct "$m" randread)% seqread $(share_pct "$m" seqread)% randwrite $(share_pct "$m" randwrite)% of $total IO/s"
for p in randread:500 seqread:250 randwrite:100; do
	n=${p%:*} w=${p#*:}
	want=$(awk -v w="$w" 'BEGIN { printf "%.1f", 100 * w / 850 }')
	got=$(share_pct "$m" "$n")
	if within "$got" "$want" 8; then
		tap_ok "$n (weight $w) gets $got% of the disk (expected $want +-8)"
	else
		tap_fail "$n (weight $w) gets its weight's share" "got $got%, expected $want% +- 8; cgio: $m"
	fi
done
tap_check "the disk stays busy (>= 850 IO units/s: $total)" at_least "$total" 850
mkdir -p "$(dirname "$results")"
jq -n --argjson m "$m" --arg kernel "$kernel" '{kernel: $kernel, three: $m}' > "$results" 2>/dev/null || true
tap_done
