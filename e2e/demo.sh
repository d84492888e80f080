#!/usr/bin/env bash
# `make demo`: two competing fio pods on a 1000-IOPS disk, first with no IO
# control, then with io.weight 500:100 and the controller's automatic
# parameters (nothing calibrated), in a QEMU guest where containerd's CRI
# plugin runs the pods with ioweight-hook; prints a side-by-side table and
# writes a PNG plot. `make demo-compare` adds a third run: upstream io.cost
# with its automatic parameters on the baseline kernel.
#
#   e2e/demo.sh [--kernel K] [--compare [--baseline B]]
#     --kernel K     ioweight (default, or $DEMO_KERNEL) or a bzImage path
#     --compare      also boot the baseline kernel for the io.cost run
#     --baseline B   baseline (default) or a bzImage path
#
# Builds what is missing (kernels, guest image, hook, container images, CRI
# stubs - each step is stamp-based and quick when up to date), boots the
# guest once per kernel (e2e/guest/demo.sh) and renders the results
# (e2e/demo_report.py).
# Output: build/demo/ (table.txt, ioweight-demo.png, fio JSON, io.stat CSVs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=${DEMO_KERNEL:-ioweight}
baseline=baseline compare=""
out=build/demo
t0=$(date +%s)


die() { echo "demo: $*" >&2; exit 1; }
stage() { printf '\n== [demo %s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - t0 ))" "$*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--compare) compare=1; shift ;;
	--baseline) baseline=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

build_kernel() {	# build_kernel K
	case $1 in
	*/*) [ -f "$1" ] || die "no kernel at $1" ;;
	*)
		stage "kernel '$1' (kernel/scripts/build.sh: ~10 min the first time, seconds when up to date)"
		kernel/scripts/tree.sh
		kernel/scripts/build.sh "$1"
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
	stage "CRI client stubs (e2e/cri-stubs.sh)"
	e2e/cri-stubs.sh
}

run_guest() {	# run_guest KERNEL RUN...
	local k=$1 vmdir=$out/vm-$1; shift
	[[ $k != */* ]] || vmdir=$out/vm-$(basename "$(dirname "$k")")
	stage "booting the $k kernel: containerd + hook, two fio pods per run ($*; about 2 min per run)"
	vm/run.sh --kernel "$k" --timeout 900 --run-dir "$vmdir" \
		--disk size=2G,iops=1000,iops-size=4096 \
		--attach build/e2e/containerd.img \
		-- /ioweight/e2e/guest/demo.sh "$out" "$@" \
		|| die "the guest run failed; console: $vmdir/console.log, output: $vmdir/output"
}

report() {
	stage "results"
	echo
	# the host's Debian python3 has matplotlib (vm/host-packages.txt)
	/usr/bin/python3 e2e/demo_report.py "$out" "$out/ioweight-demo.png"
	echo "table: $out/table.txt   raw: $out/<run>-*.json, $out/<run>-timeline.csv, $out/<run>-qos.txt"
}

build_kernel "$kernel"
[ -z "$compare" ] || build_kernel "$baseline"
build_userspace
rm -rf "$out"
mkdir -p "$out"
run_guest "$kernel" off on
[ -z "$compare" ] || run_guest "$baseline" iocost
report
stage "done in $(( $(date +%s) - t0 ))s"
