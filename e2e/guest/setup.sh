#!/bin/bash
# Guest side, run once per boot before the e2e tests or the demo: make this
# guest a container host the way a user would.
#
#   e2e/guest/setup.sh [CONFIG]     CONFIG: a file name in e2e/config/
#                                   (default 10-e2e-fail.json)
# Steps: mount the pre-imported containerd root, prepare the test disk,
# install ioweight-hook into containerd with its own `install` command, put
# the admin config in /etc/ioweight/conf.d, start containerd.
set -euo pipefail
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

# Debian's containerd package ships /etc/containerd/config.toml with a CRI
# section (cni bin_dir/conf_dir). When the installer refuses to add its
# drop-in next to that (containerd replaces whole plugin sections from
# imports), the guest falls back to containerd's built-in defaults (we run no
# CNI) and says so; /var/lib/ioweight/install-stock-config records the outcome
# for the test that checks it.
install_hook() {
	local bin=/ioweight/build/e2e/ioweight-hook log=/var/log/ioweight-install.log
	[ -x "$bin" ] || die "no hook binary $bin (e2e/run.sh copies it from build/hook after make -C oci-hook)"
	install -m 0755 "$bin" /usr/local/bin/ioweight-hook
	mkdir -p /var/lib/ioweight
	# what a user does: look at the change, then make it
	if ioweight-hook install --runtime containerd --set-as-default --dry-run > "$log" 2>&1; then
		echo ok > /var/lib/ioweight/install-stock-config
	else
		{ echo "refused"; cat "$log"; } > /var/lib/ioweight/install-stock-config
		step "ioweight-hook install refused Debian's stock /etc/containerd/config.toml:"
		sed 's/^/    | /' "$log"
		step "falling back: stock config moved to /etc/containerd/config.toml.debian (containerd defaults)"
		mv /etc/containerd/config.toml /etc/containerd/config.toml.debian
		ioweight-hook install --runtime containerd --set-as-default --dry-run > "$log" 2>&1 \
			|| { cat "$log" >&2; die "ioweight-hook install --runtime containerd --dry-run failed"; }
	fi
	ioweight-hook install --runtime containerd --set-as-default >> "$log" 2>&1 \
		|| { cat "$log" >&2; die "ioweight-hook install --runtime containerd failed"; }
	step "hook installed: ioweight-hook install --runtime containerd --set-as-default (log $log)"
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
	local images
	images=$(ctr -n k8s.io images ls -q)
	grep -qx 'localhost/ioweight/fio:e2e' <<< "$images" \
		|| die "image localhost/ioweight/fio:e2e missing in containerd (has: ${images:-nothing})"
	step "containerd $(ctr version | awk '/Server:/{s=1} s && /Version:/{print $2; exit}') ready; CRI runtime BinaryName: $(containerd config dump | awk -F'"' '/BinaryName/{print $2; exit}')"
}

mount_containerd_root
prepare_disk
install_hook
install_config
start_containerd
