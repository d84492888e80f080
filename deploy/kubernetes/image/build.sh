#!/usr/bin/env bash
# Build the ioweight installer's container image from the tree, without a
# registry or a docker daemon, as an OCI image layout archive.
#
#   deploy/kubernetes/image/build.sh [--rootfs-only] [--rev REV]
#     --rev REV   build the hook and take entrypoint.sh from git revision REV
#                 (e.g. HEAD) instead of the work tree
#
# Outputs under build/deploy/:
#   hook/ioweight-hook        the hook built for the image: yajl linked
#                             statically (its seccomp filter is built in),
#                             so that the copy the installer puts on a node
#                             needs only the node's glibc (>= 2.34)
#   installer-rootfs/         the image's files: busybox-static, the hook and
#                             the libraries `ldd` lists for it (so it also runs
#                             inside the container), /entrypoint.sh
#   installer-image.oci.tar   OCI archive of localhost/ioweight/installer:VERSION
#                             (--rootfs-only stops before it)
#
# Load it on a node with `ctr -n k8s.io images import installer-image.oci.tar`,
# or push it to a registry with `skopeo copy oci-archive:… docker://…`.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$top/build/deploy
rootfs=$out/installer-rootfs
rootfs_only="" rev=""

die() { echo "image/build.sh: $*" >&2; exit 1; }
step() { printf '[installer-image %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--rootfs-only) rootfs_only=1 ;;
	--rev) [ $# -ge 2 ] || die "--rev needs a revision"; rev=$2; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done

# the sources: the work tree, or revision $rev exported to build/deploy/src
src=$top
if [ -n "$rev" ]; then
	git -C "$top" rev-parse --verify -q "$rev^{commit}" > /dev/null || die "--rev $rev: no such commit"
	src=$out/src
	# objects built from another tree must not count as up to date
	rm -rf "$src" "$out/hook" && mkdir -p "$src"
	git -C "$top" archive "$rev" -- oci-hook/Makefile oci-hook/src deploy/kubernetes/image |
		tar -x -C "$src" || die "git archive $rev failed"
fi

version=$(sed -n 's/^#define IOWEIGHT_VERSION "\(.*\)"$/\1/p' "$src/oci-hook/src/util.h")
[ -n "$version" ] || die "no IOWEIGHT_VERSION in oci-hook/src/util.h"
image_ref=localhost/ioweight/installer:$version

build_hook() {
	local libs pkgs link
	step "building the hook with static yajl (build/deploy/hook)"
	# the Makefile's own library list, with yajl and libseccomp swapped for
	# their static archives (Debian's libyajl-dev ships libyajl_s.a)
	pkgs=$(make -s -C "$src/oci-hook" --eval 'deploy-print-pkgs: ; @echo $(PKGS)' deploy-print-pkgs)
	# one word per package
	# shellcheck disable=SC2086
	link=$(pkg-config --libs $pkgs | sed -e 's/-lyajl\b/-l:libyajl_s.a/' -e 's/-lseccomp\b/-l:libseccomp.a/')
	case $link in *-l:libyajl_s.a*-l:libseccomp.a*|*-l:libseccomp.a*-l:libyajl_s.a*) ;;
	*) die "cannot link yajl and libseccomp statically from \`$link\` (PKGS: $pkgs)" ;;
	esac
	nice -n 10 make -s -C "$src/oci-hook" BUILD="$out/hook" PKG_LIBS="$link" "$out/hook/ioweight-hook"
	libs=$(ldd "$out/hook/ioweight-hook" | awk '{ print $1 }' | sed 's|.*/||' | sort | xargs)
	case " $libs " in
	*yajl*|*seccomp*) die "the image's hook still links $libs dynamically" ;;
	esac
	step "hook needs: $libs"
}

# Every host file the image takes, one absolute path per line.
image_inputs() {
	echo /bin/busybox
	ldd "$out/hook/ioweight-hook" | awk '/=> \//{ print $3 } /^\t\/lib/{ print $1 }' | sort -u
}

build_rootfs() {
	local f real a
	rm -rf "$rootfs"
	mkdir -p "$rootfs"/{bin,usr/bin,usr/lib,usr/lib64,etc,tmp,proc,sys,dev,config,host,run,opt/ioweight/bin}
	chmod 1777 "$rootfs/tmp"
	ln -s usr/lib "$rootfs/lib"
	ln -s usr/lib64 "$rootfs/lib64"
	while read -r f; do
		real=$(readlink -f "$f")
		mkdir -p "$rootfs$(dirname "$real")"
		cp -a "$real" "$rootfs$real"
		if [ ! -e "$rootfs$f" ]; then
			mkdir -p "$rootfs$(dirname "$f")"
			ln -s "$real" "$rootfs$f"
		fi
	done < <(image_inputs)
	# the applets entrypoint.sh and the readiness probe use
	for a in sh cat cp mv rm mkdir rmdir ln ls chmod sleep test [ cmp sha256sum stat cut \
		 grep sed awk head tail tr dirname basename readlink nsenter chroot kill touch \
		 echo printf true false date env id ps wc sort; do
		ln -s busybox "$rootfs/bin/$a"
	done
	install -m 0755 "$out/hook/ioweight-hook" "$rootfs/opt/ioweight/bin/ioweight-hook"
	install -m 0755 "$src/deploy/kubernetes/image/entrypoint.sh" "$rootfs/entrypoint.sh"
	printf 'root:x:0:0:root:/root:/bin/sh\n' > "$rootfs/etc/passwd"
	printf 'root:x:0:\n' > "$rootfs/etc/group"
	env -i /usr/sbin/chroot "$rootfs" /opt/ioweight/bin/ioweight-hook version > /dev/null 2>&1 ||
		die "the hook does not start inside the image rootfs $rootfs (missing library?)"
	env -i /usr/sbin/chroot "$rootfs" /bin/sh -n /entrypoint.sh ||
		die "busybox sh cannot parse entrypoint.sh"
}

# Add file $1 to the layout's blobs; print "sha256:<hex> <size>".
add_blob() {
	local f=$1 d=$2 h
	h=$(sha256sum "$f" | cut -d' ' -f1)
	echo "sha256:$h $(stat -c %s "$f")"
	mv "$f" "$d/blobs/sha256/$h"
}

build_oci_archive() {
	local archive=$1 d=$out/oci diff_id
	rm -rf "$d" && mkdir -p "$d/blobs/sha256"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$d/layer.tar" .
	diff_id=sha256:$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
	gzip -n -6 "$d/layer.tar"
	read -r layer_digest layer_size < <(add_blob "$d/layer.tar.gz" "$d")
	jq -cn --arg diff "$diff_id" --arg v "$version" '{
		architecture: "amd64", os: "linux", created: "1970-01-01T00:00:00Z",
		config: { Env: ["PATH=/bin:/usr/bin"], Entrypoint: ["/entrypoint.sh"], WorkingDir: "/",
			  Labels: { "org.opencontainers.image.title": "ioweight-installer",
				    "org.opencontainers.image.version": $v } },
		rootfs: { type: "layers", diff_ids: [$diff] },
		history: [ { created: "1970-01-01T00:00:00Z",
			     created_by: "deploy/kubernetes/image/build.sh: busybox-static, ioweight-hook, entrypoint.sh" } ]
	}' > "$d/config.json"
	read -r cfg_digest cfg_size < <(add_blob "$d/config.json" "$d")
	jq -cn --arg cd "$cfg_digest" --argjson cs "$cfg_size" --arg ld "$layer_digest" --argjson ls "$layer_size" '{
		schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs },
		layers: [ { mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $ld, size: $ls } ]
	}' > "$d/manifest.json"
	read -r man_digest man_size < <(add_blob "$d/manifest.json" "$d")
	jq -cn --arg md "$man_digest" --argjson ms "$man_size" --arg ref "$image_ref" --arg v "$version" '{
		schemaVersion: 2,
		manifests: [ { mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $md, size: $ms,
			       platform: { architecture: "amd64", os: "linux" },
			       annotations: { "io.containerd.image.name": $ref,
					      "org.opencontainers.image.ref.name": $v } } ]
	}' > "$d/index.json"
	echo '{"imageLayoutVersion":"1.0.0"}' > "$d/oci-layout"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$d" \
		-cf "$archive.tmp" oci-layout index.json blobs
	mv "$archive.tmp" "$archive"
	rm -rf "$d"
}

main() {
	local t0
	t0=$(date +%s)
	mkdir -p "$out"
	"$top/vm/deps.sh" "$top/deploy/host-packages.txt" "$top/oci-hook/host-packages.txt"
	command -v jq > /dev/null || die "jq missing (apt-get install jq)"
	# (no `busybox --list | grep -q`: grep's early exit would fail the pipe)
	[ -x /bin/busybox ] && [[ $'\n'$(/bin/busybox --list)$'\n' == *$'\n'nsenter$'\n'* ]] ||
		die "/bin/busybox with nsenter missing (apt-get install busybox-static)"
	build_hook
	step "image rootfs ($(image_inputs | wc -l) host files + entrypoint.sh)"
	build_rootfs
	[ -z "$rootfs_only" ] || { step "done: build/deploy/installer-rootfs"; return 0; }
	step "OCI archive $image_ref"
	build_oci_archive "$out/installer-image.oci.tar"
	step "done in $(( $(date +%s) - t0 ))s: build/deploy/installer-image.oci.tar ($(du -h --apparent-size "$out/installer-image.oci.tar" | cut -f1))"
}

main "$@"
