#!/usr/bin/env bash
# Boot a guest kernel under QEMU (TCG) with the ioweight root image, the work
# tree shared over 9p at /ioweight, optional emulated data disks, and run one
# command inside. The command's exit status becomes this script's.
#
# usage: vm/run.sh [options] [-- COMMAND...]
#   --kernel K        bzImage path or variant name (ioweight, baseline, debug);
#                     default ioweight -> build/kernel-ioweight/arch/x86/boot/bzImage
#   --image PATH      root image (default build/vm/root.img); never modified
#                     (QEMU snapshot=on), so runs cannot contaminate each other
#   --disk SPEC       add a virtio-blk data disk backed by a file in host tmpfs
#                     (/dev/shm); SPEC is comma-separated key=value:
#                       size=2G  iops=N  iops-size=BYTES  bps=N  serial=NAME
#                     iops/bps become QEMU throttling.iops-total/bps-total.
#                     Disks appear as /dev/vdb, /dev/vdc, ... in order. Repeatable.
#   --attach PATH     attach an existing raw image as a further virtio-blk disk
#                     after the --disk disks (snapshot=on: never modified),
#                     e.g. a prepared /var/lib/containerd. Repeatable.
#   --nullb "P=V ..." null_blk parameters for the kernel command line, e.g.
#                     "nr_devices=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2"
#                     (default: no null_blk devices)
#   --append ARGS     extra kernel command-line words (KEY=value words without
#                     dots reach the guest command's environment)
#   --timeout SEC     hard limit for the whole boot (default 900); on expiry the
#                     guest is killed and the last console lines are printed
#   --mem MiB         guest memory (default 2048)    --smp N   vCPUs (default 2)
#   --run-dir DIR     where cmd/output/status/console.log go
#                     (default build/vm/runs/<time>-<pid>)
#   --jiffies-clock   do not hand the guest the host's TSC frequency (below)
#   --quiet           do not stream the command's output
#   --interactive     no command: a root shell on this terminal (vm-shell)
#   --systemd         systemd is PID 1 (the default is a plain shell init): the
#                     same command protocol, run by a unit once ioweight.target
#                     (a basic system: journald, udev, dbus; none of the image's
#                     services such as containerd, no timers) is reached, with
#                     the environment the command gets without it; the cgroup
#                     tree is systemd's (the command in system.slice/
#                     ioweight-run.service; DefaultIO/CPU/Memory/TasksAccounting
#                     on, so every root controller stays enabled). For the systemd cgroup driver (runc
#                     --systemd-cgroup, containerd SystemdCgroup = true): systemd
#                     answers on /run/systemd/private, dbus-daemon on
#                     /run/dbus/system_bus_socket, udev makes /dev/block/MAJ:MIN.
#                     Any caller adds --systemd and nothing else, e.g.
#                       vm/run.sh --systemd -- systemctl is-system-running --wait
#                     Booting to `true` takes 30-40 s instead of 10 s under TCG.
# Exit status: the guest command's; 124 on timeout; 125 if the guest died
# without reporting a status (panic, failed boot).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=ioweight image=$top/build/vm/root.img timeout=900 mem=2048 smp=2
nullb="" append="" quiet="" interactive="" rundir="" hosttsc=1 systemd=""
disks=() attach=()

die() { echo "run.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--image) image=$2; shift 2 ;;
	--disk) disks+=("$2"); shift 2 ;;
	--nullb) nullb=$2; shift 2 ;;
	--attach) attach+=("$2"); shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--run-dir) rundir=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--jiffies-clock) hosttsc=""; shift ;;
	--interactive) interactive=1; shift ;;
	--systemd) systemd=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done

case $kernel in
*/*) bz=$kernel ;;
*) bz=$top/build/kernel-$kernel/arch/x86/boot/bzImage ;;
esac
[ -f "$bz" ] || die "no kernel at $bz (make kernel KVARIANT=$kernel)"
[ -f "$image" ] || die "no root image at $image (make image)"
[ -n "$interactive" ] || [ $# -gt 0 ] || die "no command given (or use --interactive)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (make deps)"

mkdir -p "$top/build/vm/runs"
if [ -z "$rundir" ]; then
	rundir=$top/build/vm/runs/$(date +%Y%m%d-%H%M%S)-$$
	# keep the last 30 runs
	{ ls -1d "$top"/build/vm/runs/*/ 2>/dev/null || true; } | head -n -30 | xargs -r rm -rf
fi
mkdir -p "$rundir"
rundir=$(cd "$rundir" && pwd)
case $rundir in
"$top"/*) rel=${rundir#"$top"/} ;;
*) die "--run-dir must be inside the work tree ($top), the guest sees only that" ;;
esac
rm -f "$rundir/status" "$rundir/output" "$rundir/cmd"
log=$rundir/console.log

qemu=(qemu-system-x86_64 -machine q35 -accel tcg -smp "$smp" -m "$mem"
	-nodefaults -display none -no-reboot -kernel "$bz"
	-drive "file=$image,if=none,id=root,format=raw,snapshot=on"
	-device virtio-blk-pci,drive=root
	-fsdev "local,id=fs0,path=$top,security_model=none"
	-device virtio-9p-pci,fsdev=fs0,mount_tag=ioweight
	-device virtio-rng-pci)

tmpfiles=()
cleanup() { rm -f "${tmpfiles[@]}" 2>/dev/null || true; [ -z "${tailpid:-}" ] || kill "$tailpid" 2>/dev/null || true; }
trap cleanup EXIT

n=0
for spec in "${disks[@]}"; do
	size=1G opts="" serial=data$n
	IFS=, read -ra kvs <<< "$spec"
	for kv in "${kvs[@]}"; do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		size) size=$v ;;
		iops) opts+=",throttling.iops-total=$v" ;;
		iops-size) opts+=",throttling.iops-size=$v" ;;
		bps) opts+=",throttling.bps-total=$v" ;;
		serial) serial=$v ;;
		*) die "--disk: unknown key '$k' in '$spec'" ;;
		esac
	done
	f=/dev/shm/ioweight-disk-$$-$n.img
	truncate -s "$size" "$f"
	tmpfiles+=("$f")
	qemu+=(-drive "file=$f,if=none,id=data$n,format=raw,aio=threads$opts"
		-device "virtio-blk-pci,drive=data$n,serial=$serial")
	n=$((n + 1))
done

for f in "${attach[@]}"; do
	[ -f "$f" ] || die "--attach: no image $f"
	qemu+=(-drive "file=$f,if=none,id=att$n,format=raw,snapshot=on"
		-device "virtio-blk-pci,drive=att$n,serial=attach$n")
	n=$((n + 1))
done

cmdline="root=/dev/vda rw rootfstype=ext4 console=ttyS0 init=/sbin/ioweight-init panic=-1 IOW_RUN=$rel"
if [ -n "$nullb" ]; then
	for kv in $nullb; do cmdline+=" null_blk.$kv"; done
else
	cmdline+=" null_blk.nr_devices=0"
fi
# The tinyconfig guest has no ACPI timers, so it cannot calibrate its TSC
# and falls back to jiffies, which lose ticks when the host is loaded: guest
# time then runs slow and every rate measured in the guest is inflated (the
# 1000-IOPS disk read as up to ~1470 IO/s). Under TCG rdtsc reads the host's
# TSC, so giving the guest the host's TSC frequency yields a true clock.
if [ -n "$hosttsc" ] && grep -qw constant_tsc /proc/cpuinfo; then
	mhz=$( { dmesg 2>/dev/null || true; } | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | head -n1)
	[ -n "$mhz" ] || mhz=$(awk -F: '/^cpu MHz/ { gsub(/ /, "", $2); print $2; exit }' /proc/cpuinfo)
	[ -z "$mhz" ] || cmdline+=$(awk -v m="$mhz" 'BEGIN { printf " tsc_early_khz=%d tsc=reliable", m * 1000 }')
fi
# guest-init.sh hands PID 1 to systemd; no first-boot questions on the console
[ -z "$systemd" ] || cmdline+=" IOW_INIT=systemd systemd.firstboot=off"
cmdline+=$append

if [ -n "$interactive" ]; then
	exec "${qemu[@]}" -serial mon:stdio -append "$cmdline"
fi

printf '%s\n' "$*" > "$rundir/cmd"
: > "$rundir/output"
echo "[vm $(date +%H:%M:%S)] booting ${bz#"$top"/} (timeout ${timeout}s, run dir ${rundir#"$top"/})"
if [ -z "$quiet" ]; then
	tail -n +1 -F "$rundir/output" 2>/dev/null &
	tailpid=$!
fi
start=$(date +%s)
set +e
timeout -k 10 "$timeout" "${qemu[@]}" -serial "file:$log" -append "$cmdline" > "$rundir/qemu.log" 2>&1
qrc=$?
set -e
sleep 0.3 # let tail print the last lines of output
elapsed=$(( $(date +%s) - start ))

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "[vm] TIMEOUT after ${timeout}s; last console lines ($log):" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
	exit 124
fi
if [ ! -f "$rundir/status" ]; then
	echo "[vm] guest died without reporting a status after ${elapsed}s (qemu exit $qrc); last console lines ($log):" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
	[ -s "$rundir/qemu.log" ] && sed 's/^/  qemu: /' "$rundir/qemu.log" >&2
	exit 125
fi
rc=$(cat "$rundir/status")
if grep -qE 'BUG:|WARNING:|Oops|Call Trace:|Kernel panic|possible circular locking|KASAN' "$log"; then
	echo "[vm] kernel splat in the console log ($log):" >&2
	grep -m 5 -E 'BUG:|WARNING:|Oops|Kernel panic|possible circular|KASAN' "$log" | sed 's/^/  | /' >&2
	[ "$rc" != 0 ] || rc=126
fi
echo "[vm $(date +%H:%M:%S)] guest command exited $rc after ${elapsed}s"
exit "$rc"
