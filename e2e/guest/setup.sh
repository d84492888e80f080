#!/bin/bash
# Guest side, run once per boot before the e2e tests or the demo: make this
# guest a container host the way a user would.
#
#   e2e/guest/setup.sh [CONFIG]     CONFIG: a file name in e2e/config/
#                                   (default 10-e2e-fail.json)
# Steps: mount the pre-imported containerd root, prepare the test disk, write
# containerd's default config, install ioweight-hook into it with its own
# `install` command, put the admin config in /etc/ioweight/conf.d, start
# containerd and wait for its CRI plugin.
set -euo pipefail
source /ioweight/vm/tap.sh # poll_until
source /ioweight/e2e/guest/lib.sh

config=${1:-10-e2e-fail.json}
t0=$(date +%s%N)
step() { printf '[setup +%4d ms] %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))" "$*"; }
die() { echo "e2e setup: $*" >&2; exit 1; }

mount_containerd_root() {
	local dev
	dev=$(blkid -o device -t LABEL=ioweight-ctrd 2>/dev/null | head -n1 || true)
	[ -n "$dev" ] || die "no disk labelled ioweight-ctrd (run.sh must --attach build/e2e/containerd.img)"
	mkdir -p /var/lib/containerd
	mount -t ext4 "$dev" /var/lib/containerd || die "cannot mount $dev on /var/lib/containerd"
	step "containerd root: $dev on /var/lib/containerd (image pre-imported on the host)"
}

# The test disk: a QEMU-throttled 1000-IOPS virtio disk. virtio-blk says
# rotational=1, which selects HDD parameters in io.cost's automatic mode; it is
# set explicitly (E2E_ROTATIONAL, default 0: tmpfs-backed, no seek penalty).
prepare_disk() {
	local n
	[ -b "$E2E_DISK" ] || die "no test disk $E2E_DISK (run.sh --disk size=2G,iops=1000,iops-size=4096)"
	n=$(basename "$(readlink -f "$E2E_DISK")")
	echo "${E2E_ROTATIONAL:-0}" > "/sys/block/$n/queue/rotational"
	echo none > "/sys/block/$n/queue/scheduler" 2>/dev/null || true
	step "guest clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) (jiffies inflates every rate under host load: vm/run.sh hands the guest the host TSC frequency)"
	step "test disk $E2E_DISK ($(e2e_dev)): rotational=$(cat "/sys/block/$n/queue/rotational"), scheduler $(cat "/sys/block/$n/queue/scheduler"), kernel controller: $(e2e_kernel)"
}

# containerd's own stock configuration (`containerd config default`: the CRI
# plugin enabled, runc the default handler, cgroupfs), with one site setting:
# the pod sandbox image is the pre-imported local one (no registry here).
# Then the hook's installer, as a user runs it: look at the change, make it.
# It adds the CRI runtime handler `ioweight` (runc through the wrapper, the
# ioweight.dev/* and blockio pod annotations passed by `pod_annotations`);
# pods select it as in a cluster, with `runtimeClassName: ioweight`
# (deploy/kubernetes/runtimeclass.yaml), not --set-as-default.
# /var/lib/ioweight/install-stock-config records the outcome for 10-install.
configure_containerd() {
	local cfg=/etc/containerd/config.toml
	mkdir -p /etc/containerd
	containerd config default > "$cfg" || die "containerd config default failed"
	grep -q '^ *sandbox_image = ' "$cfg" || die "no sandbox_image line in containerd's default config"
	sed -i "s|^\( *sandbox_image = \).*|\1\"$PAUSE_IMAGE\"|" "$cfg"
	grep -q "^ *sandbox_image = \"$PAUSE_IMAGE\"" "$cfg" || die "could not set sandbox_image in $cfg"
	if [ "$E2E_CGROUP_DRIVER" = systemd ]; then
		# the one runc option a systemd-driver node changes, as kubeadm's docs say
		[ "$(grep -c '^ *SystemdCgroup = false$' "$cfg")" = 1 ] \
			|| die "expected one 'SystemdCgroup = false' line (runc's) in containerd's default config"
		sed -i 's/^\( *SystemdCgroup = \)false$/\1true/' "$cfg"
	fi
	cp "$cfg" /var/lib/ioweight/config.toml.stock
	step "containerd config: \`containerd config default\` with sandbox_image $PAUSE_IMAGE, cgroup driver $E2E_CGROUP_DRIVER"
}

install_hook() {
	local bin=/ioweight/build/e2e/ioweight-hook log=/var/log/ioweight-install.log
	[ -x "$bin" ] || die "no hook binary $bin (e2e/run.sh copies it from build/hook after make -C oci-hook)"
	install -m 0755 "$bin" /usr/local/bin/ioweight-hook
	if ioweight-hook install --runtime containerd --dry-run > "$log" 2>&1; then
		echo ok > /var/lib/ioweight/install-stock-config
	else
		{ echo "refused"; cat "$log"; } > /var/lib/ioweight/install-stock-config
		cat "$log" >&2
		die "ioweight-hook install --runtime containerd --dry-run refused containerd's default config"
	fi
	ioweight-hook install --runtime containerd >> "$log" 2>&1 \
		|| { cat "$log" >&2; die "ioweight-hook install --runtime containerd failed"; }
	step "hook installed: ioweight-hook install --runtime containerd (handler ioweight; log $log)"
}

# A second handler for 25-pod-annotations, as an admin might have: runc
# through the hook's wrapper with `pod_annotations` narrowed to
# ioweight.dev/class, so that a pod's ioweight.dev/weight is one the CRI
# plugin must not pass. Written before the installer runs, which keeps its
# own block last in the file.
add_classonly_handler() {
	cat >> /etc/containerd/config.toml <<-EOF

	[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ioweight-classonly]
	  runtime_type = "io.containerd.runc.v2"
	  pod_annotations = ["ioweight.dev/class"]
	[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.ioweight-classonly.options]
	  BinaryName = "/usr/local/sbin/ioweight-runc"
	  SystemdCgroup = $([ "$E2E_CGROUP_DRIVER" = systemd ] && echo true || echo false)
	EOF
	step "test handler ioweight-classonly: pod_annotations = [\"ioweight.dev/class\"]"
}

install_config() {
	e2e_use_config "$config"
	ioweight-hook validate "$CONF_DIR" > /tmp/validate.out 2>&1 \
		|| { cat /tmp/validate.out >&2; die "ioweight-hook validate $CONF_DIR failed"; }
	step "config: $(tail -n1 /tmp/validate.out)"
}

start_containerd() {
	local i
	containerd > /var/log/containerd.log 2>&1 &
	for i in $(seq 300); do
		ctr version > /dev/null 2>&1 && break
		[ "$i" -lt 300 ] || { tail -n 20 /var/log/containerd.log >&2; die "containerd not ready after 30 s"; }
		sleep 0.1
	done
	local images i
	images=$(ctr -n k8s.io images ls -q)
	for i in localhost/ioweight/fio:e2e "$PAUSE_IMAGE"; do
		grep -qx "$i" <<< "$images" || die "image $i missing in containerd (has: ${images:-nothing})"
	done
	# the CRI plugin serves on the same socket once it has loaded
	poll_until 60 "$KCRI" version \
		|| { "$KCRI" version >&2; tail -n 20 /var/log/containerd.log >&2; die "containerd's CRI plugin did not answer within 60 s"; }
	step "containerd ready, CRI: $("$KCRI" version)"
}

mount_containerd_root
prepare_disk
mkdir -p /var/lib/ioweight
configure_containerd
add_classonly_handler
install_hook
install_config
start_containerd
