#!/usr/bin/env bash
# End-to-end suite: containerd in a QEMU guest runs Kubernetes Pod manifests
# (examples/pods/) through its CRI plugin (e2e/guest/kcri, a CRI client that
# does kubelet's part), with ioweight-hook installed by its own installer on
# containerd's default config, and the TAP tests in e2e/tests/ check the
# weights it writes, its failure policy and how the disk is shared.
#
#   e2e/run.sh [--results FILE] [--kernel K] [--group G]... [TEST...]
#     --results FILE   write "PASSED FAILED SKIPPED TODO" there (make test reads it)
#     --group G        only these groups (below; default: functional,
#                      sharing, systemd)
#     --kernel K       ioweight (default, or $E2E_KERNEL), baseline, or a bzImage
#                      path; sharing results only mean something on ioweight
#     TEST...          names in e2e/tests/ (default: all, in groups below)
#
# Builds what is missing first: the container and sandbox images, the
# pre-imported containerd root and podman storage (e2e/image.sh), the CRI stubs
# (e2e/cri-stubs.sh), the hook (make -C oci-hook), the guest image
# (vm/build-image.sh) and, only when absent, the kernel. Then it boots the
# guest once per group of tests - "functional" (install, annotations,
# pod_annotations, failure policy), "sharing" (two pods, a pod with two
# containers, three pods), so sharing starts on a freshly booted disk, both
# with the cgroupfs driver, and "systemd" (annotations, pod_annotations, two
# pods with two containers in one, three pods, with systemd as PID 1 and the
# systemd cgroup driver) - and sums the results. TEST names select within every
# group. Two more groups run only when named with --group: "sharing-systemd"
# (the sharing tests under systemd, for e2e/measure.sh: 40-two-pods' lone-pod
# check once missed under systemd on a loaded host) and "podman" (`podman
# kube play` of the same manifests, hook installed by `install --runtime
# podman`, systemd boot), which stays out of the default run until the hook
# weights podman's pod cgroups (docs/e2e.md).
# Logs: build/e2e/runs/<time>-<pid>/<group>/ (console.log, output, hook and
# containerd logs, share measurements); build/e2e/run-<group> is the latest.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
results="" kernel=${E2E_KERNEL:-ioweight} only=() only_groups=()
t0=$(date +%s)


die() { echo "e2e/run.sh: $*" >&2; exit 2; }
stage() { printf '\n== [e2e %s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - t0 ))" "$*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--results) results=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--group) only_groups+=("$2"); shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) only+=("$1"); shift ;;
	esac
done

# group name -> tests (file names in e2e/tests)
declare -A groups=(
	[functional]="10-install.sh 20-annotations.sh 25-pod-annotations.sh 30-failure-policy.sh"
	[sharing]="40-two-pods.sh 45-pod-containers.sh 50-three-pods.sh"
	[systemd]="20-annotations.sh 25-pod-annotations.sh 45-pod-containers.sh 50-three-pods.sh"
	[sharing-systemd]="40-two-pods.sh 45-pod-containers.sh 50-three-pods.sh"
	[podman]="60-podman-kube-play.sh"
)
# group name -> extra vm/run.sh options: the systemd group boots with
# systemd as PID 1, and containerd and kcri use the systemd cgroup driver
declare -A group_vm=(
	[systemd]="--systemd --append E2E_CGROUP_DRIVER=systemd"
	[sharing-systemd]="--systemd --append E2E_CGROUP_DRIVER=systemd"
	[podman]="--systemd --append E2E_CGROUP_DRIVER=systemd"
)
group_order=(functional sharing systemd)
# run only when named by --group
optin_groups=(sharing-systemd podman)

write_results() {
	[ -z "$results" ] || echo "$1 $2 $3 ${4:-0}" > "$results"
}

build_prereqs() {
	stage "container and sandbox images + pre-imported containerd root and podman storage (e2e/image.sh)"
	e2e/image.sh
	stage "CRI client stubs (e2e/cri-stubs.sh)"
	e2e/cri-stubs.sh
	stage "hook (make -C oci-hook)"
	make -s -C oci-hook
	# the guest installs this snapshot, so a rebuild of build/hook during the
	# run cannot pull the binary from under it
	install -m 0755 build/hook/ioweight-hook build/e2e/ioweight-hook
	stage "guest root image (vm/build-image.sh)"
	vm/build-image.sh
	case $kernel in
	*/*) [ -f "$kernel" ] || die "no kernel at $kernel" ;;
	*)
		if [ ! -f "build/kernel-$kernel/arch/x86/boot/bzImage" ]; then
			stage "kernel $kernel missing: kernel/scripts/build.sh $kernel (~10 min)"
			kernel/scripts/tree.sh
			kernel/scripts/build.sh "$kernel"
		fi
		;;
	esac
}

pass=0 fail=0 skip=0 todo=0
run_group() {
	local g=$1 dir=$runs/$1 tests=() t p f s
	for t in ${groups[$g]}; do
		if [ ${#only[@]} = 0 ] || [[ " ${only[*]} " == *" $t "* ]] || [[ " ${only[*]} " == *" ${t%.sh} "* ]]; then
			tests+=("/ioweight/e2e/tests/$t")
		fi
	done
	[ ${#tests[@]} -gt 0 ] || return 0
	stage "boot $kernel kernel: $g tests (${tests[*]##*/})"
	mkdir -p "$dir"
	[ -L "build/e2e/run-$g" ] || rm -rf "build/e2e/run-$g" # a directory from an older layout
	ln -sfn "${dir#build/e2e/}" "build/e2e/run-$g"
	# shellcheck disable=SC2086 # the group's options are words
	vm/run.sh --kernel "$kernel" --timeout 1200 --run-dir "$dir" ${group_vm[$g]:-} \
		--disk size=2G,iops=1000,iops-size=4096 \
		--attach build/e2e/containerd.img --attach build/e2e/podman.img \
		-- /ioweight/e2e/guest/suite.sh "$dir" "${tests[@]}" || true
	if [ -s "$dir/results" ] && read -r p f s t < "$dir/results"; then
		echo "-- $g: $p passed, $f failed, $s skipped, ${t:-0} todo"
	else
		p=0 f=1 s=0 t=0
		echo "-- $g: no results (the guest broke; see $dir/console.log), counted as 1 failure"
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) todo=$((todo + ${t:-0}))
}

# one directory per invocation, so that two runs in one work tree (a
# developer's and make test's) never write into each other's results;
# build/e2e/run-<group> points at the latest; the last 10 are kept
runs=build/e2e/runs/$(date +%Y%m%d-%H%M%S)-$$

main() {
	local g
	for g in "${only_groups[@]}"; do
		[ -n "${groups[$g]:-}" ] || die "no group $g (groups: ${group_order[*]})"
	done
	write_results 0 1 0 # until proven otherwise
	mkdir -p "$runs"
	{ ls -1d build/e2e/runs/*/ 2>/dev/null || true; } | head -n -10 | xargs -r rm -rf
	build_prereqs
	for g in "${group_order[@]}" "${optin_groups[@]}"; do
		if { [ ${#only_groups[@]} = 0 ] && [[ " ${group_order[*]} " == *" $g "* ]]; } ||
		   [[ " ${only_groups[*]} " == *" $g "* ]]; then
			run_group "$g"
		fi
	done
	stage "done in $(( $(date +%s) - t0 ))s"
	echo "e2e: $pass passed, $fail failed, $skip skipped, $todo todo"
	write_results "$pass" "$fail" "$skip" "$todo"
	[ "$fail" = 0 ]
}

main
