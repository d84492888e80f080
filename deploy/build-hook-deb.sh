#!/usr/bin/env bash
# Build the Debian package of ioweight-hook from the work tree with
# debhelper (`dpkg-buildpackage -b -us -uc`), then check it with lintian.
#
#   deploy/build-hook-deb.sh [--check] [--no-lintian] [--rev REV]
#     --check        also run the hook's unit tests inside the package build
#                    (they run in `make test`'s hook stage anyway, so the
#                    default build passes DEB_BUILD_OPTIONS=nocheck)
#     --no-lintian   skip lintian
#     --rev REV      build from git revision REV (e.g. HEAD) instead of the
#                    work tree with its uncommitted changes
#
# Output in build/deb/: ioweight-hook_VERSION_ARCH.deb, .buildinfo, .changes,
# build.log, lintian.log. The package's version is IOWEIGHT_VERSION from
# oci-hook/src/util.h; its maintainer is DEBFULLNAME/DEBEMAIL if set, else
# git's identity, else the author of the commit built. The packaging is
# deploy/debian/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
check="" lintian=1 rev=""

die() { echo "build-hook-deb.sh: $*" >&2; exit 1; }
step() { printf '[hook-deb %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1 ;;
	--no-lintian) lintian="" ;;
	--rev) [ $# -ge 2 ] || die "--rev needs a revision"; rev=$2; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done

# The files the package is built from, at their repository paths, copied
# from the work tree or from revision $rev into $1.
export_tree() {
	local dst=$1
	local paths=(oci-hook/Makefile oci-hook/src oci-hook/tests cni-like-config docs/hook.md deploy/debian)
	mkdir -p "$dst"
	if [ -n "$rev" ]; then
		git -C "$top" rev-parse --verify -q "$rev^{commit}" > /dev/null || die "--rev $rev: no such commit"
		git -C "$top" archive "$rev" -- "${paths[@]}" | tar -x -C "$dst" ||
			die "git archive $rev failed"
	else
		(cd "$top" && cp -a --parents "${paths[@]}" "$dst/")
	fi
}

hook_version() {
	local v
	v=$(sed -n 's/^#define IOWEIGHT_VERSION "\(.*\)"$/\1/p' "$1/oci-hook/src/util.h")
	[[ $v =~ ^[0-9]+(\.[0-9]+)*([~+][A-Za-z0-9.+~]+)?$ ]] ||
		die "IOWEIGHT_VERSION in oci-hook/src/util.h is \`$v\`, not a Debian native version"
	echo "$v"
}

maintainer() {
	local name=${DEBFULLNAME:-} mail=${DEBEMAIL:-}
	[ -n "$name" ] || name=$(git -C "$top" config user.name 2>/dev/null || true)
	[ -n "$mail" ] || mail=$(git -C "$top" config user.email 2>/dev/null || true)
	# a fresh clone without an identity: the author of the commit built
	[ -n "$name" ] || name=$(git -C "$top" log -1 --format=%an "${rev:-HEAD}" 2>/dev/null || true)
	[ -n "$mail" ] || mail=$(git -C "$top" log -1 --format=%ae "${rev:-HEAD}" 2>/dev/null || true)
	[ -n "$name" ] && [ -n "$mail" ] ||
		die "no maintainer: set DEBFULLNAME and DEBEMAIL, or git's user.name and user.email"
	[[ $mail == *@* && $name != *[\<\>]* && $mail != *[\<\>\ ]* ]] ||
		die "maintainer \`$name <$mail>\` is not \"Name <address>\""
	echo "$name <$mail>"
}

# The source tree dpkg-buildpackage sees: the repository's own paths for
# what the package is built from (exported to $tree), plus debian/.
assemble() {
	local tree=$1 src=$2 version=$3 maint=$4 desc stamp years
	rm -rf "$src"
	mkdir -p "$src/oci-hook" "$src/cni-like-config" "$src/doc"
	cp -a "$tree/oci-hook/Makefile" "$tree/oci-hook/src" "$tree/oci-hook/tests" "$src/oci-hook/"
	cp -a "$tree/cni-like-config/default.json" "$tree/cni-like-config/ioweight.schema.json" \
		"$tree/cni-like-config/examples" "$src/cni-like-config/"
	cp "$tree/docs/hook.md" "$src/doc/hook.md"
	cp "$tree/cni-like-config/README.md" "$src/doc/configuration.md"
	cp -a "$tree/deploy/debian" "$src/debian"
	sed -i "s|@MAINTAINER@|$maint|" "$src/debian/control"
	# the copyright years are those of the tree's first and last commits
	years=$(git -C "$top" log --format=%cd --date=format:%Y 2>/dev/null | sed -n '1p;$p' | sort -u | paste -sd-)
	[ -n "$years" ] || years=$(date +%Y)
	sed -i "s|@YEARS@|$years|" "$src/debian/copyright"
	! grep -q '@[A-Z]*@' "$src/debian/control" "$src/debian/copyright" ||
		die "unsubstituted placeholder in debian/control or debian/copyright"

	# the changelog says which tree the package comes from; its date is the
	# last commit's, so two builds of one commit are identical
	desc=$(git -C "$top" rev-parse --short=12 "${rev:-HEAD}" 2>/dev/null || echo unknown)
	if [ -z "$rev" ] && [ "$desc" != unknown ] &&
	   ! git -C "$top" diff --quiet HEAD -- oci-hook cni-like-config deploy/debian docs/hook.md; then
		desc="$desc with local changes"
	fi
	stamp=$(git -C "$top" log -1 --format=%ct "${rev:-HEAD}" 2>/dev/null || date +%s)
	cat > "$src/debian/changelog" <<-EOF
	ioweight-hook ($version) unstable; urgency=medium

	  * Built from the ioweight tree, commit $desc.

	 -- $maint  $(LC_ALL=C date -u -R -d "@$stamp")
	EOF
	export SOURCE_DATE_EPOCH=$stamp
}

build() {
	local src=$1 opts=""
	[ -n "$check" ] || opts=nocheck
	step "dpkg-buildpackage -b -us -uc${opts:+ (DEB_BUILD_OPTIONS=$opts)} in ${src#"$top"/}"
	if ! (cd "$src" && DEB_BUILD_OPTIONS="$opts" nice -n 10 dpkg-buildpackage -b -us -uc) \
		> "$out/build.log" 2>&1; then
		tail -n 30 "$out/build.log" >&2
		die "dpkg-buildpackage failed; log: build/deb/build.log"
	fi
}

run_lintian() {
	local changes=$1
	step "lintian ${changes#"$top"/}"
	# --fail-on warning: errors and warnings fail the build; overridden tags
	# (debian/ioweight-hook.lintian-overrides, each with its reason) do not
	if ! lintian --fail-on error,warning --display-info --show-overrides "$changes" \
		> "$out/lintian.log" 2>&1; then
		cat "$out/lintian.log" >&2
		die "lintian reports errors or warnings (build/deb/lintian.log)"
	fi
	local n_info n_over
	n_info=$(grep -c '^[IP]: ' "$out/lintian.log" || true)
	n_over=$(grep -c '^O: ' "$out/lintian.log" || true)
	step "lintian: no errors, no warnings; $n_info info/pedantic tags, $n_over overridden (build/deb/lintian.log)"
	sed 's/^/    /' "$out/lintian.log"
}

main() {
	local version maint arch src deb changes t0 tree
	t0=$(date +%s)
	mkdir -p "$out"
	step "build dependencies (deploy/host-packages.txt, oci-hook/host-packages.txt)"
	"$top/vm/deps.sh" "$top/deploy/host-packages.txt" "$top/oci-hook/host-packages.txt"
	tree=$out/tree
	rm -rf "$tree"
	export_tree "$tree"
	version=$(hook_version "$tree")
	maint=$(maintainer)
	arch=$(dpkg --print-architecture)
	src=$out/ioweight-hook-$version
	rm -f "$out"/ioweight-hook_*.deb "$out"/ioweight-hook-dbgsym_*.*deb \
		"$out"/ioweight-hook_*.changes "$out"/ioweight-hook_*.buildinfo
	assemble "$tree" "$src" "$version" "$maint"
	build "$src"
	deb=$out/ioweight-hook_${version}_$arch.deb
	changes=$out/ioweight-hook_${version}_$arch.changes
	[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
	step "$(basename "$deb"): $(stat -c %s "$deb") bytes; contents:"
	dpkg-deb --contents "$deb" | awk '{ print "    " $1, $6, $7, $8 }'
	dpkg-deb --field "$deb" Depends | sed 's/^/    Depends: /'
	[ -z "$lintian" ] || run_lintian "$changes"
	rm -rf "$src" "$tree"
	step "done in $(( $(date +%s) - t0 ))s: ${deb#"$top"/}"
}

main
