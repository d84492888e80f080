#!/usr/bin/env bash
# Guest-side TAP runner: run every test (executable files, sorted) found in
# the given directories or files, pass their TAP through with the test name
# prefixed, and summarise. A test that exits non-zero without reporting a
# failure, or that reports fewer results than it planned, counts as failed.
#
#   tap-runner.sh [-r RESULTS_FILE] [-t PER_TEST_TIMEOUT] DIR|FILE...
# Prints "tap-runner: N passed, N failed, N skipped, N todo" and exits 1 on
# failures. "not ok ... # TODO" lines are known failures: counted apart, in
# the summary and in the results file ("PASSED FAILED SKIPPED TODO").
set -uo pipefail

results="" per_test=900
while getopts r:t: o; do
	case $o in
	r) results=$OPTARG ;;
	t) per_test=$OPTARG ;;
	*) echo "usage: tap-runner.sh [-r FILE] [-t SEC] DIR|FILE..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

tests=()
for a in "$@"; do
	if [ -d "$a" ]; then
		while IFS= read -r f; do tests+=("$f"); done < <(find "$a" -maxdepth 1 -type f -perm -u+x | sort)
	else
		tests+=("$a")
	fi
done

pass=0 fail=0 skip=0 todo=0
for t in "${tests[@]}"; do
	name=${t#/ioweight/}
	echo "# ---- $name ($(date +%H:%M:%S))"
	out=$(mktemp)
	timeout -k 5 "$per_test" "$t" 2>&1 | tee "$out" | sed "s|^|[$(basename "$t")] |"
	rc=${PIPESTATUS[0]}
	p=$(grep -cE '^ok [0-9]+' "$out" | head -1)
	s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$out" | head -1)
	f=$(grep -E '^not ok [0-9]+' "$out" | grep -cvE '# *TODO' | head -1)
	td=$(grep -cE '^not ok [0-9]+.*# *TODO' "$out" | head -1)
	todo=$((todo + td))
	planned=$(grep -m1 -oE '^1\.\.[0-9]+' "$out" | cut -d. -f3)
	p=$((p - s))
	if grep -qE '^1\.\.0 *# *SKIP' "$out"; then
		s=$((s + 1))
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "not ok - $name timed out after ${per_test}s"; f=$((f + 1))
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name exited $rc without reporting a failure"; f=$((f + 1))
	elif [ -n "$planned" ] && [ $((p + s + f + td)) -lt "$planned" ]; then
		# a TODO line is a result too, only not a failure
		echo "not ok - $name planned $planned results but reported $((p + s + f + td))"; f=$((f + 1))
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	rm -f "$out"
done
summary="$pass passed, $fail failed, $skip skipped, $todo todo"
[ "$todo" = 0 ] || echo "tap-runner: $todo known failures (TAP TODO) not counted as failed"

echo "tap-runner: $summary"
[ -z "$results" ] || echo "$pass $fail $skip $todo" > "$results"
[ "$fail" = 0 ] && [ "${#tests[@]}" -gt 0 ]
