#!/usr/bin/env bash
# Prepare build/linux: Debian's linux-source-6.1 as a git tree whose first
# commit ("pristine") is the untouched source, with kernel/series applied on
# top as real commits. The tree is only re-created when the tarball changes;
# re-applying the series resets to "pristine" and runs `git am` again, so
# only the files the patches touch get new mtimes (make rebuilds just those).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tree=${TREE:-$top/build/linux}
series=$top/kernel/series
tarball=${KSRC_TARBALL:-$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)}

die() { echo "tree.sh: $*" >&2; exit 1; }
step() { printf '[tree %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

[ -n "$tarball" ] && [ -f "$tarball" ] ||
	die "no /usr/src/linux-source-6.1.tar.*: run 'make deps' (apt-get install linux-source-6.1)"

debver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
stamp="$debver $(stat -c %s "$tarball")"

if [ ! -d "$tree/.git" ] || [ "$(cat "$tree/.pristine-source" 2>/dev/null)" != "$stamp" ]; then
	step "extracting $tarball (Debian $debver) into $tree"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xf "$tarball"
	mv "$tree.tmp" "$tree"
	cd "$tree"
	git init -q -b debian
	git add -A -f >/dev/null  # Debian's .gitignore ignores "/*"
	git -c user.name=ioweight -c user.email=build@ioweight.invalid \
		commit -q -m "Debian linux-source-6.1 $debver (pristine)"
	git tag -f pristine >/dev/null
	echo "$stamp" > .pristine-source
	echo ".pristine-source" >> .git/info/exclude
	echo "$debver" > "$top/build/linux-source.version"
fi

cd "$tree"
want=$(cd "$top/kernel" && cat series 2>/dev/null | sed -e 's/#.*//' -e '/^[[:space:]]*$/d' |
	while read -r p; do sha1sum "patches/$p"; done | sha1sum | cut -d' ' -f1)
if [ "$(cat .git/series-applied 2>/dev/null)" = "$want" ] &&
   [ "$(git symbolic-ref --short HEAD 2>/dev/null)" = series ] &&
   git diff --quiet HEAD; then
	step "series already applied ($(git rev-list --count pristine..HEAD) patches)"
	exit 0
fi

if [ "$(git symbolic-ref --short HEAD 2>/dev/null)" = series ] && ! git diff --quiet HEAD; then
	die "build/linux has uncommitted edits on branch 'series'; commit and 'make kernel-refresh' or discard them"
fi
git am --abort >/dev/null 2>&1 || true
git checkout -q -B series refs/tags/pristine
n=0
while read -r p; do
	p=${p%%#*}; p=$(echo "$p" | xargs)
	[ -n "$p" ] || continue
	[ -f "$top/kernel/patches/$p" ] || die "kernel/series names $p but kernel/patches/$p does not exist"
	if ! git -c user.name=ioweight -c user.email=build@ioweight.invalid \
		am -q --keep-cr "$top/kernel/patches/$p"; then
		git am --abort || true
		die "patch $p does not apply to Debian linux-source-6.1 $debver"
	fi
	n=$((n + 1))
done < "$series"
echo "$want" > .git/series-applied
step "applied $n patches from kernel/series onto pristine $debver"
