#!/usr/bin/env bash
# Turn the commits on top of "pristine" in a kernel git tree back into
# kernel/patches/*.patch and kernel/series (the inverse of tree.sh).
#
#   kernel/scripts/refresh.sh            (TREE defaults to build/linux)
#
# Every commit between the "pristine" tag and HEAD becomes one patch, in
# order; stale patch files are removed so the directory matches the series.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tree=${TREE:-$top/build/linux}
die() { echo "refresh.sh: $*" >&2; exit 1; }

[ -d "$tree/.git" ] || die "no git tree at $tree"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes; commit them first"
base=$(git -C "$tree" rev-parse -q --verify refs/tags/pristine) || die "$tree has no 'pristine' tag"
n=$(git -C "$tree" rev-list --count "$base..HEAD")
[ "$n" -gt 0 ] || die "no commits on top of pristine in $tree"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" format-patch -q --no-signature --zero-commit -N -o "$tmp" "$base..HEAD"
# the cover letter is written by hand and kept; it is not applied
cover=0000-cover-letter.patch
find "$top/kernel/patches" -name '*.patch' ! -name "$cover" -delete 2>/dev/null || true
mkdir -p "$top/kernel/patches"
cp "$tmp"/*.patch "$top/kernel/patches/"
{
	echo "# Applied in order onto Debian's linux-source-6.1 by kernel/scripts/tree.sh."
	echo "# Regenerate with 'make kernel-refresh' after committing in build/linux."
	echo "# patches/$cover is the series' cover letter (not applied)."
	(cd "$tmp" && ls -1 *.patch)
} > "$top/kernel/series"
[ -f "$top/kernel/patches/$cover" ] ||
	echo "refresh.sh: warning: no kernel/patches/$cover (write the cover letter)" >&2
# tree.sh would otherwise re-apply the same patches on its next run
(cd "$top/kernel" && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' series |
	while read -r p; do sha1sum "patches/$p"; done | sha1sum | cut -d' ' -f1) > "$tree/.git/series-applied"
echo "refresh.sh: wrote $n patches to kernel/patches and kernel/series"
