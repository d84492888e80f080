#!/bin/bash
# Guest side: make this guest a podman host for `podman kube play`, the way a
# user would, after e2e/guest/setup.sh (which installed the hook binary and
# the admin config). Idempotent: a second run changes nothing.
#
#   e2e/guest/podman-setup.sh
# Steps: mount podman's storage pre-loaded on the host (e2e/image.sh:
# localhost/ioweight/fio:e2e and the pause image), name the pause image as
# podman's infra image in containers.conf - podman would otherwise build a
# pause image around catatonit, which the guest lacks - and install the
# hook with `ioweight-hook install --runtime podman` (a hooks.d entry;
# --dry-run first, as for containerd).
set -euo pipefail
source /ioweight/e2e/guest/lib.sh

store=/var/lib/containers/storage
conf=/etc/containers/containers.conf
log=/var/log/ioweight-install-podman.log
die() { echo "podman setup: $*" >&2; exit 1; }

if ! mountpoint -q "$store"; then
	dev=$(blkid -o device -t LABEL=ioweight-podman 2>/dev/null | head -n1 || true)
	[ -n "$dev" ] || die "no disk labelled ioweight-podman (e2e/run.sh must --attach build/e2e/podman.img)"
	mkdir -p "$store"
	mount -t ext4 "$dev" "$store" || die "cannot mount $dev on $store"
fi

mkdir -p /etc/containers
cat > "$conf.tmp" <<-EOC
	# the pod infra container: the local pause image (no build, no pull)
	[engine]
	infra_image = "$PAUSE_IMAGE"
EOC
mv "$conf.tmp" "$conf"

images=$(podman images --format '{{.Repository}}:{{.Tag}}' 2>&1) || die "podman images failed: $images"
for i in localhost/ioweight/fio:e2e "$PAUSE_IMAGE"; do
	grep -qx "$i" <<< "$images" || die "image $i missing in podman's storage (has: ${images:-nothing})"
done

ioweight-hook install --runtime podman --dry-run > "$log" 2>&1 \
	|| { cat "$log" >&2; die "ioweight-hook install --runtime podman --dry-run failed"; }
ioweight-hook install --runtime podman >> "$log" 2>&1 \
	|| { cat "$log" >&2; die "ioweight-hook install --runtime podman failed"; }
echo "podman $(podman version --format '{{.Client.Version}}'): storage $store, infra image $PAUSE_IMAGE, hook installed (log $log)"
