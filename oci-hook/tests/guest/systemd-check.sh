#!/bin/bash
# systemd-check.sh - ioweight-hook under the systemd cgroup driver, in the
# QEMU guest booted with systemd as PID 1 (vm/run.sh --systemd, one data
# disk /dev/vdb). Prints TAP.
#
# A container created by real runc with --systemd-cgroup in a kubelet-style
# pod slice (kubepods-burstable-pod<uid>.slice:cri-containerd:<id>), the
# hook in its prestart: the weights land on the units (systemctl show) and
# in the files, and are still there after `systemctl daemon-reload`. The
# control: a weight written only to the file is gone after daemon-reload,
# so the check above could fail. The hook ran sandboxed, its only socket
# the manager's, and a cgroupsPath naming another scope is refused.
# podman with its systemd cgroup manager: a container's weight goes to its
# libpod-<id>.scope; one claiming to be a pod sandbox in machine.slice does
# not start and leaves machine.slice alone.
# Last, a node without udev (no /dev/block links, as in kind's nodes): the
# hook names the disk /dev/block/MAJ:MIN all the same, which systemd reads
# as a device number without looking for the link, and the device weight
# survives daemon-reload.
set -uo pipefail

HOOK=${HOOK:-/ioweight/build/hook/ioweight-hook}
CG=/sys/fs/cgroup
UID_=0a1b2c3d_0000_1111_2222_333344445555
POD_UNIT=kubepods-burstable-pod$UID_.slice
POD_CG=$CG/kubepods.slice/kubepods-burstable.slice/$POD_UNIT
ID=c0ffee01
SCOPE=cri-containerd-$ID.scope
LOG=/tmp/ioweight-hook.log
n=0 failed=0

check() {	# check "description" command...
	local what=$1; shift
	n=$((n + 1))
	if "$@" > /dev/null 2>&1; then echo "ok $n - $what"; else echo "not ok $n - $what"; failed=$((failed + 1)); fi
}
step() { echo "# $*"; }
# "IOWeight=300" from systemctl show
prop() { systemctl show -p "$2" --value "$1"; }

write_config() {
	mkdir -p /etc/ioweight/conf.d
	cat > /etc/ioweight/conf.d/10-check.json <<JSON
{"ioweightVersion":"1.0.0","name":"systemd-check","log":{"target":"file","path":"$LOG"},
 "devices":[{"match":"/dev/vdb","podWeights":true}]}
JSON
	check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
	check "the manager is up" systemctl is-system-running --wait
	check "validate accepts the config" "$HOOK" validate /etc/ioweight/conf.d
}

# bundle: a read-only rootfs of the guest's /usr, the hook as prestart
make_bundle() {	# make_bundle DIR CGROUPS_PATH [VDB_WEIGHT]
	local b=$1 r=/tmp/rootfs
	mkdir -p $r/usr $r/proc $r/dev $r/sys $r/tmp "$b"
	for d in bin lib lib64 sbin; do ln -sfn usr/$d $r/$d; done
	mountpoint -q $r/usr || mount --bind /usr $r/usr
	(cd "$b" && rm -f config.json && runc spec)
	B=$b CP=$2 DW=${3:-800} HOOK=$HOOK python3 - <<'PY'
import json, os
p = os.environ['B'] + '/config.json'
c = json.load(open(p))
c['root'] = {'path': '/tmp/rootfs', 'readonly': True}
c['process'].update(args=['sleep', '60'], terminal=False)
c['annotations'] = {'io.kubernetes.cri.container-name': 'app', 'ioweight.dev/weight': '500',
                    'ioweight.dev/container.app': '300', 'ioweight.dev/device-weights': '/dev/vdb=' + os.environ['DW']}
c['linux']['cgroupsPath'] = os.environ['CP']
c['mounts'] = [m for m in c['mounts'] if m['destination'] != '/sys']
c['hooks'] = {'prestart': [{'path': os.environ['HOOK'], 'args': ['ioweight-hook', 'prestart']}]}
json.dump(c, open(p, 'w'))
PY
}

pod_through_systemd() {
	make_bundle /tmp/b1 "$POD_UNIT:cri-containerd:$ID"
	: > $LOG
	check "runc --systemd-cgroup create with the hook" runc --systemd-cgroup create --bundle /tmp/b1 $ID
	sed 's/^/# log: /' $LOG
	check "the container is the unit $SCOPE" systemctl is-active $SCOPE
	check "scope IOWeight=300 in systemd" test "$(prop $SCOPE IOWeight)" = 300
	check "pod slice IOWeight=500 in systemd" test "$(prop $POD_UNIT IOWeight)" = 500
	check "pod slice IODeviceWeight /dev/block/254:16 800 in systemd" \
		test "$(prop $POD_UNIT IODeviceWeight)" = "/dev/block/254:16 800"
	check "scope io.weight default 300" grep -qx "default 300" $POD_CG/$SCOPE/io.weight
	check "pod io.weight default 500" grep -qx "default 500" $POD_CG/io.weight
	check "pod io.weight 254:16 800" grep -qx "254:16 800" $POD_CG/io.weight
	check "the hook says it set both units through systemd" \
		test "$(grep -c 'through systemd' $LOG)" = 2
	check "the hook ran sandboxed (no 'unsandboxed' in the log)" bash -c "! grep -q unsandboxed $LOG"

	step "systemctl daemon-reload"
	systemctl daemon-reload
	check "after daemon-reload: scope io.weight default 300" grep -qx "default 300" $POD_CG/$SCOPE/io.weight
	check "after daemon-reload: pod io.weight default 500" grep -qx "default 500" $POD_CG/io.weight
	check "after daemon-reload: pod io.weight 254:16 800" grep -qx "254:16 800" $POD_CG/io.weight

	# the control: what a file-only write (the cgroupfs path) would leave
	echo "default 77" > $POD_CG/$SCOPE/io.weight
	check "control: a file write lands (default 77)" grep -qx "default 77" $POD_CG/$SCOPE/io.weight
	systemctl daemon-reload
	check "control: daemon-reload puts the unit's weight back over it" \
		grep -qx "default 300" $POD_CG/$SCOPE/io.weight
	runc delete -f $ID
}

# a cgroupsPath naming another scope than the one the container runs in
wrong_scope() {
	local sp
	systemd-run --quiet --unit=cri-containerd-ab12.scope --scope --slice=$POD_UNIT -p IOAccounting=yes \
		sleep 120 & sp=$!
	for _ in $(seq 50); do systemctl is-active -q cri-containerd-ab12.scope && break; sleep 0.2; done
	make_bundle /tmp/b2 "$POD_UNIT:cri-containerd:cd34"
	cat > /tmp/b2-state.json <<JSON
{"ociVersion":"1.0.2","id":"cd34","pid":$sp,"bundle":"/tmp/b2","annotations":{"ioweight.dev/weight":"900"}}
JSON
	check "a cgroupsPath naming another scope is refused" \
		bash -c "'$HOOK' prestart < /tmp/b2-state.json 2>&1 | grep -q 'but the container runs in'"
	check "... and the scope's weight is untouched" test "$(prop cri-containerd-ab12.scope IOWeight)" = "[not set]"
	kill $sp 2> /dev/null
	wait $sp 2> /dev/null
}

podman_systemd() {
	local f=/usr/share/containers/oci/hooks.d/ioweight-hook.json id before
	check "podman install" "$HOOK" install --runtime podman
	timeout 120 podman --log-level=error run -d --name p1 --network none --cgroup-manager systemd \
		--annotation ioweight.dev/weight=600 --rootfs /tmp/rootfs sleep 60 > /dev/null
	id=$(podman inspect -f '{{.Id}}' p1 2>/dev/null)
	check "podman (systemd manager): libpod-<id>.scope IOWeight=600 in systemd" \
		test "$(prop libpod-$id.scope IOWeight)" = 600
	check "... and its io.weight default 600" grep -qx "default 600" $CG/machine.slice/libpod-$id.scope/io.weight
	podman rm -f -t 0 p1 > /dev/null 2>&1
	before=$(cat $CG/machine.slice/io.weight)
	check "podman container claiming to be a sandbox in machine.slice does not start" \
		bash -c "! timeout 120 podman --log-level=error run --rm --name p2 --network none --cgroup-manager systemd \
		--annotation io.kubernetes.cri.container-type=sandbox --annotation io.kubernetes.cri.sandbox-id=libpod \
		--annotation ioweight.dev/weight=1000 --rootfs /tmp/rootfs true"
	check "... refused by the hook, which says why" \
		grep -q 'cgroup /machine.slice/libpod-[0-9a-f]*.scope is not a container of a kubelet pod cgroup' $LOG
	check "... machine.slice io.weight untouched" test "$(cat $CG/machine.slice/io.weight)" = "$before"
	check "... machine.slice has no IOWeight in systemd" test "$(prop machine.slice IOWeight)" = "[not set]"
	podman rm -f -t 0 p2 > /dev/null 2>&1
	check "podman uninstall" "$HOOK" install --runtime podman --uninstall
	check "hooks.d entry removed" test ! -e $f
}

# udev stopped and its links gone; another pod, so that nothing is left
# from the first one's units
without_udev() {
	local uid=0a1b2c3d_0000_1111_2222_999944445555 id=c0ffee02 unit cg
	unit=kubepods-burstable-pod$uid.slice
	cg=$CG/kubepods.slice/kubepods-burstable.slice/$unit
	step "udev stopped, /dev/block removed"
	systemctl stop systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket
	rm -rf /dev/block
	check "no udev: /dev/block is gone" test ! -e /dev/block
	make_bundle /tmp/b3 "$unit:cri-containerd:$id" 700
	: > $LOG
	check "no udev: runc --systemd-cgroup create with the hook" runc --systemd-cgroup create --bundle /tmp/b3 $id
	sed 's/^/# log: /' $LOG
	check "no udev: pod slice IODeviceWeight /dev/block/254:16 700 in systemd" \
		test "$(prop $unit IODeviceWeight)" = "/dev/block/254:16 700"
	check "no udev: pod io.weight 254:16 700" grep -qx "254:16 700" $cg/io.weight
	# the control: systemd, not the hook's write, puts it back
	echo "254:16 5" > $cg/io.weight
	check "no udev, control: a file write lands (254:16 5)" grep -qx "254:16 5" $cg/io.weight
	step "systemctl daemon-reload"
	systemctl daemon-reload
	check "no udev, after daemon-reload: pod io.weight 254:16 700 again" grep -qx "254:16 700" $cg/io.weight
	runc delete -f $id
}

main() {
	write_config
	pod_through_systemd
	wrong_scope
	podman_systemd
	without_udev
	echo "1..$n"
	echo "# hook systemd-check: $((n - failed)) passed, $failed failed"
	[ $failed -eq 0 ]
}

main
