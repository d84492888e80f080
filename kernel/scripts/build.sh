#!/usr/bin/env bash
# Build a guest bzImage for one kernel variant, out of tree, with ccache.
#
#   kernel/scripts/build.sh VARIANT        (ioweight | baseline | debug)
#
# Environment: TREE (source tree, default build/linux), O (output directory,
# default build/kernel-VARIANT), JOBS (default nproc+1), FORCE=1 to run
# kbuild even when the stamp says nothing changed.
#
# The .config is regenerated (tinyconfig + guest.config + VARIANT.config +
# olddefconfig) only when a fragment changes, and every option a fragment
# asks for is checked in the result: tinyconfig silently drops options whose
# dependencies are unmet, and a guest without, say, 9p fails much later and
# much more confusingly.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
variant=${1:?usage: build.sh ioweight|baseline|debug}
tree=${TREE:-$top/build/linux}
out=${O:-$top/build/kernel-$variant}
jobs=${JOBS:-$(($(nproc) + 1))}
frags=("$top/kernel/config/guest.config" "$top/kernel/config/$variant.config")

die() { echo "build.sh: $*" >&2; exit 1; }
step() { printf '[kernel %s %s] %s\n' "$variant" "$(date +%H:%M:%S)" "$*"; }

for f in "${frags[@]}"; do [ -f "$f" ] || die "missing config fragment $f"; done
[ -f "$tree/Makefile" ] || die "no kernel tree at $tree (run kernel/scripts/tree.sh)"
mkdir -p "$out"

export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content
# A reproducible bzImage: the same sources and config give the same bytes
# on any machine and after any number of rebuilds (the build counter in
# UTS_VERSION would otherwise count links), so the benchmark, which keys
# its committed results by the bzImage's sha256, can resume across invocations.
# The timestamp must be a date that date(1) reads: usr/gen_initramfs.sh
# stamps the built-in initramfs with it and, when it cannot parse it,
# with the current time, which gave every machine its own bzImage.
export KBUILD_BUILD_TIMESTAMP="2026-01-01 00:00:00 UTC"
export KBUILD_BUILD_USER=ioweight KBUILD_BUILD_HOST=guest
export KBUILD_BUILD_VERSION=1
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
kmake() { make -s -C "$tree" O="$out" CC="$cc" HOSTCC="$cc" "$@"; }

head=$(git -C "$tree" rev-parse HEAD 2>/dev/null || echo nogit)
# the content of uncommitted changes, not just which files carry them
dirty=$(git -C "$tree" diff HEAD 2>/dev/null | sha1sum | cut -c1-12)
# this script's settings (KBUILD_BUILD_*) are part of what is built
stamp=$(cat "${frags[@]}" "$0" | sha1sum | cut -c1-12)-$head-$dirty
if [ -z "${FORCE:-}" ] && [ -f "$out/arch/x86/boot/bzImage" ] &&
   [ "$(cat "$out/.ioweight-stamp" 2>/dev/null)" = "$stamp" ]; then
	step "up to date ($out/arch/x86/boot/bzImage)"
	exit 0
fi

fragsum=$(cat "${frags[@]}" | sha1sum | cut -c1-40)
if [ "$(cat "$out/.ioweight-config" 2>/dev/null)" != "$fragsum" ] || [ ! -f "$out/.config" ]; then
	step "configuring: tinyconfig + ${frags[*]##*/}"
	kmake tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	missing=0
	# the last fragment wins, as with merge_config.sh
	while IFS= read -r line; do
		opt=${line%%=*}; val=${line#*=}
		if [ "$val" = n ]; then
			if grep -q "^$opt=" "$out/.config"; then
				echo "build.sh: $opt is set but a fragment asks for =n" >&2; missing=1
			fi
		elif ! grep -qx "$opt=$val" "$out/.config"; then
			echo "build.sh: $opt=$val did not survive olddefconfig (unmet dependency?)" >&2
			missing=1
		fi
	done < <(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' | tac | awk -F= '!seen[$1]++' | tac)
	[ "$missing" = 0 ] || die "config for variant $variant is incomplete (see above)"
	echo "$fragsum" > "$out/.ioweight-config"
fi

# kbuild does not see KBUILD_BUILD_TIMESTAMP change in the initramfs it
# stamps (usr/): make it anew, it takes a second
rm -f "$out/usr/initramfs_data.cpio"
step "building bzImage with -j$jobs ($cc) in $out"
start=$(date +%s)
if ! kmake -j"$jobs" bzImage > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "kernel build failed for $variant; full log: $out/build.log"
fi
grep -E 'warning:' "$out/build.log" | head -n 20 >&2 || true
echo "$stamp" > "$out/.ioweight-stamp"
step "done in $(( $(date +%s) - start ))s: $out/arch/x86/boot/bzImage"
