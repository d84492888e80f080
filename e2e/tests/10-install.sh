#!/bin/bash
# The hook is wired into containerd by its own installer: setup.sh ran
# `install --runtime containerd` on containerd's stock `containerd config
# default`. The CRI runtime handler `ioweight` - a copy of `runc` with the
# wrapper as BinaryName and the hook's annotations in pod_annotations - is
# what pods with `runtimeClassName: ioweight` get; runc stays the default and
# every stock setting survives; install and --uninstall on a copy of the
# stock file give it back byte for byte, and --uninstall keeps an edit the
# admin made since (containerd itself reading every version of the file).
set -uo pipefail
source /ioweight/vm/tap.sh
source /ioweight/e2e/guest/lib.sh

tap_plan 10
stock=/var/lib/ioweight/config.toml.stock

tap_eq "install --runtime containerd accepts containerd's stock default config" ok \
	"$(cat /var/lib/ioweight/install-stock-config 2>/dev/null || echo missing)"

# the effective config, as containerd reads it: "KEY VALUE" lines for what we check
cri_facts() {	# cri_facts CONFIG
	containerd --config "$1" config dump 2>/dev/null | python3 -c '
import sys, tomllib
c = tomllib.loads(sys.stdin.read())["plugins"]["io.containerd.grpc.v1.cri"]
rt = c["containerd"]["runtimes"]
print("default", c["containerd"]["default_runtime_name"])
print("bin_dir", c["cni"]["bin_dir"])
print("sandbox_image", c["sandbox_image"])
for name in sorted(rt):
    print("runtime", name, rt[name].get("options", {}).get("BinaryName", ""),
          " ".join(rt[name].get("pod_annotations") or []))
mirrors = c.get("registry", {}).get("mirrors", {})
print("mirrors", " ".join(sorted(mirrors)))
'
}

facts=$(cri_facts /etc/containerd/config.toml)
tap_check "CRI default runtime handler stays runc (pods choose ioweight by RuntimeClass)" \
	grep -qx 'default runc' <<< "$facts"
tap_check "the ioweight handler runs runc through the wrapper and passes ioweight.dev/* and blockio pod annotations" \
	grep -qE '^runtime ioweight /usr/local/sbin/ioweight-runc .*ioweight\.dev/\*.*blockio\.resources\.beta\.kubernetes\.io/\*' <<< "$facts"
tap_check "runc is still a handler, unchanged" grep -qx 'runtime runc  ' <<< "$facts"
if grep -qx 'bin_dir /opt/cni/bin' <<< "$facts" && grep -qx "sandbox_image $PAUSE_IMAGE" <<< "$facts"; then
	tap_ok "stock CRI settings kept (cni bin_dir, the site's sandbox_image)"
else
	tap_fail "stock CRI settings kept (cni bin_dir, the site's sandbox_image)" "$facts"
fi

# install twice: the second run must change nothing
if out=$(ioweight-hook install --runtime containerd --dry-run 2>&1) && \
   ! grep -qE '^(would )?(create|modify|remove) ' <<< "$out"; then
	tap_ok "install is idempotent (a second --dry-run plans no change)"
else
	tap_fail "install is idempotent (a second --dry-run plans no change)" "$out"
fi

# on a copy of the stock file: install + uninstall is the identity
rt=/tmp/install-roundtrip
rm -rf "$rt"
mkdir -p "$rt/etc/containerd"
cp "$stock" "$rt/etc/containerd/config.toml"
inst() { ioweight-hook install --runtime containerd --prefix "$rt" --runc /usr/sbin/runc "$@" 2>&1; }
if out=$(inst) && out+=$(inst --uninstall) && cmp -s "$stock" "$rt/etc/containerd/config.toml"; then
	tap_ok "install then --uninstall on the stock file restores it byte for byte"
else
	tap_fail "install then --uninstall on the stock file restores it byte for byte" \
		"$out"$'\n'"$(diff "$stock" "$rt/etc/containerd/config.toml")"
fi

# uninstall after an admin edit: the edit stays, our lines go
printf '\n[plugins."io.containerd.grpc.v1.cri".registry.mirrors."mirror.invalid"]\n  endpoint = ["https://mirror.invalid"]\n' \
	> /tmp/mirror.toml
if out=$(inst) && cat /tmp/mirror.toml >> "$rt/etc/containerd/config.toml" && out+=$(inst --uninstall); then
	tap_ok "uninstall after an admin edit"
else
	tap_fail "uninstall after an admin edit" "$out"
fi
if ! grep -q 'ioweight-hook\|ioweight-runc' "$rt/etc/containerd/config.toml" && \
   after=$(cri_facts "$rt/etc/containerd/config.toml") && \
   grep -qx 'default runc' <<< "$after" && ! grep -q '^runtime ioweight' <<< "$after" && \
   grep -qx 'mirrors mirror.invalid' <<< "$after" && grep -qx 'bin_dir /opt/cni/bin' <<< "$after"; then
	tap_ok "after uninstall: no ioweight line left, runc the default, the admin's mirror kept"
else
	tap_fail "after uninstall: no ioweight line left, runc the default, the admin's mirror kept" \
		"$(cat "$rt/etc/containerd/config.toml")"$'\n'"${after:-containerd config dump failed}"
fi
if out=$(inst --set-as-default) && again=$(cri_facts "$rt/etc/containerd/config.toml") && \
   grep -qx 'default ioweight' <<< "$again" && grep -qx 'mirrors mirror.invalid' <<< "$again"; then
	tap_ok "install --set-as-default on the edited file: ioweight the default, the mirror kept"
else
	tap_fail "install --set-as-default on the edited file: ioweight the default, the mirror kept" "$out"$'\n'"${again:-}"
fi
tap_done
