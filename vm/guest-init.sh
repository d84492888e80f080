#!/bin/bash
# The guest's real init, started by /sbin/ioweight-init (vm/init-stub.sh)
# once the work tree is mounted at /ioweight over 9p.
#
# It mounts the pseudo filesystems a container host needs, enables the cgroup
# controllers at the root, then runs the command the host launcher left in
# /ioweight/$IOW_RUN/cmd (kernel command-line words without dots arrive in
# PID 1's environment) and writes its exit status next to it before powering
# off. With no command (vm-shell) it gives a root shell on the console.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8

mnt() { mkdir -p "$3"; mount -t "$1" "$2" "$3" ${4:+-o "$4"} || echo "guest-init: mount $1 on $3 failed" >&2; }
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
for c in io memory pids cpu cpuset; do
	echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
# data disks: the harness sets rotational per scenario; record the default
mkdir -p /var/lib/ioweight

poweroff_now() {
	sync
	# tinyconfig has no ACPI: a reboot makes QEMU (-no-reboot) exit
	echo b > /proc/sysrq-trigger 2>/dev/null
	reboot -f
}

run=${IOW_RUN:+/ioweight/$IOW_RUN}
if [ -n "$run" ] && [ -f "$run/cmd" ]; then
	cd /ioweight
	echo "guest-init: running $IOW_RUN/cmd (kernel $(uname -r))" > /dev/console
	bash "$run/cmd" > "$run/output" 2>&1 < /dev/null
	rc=$?
	dmesg > "$run/dmesg" 2>/dev/null
	echo "$rc" > "$run/status.tmp" && mv "$run/status.tmp" "$run/status"
	echo "guest-init: command exited with status $rc" > /dev/console
	poweroff_now
fi

echo "ioweight guest: root shell; the work tree is at /ioweight; 'poweroff' or Ctrl-D leaves." > /dev/console
cd /ioweight
setsid -c bash -l < /dev/console > /dev/console 2>&1
poweroff_now
