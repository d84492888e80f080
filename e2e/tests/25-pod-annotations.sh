#!/bin/bash
# Pod annotations reach the hook only through containerd's CRI plugin, which
# copies into the OCI spec just the keys the handler's `pod_annotations`
# allows: on the suite's handler `ioweight-classonly` (pod_annotations =
# ["ioweight.dev/class"], setup.sh) a pod's ioweight.dev/class takes effect
# and its ioweight.dev/weight has none - not in the spec, not in the hook's
# log, not in the pod cgroup.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

tap_plan 5
e2e_use_config 10-e2e-fail.json
trap pods_rm_all EXIT

# spec_annotation POD KEY: the value of KEY in the pod sandbox's OCI spec, as
# containerd wrote it for runc (the bundle's config.json)
spec_annotation() {
	local sid
	sid=$(jq -r .sandbox "/run/kcri/$1.json") || return 1
	jq -r --arg k "$2" '.annotations[$k] // "absent"' \
		"/run/containerd/io.containerd.runtime.v2.task/k8s.io/$sid/config.json"
}

if out=$(pod_run "$PODS/classonly-class.yaml" 2>&1); then
	tap_eq "allowed key: ioweight.dev/class=gold on the classonly handler sets the pod weight" \
		"default 500" "$(cg_file "$(pod_cg classonly-class)" io.weight)"
	pod_rm classonly-class > /dev/null
else
	tap_fail "allowed key: ioweight.dev/class=gold on the classonly handler sets the pod weight" "$out"
fi

mark=$(wc -l < "$HOOK_LOG" 2>/dev/null || echo 0)
if out=$(pod_run "$PODS/classonly-weight.yaml" 2>&1); then
	tap_eq "key not in pod_annotations: ioweight.dev/weight=300 leaves the pod at the default" \
		"default 100" "$(cg_file "$(pod_cg classonly-weight)" io.weight)"
	tap_eq "the CRI plugin left ioweight.dev/weight out of the sandbox's OCI spec" \
		absent "$(spec_annotation classonly-weight ioweight.dev/weight)"
	tap_eq "the CRI plugin set the pod's metadata in the spec (io.kubernetes.cri.sandbox-name)" \
		classonly-weight "$(spec_annotation classonly-weight io.kubernetes.cri.sandbox-name)"
	if tail -n +"$((mark + 1))" "$HOOK_LOG" 2>/dev/null | grep -q 'ioweight.dev/weight'; then
		tap_fail "the hook never saw ioweight.dev/weight" "$(tail -n +"$((mark + 1))" "$HOOK_LOG")"
	else
		tap_ok "the hook never saw ioweight.dev/weight"
	fi
	pod_rm classonly-weight > /dev/null
else
	for _ in 1 2 3 4; do tap_fail "classonly-weight pod starts" "$out"; done
fi
tap_done
