#!/usr/bin/env bash
# `make demo`: two competing fio pods on a 1000-IOPS disk, first with no IO
# control, then with io.weight 500:100, in a QEMU guest running containerd
# with ioweight-hook; prints a side-by-side table and writes a PNG plot.
#
#   e2e/demo.sh [--kernel K]    K: ioweight (default, or $DEMO_KERNEL),
#                               baseline (upstream io.cost), or a bzImage path
#
# Builds what is missing (kernel, guest image, hook, container image - each
# step is stamp-based and quick when up to date), boots the guest once
# (e2e/guest/demo.sh) and renders the results (e2e/demo_report.py).
# Output: build/demo/ (table.txt, ioweight-demo.png, fio JSON, io.stat CSVs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=${DEMO_KERNEL:-ioweight}
out=build/demo
t0=$(date +%s)


die() { echo "demo: $*" >&2; exit 1; }
stage() { printf '\n== [demo %s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - t0 ))" "$*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

build_kernel() {
	case $kernel in
	*/*) [ -f "$kernel" ] || die "no kernel at $kernel" ;;
	*)
		stage "kernel '$kernel' (kernel/scripts/build.sh: ~10 min the first time, seconds when up to date)"
		kernel/scripts/tree.sh
		kernel/scripts/build.sh "$kernel"
		;;
	esac
}

build_userspace() {
	stage "guest root image (vm/build-image.sh: ~2 min the first time)"
	vm/build-image.sh
	stage "ioweight-hook (make -C oci-hook)"
	make -s -C oci-hook
	mkdir -p build/e2e
	install -m 0755 build/hook/ioweight-hook build/e2e/ioweight-hook
	stage "container image with fio, pre-imported for containerd (e2e/image.sh)"
	e2e/image.sh
}

run_guest() {
	stage "booting the guest: containerd + hook, two fio pods, twice (about 2 min)"
	rm -rf "$out"
	mkdir -p "$out"
	vm/run.sh --kernel "$kernel" --timeout 900 --run-dir "$out/vm" \
		--disk size=2G,iops=1000,iops-size=4096 \
		--attach build/e2e/containerd.img \
		-- /ioweight/e2e/guest/demo.sh "$out" \
		|| die "the guest run failed; console: $out/vm/console.log, output: $out/vm/output"
}

report() {
	stage "results ($(cat "$out/kernel.txt" 2>/dev/null || echo '?') controller in the guest kernel)"
	echo
	# the host's Debian python3 has matplotlib (vm/host-packages.txt)
	/usr/bin/python3 e2e/demo_report.py "$out" "$out/ioweight-demo.png"
	echo "table: $out/table.txt   raw: $out/{off,on}-*.json, $out/{off,on}-timeline.csv"
}

build_kernel
build_userspace
run_guest
report
stage "done in $(( $(date +%s) - t0 ))s"
