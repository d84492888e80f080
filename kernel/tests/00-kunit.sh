#!/usr/bin/env bash
# KUnit suites built into the guest kernel run at boot and print KTAP on the
# console; report each top-level suite result as one TAP line here so that a
# failing KUnit suite fails `make test`. A kernel whose config has KUnit test
# suites (CONFIG_*_KUNIT_TEST=y in /proc/config.gz) but whose log has no KTAP,
# or fewer suite results than its KTAP plan, fails: the suites did not run.
set -euo pipefail
source /ioweight/vm/tap.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
dmesg | sed -E 's/^\[[ 0-9.]+\] ?//' > "$log"
suites=$(grep -cE '^    # Subtest: ' "$log" || true)

# the KUnit test options the kernel was built with (empty when it has none,
# or when it cannot say: no /proc/config.gz)
built=""
if [ -r /proc/config.gz ]; then
	built=$(zcat /proc/config.gz | grep -oE '^CONFIG_[A-Z0-9_]+_KUNIT_TEST=y' | cut -d= -f1 | tr '\n' ' ' || true)
fi

if [ "$suites" = 0 ]; then
	if [ -z "$built" ]; then
		why="no /proc/config.gz to say whether it has any"
		[ ! -r /proc/config.gz ] || why="its config has no CONFIG_*_KUNIT_TEST=y"
		tap_skip_all "no KUnit output in dmesg and the kernel has no KUnit suites ($why)"
	fi
	tap_plan 1
	tap_fail "KUnit printed KTAP" "the kernel was built with ${built% } but dmesg has no KUnit suite (kunit.enable=0 on the command line, or the log overwritten?)"
	tap_done
	exit
fi

# top-level results are the unindented "ok N name" / "not ok N name" lines
results=0
while IFS= read -r line; do
	results=$((results + 1))
	name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ (- )?//')
	case $line in
	"not ok"*)
		tap_fail "kunit suite $name" "$(grep -E '^    (not ok|# )' "$log" | head -n 20)" ;;
	*"# SKIP"*) tap_skip "kunit suite $name" "skipped by KUnit" ;;
	*) tap_ok "kunit suite $name" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' "$log")
# KUnit's top-level plan ("1..N" before the first suite): every suite reported
planned=$(grep -m1 -oE '^1\.\.[0-9]+$' "$log" | cut -d. -f3 || true)
if [ -n "$planned" ]; then
	tap_eq "every KUnit suite of the plan reported a result" "$planned" "$results"
fi
cases=$(grep -cE '^    ok [0-9]+ ' "$log" || true)
failed=$(grep -cE '^    not ok [0-9]+ ' "$log" || true)
echo "# KUnit: $suites suites, $cases test cases passed, $failed failed${built:+; built with ${built% }}"
tap_done
