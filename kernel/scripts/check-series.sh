#!/usr/bin/env bash
# Check that every prefix of kernel/series builds on its own: for each
# patch, the tree as of that patch compiles the directories the series
# touches with W=1 (block/, kernel/bpf/) and links a bzImage with the
# ioweight variant's config. checkpatch --strict runs on every patch.
#
#   kernel/scripts/check-series.sh            (uses build/linux, branch series)
#
# The tree is left on branch 'series' as tree.sh made it. The out-of-tree
# build directory is build/kernel-ioweight, so the final state rebuilds
# quickly afterwards (ccache).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tree=${TREE:-$top/build/linux}
out=$top/build/kernel-ioweight
die() { echo "check-series.sh: $*" >&2; exit 1; }
step() { printf '[series %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

"$top/kernel/scripts/tree.sh"
[ "$(git -C "$tree" symbolic-ref --short HEAD)" = series ] || die "$tree is not on branch series"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"
# the config the variant's build uses
"$top/kernel/scripts/build.sh" ioweight

cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content
export KBUILD_BUILD_TIMESTAMP="2026-01-01 00:00:00 UTC"
export KBUILD_BUILD_USER=ioweight KBUILD_BUILD_HOST=guest KBUILD_BUILD_VERSION=1
jobs=$(($(nproc) + 1))

restore() { git -C "$tree" checkout -q series; }
trap restore EXIT

n=$(git -C "$tree" rev-list --count pristine..series)
fails=0
for i in $(seq 1 "$n"); do
	rev=$(git -C "$tree" rev-list --reverse pristine..series | sed -n "${i}p")
	subj=$(git -C "$tree" log -1 --format=%s "$rev")
	git -C "$tree" checkout -q "$rev"
	step "$i/$n: $subj"
	if ! (cd "$tree" && git format-patch -q --stdout -1 "$rev" |
		PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict -q -); then
		echo "check-series.sh: checkpatch reports on patch $i" >&2
		fails=$((fails + 1))
	fi
	# W=1 on the touched directories; upstream's own W=1 warnings there
	# are not ours to judge, so only warnings in the series' files count
	log=$out/check-series-$i.log
	if ! make -s -C "$tree" O="$out" CC="$cc" HOSTCC="$cc" -j"$jobs" W=1 \
		block/ kernel/bpf/ > "$log" 2>&1; then
		cat "$log" >&2
		echo "check-series.sh: patch $i does not compile block/ kernel/bpf/" >&2
		fails=$((fails + 1))
		continue
	fi
	if grep -E 'ioweight|io_cost' "$log" | grep -qiE 'warning|error'; then
		grep -E 'ioweight|io_cost' "$log" >&2
		echo "check-series.sh: W=1 warnings in the series' files at patch $i" >&2
		fails=$((fails + 1))
	fi
	if ! make -s -C "$tree" O="$out" CC="$cc" HOSTCC="$cc" -j"$jobs" bzImage; then
		echo "check-series.sh: patch $i does not link a bzImage" >&2
		fails=$((fails + 1))
	fi
done
restore
step "$n patches checked, $fails failures"
[ "$fails" = 0 ]
