#!/bin/bash
# installer-check.sh - the installer DaemonSet's pod in the QEMU guest, run by
# the guest's containerd from the installer image with the manifest's own
# fields (hostPath mounts, privileged, hostPID, env, the ConfigMap's files as
# the kubelet projects them), translated to `ctr run` by
# deploy/tests/pod-to-ctr.py on the host (OUT=build/deploy/pod). The guest has
# no systemd: containerd runs under a restart loop and the pod restarts it
# with CONTAINERD_RESTART=kill. Prints TAP.
#
#   1. the pod installs the hook into the guest's containerd and restarts it;
#   2. a container started through the installed wrapper gets its weight;
#   3. SIGTERM (pod deletion) uninstalls: containerd's files are byte for
#      byte what they were, and nothing the pod placed is left.
set -uo pipefail

SRC=${IOWEIGHT_SRC:-/ioweight}
OUT=$SRC/build/deploy/pod
ARCHIVE=$SRC/build/deploy/installer-image.oci.tar
NS=k8s.io
CG=/sys/fs/cgroup
n=0 failed=0

check() {	# check "description" command...
	local what=$1; shift
	n=$((n + 1))
	if "$@" > /tmp/check.out 2>&1; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"; failed=$((failed + 1))
		sed 's/^/#   /' /tmp/check.out | tail -n 15
	fi
}
bail() { echo "Bail out! $*"; [ ! -f /tmp/installer.log ] || sed 's/^/#   /' /tmp/installer.log | tail -n 20; exit 1; }
wait_for() {	# wait_for SECONDS command...: poll until true, at most SECONDS of wall time
	local deadline=$((SECONDS + $1)); shift
	until "$@" > /dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}
t_start=$SECONDS
stamp() { echo "# [+$((SECONDS - t_start))s] $*"; }
ctrd_pid() { pgrep -x containerd | head -n 1; }
# the node's files the installer may touch, with their contents
snapshot() {
	{ find /etc/containerd /etc/ioweight /usr/local -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum 2>/dev/null
	  find /etc/containerd /etc/ioweight /usr/local 2>/dev/null | sort; } > "$1"
}

[ -f "$OUT/ctr-args" ] && [ -f "$ARCHIVE" ] ||
	{ echo "1..0 # SKIP no $OUT/ctr-args or $ARCHIVE (deploy/tests/stage.sh makes them)"; exit 0; }
echo "1..12"

# containerd under a restart loop, as systemd would keep it
( while [ ! -e /tmp/stop-containerd ]; do containerd >> /var/log/containerd.log 2>&1; sleep 0.2; done ) &
wait_for 30 ctr version || bail "containerd not ready after 30 s"
image=$(cat "$OUT/image")
t0=$(date +%s%N)
ctr -n $NS images import "$ARCHIVE" > /tmp/import.log 2>&1 ||
	{ cat /tmp/import.log; bail "ctr images import failed"; }
stamp "imported $image in $(( ($(date +%s%N) - t0) / 1000000 )) ms"

mkdir -p /etc/ioweight
snapshot /tmp/before
pid0=$(ctrd_pid)

# the pod, from the manifest's fields
args=()
while IFS= read -r a; do
	a=${a//@CONFIGMAP@/$OUT/configmap}
	a=${a//@NODENAME@/$(hostname)}
	a=${a//@IMAGE@/$image}
	a=${a//@NAME@/ioweight-installer}
	args+=("$a")
done < "$OUT/ctr-args"
while IFS= read -r d; do mkdir -p "$d"; done < "$OUT/mkdirs"
state=$(awk '$1 == "state" { print "/run/ioweight-test/state" }' "$OUT/emptydirs")
[ -n "$state" ] || bail "the DaemonSet has no emptyDir named state for the readiness file"
stamp "ctr run ${args[*]}"
ctr -n $NS run -d --log-uri "file:///tmp/installer.log" "${args[@]}" > /tmp/run.out 2>&1 ||
	{ cat /tmp/run.out; bail "ctr run of the installer failed"; }

if wait_for 120 test -f "$state/ready"; then
	echo "ok $((n += 1)) - the installer pod becomes ready"
else
	echo "not ok $((n += 1)) - the installer pod becomes ready"; failed=$((failed + 1))
fi
stamp "the installer pod is ready"
sed 's/^/#   | /' /tmp/installer.log
check "the hook is on the node at /usr/local/bin/ioweight-hook" /usr/local/bin/ioweight-hook version
check "the ConfigMap's file is in /etc/ioweight/conf.d" cmp "$OUT/configmap/50-default.json" /etc/ioweight/conf.d/50-default.json
check "containerd was restarted (new pid)" bash -c "p=\$(pgrep -x containerd | head -n1); [ -n \"\$p\" ] && [ \"\$p\" != '$pid0' ]"
check "the restarted containerd has the ioweight runtime handler" \
	bash -c "ctr version > /dev/null && containerd config dump | grep -q 'runtimes.ioweight'"
check "the installer pod survived the containerd restart" \
	bash -c "ctr -n $NS task ls | grep -q '^ioweight-installer .*RUNNING'"

# the next container, through the wrapper the pod installed
stamp "a container through the wrapper"
mkdir -p $CG/demo
ctr -n $NS run -d --runc-binary /usr/local/sbin/ioweight-runc --cgroup /demo/w1 \
	--annotation ioweight.dev/weight=500 "$image" w1 sleep 60 > /tmp/w1.out 2>&1
check "a container through the installed wrapper starts" bash -c "ctr -n $NS task ls | grep -q '^w1 .*RUNNING' || { cat /tmp/w1.out; false; }"
check "it gets io.weight default 500 from its annotation" grep -qx "default 500" $CG/demo/w1/io.weight
ctr -n $NS task kill -s KILL w1 > /dev/null 2>&1
wait_for 20 bash -c "! ctr -n $NS task ls | grep -q '^w1 '"
ctr -n $NS task rm w1 > /dev/null 2>&1; ctr -n $NS containers rm w1 > /dev/null 2>&1

# pod deletion: SIGTERM, bounded wait for the task to stop
stamp "SIGTERM to the installer pod"
pid1=$(ctrd_pid)
ctr -n $NS task kill -s TERM ioweight-installer > /dev/null 2>&1
if wait_for 120 bash -c "ctr -n $NS task ls | grep -q '^ioweight-installer .*STOPPED'"; then
	echo "ok $((n += 1)) - the installer pod stops on SIGTERM"
else
	echo "not ok $((n += 1)) - the installer pod stops on SIGTERM"; failed=$((failed + 1))
fi
stamp "the installer pod stopped"
sed 's/^/#   | /' /tmp/installer.log | tail -n 12
check "containerd was restarted after the uninstall" \
	bash -c "p=\$(pgrep -x containerd | head -n1); [ -n \"\$p\" ] && [ \"\$p\" != '$pid1' ]"
wait_for 60 ctr version
snapshot /tmp/after
check "containerd's files and /usr/local, /etc/ioweight are byte-identical to before" diff /tmp/before /tmp/after
check "the restarted containerd has no ioweight handler" \
	bash -c "! containerd config dump | grep -q ioweight"
ctr -n $NS task rm ioweight-installer > /dev/null 2>&1; ctr -n $NS containers rm ioweight-installer > /dev/null 2>&1
touch /tmp/stop-containerd
pkill -x containerd

echo "# installer-check: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
