#!/usr/bin/env bash
# Node kernel packages: linux-image-*-ioweight .debs (make bindeb-pkg) built
# from the series, with io.weight on and io.cost off.
#
#   kernel/scripts/deb.sh [--kconfig debian|cloud|guest] [--touched-only]
#
#   --kconfig debian  Debian's own amd64 configuration (linux-config-6.1,
#                     config.amd64_none_amd64), the one a node runs (default)
#   --kconfig cloud   Debian's cloud-amd64 configuration
#   --kconfig guest   the test guest's configuration (tinyconfig + fragments):
#                     a small package the tests install into the guest
#   --touched-only    do not package: configure, then compile only what the
#                     series touches (block/, kernel/bpf/, the tracepoints,
#                     the KUnit suites) with every other block cgroup
#                     controller on beside io.weight (BFQ, blk-throttle,
#                     io.latency, io.prio); io.cost is off by Kconfig. This is
#                     CI's proof that the full configuration builds our code.
#
# Output: build/deb/<kconfig>/*.deb. The package version says what it is:
# <kernel version>-ioweight<N>, N the number of patches in kernel/series,
# plus the short hash of the series' content.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kconfig=debian touched=0
while [ $# -gt 0 ]; do
	case $1 in
	--kconfig) kconfig=$2; shift 2 ;;
	--touched-only) touched=1; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "deb.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
tree=$top/build/linux
out=$top/build/deb-$kconfig
dest=$top/build/deb/$kconfig
t0=$(date +%s)
die() { echo "deb.sh: $*" >&2; exit 1; }
step() { printf '[deb %s %s +%ss] %s\n' "$kconfig" "$(date +%H:%M:%S)" "$(( $(date +%s) - t0 ))" "$*"; }

"$top/kernel/scripts/tree.sh"
mkdir -p "$out" "$dest"
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content
jobs=$(($(nproc) + 1))
kmake() { make -s -C "$tree" O="$out" CC="$cc" HOSTCC="$cc" -j"$jobs" "$@"; }
cfg() { "$tree/scripts/config" --file "$out/.config" "$@"; }

case $kconfig in
debian | cloud)
	flavour=$([ "$kconfig" = cloud ] && echo cloud-amd64 || echo amd64)
	src=/usr/src/linux-config-6.1/config.amd64_none_$flavour.xz
	if [ ! -f "$src" ]; then
		step "installing linux-config-6.1 (Debian's kernel configurations)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-config-6.1 > /dev/null ||
			die "cannot install linux-config-6.1"
	fi
	step "configuring from $src"
	xz -dc "$src" > "$out/.config"
	# Debian signs its modules with its own key, which we do not have
	cfg --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL
	;;
guest)
	step "configuring: tinyconfig + guest.config + ioweight.config"
	kmake tinyconfig > /dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$top/kernel/config/guest.config" "$top/kernel/config/ioweight.config" > /dev/null
	;;
*) die "unknown --kconfig $kconfig (debian, cloud or guest)" ;;
esac

# io.weight on, io.cost off (they both own io.weight); the other block
# cgroup controllers on beside it
cfg --disable BLK_CGROUP_IOCOST --enable BLK_CGROUP --enable BLK_CGROUP_IOWEIGHT \
	--enable BLK_BPF_IO_COST --enable BLK_DEV_THROTTLING \
	--enable BLK_CGROUP_IOLATENCY --enable BLK_CGROUP_IOPRIO \
	--enable IOSCHED_BFQ --enable BFQ_GROUP_IOSCHED
if [ "$touched" = 1 ]; then
	cfg --enable KUNIT --enable BLK_CGROUP_IOWEIGHT_KUNIT_TEST
fi
kmake olddefconfig > /dev/null
for opt in BLK_CGROUP_IOWEIGHT=y BLK_BPF_IO_COST=y BLK_DEV_THROTTLING=y BLK_CGROUP_IOLATENCY=y \
	IOSCHED_BFQ=[ym] BFQ_GROUP_IOSCHED=y; do
	grep -qE "^CONFIG_${opt%%=*}=${opt#*=}\$" "$out/.config" ||
		die "CONFIG_${opt%%=*} is not ${opt#*=} after olddefconfig (unmet dependency?)"
done
! grep -q '^CONFIG_BLK_CGROUP_IOCOST=y' "$out/.config" || die "CONFIG_BLK_CGROUP_IOCOST is still on"

if [ "$touched" = 1 ]; then
	grep -q '^CONFIG_BLK_CGROUP_IOWEIGHT_KUNIT_TEST=y' "$out/.config" || die "the KUnit suites are not configured"
	step "compiling what the series touches: block/ kernel/bpf/ (W=1 on the series' files)"
	log=$out/touched.log
	if ! kmake W=1 block/ kernel/bpf/ > "$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "block/ or kernel/bpf/ does not compile with $kconfig's configuration"
	fi
	if grep -E 'ioweight|io_cost' "$log" | grep -qiE 'warning|error'; then
		grep -E 'ioweight|io_cost' "$log" >&2
		die "warnings in the series' files with $kconfig's configuration"
	fi
	step "done: block/blk-ioweight.o and kernel/bpf/ built with $kconfig's configuration"
	exit 0
fi

n=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/kernel/series" | wc -l)
sum=$(cd "$top/kernel" && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' series |
	while read -r p; do sha1sum "patches/$p"; done | sha1sum | cut -c1-8)
kver=$(kmake -s kernelversion)
cfg --set-str LOCALVERSION "-ioweight"
kmake olddefconfig > /dev/null
step "building linux-image-$kver-ioweight ($n patches, series $sum) with bindeb-pkg"
rm -f "$top"/build/*.deb "$top"/build/*.buildinfo "$top"/build/*.changes
kmake KDEB_PKGVERSION="$kver-ioweight$n+$sum" KBUILD_BUILD_VERSION=1 bindeb-pkg
mv "$top"/build/linux-*.deb "$dest/"
rm -f "$top"/build/*.buildinfo "$top"/build/*.changes
step "packages in $dest:"
ls -1 "$dest"
