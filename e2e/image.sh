#!/usr/bin/env bash
# Build the e2e container image without a registry, and pre-import it into a
# containerd root directory packed as an ext4 image that the guest mounts at
# /var/lib/containerd.
#
#   e2e/image.sh [--force]
#
# Outputs (all under build/e2e/, rebuilt only when an input changes):
#   fio-image.oci.tar   OCI image layout archive of localhost/ioweight/fio:e2e:
#                       busybox-static, fio and the libraries `ldd` lists for
#                       it, taken from the host (Debian bookworm, like the guest)
#   pause-image.oci.tar localhost/ioweight/pause:e2e, the pod sandbox image
#                       (containerd's CRI `sandbox_image` in the guest):
#                       busybox-static's sleep, which the CRI plugin kills
#                       with SIGKILL on StopPodSandbox
#   containerd.img      ext4 image (label ioweight-ctrd) of a containerd 1.6
#                       root where both archives are imported and unpacked
#                       (overlayfs snapshotter) in the k8s.io namespace
#   podman.img          ext4 image (label ioweight-podman) of a
#                       containers-storage root (overlay driver) where podman
#                       has loaded both archives: the guest mounts it at
#                       /var/lib/containers/storage for `podman kube play`,
#                       the pause image being podman's infra image
#
# Why pre-import on the host: `ctr images import` in the TCG guest takes
# ~30 s per boot, `podman load` 39 s; a private host containerd (own root,
# state, socket and config, never the system one) and a podman with its own
# root and run directory do it once, and the guest only mounts the results.
# The key of the cache is the hash of the binaries, libraries, containerd
# and podman versions and this script.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/e2e
image_ref=localhost/ioweight/fio:e2e
pause_ref=localhost/ioweight/pause:e2e
namespace=k8s.io
force=${1:-}

die() { echo "e2e/image.sh: $*" >&2; exit 1; }
step() { printf '[e2e-image %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# Host tools this needs; installed like `make deps` would if missing.
ensure_host_tools() {
	local missing=()
	command -v containerd >/dev/null || missing+=(containerd)
	command -v podman >/dev/null || missing+=(podman)
	[ -x /bin/busybox ] || missing+=(busybox-static)
	command -v fio >/dev/null || missing+=(fio)
	command -v mkfs.ext4 >/dev/null || missing+=(e2fsprogs)
	command -v jq >/dev/null || missing+=(jq)
	[ ${#missing[@]} = 0 ] && return 0
	step "installing host packages: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
		> "$out/apt.log" 2>&1 || { tail -n 20 "$out/apt.log" >&2; die "apt-get install ${missing[*]} failed"; }
}

# Every file that goes into the image, one absolute host path per line.
image_inputs() {
	echo /bin/busybox
	echo /usr/bin/fio
	ldd /usr/bin/fio | awk '/=> \//{ print $3 } /^\t\/lib/{ print $1 }' | sort -u
}

cache_key() {
	{
		image_inputs | xargs sha1sum
		containerd --version
		podman --version
		sha1sum "$0"
	} | sha1sum | cut -c1-16
}

build_rootfs() {
	local rootfs=$1 f
	rm -rf "$rootfs"
	mkdir -p "$rootfs"/{bin,usr/bin,usr/lib,usr/lib64,etc,tmp,data,dev,proc,sys,root}
	chmod 1777 "$rootfs/tmp"
	# merged-usr layout, like the distribution the files come from
	ln -s usr/lib "$rootfs/lib"
	ln -s usr/lib64 "$rootfs/lib64"
	local real
	while read -r f; do
		# the file at its real path, plus a link where ldd found it
		real=$(readlink -f "$f")
		mkdir -p "$rootfs$(dirname "$real")"
		cp -a "$real" "$rootfs$real"
		if [ ! -e "$rootfs$f" ]; then
			mkdir -p "$rootfs$(dirname "$f")"
			ln -s "$real" "$rootfs$f"
		fi
	done < <(image_inputs)
	for a in sh ash cat ls sleep echo dd head tail grep sed awk mkdir rm true false \
		 env id ps kill wc date stat sync printf seq tee uname; do
		ln -s busybox "$rootfs/bin/$a"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$rootfs/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$rootfs/etc/group"
	# smoke test: the image's fio must start with only the image's libraries
	env -i /usr/sbin/chroot "$rootfs" /usr/bin/fio --version > /dev/null 2>&1 \
		|| die "fio does not start inside the image rootfs $rootfs (missing library?)"
}

# The sandbox ("pause") image: only sleep, forever; it holds the pod's
# namespaces and cgroup and does nothing else.
build_pause_rootfs() {
	local rootfs=$1
	rm -rf "$rootfs"
	mkdir -p "$rootfs"/{bin,dev,proc,sys,etc}
	cp -a /bin/busybox "$rootfs/bin/busybox"
	ln -s busybox "$rootfs/bin/sleep"
	printf 'root:x:0:0:root:/:/bin/false\n' > "$rootfs/etc/passwd"
	env -i /usr/sbin/chroot "$rootfs" /bin/sleep 0 \
		|| die "sleep does not start inside the pause rootfs $rootfs"
}

# OCI image layout: one gzipped layer, config, manifest, index -> tar.
#   build_oci_archive ROOTFS ARCHIVE REF IMAGE_CONFIG_JSON WHAT
build_oci_archive() {
	local rootfs=$1 archive=$2 ref=$3 imgcfg=$4 what=$5 d=$out/oci
	rm -rf "$d" && mkdir -p "$d/blobs/sha256"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-C "$rootfs" -cf "$d/layer.tar" .
	local diff_id layer_digest layer_size cfg_digest cfg_size man_digest man_size
	diff_id=$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
	gzip -n -1 "$d/layer.tar"
	layer_digest=$(sha256sum "$d/layer.tar.gz" | cut -d' ' -f1)
	layer_size=$(stat -c %s "$d/layer.tar.gz")
	mv "$d/layer.tar.gz" "$d/blobs/sha256/$layer_digest"

	jq -cn --arg diff "sha256:$diff_id" --argjson cfg "$imgcfg" --arg what "$what" '{
		architecture: "amd64", os: "linux",
		created: "1970-01-01T00:00:00Z",
		config: $cfg,
		rootfs: { type: "layers", diff_ids: [$diff] },
		history: [ { created: "1970-01-01T00:00:00Z", created_by: ("e2e/image.sh: " + $what) } ]
	}' > "$d/config.json"
	cfg_digest=$(sha256sum "$d/config.json" | cut -d' ' -f1)
	cfg_size=$(stat -c %s "$d/config.json")
	mv "$d/config.json" "$d/blobs/sha256/$cfg_digest"

	jq -cn --arg cd "sha256:$cfg_digest" --argjson cs "$cfg_size" \
		--arg ld "sha256:$layer_digest" --argjson ls "$layer_size" '{
		schemaVersion: 2,
		mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs },
		layers: [ { mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $ld, size: $ls } ]
	}' > "$d/manifest.json"
	man_digest=$(sha256sum "$d/manifest.json" | cut -d' ' -f1)
	man_size=$(stat -c %s "$d/manifest.json")
	mv "$d/manifest.json" "$d/blobs/sha256/$man_digest"

	jq -cn --arg md "sha256:$man_digest" --argjson ms "$man_size" --arg ref "$ref" '{
		schemaVersion: 2,
		manifests: [ { mediaType: "application/vnd.oci.image.manifest.v1+json",
			       digest: $md, size: $ms,
			       platform: { architecture: "amd64", os: "linux" },
			       annotations: { "io.containerd.image.name": $ref,
					      "org.opencontainers.image.ref.name": "e2e" } } ]
	}' > "$d/index.json"
	echo '{"imageLayoutVersion":"1.0.0"}' > "$d/oci-layout"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$d" \
		-cf "$archive.tmp" oci-layout index.json blobs
	mv "$archive.tmp" "$archive"
	rm -rf "$d"
}

# A private containerd on the host: its own root, state, socket and config.
ctrd_pid=""
stop_private_containerd() {
	[ -n "$ctrd_pid" ] || return 0
	kill "$ctrd_pid" 2>/dev/null || true
	local i
	for i in $(seq 100); do kill -0 "$ctrd_pid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$ctrd_pid" 2>/dev/null || true
	wait "$ctrd_pid" 2>/dev/null || true
	ctrd_pid=""
}

preimport() {
	local root=$out/ctrd-root state sock cfg i archive ref
	state=$(mktemp -d /run/ioweight-e2e-ctrd.XXXXXX)
	sock=$state/containerd.sock cfg=$state/config.toml
	rm -rf "$root" && mkdir -p "$root"
	cat > "$cfg" <<-EOF
	version = 2
	root = "$root"
	state = "$state/state"
	disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs",
	  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
	  "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp",
	  "io.containerd.internal.v1.opt"]
	[grpc]
	  address = "$sock"
	[ttrpc]
	  address = "$sock.ttrpc"
	[debug]
	  address = ""
	[metrics]
	  address = ""
	EOF
	containerd --config "$cfg" > "$out/ctrd-host.log" 2>&1 &
	ctrd_pid=$!
	trap 'stop_private_containerd; rm -rf "$state"' EXIT
	for i in $(seq 150); do
		ctr -a "$sock" version > /dev/null 2>&1 && break
		kill -0 "$ctrd_pid" 2>/dev/null || { tail -n 20 "$out/ctrd-host.log" >&2; die "private containerd exited"; }
		[ "$i" -lt 150 ] || die "private containerd not ready after 15 s (log $out/ctrd-host.log)"
		sleep 0.1
	done
	: > "$out/import.log"
	for archive in "$@"; do
		ctr -a "$sock" -n "$namespace" images import --snapshotter overlayfs "$archive" >> "$out/import.log" 2>&1 \
			|| { cat "$out/import.log" >&2; die "ctr images import $archive failed"; }
	done
	for ref in "$image_ref" "$pause_ref"; do
		ctr -a "$sock" -n "$namespace" images check | grep -q "^$ref .*complete" \
			|| die "image $ref not complete after import"
	done
	# unpacked: the overlayfs snapshot of each image's layer must exist
	[ "$(ctr -a "$sock" -n "$namespace" snapshots --snapshotter overlayfs ls | grep -c Committed)" -ge 2 ] \
		|| die "the images were not unpacked into the overlayfs snapshotter"
	stop_private_containerd
	rm -rf "$state"
	trap - EXIT
}

# podman's own storage root on the host: --root, --runroot and --tmpdir are
# private, so neither the host's containers nor its configuration meet it.
# Podman's database (libpod/) records the paths it was created with and
# would refuse the guest's; it holds containers and pods, none here, so it
# is left out, as is the network backend podman picked on the host. The
# images themselves live in the storage's overlay-images and overlay-layers.
preload_podman() {
	local root=$out/podman-root tmp archive ref have
	tmp=$(mktemp -d /run/ioweight-e2e-podman.XXXXXX)
	rm -rf "$root" && mkdir -p "$root"
	local pm=(podman --root "$root" --runroot "$tmp/run" --tmpdir "$tmp/tmp"
		  --storage-driver overlay --events-backend none --cgroup-manager cgroupfs)
	: > "$out/podman-load.log"
	for archive in "$@"; do
		"${pm[@]}" load -i "$archive" >> "$out/podman-load.log" 2>&1 \
			|| { cat "$out/podman-load.log" >&2; rm -rf "$tmp"; die "podman load $archive failed"; }
	done
	have=$("${pm[@]}" images --format '{{.Repository}}:{{.Tag}}')
	for ref in "$image_ref" "$pause_ref"; do
		grep -qx "$ref" <<< "$have" || { rm -rf "$tmp"; die "podman load did not name an image $ref (has: $have)"; }
	done
	rm -rf "$tmp" "$root/libpod" "$root/defaultNetworkBackend"
	find "$root/tmp" -mindepth 1 -delete 2>/dev/null || true
}

pack_ext4() {
	local root=$1 img=$2 label=$3 mib
	mib=$(( $(du -sm "$root" | cut -f1) * 2 + 256 ))
	rm -f "$img.tmp"
	truncate -s "${mib}M" "$img.tmp"
	mkfs.ext4 -q -F -L "$label" -d "$root" "$img.tmp"
	mv "$img.tmp" "$img"
}

main() {
	mkdir -p "$out"
	ensure_host_tools
	local key t0
	key=$(cache_key)
	if [ "$force" != --force ] && [ -f "$out/containerd.img" ] && [ -f "$out/fio-image.oci.tar" ] &&
	   [ -f "$out/pause-image.oci.tar" ] && [ -f "$out/podman.img" ] &&
	   [ "$(cat "$out/containerd.img.stamp" 2>/dev/null)" = "$key" ]; then
		step "up to date (build/e2e/containerd.img, key $key)"
		return 0
	fi
	t0=$(date +%s%N)
	step "building the image rootfs (busybox-static, fio + $(image_inputs | wc -l) files)"
	build_rootfs "$out/image-rootfs"
	step "packing the OCI archive $image_ref"
	build_oci_archive "$out/image-rootfs" "$out/fio-image.oci.tar" "$image_ref" \
		'{"Env": ["PATH=/usr/bin:/bin"], "Cmd": ["/bin/sh"], "WorkingDir": "/"}' \
		"busybox-static + fio from the build host"
	step "packing the pod sandbox image $pause_ref"
	build_pause_rootfs "$out/pause-rootfs"
	build_oci_archive "$out/pause-rootfs" "$out/pause-image.oci.tar" "$pause_ref" \
		'{"Entrypoint": ["/bin/sleep", "2147483647"], "WorkingDir": "/"}' \
		"pod sandbox: busybox-static sleep"
	step "pre-importing with a private host containerd ($(containerd --version | awk '{print $3}'))"
	preimport "$out/fio-image.oci.tar" "$out/pause-image.oci.tar"
	step "packing the containerd root into build/e2e/containerd.img (mkfs.ext4 -d)"
	pack_ext4 "$out/ctrd-root" "$out/containerd.img" ioweight-ctrd
	step "pre-loading podman's storage ($(podman --version | awk '{print $3}'))"
	preload_podman "$out/fio-image.oci.tar" "$out/pause-image.oci.tar"
	step "packing podman's storage into build/e2e/podman.img (mkfs.ext4 -d)"
	pack_ext4 "$out/podman-root" "$out/podman.img" ioweight-podman
	rm -rf "$out/ctrd-root" "$out/podman-root" "$out/image-rootfs" "$out/pause-rootfs"
	echo "$key" > "$out/containerd.img.stamp"
	step "done in $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(du -h --apparent-size "$out/fio-image.oci.tar" | cut -f1) archive"
}

main "$@"
