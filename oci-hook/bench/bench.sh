#!/bin/bash
# bench.sh HOOK - wall time of one prestart invocation on this host.
# Builds a fake cgroupfs/procfs in a temp dir (real /sys and /dev are only
# read), a kubelet-style pod, a config with classes, limits and a file log,
# and runs the production binary (seccomp on) N times through hookbench,
# each run followed by /bin/true as the baseline.
set -euo pipefail

HOOK=${1:?usage: bench.sh /path/to/ioweight-hook}
N=${N:-500}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(dirname "$HOOK")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

build_bench() {
	gcc -O2 -Wall -Wextra -Werror -o "$BUILD/hookbench" "$HERE/hookbench.c"
}

make_tree() {
	local pod=/kubepods/burstable/pod0a1b2c3d-0000-1111-2222-333344445555
	mkdir -p "$T/cg$pod/ctr1" "$T/proc/4242" "$T/conf"
	for d in "$T/cg" "$T/cg/kubepods" "$T/cg/kubepods/burstable" "$T/cg$pod"; do
		echo "cpu io memory" > "$d/cgroup.subtree_control"
	done
	: > "$T/cg/io.weight.cost_model"; : > "$T/cg/io.weight.qos"
	echo "default 100" > "$T/cg$pod/io.weight"
	echo "default 100" > "$T/cg$pod/ctr1/io.weight"
	echo "0::$pod/ctr1" > "$T/proc/4242/cgroup"
	cat > "$T/conf/10-bench.json" <<JSON
{ "ioweightVersion": "1.0.0", "name": "bench",
  "log": { "target": "file", "path": "$T/hook.log" },
  "classes": { "high": { "weight": 500 }, "low": { "weight": 25 } },
  "limits": { "minWeight": 10, "maxWeight": 1000 } }
JSON
	cat > "$T/state.json" <<JSON
{"ociVersion":"1.0.2","id":"bench1","status":"created","pid":4242,"bundle":"/nonexistent",
 "annotations":{"io.kubernetes.cri.container-type":"container","io.kubernetes.cri.sandbox-id":"sb1",
 "io.kubernetes.cri.container-name":"app","ioweight.dev/class":"high","ioweight.dev/container.app":"300"}}
JSON
}

main() {
	echo "bench: building hookbench"
	build_bench
	make_tree
	echo "bench: $N invocations of $HOOK prestart (seccomp on, file log), each followed by /bin/true"
	# /bin/true through the same harness, run by run: what a container
	# start pays for the hook beyond any fork and exec, under the same load
	"$BUILD/hookbench" "$N" "$T/state.json" --baseline /bin/true "$HOOK" prestart \
		--config-dir "$T/conf" --cgroup-root "$T/cg" --proc-root "$T/proc"
	echo "bench: last log line: $(tail -1 "$T/hook.log")"
}

main
