#!/usr/bin/env bash
# installer-test.sh - the installer image's entrypoint against a fake node,
# on the build host, in private PID and mount namespaces. Prints TAP.
#
#   deploy/tests/installer-test.sh [ROOTFS]
#
# ROOTFS is the image's file tree (default build/deploy/installer-rootfs, made
# by deploy/kubernetes/image/build.sh --rootfs-only). The fake node is a
# directory with Debian's stock containerd config.toml, a runc, glibc, and a
# stand-in containerd (a process named containerd that listens on
# /run/containerd/containerd.sock, restarted by a supervisor loop, counting
# its starts). The entrypoint runs chrooted in ROOTFS with the node at /host
# and a kubelet-style ConfigMap volume at /config, as daemonset.yaml mounts
# them, with CONTAINERD_RESTART=kill and HOST_EXEC="chroot /host".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
rootfs=$(realpath "${1:-$top/build/deploy/installer-rootfs}")

if [ -z "${IOWEIGHT_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (unshare, chroot, mount)"; exit 0; }
	[ -x "$rootfs/entrypoint.sh" ] || { echo "installer-test.sh: no image rootfs at $rootfs (deploy/kubernetes/image/build.sh --rootfs-only)" >&2; exit 1; }
	exec unshare --pid --fork --mount --mount-proc env IOWEIGHT_IN_NS=1 "$0" "$rootfs"
fi

n=0 failed=0
T=$(mktemp -d /tmp/ioweight-installer-test.XXXXXX)
H=$T/host CFG=$T/config
ep_pid="" sup_pid=""

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -z "${2:-}" ] || sed 's/^/#   /' "$2" | tail -n 15; }
check() {	# check "description" command...
	local what=$1; shift
	if "$@" > "$T/check.out" 2>&1; then ok "$what"; else not_ok "$what" "$T/check.out"; fi
}
# wait_for SECONDS command...: poll a condition, bounded
wait_for() {
	local deadline=$((SECONDS + $1)); shift
	until "$@" 2> /dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}
cleanup() {
	[ -z "$ep_pid" ] || kill -9 "$ep_pid" 2> /dev/null
	touch "$T/stop-containerd"
	[ -z "$sup_pid" ] || kill "$sup_pid" 2> /dev/null
	pkill_containerd
	umount -R "$rootfs/host" "$rootfs/config" "$rootfs/proc" "$rootfs/run" 2> /dev/null
	if [ -n "${KEEP_TMP:-}" ]; then echo "# kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

make_node() {
	rm -rf "$H" && mkdir -p "$H"/{etc/containerd,etc/ioweight,usr/local/bin,usr/local/sbin,usr/bin,usr/sbin,run/containerd}
	# Debian bookworm's stock /etc/containerd/config.toml
	cat > "$H/etc/containerd/config.toml" <<-'EOF'
	version = 2

	[plugins]
	  [plugins."io.containerd.grpc.v1.cri"]
	    [plugins."io.containerd.grpc.v1.cri".cni]
	      bin_dir = "/usr/lib/cni"
	      conf_dir = "/etc/cni/net.d"
	  [plugins."io.containerd.internal.v1.opt"]
	    path = "/var/lib/containerd/opt"
	EOF
	printf '#!/bin/sh\nexit 0\n' > "$H/usr/sbin/runc" && chmod 755 "$H/usr/sbin/runc"
	# the node's glibc: the hook copied onto the node must start with it
	local f real
	for f in $(ldd "$rootfs/opt/ioweight/bin/ioweight-hook" | awk '/=> \//{ print $3 } /^\t\/lib/{ print $1 }'); do
		real=$(readlink -f "$f")
		mkdir -p "$H$(dirname "$real")" "$H$(dirname "$f")"
		cp -n "$real" "$H$real"
		[ -e "$H$f" ] || ln -s "$real" "$H$f"
	done
}

# a ConfigMap volume as the kubelet writes it: files are links into ..data
make_configmap() {	# make_configmap FILE...
	# empty it in place: /config is a bind mount of this directory
	mkdir -p "$CFG" && find "$CFG" -mindepth 1 -delete && mkdir "$CFG/..v1"
	local f
	for f in "$@"; do cp "$f" "$CFG/..v1/"; done
	ln -s ..v1 "$CFG/..data"
	for f in "$@"; do ln -s "..data/$(basename "$f")" "$CFG/$(basename "$f")"; done
}

# the stand-in containerd: its comm is `containerd`, it (re)creates the
# socket, counts its starts and exits on SIGTERM; a loop restarts it
start_containerd() {
	cat > "$T/containerd" <<-'EOF'
	#!/usr/bin/python3
	import os, signal, socket, sys, time
	sock, count = sys.argv[1], sys.argv[2]
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
	if os.path.exists(sock):
	    os.unlink(sock)
	s = socket.socket(socket.AF_UNIX)
	s.bind(sock)
	s.listen()
	n = int(open(count).read()) if os.path.exists(count) else 0
	open(count, "w").write(str(n + 1))
	while True:
	    time.sleep(3600)
	EOF
	chmod 755 "$T/containerd"
	rm -f "$T/stop-containerd" "$T/starts"
	( while [ ! -e "$T/stop-containerd" ]; do "$T/containerd" "$H/run/containerd/containerd.sock" "$T/starts"; done ) &
	sup_pid=$!
	wait_for 10 test -s "$T/starts" || { echo "Bail out! the stand-in containerd did not start"; exit 1; }
}
pkill_containerd() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2> /dev/null)" = containerd ] && kill "${p#/proc/}" 2> /dev/null
	done
	return 0
}
starts() { cat "$T/starts"; }

mount_all() {
	mount --make-rprivate /
	mount --rbind "$H" "$rootfs/host"
	mount --bind "$CFG" "$rootfs/config"
	mount -t proc proc "$rootfs/proc"
	mount -t tmpfs tmpfs "$rootfs/run"
}

# start the entrypoint as the DaemonSet does; extra KEY=VALUE env in "$@"
start_ep() {
	env -i PATH=/bin:/usr/bin NODE_NAME=test-node CONTAINERD_RESTART=kill HOST_EXEC="chroot /host" \
		IOWEIGHT_INSTALL_ARGS="" UNINSTALL_ON_EXIT=true SYNC_INTERVAL=0 RESTART_TIMEOUT=20 "$@" \
		/usr/sbin/chroot "$rootfs" /entrypoint.sh >> "$T/ep.log" 2>&1 &
	ep_pid=$!
}
ready() { [ -f "$rootfs/run/ioweight-installer/ready" ]; }
# stop_ep: SIGTERM, bounded wait; the exit status is in $ep_rc
stop_ep() {
	kill -TERM "$ep_pid"
	local i=0
	while kill -0 "$ep_pid" 2> /dev/null; do
		i=$((i + 1)); [ "$i" -le 300 ] || { kill -9 "$ep_pid"; break; }
		sleep 0.1
	done
	wait "$ep_pid"; ep_rc=$?
	ep_pid=""
}
# exits by itself (an error path); bounded wait; status in $ep_rc
wait_ep_exit() {
	local i=0
	while kill -0 "$ep_pid" 2> /dev/null; do
		i=$((i + 1)); [ "$i" -le 300 ] || { kill -9 "$ep_pid"; break; }
		sleep 0.1
	done
	wait "$ep_pid"; ep_rc=$?
	ep_pid=""
}
# the node's files that the installer may touch, with their contents
snapshot() { (cd "$H" && find etc usr -print0 | sort -z | xargs -0 -r sha256sum 2> /dev/null; find etc usr | sort) ; }

echo "1..22"
make_node
make_configmap "$top/cni-like-config/default.json"
mv "$CFG/..v1/default.json" "$CFG/..v1/50-default.json" && rm "$CFG/default.json" && ln -s ..data/50-default.json "$CFG/50-default.json"
mount_all
start_containerd
snapshot > "$T/before"

echo "# install on a fresh node (a pod that keeps the hook when deleted)"
: > "$T/ep.log"
start_ep UNINSTALL_ON_EXIT=false
if wait_for 30 ready; then ok "the installer becomes ready"; else not_ok "the installer becomes ready" "$T/ep.log"; fi
check "hook copied to /usr/local/bin, byte-identical" cmp "$rootfs/opt/ioweight/bin/ioweight-hook" "$H/usr/local/bin/ioweight-hook"
check "ConfigMap file placed in /etc/ioweight/conf.d" cmp "$top/cni-like-config/default.json" "$H/etc/ioweight/conf.d/50-default.json"
check "the installer records the files it placed" grep -qx 50-default.json "$H/etc/ioweight/installer-managed"
check "containerd's runc runtime points at the wrapper" grep -q 'BinaryName = "/usr/local/sbin/ioweight-runc"' "$H/etc/containerd/config.toml"
check "the wrapper runs the host path of the hook" grep -q "/usr/local/bin/ioweight-hook" "$H/usr/local/sbin/ioweight-runc"
check "containerd restarted once (config changed)" test "$(starts)" = 2
check "the log says the host runs the hook" grep -q "host runs ioweight-hook" "$T/ep.log"
stop_ep
check "UNINSTALL_ON_EXIT=false: exits 0 and leaves the hook installed" \
	bash -c "[ $ep_rc = 0 ] && grep -q ioweight-runc '$H/etc/containerd/config.toml' && [ \$(cat '$T/starts') = 2 ]"

echo "# the next pod finds everything in place, and follows a ConfigMap edit"
: > "$T/ep.log"
start_ep SYNC_INTERVAL=1
if wait_for 30 ready; then ok "second pod ready"; else not_ok "second pod ready" "$T/ep.log"; fi
check "second pod restarts nothing (config unchanged)" test "$(starts)" = 2
check "second pod logs no restart" grep -q "configuration is unchanged: no restart" "$T/ep.log"
sed 's/"name": "default"/"name": "edited"/' "$top/cni-like-config/default.json" > "$T/edited.json"
mkdir "$CFG/..v2" && cp "$T/edited.json" "$CFG/..v2/50-default.json" && ln -sfn ..v2 "$CFG/..data.tmp" && mv -T "$CFG/..data.tmp" "$CFG/..data"
if wait_for 20 cmp -s "$T/edited.json" "$H/etc/ioweight/conf.d/50-default.json"; then ok "edited ConfigMap synced within 20 s"; else not_ok "edited ConfigMap synced within 20 s" "$T/ep.log"; fi

echo "# pod deleted: uninstall"
stop_ep
check "the installer exits 0 on SIGTERM" test "$ep_rc" = 0
check "containerd restarted again after uninstall" test "$(starts)" = 3
snapshot > "$T/after"
if diff "$T/before" "$T/after" > "$T/diff"; then ok "the node's files are byte-identical to before the install"; else not_ok "the node's files are byte-identical to before the install" "$T/diff"; fi

echo "# an invalid ConfigMap changes nothing"
printf '{"ioweightVersion":"1.0.0","name":"bad","failurePolicy":"sometimes"}\n' > "$T/10-bad.json"
make_configmap "$T/10-bad.json"
: > "$T/ep.log"
start_ep
wait_ep_exit
check "invalid config: the installer exits 1 and says why" \
	bash -c "[ $ep_rc = 1 ] && grep -q \"the ConfigMap's config is invalid\" '$T/ep.log'"
snapshot > "$T/after"
if diff "$T/before" "$T/after" > "$T/diff"; then ok "invalid config: the node is untouched"; else not_ok "invalid config: the node is untouched" "$T/diff"; fi

echo "# a host file of the same name, not placed by the installer"
cp "$top/cni-like-config/examples/30-warn-only.json" "$T/30-warn-only.json"
make_configmap "$T/30-warn-only.json"
mkdir -p "$H/etc/ioweight/conf.d"
printf '{"ioweightVersion":"1.0.0","name":"admin"}\n' > "$H/etc/ioweight/conf.d/30-warn-only.json"
snapshot > "$T/before-conflict"
: > "$T/ep.log"
start_ep
wait_ep_exit
check "conflicting admin file: the installer exits 1 and names it" grep -q "30-warn-only.json exists on the host, was not placed by this installer" "$T/ep.log"
snapshot > "$T/after"
check "conflicting admin file: containerd's config is untouched" diff <(grep config.toml "$T/before-conflict") <(grep config.toml "$T/after")
rm -rf "$H/etc/ioweight/conf.d"

echo "# a node whose libc cannot run the hook"
make_configmap "$T/30-warn-only.json"
mv "$H/usr/lib" "$H/usr/lib.away"
: > "$T/ep.log"
start_ep
wait_ep_exit
mv "$H/usr/lib.away" "$H/usr/lib"
check "unusable hook: the installer exits 1 and says why" \
	bash -c "[ $ep_rc = 1 ] && grep -q 'the host cannot run /usr/local/bin/ioweight-hook' '$T/ep.log'"
check "unusable hook: removed again, containerd untouched" bash -c "[ ! -e '$H/usr/local/bin/ioweight-hook' ] && ! grep -q ioweight '$H/etc/containerd/config.toml'"

echo "# installer-test: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
