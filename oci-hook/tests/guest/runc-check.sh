#!/bin/bash
# runc-check.sh - ioweight-hook on a real kernel, cgroup2 and runc, in the
# QEMU guest (run by `make -C oci-hook guest-check`, which boots it with
# vm/run.sh and one data disk /dev/vdb). Prints TAP.
#
# 1. prestart on a kubelet-style pod: pod and container io.weight, the root
#    cost model/QoS from a device profile, idempotence, a bad annotation,
#    the sandbox (Landlock applied) and its refusals: a
#    device the config does not list, a cgroup that is not cgroup2, a
#    shared parent claimed as a pod;
# 1b. Landlock on this kernel (the production sandbox.c through
#    sandbox-probe): a write open that seccomp lets through outside
#    /sys/fs/cgroup, and reads outside the config, fail with EACCES;
# 2. `install --runtime containerd` on Debian's stock config, a container
#    created by real runc through the installed wrapper, uninstall restoring
#    the config byte for byte; 3. podman (crun) running the hook from hooks.d.
set -uo pipefail

HOOK=${HOOK:-/ioweight/build/hook/ioweight-hook}
CG=/sys/fs/cgroup
POD=/kubepods/burstable/pod0a1b2c3d-0000-1111-2222-333344445555
LOG=/tmp/ioweight-hook.log
n=0 failed=0

check() {	# check "description" command...
	local what=$1; shift
	n=$((n + 1))
	if "$@" > /dev/null 2>&1; then echo "ok $n - $what"; else echo "not ok $n - $what"; failed=$((failed + 1)); fi
}
step() { echo "# $*"; }

write_config() {
	local kf='"kernelFiles":{"costModel":"io.cost.model","qos":"io.cost.qos"},'
	[ -e $CG/io.weight.cost_model ] && kf=''
	step "kernel $(uname -r); root files: $(cd $CG && echo io.*)"
	mkdir -p /etc/ioweight/conf.d
	cat > /etc/ioweight/conf.d/10-check.json <<JSON
{"ioweightVersion":"1.0.0","name":"guest-check","log":{"target":"file","path":"$LOG"},$kf
 "profiles":{"p":{"enable":true,
   "costModel":{"ctrl":"user","model":"linear","rbps":4096000,"rseqiops":1000,"rrandiops":1000,
                "wbps":4096000,"wseqiops":1000,"wrandiops":1000},
   "qos":{"ctrl":"user","rpct":95,"rlat":20000,"wpct":95,"wlat":40000,"min":50,"max":150}}},
 "devices":[{"match":"/dev/vdb","profile":"p","podWeights":true}]}
JSON
	check "validate accepts the config" "$HOOK" validate /etc/ioweight/conf.d
}

pod_prestart() {
	local sp
	mkdir -p $CG$POD/c1
	sleep 120 & sp=$!
	echo $sp > $CG$POD/c1/cgroup.procs
	cat > /tmp/state.json <<JSON
{"ociVersion":"1.0.2","id":"c1","pid":$sp,"bundle":"/tmp","annotations":{
 "io.kubernetes.cri.container-name":"app","ioweight.dev/weight":"500",
 "ioweight.dev/container.app":"300","ioweight.dev/device-weights":"/dev/vdb=800"}}
JSON
	"$HOOK" explain --state /tmp/state.json | sed 's/^/# /'
	check "prestart exits 0" "$HOOK" prestart < /tmp/state.json
	check "pod io.weight default 500" grep -qx "default 500" $CG$POD/io.weight
	check "pod io.weight 254:16 800" grep -qx "254:16 800" $CG$POD/io.weight
	check "container io.weight default 300" grep -qx "default 300" $CG$POD/c1/io.weight
	check "root cost model line" grep -q "^254:16 ctrl=user model=linear rbps=4096000 " $CG/io.*model
	check "root qos enabled" grep -q "^254:16 enable=1 ctrl=user rpct=95" $CG/io.*qos
	: > $LOG
	check "second prestart exits 0" "$HOOK" prestart < /tmp/state.json
	check "second prestart writes nothing" bash -c "! grep -q ' wrote ' $LOG"
	sed 's/"ioweight.dev\/weight":"500"/"ioweight.dev\/weight":"0"/' /tmp/state.json > /tmp/bad.json
	check "bad annotation exits 1 (failurePolicy fail)" bash -c "! '$HOOK' prestart < /tmp/bad.json"
	sed 's|/dev/vdb=800|/etc/shadow=800|' /tmp/state.json > /tmp/probe.json
	check "a device the config does not list is refused unseen" \
		bash -c "'$HOOK' prestart < /tmp/probe.json 2>&1 | grep -q 'shadow. is not a device the config lets pods weight'"
	check "... and the refusal is an error" bash -c "! '$HOOK' prestart < /tmp/probe.json"
	step "sandbox: $(grep -o 'Landlock is not available[^`]*' $LOG | head -1 || echo 'Landlock applied')"
	check "the hook applied Landlock (no 'Landlock is not available' in the log)" \
		bash -c "! grep -q 'Landlock is not available' $LOG"
	check "the hook ran sandboxed (no 'unsandboxed' in the log)" bash -c "! grep -q unsandboxed $LOG"
	kill $sp
}

# A podman container claiming to be a pod sandbox must not weight the
# slice it shares with every other container (issue found with
# io.kubernetes.cri.container-type=sandbox and a sandbox-id prefix).
shared_parent_claim() {
	local sp before
	mkdir -p $CG/machine.slice/libpod-abc.scope $CG/machine.slice/libpod-def.scope
	sleep 120 & sp=$!
	echo $sp > $CG/machine.slice/libpod-abc.scope/cgroup.procs
	before=$(cat $CG/machine.slice/io.weight)
	for sid in '' '"io.kubernetes.cri.sandbox-id":"libpod",' '"io.kubernetes.cri.sandbox-id":"libpod-def.scope",'; do
		cat > /tmp/claim.json <<JSON
{"ociVersion":"1.0.2","id":"abc","pid":$sp,"bundle":"/tmp","annotations":{
 "io.kubernetes.cri.container-type":"sandbox",$sid"ioweight.dev/weight":"1000"}}
JSON
		check "sandbox claim ${sid:-with its own id} in machine.slice is refused" bash -c "! '$HOOK' prestart < /tmp/claim.json"
	done
	check "machine.slice io.weight untouched" test "$(cat $CG/machine.slice/io.weight)" = "$before"
	kill $sp
	wait $sp 2> /dev/null
	rmdir $CG/machine.slice/libpod-abc.scope $CG/machine.slice/libpod-def.scope
}

# Landlock's denials, each one that seccomp alone would not stop: fails on
# a kernel without Landlock (the guest kernel must have it)
landlock_denials() {
	local probe=${HOOK%/*}/sandbox-probe out=/var/lib/ioweight/ll-outside
	mkdir -p $CG/lltest $out
	echo "untouched" > $out/victim
	"$probe" $CG/lltest $out /etc/ioweight/conf.d/10-check.json > /tmp/probe.out 2>&1
	sed 's/^/# probe: /' /tmp/probe.out
	check "Landlock is applied (ABI >= 1)" grep -qE '^landlock_abi [1-9]' /tmp/probe.out
	check "sandboxed: a write under /sys/fs/cgroup works" grep -qx 'write_cgroup OK' /tmp/probe.out
	check "sandboxed: reading its config works" grep -qx 'read_config OK' /tmp/probe.out
	check "Landlock: a write open outside /sys/fs/cgroup is denied (EACCES)" grep -qx 'write_outside EACCES' /tmp/probe.out
	check "Landlock: a read outside the config is denied (EACCES)" grep -qx 'read_outside EACCES' /tmp/probe.out
	check "Landlock: /etc/hostname is denied (EACCES)" grep -qx 'read_etc EACCES' /tmp/probe.out
	check "seccomp: a write open by path is denied (EPERM)" grep -qx 'write_by_path EPERM' /tmp/probe.out
	check "... and the file outside is untouched" test "$(cat $out/victim)" = untouched
	check "... and the cgroup write landed" grep -qx 'default 123' $CG/lltest/io.weight
	rmdir $CG/lltest
}

# The hook writes nothing on a filesystem that is not cgroup2, whatever
# --cgroup-root says.
not_cgroup2() {
	local t=/tmp/fakecg
	mkdir -p $t/test/c1
	: > $t/test/c1/io.weight
	cat > /tmp/fake.json <<JSON
{"ociVersion":"1.0.2","id":"c1","pid":1,"bundle":"/tmp","annotations":{"ioweight.dev/weight":"500"}}
JSON
	mkdir -p /tmp/fakeproc/1 && echo "0::/test/c1" > /tmp/fakeproc/1/cgroup
	check "a cgroup root that is not cgroup2 is refused" \
		bash -c "'$HOOK' prestart --cgroup-root $t --proc-root /tmp/fakeproc < /tmp/fake.json 2>&1 | grep -q 'not on a cgroup2 filesystem'"
	check "... and nothing is written there" test ! -s $t/test/c1/io.weight
}

make_bundle() {
	local r=/tmp/rootfs
	mkdir -p $r/usr $r/proc $r/dev $r/sys $r/tmp /tmp/bundle
	for d in bin lib lib64 sbin; do ln -sfn usr/$d $r/$d; done
	mount --bind /usr $r/usr
	(cd /tmp/bundle && runc spec)
	python3 - <<'PY'
import json
p = '/tmp/bundle/config.json'
c = json.load(open(p))
c['root'] = {'path': '/tmp/rootfs', 'readonly': True}
c['process'].update(args=['sleep', '30'], terminal=False)
c['annotations'] = {'ioweight.dev/weight': '700', 'ioweight.dev/device-weights': '/dev/vdb=123'}
c['linux']['cgroupsPath'] = '/demo/r1'
c['mounts'] = [m for m in c['mounts'] if m['destination'] != '/sys']
json.dump(c, open(p, 'w'))
PY
}

containerd_install_and_runc() {
	cp -a /etc/containerd/config.toml /tmp/config.toml.orig
	check "install --dry-run" "$HOOK" install --runtime containerd --dry-run
	check "install" "$HOOK" install --runtime containerd
	check "install again changes nothing" bash -c "'$HOOK' install --runtime containerd | grep -q '^unchanged /etc/containerd/config.toml'"
	make_bundle
	check "runc create through the wrapper" /usr/local/sbin/ioweight-runc create --bundle /tmp/bundle r1
	check "runc container io.weight default 700" grep -qx "default 700" $CG/demo/r1/io.weight
	check "runc container io.weight 254:16 123" grep -qx "254:16 123" $CG/demo/r1/io.weight
	check "hook injected once into config.json" test "$(grep -o ioweight-hook /tmp/bundle/config.json | wc -l)" = 2
	runc delete -f r1
	check "uninstall" "$HOOK" install --runtime containerd --uninstall
	check "config.toml restored byte for byte" cmp /etc/containerd/config.toml /tmp/config.toml.orig
	check "wrapper removed" test ! -e /usr/local/sbin/ioweight-runc
}

podman_run() {
	local f=/usr/share/containers/oci/hooks.d/ioweight-hook.json id before
	check "podman install" "$HOOK" install --runtime podman
	check "hooks.d entry present" test -s $f
	timeout 120 podman --log-level=error run -d --name p1 --network none --cgroup-manager cgroupfs \
		--cgroup-parent /demo2 --annotation ioweight.dev/weight=600 --rootfs /tmp/rootfs sleep 60 > /dev/null
	id=$(podman inspect -f '{{.Id}}' p1 2>/dev/null)
	check "podman container io.weight default 600" grep -qx "default 600" $CG/demo2/libpod-$id/io.weight
	podman rm -f -t 0 p1 > /dev/null 2>&1
	# a podman container claiming to be a pod sandbox, in a parent shared
	# with others (podman's cgroupfs manager takes no .slice parent)
	mkdir -p $CG/machine
	before=$(cat $CG/machine/io.weight 2>/dev/null)
	check "podman container claiming to be a sandbox does not start" bash -c "! timeout 120 podman --log-level=error run --rm \
		--name p2 --network none --cgroup-manager cgroupfs --cgroup-parent /machine \
		--annotation io.kubernetes.cri.container-type=sandbox --annotation io.kubernetes.cri.sandbox-id=libpod \
		--annotation ioweight.dev/weight=1000 --rootfs /tmp/rootfs true"
	check "... refused by the hook, which says why" \
		grep -q 'cgroup /machine/libpod-[0-9a-f]* is not a container of a kubelet pod cgroup' $LOG
	check "... and /machine io.weight is untouched" test "$(cat $CG/machine/io.weight 2>/dev/null)" = "$before"
	podman rm -f -t 0 p2 > /dev/null 2>&1
	check "podman uninstall" "$HOOK" install --runtime podman --uninstall
	check "hooks.d entry removed" test ! -e $f
}

main() {
	write_config
	pod_prestart
	landlock_denials
	shared_parent_claim
	not_cgroup2
	containerd_install_and_runc
	podman_run
	echo "1..$n"
	echo "# hook guest-check: $((n - failed)) passed, $failed failed"
	[ $failed -eq 0 ]
}

main
