#!/usr/bin/env bash
# Host side: build the kernel tree's own cgroup selftests (test_core,
# test_freezer, test_kill) from build/linux into build/selftests/cgroup/, for
# kernel/tests/20-cgroup-selftests.sh to run in the guest. The host's glibc is
# the guest's (both Debian bookworm), so plain dynamic binaries work there.
#
#   kernel/tests/lib/build-selftests.sh [KERNEL_TREE [OUT_DIR]]
# Rebuilds only when a source is newer than its binary.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
tree=${1:-$top/build/linux}
out=${2:-$top/build/selftests/cgroup}
src=$tree/tools/testing/selftests/cgroup
tests=(test_core test_freezer test_kill)

check_tree() {
	[ -f "$src/cgroup_util.c" ] || {
		echo "build-selftests: no cgroup selftests in $tree (run kernel/scripts/tree.sh first)" >&2
		exit 1
	}
}

# build_one NAME: compile NAME.c with cgroup_util.c, as the selftest Makefile does
build_one() {
	local t=$1 bin=$out/$1
	if [ -x "$bin" ] && [ "$bin" -nt "$src/$t.c" ] && [ "$bin" -nt "$src/cgroup_util.c" ]; then
		return 0
	fi
	echo "build-selftests: $t"
	gcc -O2 -Wall -pthread -I "$tree/tools/include" -I "$tree/usr/include" \
		-o "$bin.tmp" "$src/$t.c" "$src/cgroup_util.c"
	mv "$bin.tmp" "$bin"
}

check_tree
mkdir -p "$out"
for t in "${tests[@]}"; do
	build_one "$t"
done
echo "build-selftests: ${tests[*]} in $out"
