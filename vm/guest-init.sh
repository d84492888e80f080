#!/bin/bash
# The guest's real init, started by /sbin/ioweight-init (vm/init-stub.sh)
# once the work tree is mounted at /ioweight over 9p.
#
# It mounts the pseudo filesystems a container host needs, enables the cgroup
# controllers at the root, then runs the command the host launcher left in
# /ioweight/$IOW_RUN/cmd (kernel command-line words without dots arrive in
# PID 1's environment) and writes its exit status next to it before powering
# off. With no command (vm-shell) it gives a root shell on the console.
#
# With IOW_INIT=systemd (vm/run.sh --systemd) it instead hands PID 1 to
# systemd, booting ioweight.target from /run/systemd/system: a basic system
# (journald, udev, dbus) and a unit that runs the same command protocol,
# calling this script again with --systemd-unit.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8

mnt() { mkdir -p "$3"; mount -t "$1" "$2" "$3" ${4:+-o "$4"} || echo "guest-init: mount $1 on $3 failed" >&2; }

poweroff_now() {
	sync
	# tinyconfig has no ACPI: a reboot makes QEMU (-no-reboot) exit
	echo b > /proc/sysrq-trigger 2>/dev/null
	reboot -f
}

# cmd -> output, dmesg -> status; the host waits for status
run_command() {
	local run=$1 rc
	cd /ioweight || return
	echo "guest-init: running $IOW_RUN/cmd (kernel $(uname -r))" > /dev/console
	bash "$run/cmd" > "$run/output" 2>&1 < /dev/null
	rc=$?
	dmesg > "$run/dmesg" 2>/dev/null
	echo "$rc" > "$run/status.tmp" && mv "$run/status.tmp" "$run/status"
	echo "guest-init: command exited with status $rc" > /dev/console
}

root_controllers() {
	for c in io memory pids cpu cpuset; do
		echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	done
}

# both boots: the controllers on at the root, then the host's command if it
# left one (and power off after it)
run_if_asked() {
	local run=${IOW_RUN:+/ioweight/$IOW_RUN}
	root_controllers
	# data disks: the harness sets rotational per scenario; record the default
	mkdir -p /var/lib/ioweight
	if [ -n "$run" ] && [ -f "$run/cmd" ]; then
		run_command "$run"
		poweroff_now
	fi
}

# ---- systemd boot: the unit's side ----
if [ "${1:-}" = --systemd-unit ]; then
	# PID 1's environment as it was before systemd took over (IOW_RUN and
	# the --append words), so the command sees what it sees without systemd
	# shellcheck disable=SC1091
	. /run/ioweight/env
	run_if_asked
	echo "ioweight guest (systemd): log in as root on the console; 'poweroff' leaves." > /dev/console
	exit 0
fi

# ---- systemd boot: hand PID 1 over ----
if [ "${IOW_INIT:-}" = systemd ]; then
	# systemd mounts the API filesystems (cgroup2, devpts, debugfs, ...) and
	# keeps what is already mounted: /run for the units below, /tmp as tmpfs
	# like the default boot
	mnt tmpfs tmpfs /run mode=0755
	mnt tmpfs tmpfs /tmp mode=1777
	units=/run/systemd/system
	mkdir -p /run/ioweight $units /run/systemd/system.conf.d /run/sysctl.d
	export -p > /run/ioweight/env
	# every controller stays on in the root's subtree_control, as in the
	# default boot: systemd turns off those no unit accounts for
	cat > /run/systemd/system.conf.d/ioweight.conf <<-'CONF'
	[Manager]
	DefaultIOAccounting=yes
	DefaultCPUAccounting=yes
	DefaultMemoryAccounting=yes
	DefaultTasksAccounting=yes
	CONF
	# the boot target: a basic system (journald, udev, the system bus) and
	# the command, none of the image's daemons (containerd, podman's
	# services: tests start their own) and no timers (apt, fstrim)
	cat > $units/ioweight.target <<-'UNIT'
	[Unit]
	Description=ioweight guest: a basic system and the host's command
	Requires=basic.target
	After=basic.target
	Wants=dbus.service ioweight-run.service
	AllowIsolate=yes
	UNIT
	# Type=exec: the boot is finished once the command runs, so that it can
	# wait for the manager (systemctl is-system-running --wait)
	cat > $units/ioweight-run.service <<-'UNIT'
	[Unit]
	Description=ioweight: run the command the host left in the run directory
	After=basic.target dbus.service
	[Service]
	Type=exec
	ExecStart=/bin/bash /ioweight/vm/guest-init.sh --systemd-unit
	StandardInput=null
	StandardOutput=journal+console
	TimeoutStartSec=infinity
	UNIT
	for u in /etc/systemd/system/timers.target.wants/*.timer podman.socket; do
		ln -sf /dev/null "$units/${u##*/}"
	done
	# tinyconfig's pid_max is at most 32768 (BASE_SMALL): Debian's
	# 4194304 would fail systemd-sysctl and leave the system degraded
	: > /run/sysctl.d/50-pid-max.conf
	# the serial getty only for --interactive (no command)
	if [ -n "${IOW_RUN:-}" ] && [ -f "/ioweight/$IOW_RUN/cmd" ]; then
		ln -sf /dev/null $units/serial-getty@ttyS0.service
	else
		mkdir -p $units/ioweight.target.wants
		ln -sf /lib/systemd/system/serial-getty@.service $units/ioweight.target.wants/serial-getty@ttyS0.service
	fi
	echo "guest-init: handing PID 1 to systemd (target ioweight.target)" > /dev/console
	exec /lib/systemd/systemd --unit=ioweight.target
fi

# ---- default boot: this script stays PID 1 ----
mnt tmpfs tmpfs /run mode=0755
mnt tmpfs tmpfs /tmp mode=1777
mnt devpts devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs tmpfs /dev/shm mode=1777
mnt cgroup2 cgroup2 /sys/fs/cgroup nsdelegate
mnt debugfs debugfs /sys/kernel/debug
mnt tracefs tracefs /sys/kernel/tracing
mnt configfs configfs /sys/kernel/config
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
hostname ioweight-guest
ip link set lo up 2>/dev/null
run_if_asked

echo "ioweight guest: root shell; the work tree is at /ioweight; 'poweroff' or Ctrl-D leaves." > /dev/console
cd /ioweight
setsid -c bash -l < /dev/console > /dev/console 2>&1
poweroff_now
