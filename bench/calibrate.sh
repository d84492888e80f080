#!/usr/bin/env bash
# Measure a block device with fio and print the linear cost model it implies,
# as an io.weight.cost_model line and the equivalent io.cost.model line, plus
# the QoS line the benchmark's "tuned" comparison gives both controllers.
#
# usage: bench/calibrate.sh [--runtime SEC] [--file PATH] [--yes] DEV
#   DEV            whole block device, e.g. /dev/vdb or vdb
#   --runtime SEC  seconds per measurement (default 5; six measurements)
#   --file PATH    do the IO on PATH (a file on a filesystem on DEV, at least
#                  256 MiB, created if missing) instead of the raw device
#   --yes          allow writes to the raw device (they destroy its contents)
#
# Method (that of the kernel's tools/cgroup/iocost_coef_gen.py, written
# anew): elevator "none" and nomerges=1 while measuring, direct IO, the first
# second of each measurement discarded (QEMU's throttle allows a burst);
#   rbps/wbps            sequential, 1 MiB blocks, depth 2 (the kernel tool
#                        uses 8 MiB at depth 1: too coarse for a 4 MB/s disk)
#   rseqiops/wseqiops    sequential, 4 KiB blocks, depth 64
#   rrandiops/wrandiops  random,     4 KiB blocks, depth 64
# Output (stdout, three lines; progress goes to stderr):
#   io.weight.cost_model: MAJ:MIN ctrl=user model=linear rbps=… wrandiops=…
#   io.cost.model: MAJ:MIN ctrl=user model=linear rbps=… wrandiops=…
#   qos: MAJ:MIN enable=1 ctrl=user rpct=95 rlat=… wpct=95 wlat=… min=50 max=150
# The QoS latency target is 16 random 4 KiB IOs' worth of device time
# (16e6/rrandiops µs, at least 5 ms): the controller may let a queue of about
# 16 IOs build before it slows the device down.
set -euo pipefail

runtime=5 file="" yes=""
die() { echo "calibrate: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--runtime) runtime=$2; shift 2 ;;
	--file) file=$2; shift 2 ;;
	--yes) yes=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
[ $# = 1 ] || die "usage: calibrate.sh [--runtime SEC] [--file PATH] [--yes] DEV"
for c in fio jq; do command -v $c >/dev/null || die "$c is missing"; done

dev=${1#/dev/}
sys=/sys/block/$dev
[ -d "$sys" ] || die "$1: not a whole block device (no $sys)"
devno=$(cat "$sys/dev")
target=/dev/$dev
if [ -n "$file" ]; then
	target=$file
	if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt $((256 << 20)) ]; then
		echo "calibrate: writing 256 MiB test file $file" >&2
		timeout 600 dd if=/dev/zero of="$file" bs=1M count=256 oflag=direct status=none
	fi
elif [ -z "$yes" ]; then
	die "writing to $target destroys its contents: pass --yes, or --file PATH on a filesystem"
fi

sched=$(sed -e 's/.*\[\(.*\)\].*/\1/' "$sys/queue/scheduler")
nomerges=$(cat "$sys/queue/nomerges")
restore() {
	echo "$sched" > "$sys/queue/scheduler" 2>/dev/null || true
	echo "$nomerges" > "$sys/queue/nomerges" 2>/dev/null || true
}
trap restore EXIT
echo none > "$sys/queue/scheduler"
echo 1 > "$sys/queue/nomerges"

# measure RW BS DEPTH: prints bytes/s
measure() {
	local out
	out=$(timeout $((runtime + 90)) fio --name=calibrate --filename="$target" \
		--direct=1 --ioengine=libaio --rw="$1" --bs="$2" --iodepth="$3" \
		--ramp_time=1 --runtime="$runtime" --time_based --size=256M --output-format=json) ||
		die "fio --rw=$1 --bs=$2 --iodepth=$3 on $target failed"
	jq -r '[.jobs[] | .read.bw_bytes + .write.bw_bytes] | add | floor' <<< "$out"
}

step() { # NAME RW BS DEPTH DIVISOR
	local v
	echo "calibrate: $1 ($2, bs=$3, depth $4, ${runtime}s)..." >&2
	v=$(measure "$2" "$3" "$4")
	v=$(( v / $5 ))
	[ "$v" -gt 0 ] || die "$1 measured as 0"
	echo "calibrate:   $1=$v" >&2
	printf -v "$1" '%s' "$v"
}

step rbps read 1M 2 1
step rseqiops read 4k 64 4096
step rrandiops randread 4k 64 4096
step wbps write 1M 2 1
step wseqiops write 4k 64 4096
step wrandiops randwrite 4k 64 4096

model="$devno ctrl=user model=linear rbps=$rbps rseqiops=$rseqiops rrandiops=$rrandiops wbps=$wbps wseqiops=$wseqiops wrandiops=$wrandiops"
lat=$(( 16000000 / rrandiops ))
[ "$lat" -ge 5000 ] || lat=5000
echo "io.weight.cost_model: $model"
echo "io.cost.model: $model"
echo "qos: $devno enable=1 ctrl=user rpct=95 rlat=$lat wpct=95 wlat=$lat min=50 max=150"
