#!/bin/bash
# A malformed or out-of-policy annotation is rejected (failurePolicy fail: the
# container does not start) or tolerated (warn: it starts unweighted), and
# either way a log line names the pod and the annotation key.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

tap_plan 8
trap pods_rm_all EXIT

# log_check DESC POD KEY: a hook log line since the mark names the key and the
# pod, by its name or by its uid (the pod<uid> cgroup)
mark=0
log_mark() { mark=$(wc -l < "$HOOK_LOG" 2>/dev/null || echo 0); }
log_since() { tail -n +"$((mark + 1))" "$HOOK_LOG" 2>/dev/null; }
log_check() {
	local desc=$1 pod=$2 key=$3 lines uid
	uid=$(cat "/run/kcri/last-uid-$pod" 2>/dev/null || echo "no-uid-recorded")
	lines=$(log_since | grep -F "$key" || true)
	if [ -n "$lines" ] && grep -qE "(\b|=)$pod\b|pod$uid" <<< "$lines"; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "no hook log line names both pod $pod (uid $uid) and $key; new log lines:"$'\n'"$(log_since)"
	fi
}

policy_case() {
	local policy=$1 pod=$2 key=$3 what=$4 out cg
	log_mark
	if [ "$policy" = fail ]; then
		if out=$(pod_run "$PODS/$pod.yaml" 2>&1); then
			tap_fail "fail policy: $what is rejected" "the pod started:"$'\n'"$out"
			pod_rm "$pod" > /dev/null
		elif grep -q "$key" <<< "$out"; then
			tap_ok "fail policy: $what is rejected, the start error names $key"
		else
			tap_fail "fail policy: $what is rejected, the start error names $key" "$out"
		fi
	else
		if out=$(pod_run "$PODS/$pod.yaml" 2>&1); then
			cg=$(pod_cg "$pod")
			tap_eq "warn policy: $what is tolerated, the pod runs unweighted" \
				"default 100" "$(cg_file "$cg" io.weight)"
			pod_rm "$pod" > /dev/null
		else
			tap_fail "warn policy: $what is tolerated, the pod runs unweighted" "$out"
		fi
	fi
	log_check "$policy policy: log line names pod $pod and $key" "$pod" "$key"
}

e2e_use_config 10-e2e-fail.json
policy_case fail bad-malformed ioweight.dev/weight 'weight "lots" (malformed)'
policy_case fail bad-out-of-policy ioweight.dev/weight 'weight 5000 (above maxWeight 1000)'
e2e_use_config 10-e2e-warn.json
policy_case warn bad-malformed ioweight.dev/weight 'weight "lots" (malformed)'
policy_case warn bad-out-of-policy ioweight.dev/weight 'weight 5000 (above maxWeight 1000)'
e2e_use_config 10-e2e-fail.json
tap_done
