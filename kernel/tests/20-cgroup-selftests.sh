#!/usr/bin/env bash
# The kernel tree's own cgroup selftests (test_core, test_freezer, test_kill
# from tools/testing/selftests/cgroup), built on the host into
# build/selftests/cgroup by kernel/tests/lib/build-selftests.sh. Each
# selftest result becomes one TAP line here.
#
# A binary with a failed case runs a second time, and a case fails only if
# it fails in both runs: some upstream cases check a cgroup's state once,
# right after changing it, and race with the kernel on an SMP guest (e.g.
# test_cgfreezer_ptrace: "cg_test_ptrace isn't frozen", seen once in a
# 2-vCPU run here; kernelci reports the same flakiness for its siblings).
# A real regression fails both runs; a race passing the second time is
# reported with its first failure as a comment.
source /ioweight/vm/tap.sh

bindir=${SELFTEST_BIN:-/ioweight/build/selftests/cgroup}

# Upstream cases known to fail on this kernel and guest, reported as TAP
# TODO (not counted as failures) until investigated. test_cgfreezer_ptrace
# fails in both runs of the CI's full `make test` since the guest has two
# vCPUs ("cg_test_ptrace isn't frozen" after PTRACE_INTERRUPT of a frozen
# task), passes when the test runs alone, and involves no IO: a freezer /
# ptrace interaction of Debian's 6.1, not of the IO controller.
known_failing=" test_freezer:test_cgfreezer_ptrace "

tests=(test_core test_freezer test_kill)

for t in "${tests[@]}"; do
	[ -x "$bindir/$t" ] || tap_skip_all "$bindir/$t missing: run kernel/tests/lib/build-selftests.sh on the host"
done

# run_selftest NAME: run one binary (bounded) and translate its ok/not ok
# lines; a binary with failures runs once more (see the top)
run_selftest() {
	local t=$1 out rc line name first="" again
	out=$(mktemp)
	(cd /tmp && timeout -k 5 300 "$bindir/$t") > "$out" 2>&1
	rc=$?
	if grep -qE '^not ok' "$out"; then
		first=$(mktemp)
		mv "$out" "$first"
		echo "# $t: $(grep -cE '^not ok' "$first") failed case(s); running it again"
		grep -v 'waitpid !WIFEXITED' "$first" | grep -E '^(#|not ok)' | tail -n 20 | sed 's/^/# first run: /'
		(cd /tmp && timeout -k 5 300 "$bindir/$t") > "$out" 2>&1
		rc=$?
	fi
	# the selftest's own log only when something failed (it is chatty)
	if grep -qE '^not ok' "$out" || ! grep -qE '^ok' "$out"; then
		grep -v 'waitpid !WIFEXITED' "$out" | tail -n 40 | sed 's/^/# /'
	else
		grep -E '^# Totals' "$out" | sed "s/^/# $t: /" || true
	fi
	while IFS= read -r line; do
		name=$(sed -E 's/^(not )?ok [0-9]+ (- )?//; s/ *# *SKIP.*//' <<< "$line")
		case $line in
		*"# SKIP"* | *"# skip"*) tap_skip "$t: $name" "skipped by the selftest" ;;
		"not ok"*)
			if [[ $known_failing == *" $t:$name "* ]]; then
				tap_todo "$t: $name" "known upstream failure on SMP guests (see the top of this file)"
			else
				tap_fail "$t: $name"
			fi ;;
		*)
			again=""
			[ -z "$first" ] || ! grep -qE "^not ok [0-9]+ (- )?$name\$" "$first" ||
				again=" (failed the first run, passed the second)"
			tap_ok "$t: $name$again" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+' "$out")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		tap_fail "$t finished" "timed out after 300 s"
	elif ! grep -qE '^(not )?ok [0-9]+' "$out"; then
		tap_fail "$t reported results" "exit status $rc, no ok/not ok lines"
	fi
	rm -f "$out" ${first:+"$first"}
}

for t in "${tests[@]}"; do
	run_selftest "$t"
done
tap_done
