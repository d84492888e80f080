#!/usr/bin/env bash
# stage.sh - `make test`'s deploy stage: everything under deploy/ that can be
# checked without a cluster. Writes "P F S T" (passed, failed, skipped,
# TAP todo) to the results file, as vm/make-test.sh collects them.
#
#   deploy/tests/stage.sh [--kernel VARIANT] [--results FILE] [--rev REV]
#
#   1. check-manifests.py on deploy/kubernetes (with the hook validating the
#      ConfigMap's files), and its --selftest;
#   2. the hook's Debian package: deploy/build-hook-deb.sh (dpkg-buildpackage
#      and lintian, errors and warnings fail);
#   3. the installer image (OCI archive) and deploy/tests/installer-test.sh
#      against a fake node;
#   4. in the guest, booted from the VARIANT kernel (default ioweight):
#      deploy/tests/guest/deb-check.sh (dpkg -i, version, dpkg -r / -P), and
#      deploy/tests/guest/installer-check.sh (the DaemonSet's pod, its fields
#      turned into a `ctr run` by deploy/tests/pod-to-ctr.py, installs the
#      hook into the guest's containerd, a container gets its weight, SIGTERM
#      uninstalls byte for byte); skipped, and said so, when the kernel or
#      the guest image is missing.
# --rev builds the package and the image from a git revision instead of the
# work tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
kvariant=ioweight results=build/test/deploy.results rev=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kvariant=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--rev) rev=(--rev "$2"); shift 2 ;;
	*) echo "stage.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
log=build/test/deploy
mkdir -p "$log" "$(dirname "$results")"
rm -f "$results"
pass=0 fail=0 skip=0 todo=0

step() { printf '[deploy %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
# add the counts of a "N passed, N failed" line in file $2 (or 1 failure)
add_line() {
	local what=$1 file=$2 line p f
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$file" | tail -n 1 || true)
	if [ -z "$line" ]; then
		echo "---- $what: no result line, counted as 1 failure"
		fail=$((fail + 1))
		return
	fi
	p=$(echo "$line" | grep -oE '[0-9]+ passed' | cut -d' ' -f1)
	f=$(echo "$line" | grep -oE '[0-9]+ failed' | cut -d' ' -f1)
	pass=$((pass + p)) fail=$((fail + f))
	echo "---- $what: $p passed, $f failed"
}
# one result for a command: pass when it exits 0 (and so does add_cmd)
add_cmd() {
	local what=$1; shift
	if "$@" > "$log/$what.log" 2>&1; then
		pass=$((pass + 1)); echo "---- $what: passed"
	else
		fail=$((fail + 1)); echo "---- $what: FAILED (last lines of $log/$what.log)"
		tail -n 25 "$log/$what.log" | sed 's/^/    /'
		return 1
	fi
}

step "hook package: dpkg-buildpackage and lintian"
add_cmd hook-deb nice -n 10 deploy/build-hook-deb.sh "${rev[@]}" || true
grep -E '^\[hook-deb .*\] (lintian:|done)' "$log/hook-deb.log" || true

step "installer image and its entrypoint on a fake node"
hook=build/deploy/hook/ioweight-hook
if add_cmd installer-image nice -n 10 deploy/kubernetes/image/build.sh "${rev[@]}"; then
	deploy/tests/installer-test.sh > "$log/installer-test.log" 2>&1 || true
	grep -E '^(not ok|# installer-test)' "$log/installer-test.log" || true
	add_line "installer entrypoint on a fake node" "$log/installer-test.log"
else
	hook=""
	# no stale archive for the guest test: it skips, this failure counts
	rm -f build/deploy/installer-image.oci.tar
	echo "---- installer entrypoint: not run, the image did not build"
fi

step "manifests against the Kubernetes API shapes"
hook_arg=()
[ -z "$hook" ] || [ ! -x "$hook" ] || hook_arg=(--hook "$hook")
python3 deploy/check-manifests.py "${hook_arg[@]}" > "$log/manifests.log" 2>&1 || true
grep -E '^not ok|^#' "$log/manifests.log" || true
add_line "manifests" "$log/manifests.log"
python3 deploy/check-manifests.py --selftest > "$log/manifests-selftest.log" 2>&1 || true
grep -E '^not ok|^#' "$log/manifests-selftest.log" || true
add_line "manifest checker selftest" "$log/manifests-selftest.log"

step "the hook package and the installer pod in the guest ($kvariant kernel)"
bz=build/kernel-$kvariant/arch/x86/boot/bzImage
if [ ! -f "$bz" ] || [ ! -f build/vm/root.img ]; then
	echo "---- guest: SKIPPED, no $( [ -f "$bz" ] && echo guest image build/vm/root.img || echo "kernel $bz") (make kernel image)"
	skip=$((skip + 1))
elif ! ls build/deb/ioweight-hook_*_amd64.deb > /dev/null 2>&1; then
	fail=$((fail + 1)); echo "---- guest: no package was built, counted as 1 failure"
else
	rundir=build/test/run-deploy
	rm -rf "$rundir"
	# the pod as the manifests describe it; the guest has no systemd
	python3 deploy/tests/pod-to-ctr.py build/deploy/pod --set CONTAINERD_RESTART=kill
	vm/run.sh --kernel "$kvariant" --timeout 1200 --run-dir "$rundir" \
		-- /ioweight/vm/tap-runner.sh -r "/ioweight/$rundir/results" \
		/ioweight/deploy/tests/guest/deb-check.sh \
		/ioweight/deploy/tests/guest/installer-check.sh > "$log/guest.log" 2>&1 || true
	grep -E '(not ok|# (deb|installer)-check|tap-runner:|Bail)' "$log/guest.log" || true
	if [ -s "$rundir/results" ] && read -r p f s t < "$rundir/results"; then
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + ${s:-0})) todo=$((todo + ${t:-0}))
		echo "---- guest: $p passed, $f failed, ${s:-0} skipped, ${t:-0} todo (log $log/guest.log)"
	else
		fail=$((fail + 1)); echo "---- guest: the guest run broke (log $log/guest.log), counted as 1 failure"
		tail -n 20 "$log/guest.log" | sed 's/^/    /'
	fi
fi

echo "$pass $fail $skip $todo" > "$results"
echo "deploy: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
