#!/bin/bash
# The hook is wired into containerd by its own installer (setup.sh ran
# `install --runtime containerd --set-as-default` on Debian's stock
# config.toml): the CRI runtime handler `ioweight`, a copy of `runc` with
# the wrapper as BinaryName, is what kubelet's pods get; the stock settings
# survive; and --uninstall removes only what install added, keeping an edit
# the admin made since (checked on a copy under --prefix, containerd itself
# reading every version of the file).
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

tap_plan 9

stock=$(cat /var/lib/ioweight/install-stock-config 2>/dev/null || echo missing)
tap_eq "install --runtime containerd accepts Debian's stock /etc/containerd/config.toml" ok "$stock"

# the effective config, as containerd reads it: "KEY VALUE" lines for what we check
cri_facts() {	# cri_facts CONFIG
	containerd --config "$1" config dump 2>/dev/null | python3 -c '
import sys, tomllib
c = tomllib.loads(sys.stdin.read())["plugins"]["io.containerd.grpc.v1.cri"]
rt = c["containerd"]["runtimes"]
print("default", c["containerd"]["default_runtime_name"])
print("bin_dir", c["cni"]["bin_dir"])
for name in sorted(rt):
    print("runtime", name, rt[name].get("options", {}).get("BinaryName", ""),
          " ".join(rt[name].get("pod_annotations") or []))
mirrors = c.get("registry", {}).get("mirrors", {})
print("mirrors", " ".join(sorted(mirrors)))
'
}

facts=$(cri_facts /etc/containerd/config.toml)
tap_check "CRI default runtime handler is ioweight" grep -qx 'default ioweight' <<< "$facts"
tap_check "the ioweight handler runs runc through the wrapper and passes ioweight.dev/* and blockio pod annotations" \
	grep -qE '^runtime ioweight /usr/local/sbin/ioweight-runc .*ioweight\.dev/\*.*blockio\.resources\.beta\.kubernetes\.io/\*' <<< "$facts"
tap_check "runc is still a handler, unchanged" grep -qx 'runtime runc  ' <<< "$facts"
tap_check "Debian's CNI bin_dir is kept (no CRI section shadowed)" grep -qx 'bin_dir /usr/lib/cni' <<< "$facts"

# install twice: the second run must change nothing
if out=$(ioweight-hook install --runtime containerd --set-as-default --dry-run 2>&1) && \
   ! grep -qE '^(would )?(create|modify|remove) ' <<< "$out"; then
	tap_ok "install is idempotent (a second --dry-run plans no change)"
else
	tap_fail "install is idempotent (a second --dry-run plans no change)" "$out"
fi

# uninstall on a copy after an admin edit: the edit stays, our lines go
rt=/tmp/install-roundtrip
rm -rf "$rt"
mkdir -p "$rt/etc/containerd"
cp /etc/containerd/config.toml "$rt/etc/containerd/config.toml"
printf '\n[plugins."io.containerd.grpc.v1.cri".registry.mirrors."mirror.invalid"]\n  endpoint = ["https://mirror.invalid"]\n' \
	>> "$rt/etc/containerd/config.toml"
if out=$(ioweight-hook install --runtime containerd --prefix "$rt" --runc /usr/sbin/runc --uninstall 2>&1); then
	tap_ok "uninstall after an admin edit"
else
	tap_fail "uninstall after an admin edit" "$out"
fi
if ! grep -q 'ioweight' "$rt/etc/containerd/config.toml" && \
   after=$(cri_facts "$rt/etc/containerd/config.toml") && \
   grep -qx 'default runc' <<< "$after" && ! grep -q '^runtime ioweight' <<< "$after" && \
   grep -qx 'mirrors mirror.invalid' <<< "$after" && grep -qx 'bin_dir /usr/lib/cni' <<< "$after"; then
	tap_ok "after uninstall: no ioweight line left, runc the default again, the admin's mirror kept"
else
	tap_fail "after uninstall: no ioweight line left, runc the default again, the admin's mirror kept" \
		"$(cat "$rt/etc/containerd/config.toml")"$'\n'"${after:-containerd config dump failed}"
fi
if out=$(ioweight-hook install --runtime containerd --prefix "$rt" --runc /usr/sbin/runc --set-as-default 2>&1) && \
   again=$(cri_facts "$rt/etc/containerd/config.toml") && grep -qx 'default ioweight' <<< "$again" && \
   grep -qx 'mirrors mirror.invalid' <<< "$again"; then
	tap_ok "install again on the edited file: ioweight the default, the mirror kept"
else
	tap_fail "install again on the edited file: ioweight the default, the mirror kept" "$out"$'\n'"${again:-}"
fi
tap_done
