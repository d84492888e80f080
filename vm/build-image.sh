#!/usr/bin/env bash
# Build the guest root filesystem image: Debian bookworm (mmdebstrap, mirror
# from the host's apt configuration) with containerd, runc, podman, fio,
# drgn, bpftool and the runtime libraries of the hook, packed into a sparse
# ext4 image with `mkfs.ext4 -d` (no loop mounts, no root-only mount tricks).
#
#   vm/build-image.sh [OUT]     (default build/vm/root.img)
#
# The image is rebuilt only when its inputs change: the package lists, this
# script and the init stub. Everything else (tests, binaries, the real init
# script) reaches the guest over 9p, so userspace changes need no rebuild.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/vm/root.img}
dir=$(dirname "$out")
# each part of the project may list what it needs in the guest
lists=("$top/vm/guest-packages.txt")
for d in oci-hook e2e bench kernel; do
	[ ! -f "$top/$d/guest-packages.txt" ] || lists+=("$top/$d/guest-packages.txt")
done

die() { echo "build-image.sh: $*" >&2; exit 1; }
step() { printf '[image %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# one build at a time per output: two concurrent `make image` runs would
# otherwise write the same rootfs and image
mkdir -p "$dir"
exec 9> "$out.lock"
flock 9
stamp=$(cat "${lists[@]}" "$0" "$top/vm/init-stub.sh" | sha1sum | cut -c1-16)
if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	step "up to date ($out)"
	exit 0
fi

command -v mmdebstrap >/dev/null || die "mmdebstrap missing: run 'make deps'"
pkgs=$(cat "${lists[@]}" | sed -e 's/#.*//' | xargs | tr ' ' ',')
sources=$("$top/vm/apt-sources.sh")
[ -n "$sources" ] || die "no bookworm entry in the host's apt sources"

mkdir -p "$dir"
rootfs=$dir/rootfs
# a build killed inside mmdebstrap (a hard stop of the machine) leaves proc,
# sysfs and devpts mounted in the rootfs, where rm -rf would fail on them:
# unmount those first, deepest first
if [ -d "$rootfs" ]; then
	findmnt -rn -o TARGET | awk -v r="$rootfs/" 'index($0, r) == 1' | sort -r |
		while read -r m; do
			umount -l "$m" || die "cannot unmount $m left by an earlier build"
		done
fi
rm -rf "$rootfs" "$out.tmp"
start=$(date +%s)
step "mmdebstrap bookworm minbase + $(echo "$pkgs" | tr ',' ' ' | wc -w) packages (about 2-4 min)"
if ! printf '%s\n' "$sources" | mmdebstrap --variant=minbase --mode=root \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--include="$pkgs" bookworm "$rootfs" - > "$dir/mmdebstrap.log" 2>&1; then
	tail -n 30 "$dir/mmdebstrap.log" >&2
	die "mmdebstrap failed; log: $dir/mmdebstrap.log"
fi

step "configuring the root filesystem"
install -m 0755 "$top/vm/init-stub.sh" "$rootfs/sbin/ioweight-init"
echo ioweight-guest > "$rootfs/etc/hostname"
printf '127.0.0.1 localhost ioweight-guest\n::1 localhost\n' > "$rootfs/etc/hosts"
: > "$rootfs/etc/fstab"
sed -i 's/^root:[^:]*:/root::/' "$rootfs/etc/shadow"
mkdir -p "$rootfs/ioweight" "$rootfs/var/lib/containerd"
rm -rf "$rootfs/var/lib/apt/lists/"* "$rootfs/var/cache/apt/"*.bin "$rootfs/var/cache/apt/archives/"*.deb
# containerd and runc versions are recorded for the benchmark's results
chroot "$rootfs" dpkg-query -W containerd runc fio podman crun python3-drgn > "$dir/guest-versions.txt"

step "mkfs.ext4 -d ($(du -sm "$rootfs" | cut -f1) MiB of files)"
truncate -s 6G "$out.tmp"
mkfs.ext4 -q -F -L ioweight-root -d "$rootfs" "$out.tmp"
mv "$out.tmp" "$out"
echo "$stamp" > "$out.stamp"
step "done in $(( $(date +%s) - start ))s: $out"
