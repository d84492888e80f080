#!/usr/bin/env bash
# KUnit suites built into the guest kernel run at boot and print KTAP on the
# console; report each top-level suite result as one TAP line here so that a
# failing KUnit suite fails `make test`.
source /ioweight/vm/tap.sh

log=$(mktemp)
dmesg | sed -E 's/^\[[ 0-9.]+\] ?//' > "$log"
suites=$(grep -cE '^    # Subtest: ' "$log")
[ "$suites" -gt 0 ] || tap_skip_all "no KUnit output in dmesg (kernel built without KUnit suites)"

# top-level results are the unindented "ok N name" / "not ok N name" lines
while IFS= read -r line; do
	name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ (- )?//')
	case $line in
	"not ok"*)
		tap_fail "kunit suite $name" "$(grep -E '^    (not ok|# )' "$log" | head -n 20)" ;;
	*"# SKIP"*) tap_skip "kunit suite $name" "skipped by KUnit" ;;
	*) tap_ok "kunit suite $name" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' "$log")
cases=$(grep -cE '^    ok [0-9]+ ' "$log")
failed=$(grep -cE '^    not ok [0-9]+ ' "$log")
echo "# KUnit: $suites suites, $cases test cases passed, $failed failed"
tap_done
