#!/usr/bin/env bash
# `make test`: build what is missing, then run every suite and print one
# summary line "N passed, N failed, N skipped, N todo" (the last line of
# output): skipped counts TAP SKIPs and the hook's cmocka skips, todo the
# known failures a test reports as TAP TODO (not failures, but visible).
#
# Stages: host unit tests of the hook (and its fuzzers when FUZZ_SECONDS is
# set), the benchmark harness's selftest (host, stand-in guest), the hook under real runc/containerd/podman in the guest, guest kernel tests on the ioweight kernel (KUnit results + TAP tests
# in kernel/tests), the series compiled with Debian's full configuration
# (kconfig), the debug-kernel stress test when kernel/tests/stress
# exists, and the e2e suite when e2e/run.sh exists. A stage that breaks
# without reporting results counts as one failure, never as a pass.
# Environment: KVARIANT (default ioweight), STAGES (default all), FUZZ_SECONDS.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kvariant=${KVARIANT:-ioweight}
# the debug-kernel stress stage (PROVE_LOCKING, KASAN) adds ~10 min, and
# ~15 min more the first time the debug kernel is built
stages=${STAGES:-build hook bench fuzz kernel stress kconfig e2e deploy}
pass=0 fail=0 skip=0 todo=0
t0=$(date +%s)

step() { printf '\n==== [%s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - t0 ))" "$*"; }
has() { [[ " $stages " == *" $1 "* ]]; }
# add "P F [S [T]]" from a results file, or one failure when the stage left none
collect() {
	local name=$1 file=$2 p f s t
	if [ -s "$file" ] && read -r p f s t < "$file"; then
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + ${s:-0})) todo=$((todo + ${t:-0}))
		echo "---- $name: $p passed, $f failed, ${s:-0} skipped, ${t:-0} todo"
	else
		fail=$((fail + 1))
		echo "---- $name: no results (the stage broke), counted as 1 failure"
	fi
}

mkdir -p build/test
# each stage removes its own results file first: never another run's (two
# make-test.sh runs with different STAGES may share build/test)

if has build; then
	step "build: kernel ($kvariant), guest image, hook"
	kernel/scripts/tree.sh
	kernel/scripts/build.sh "$kvariant"
	vm/build-image.sh
	[ ! -f oci-hook/Makefile ] || make -s -C oci-hook
	[ ! -x kernel/tests/lib/build-selftests.sh ] || kernel/tests/lib/build-selftests.sh
	# BPF cost-model loader and programs (the test skips on kernels without the type)
	[ ! -f kernel/bpf/Makefile ] || make -s -C kernel/bpf
fi

if has hook && [ -f oci-hook/Makefile ]; then
	step "hook: unit tests on the host"
	rm -f build/test/hook.results
	if make -s -C oci-hook check 2>&1 | tee build/test/hook.log; then :; fi
	line=$(grep -E '^hook: [0-9]+ passed, [0-9]+ failed' build/test/hook.log | tail -n1 || true)
	# cmocka's skip() lines: "[  SKIPPED ] N test(s), listed below:"
	skipped=$(awk '/^\[  SKIPPED \] [0-9]+ test/ {s += $4} END {print s + 0}' build/test/hook.log)
	if [ -n "$line" ]; then
		echo "$line" | sed -E "s/^hook: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2 $skipped/" \
			> build/test/hook.results
	fi
	collect "hook unit tests" build/test/hook.results
fi

if has bench && [ -x bench/selftest.sh ]; then
	step "bench: the harness's resume, skip and budget logic on the host (stand-in guest)"
	rm -f build/test/bench.results
	if bench/selftest.sh 2>&1 | tee build/test/bench.log; then :; fi
	line=$(grep -E '\] [0-9]+ passed, [0-9]+ failed \(' build/test/bench.log | tail -n1 || true)
	if [ -n "$line" ]; then
		echo "$line" | sed -E 's/.*\] ([0-9]+) passed, ([0-9]+) failed.*/\1 \2 0/' > build/test/bench.results
	fi
	collect "bench harness selftest" build/test/bench.results
fi

if has fuzz && [ -n "${FUZZ_SECONDS:-}" ] && [ -f oci-hook/Makefile ]; then
	step "hook: fuzz targets, ${FUZZ_SECONDS}s each"
	if make -s -C oci-hook fuzz FUZZ_SECONDS="$FUZZ_SECONDS" 2>&1 | tee build/test/fuzz.log; then
		echo "1 0 0" > build/test/fuzz.results
	else
		echo "0 1 0" > build/test/fuzz.results
	fi
	collect "hook fuzzing" build/test/fuzz.results
fi

if has hook && [ -x oci-hook/tests/guest/runc-check.sh ]; then
	step "guest: the hook under real runc, containerd installer and podman ($kvariant kernel)"
	rundir=build/test/run-hook
	rm -rf "$rundir"
	vm/run.sh --kernel "$kvariant" --timeout 600 --run-dir "$rundir" --disk size=1G \
		-- /ioweight/vm/tap-runner.sh -r "/ioweight/$rundir/results" \
		/ioweight/oci-hook/tests/guest/runc-check.sh || true
	collect "hook in the guest" "$rundir/results"
fi

if has hook && [ -x oci-hook/tests/guest/systemd-check.sh ]; then
	step "guest: the hook under the systemd cgroup driver, systemd as PID 1 ($kvariant kernel)"
	rundir=build/test/run-hook-systemd
	rm -rf "$rundir"
	vm/run.sh --systemd --kernel "$kvariant" --timeout 600 --run-dir "$rundir" --disk size=1G \
		-- /ioweight/vm/tap-runner.sh -r "/ioweight/$rundir/results" \
		/ioweight/oci-hook/tests/guest/systemd-check.sh || true
	collect "hook under systemd in the guest" "$rundir/results"
fi

if has kernel; then
	step "guest: kernel tests on the $kvariant kernel (KUnit + kernel/tests)"
	rundir=build/test/run-kernel
	rm -rf "$rundir"
	vm/run.sh --kernel "$kvariant" --timeout 1500 --run-dir "$rundir" \
		--disk size=1G,iops=1000,iops-size=4096 \
		--nullb "nr_devices=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2" \
		-- /ioweight/vm/tap-runner.sh -r "/ioweight/$rundir/results" /ioweight/kernel/tests || true
	collect "guest kernel tests" "$rundir/results"
fi

if has stress && [ -d kernel/tests/stress ]; then
	step "guest: stress on the debug kernel"
	kernel/scripts/build.sh debug
	rundir=build/test/run-stress
	rm -rf "$rundir"
	vm/run.sh --kernel debug --timeout 1500 --run-dir "$rundir" \
		--disk size=1G,iops=1000,iops-size=4096 \
		--nullb "nr_devices=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2" \
		-- /ioweight/vm/tap-runner.sh -r "/ioweight/$rundir/results" /ioweight/kernel/tests/stress || true
	collect "debug-kernel stress" "$rundir/results"
fi

if has kconfig && [ -x kernel/scripts/deb.sh ]; then
	step "kernel: the series' code compiled with Debian's full configuration"
	if kernel/scripts/deb.sh --touched-only 2>&1 | tee build/test/kconfig.log; then
		echo "1 0 0" > build/test/kconfig.results
	else
		echo "0 1 0" > build/test/kconfig.results
	fi
	collect "Debian-config compile of block/ and kernel/bpf/" build/test/kconfig.results
fi

if has e2e && [ -x e2e/run.sh ]; then
	step "guest: e2e suite (containerd + hook + pods)"
	rm -f build/test/e2e.results
	if e2e/run.sh --results build/test/e2e.results; then :; fi
	collect "e2e" build/test/e2e.results
fi

if has deploy && [ -x deploy/tests/stage.sh ]; then
	step "deploy: Kubernetes manifests, the hook .deb (lintian), the installer image, the .deb in the guest"
	rm -f build/test/deploy.results
	if nice -n 10 deploy/tests/stage.sh --kernel "$kvariant" --results build/test/deploy.results; then :; fi
	collect "deploy" build/test/deploy.results
fi

step "done in $(( $(date +%s) - t0 ))s"
echo "$pass passed, $fail failed, $skip skipped, $todo todo"
[ "$fail" = 0 ]
