# shellcheck shell=bash
# Helpers for the guest tests and measurement scripts of the io.weight
# controller: which controller the kernel has, its root files, cgroups,
# fio jobs running inside cgroups, and shares computed from io.stat deltas.
#
# Source it after vm/tap.sh (tests) or on its own (kernel/measure). Works on
# the ioweight kernel (io.weight.cost_model / io.weight.qos) and, as a
# reference, on the baseline kernel (upstream io.cost: io.cost.model /
# io.cost.qos, which take the same line formats).

IOW_CG=${IOW_CG:-/sys/fs/cgroup}
IOW_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IOW_TMP=${IOW_TMP:-/tmp/iow}
mkdir -p "$IOW_TMP"

# ---- which controller ---------------------------------------------------

# iow_kind: "ioweight", "iocost" (upstream, baseline kernel) or "none"
iow_kind() {
	if [ -e "$IOW_CG/io.weight.cost_model" ]; then echo ioweight
	elif [ -e "$IOW_CG/io.cost.model" ]; then echo iocost
	else echo none
	fi
}

# root-level file names for the controller in this kernel
iow_model_file() {
	case $(iow_kind) in
	ioweight) echo "$IOW_CG/io.weight.cost_model" ;;
	iocost) echo "$IOW_CG/io.cost.model" ;;
	*) return 1 ;;
	esac
}
iow_qos_file() {
	case $(iow_kind) in
	ioweight) echo "$IOW_CG/io.weight.qos" ;;
	iocost) echo "$IOW_CG/io.cost.qos" ;;
	*) return 1 ;;
	esac
}

# ---- writing cgroup files -------------------------------------------------

# cg_write FILE STRING: one write(2); prints OK or the errno name
cg_write() { python3 "$IOW_LIB/cgwrite.py" "$1" "$2"; }

# cg_set FILE STRING: write and fail loudly (for setup steps)
cg_set() {
	local r
	r=$(cg_write "$1" "$2")
	[ "$r" = OK ] || { echo "cannot write '$2' to $1: $r" >&2; return 1; }
}

# expect_rejected DESC ERRNO FILE INPUT STATE_CMD...: write INPUT to FILE in
# one write(2); it must fail with ERRNO and leave STATE_CMD's output unchanged
expect_rejected() {
	local desc=$1 want=$2 file=$3 input=$4 before r after
	shift 4
	before=$("$@")
	r=$(cg_write "$file" "$input")
	after=$("$@")
	if [ "$r" != "$want" ]; then
		tap_fail "$desc with $want" "input: $(printf '%q' "${input:0:80}")"$'\n'"got: $r"
	elif [ "$before" != "$after" ]; then
		tap_fail "$desc with $want, settings intact" "before: $before"$'\n'"after:  $after"
	else
		tap_ok "$desc with $want, settings intact"
	fi
}

# dev_majmin /dev/X -> MAJ:MIN
dev_majmin() { cat "/sys/class/block/$(basename "$1")/dev"; }

# dev_line FILE MAJ:MIN: the line of a root file or io.stat for a device
dev_line() { grep -E "^$2( |$)" "$1" || true; }

# iow_model DEV "ctrl=user model=linear rbps=..."  (DEV is /dev/X)
iow_model() { cg_set "$(iow_model_file)" "$(dev_majmin "$1") $2"; }
# iow_qos DEV "enable=1 ctrl=user ... min=100 max=100"
iow_qos() { cg_set "$(iow_qos_file)" "$(dev_majmin "$1") $2"; }

# iow_enable DEV [MIN MAX]: controller on with a fixed or ranged vrate
iow_enable_fixed() {
	iow_qos "$1" "enable=1 ctrl=user rpct=0 rlat=250000 wpct=0 wlat=250000 min=${2:-100} max=${3:-100}"
}
iow_enable_auto() { iow_qos "$1" "enable=1 ctrl=auto"; }
iow_disable() { iow_qos "$1" "enable=0"; }

# iow_model_auto DEV: back to the automatic cost model
iow_model_auto() { iow_model "$1" "ctrl=auto"; }

# set_rotational DEV 0|1
set_rotational() { echo "$2" > "/sys/block/$(basename "$1")/queue/rotational"; }
set_scheduler() { echo "$2" > "/sys/block/$(basename "$1")/queue/scheduler"; }

# ---- cgroups --------------------------------------------------------------

# cg_make PATH...: create cgroups (relative to the root) with io enabled
# for their children; parents get +io in subtree_control
cg_make() {
	local p d
	for p in "$@"; do
		d=$IOW_CG
		local part
		IFS=/ read -ra part <<< "$p"
		for c in "${part[@]}"; do
			grep -qw io "$d/cgroup.subtree_control" || echo +io > "$d/cgroup.subtree_control"
			d=$d/$c
			[ -d "$d" ] || mkdir "$d"
		done
	done
}

# cg_kill_rm PATH...: kill every task in the cgroups (and below) and remove
# them, deepest first; bounded
cg_kill_rm() {
	local p d
	for p in "$@"; do
		d=$IOW_CG/$p
		[ -d "$d" ] || continue
		[ ! -e "$d/cgroup.kill" ] || echo 1 > "$d/cgroup.kill" 2>/dev/null || true
		poll_until 10 cg_empty "$d" || echo "# cgroup $p still has tasks" >&2
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
	done
}
cg_empty() { ! grep -q populated\ 1 "$1/cgroup.events"; }

# cg_weight PATH W [DEV]: set the default weight, or the weight for DEV
cg_weight() {
	if [ -n "${3:-}" ]; then
		cg_set "$IOW_CG/$1/io.weight" "$(dev_majmin "$3") $2"
	else
		cg_set "$IOW_CG/$1/io.weight" "default $2"
	fi
}

# cg_ios PATH MAJ:MIN [r|w|rw]: completed IOs of the cgroup on the device
cg_ios() {
	local line
	line=$(dev_line "$IOW_CG/$1/io.stat" "$2")
	case ${3:-rw} in
	r) sed -nE 's/.* rios=([0-9]+).*/\1/p' <<< "$line" ;;
	w) sed -nE 's/.* wios=([0-9]+).*/\1/p' <<< "$line" ;;
	*) awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rios" || kv[1] == "wios") s += kv[2] } } END { print s + 0 }' <<< "$line" ;;
	esac | grep . || echo 0
}

# cg_bytes PATH MAJ:MIN: bytes read + written by the cgroup on the device
cg_bytes() {
	dev_line "$IOW_CG/$1/io.stat" "$2" |
		awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rbytes" || kv[1] == "wbytes") s += kv[2] } } END { print s + 0 }'
}

# cg_stat PATH MAJ:MIN KEY: one figure of the cgroup's io.stat line for the
# device (e.g. ioweight.wait_us), 0 before its first IO there
cg_stat() {
	dev_line "$IOW_CG/$1/io.stat" "$2" |
		awk -v k="$3" '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) v = kv[2] } } END { print v == "" ? 0 : v }'
}

# ---- fio in cgroups --------------------------------------------------------

# fio_start NAME CGROUP DEV RW [EXTRA_FIO_ARGS...]: start a time-based fio job
# inside the cgroup (relative path, "" for the root) in the background; its pid
# goes to $IOW_TMP/NAME.pid, its JSON result to $IOW_TMP/NAME.json.
# Defaults: 4k, libaio, direct, iodepth 32, 600 s (stop it with fio_stop).
FIO_RUNTIME=${FIO_RUNTIME:-600}
fio_start() {
	local name=$1 cg=$2 dev=$3 rw=$4; shift 4
	local procs=$IOW_CG/${cg:+$cg/}cgroup.procs
	rm -f "$IOW_TMP/$name.json"
	# shellcheck disable=SC2016
	bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$procs" \
		fio --name="$name" --filename="$dev" --rw="$rw" --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=32 --time_based --runtime="$FIO_RUNTIME" \
		--randrepeat=0 --norandommap --group_reporting \
		--output-format=json --output="$IOW_TMP/$name.json" "$@" \
		> "$IOW_TMP/$name.log" 2>&1 &
	echo $! > "$IOW_TMP/$name.pid"
}

# fio_stop NAME...: stop the jobs (SIGINT makes fio write its results) and
# wait for them, bounded
fio_stop() {
	local n pid
	for n in "$@"; do
		pid=$(cat "$IOW_TMP/$n.pid" 2>/dev/null) || continue
		kill -INT "$pid" 2>/dev/null || true
	done
	for n in "$@"; do
		pid=$(cat "$IOW_TMP/$n.pid" 2>/dev/null) || continue
		if ! poll_until 30 pid_gone "$pid"; then
			echo "# fio $n (pid $pid) ignored SIGINT for 30 s, killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
		rm -f "$IOW_TMP/$n.pid"
	done
}
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# fio_wait NAME: wait for a fixed-runtime job to finish by itself, bounded
# by its runtime + 60 s
fio_wait() {
	local pid
	pid=$(cat "$IOW_TMP/$1.pid") || return 1
	poll_until "${2:-$((FIO_RUNTIME + 60))}" pid_gone "$pid" || { fio_stop "$1"; return 1; }
	wait "$pid" 2>/dev/null || true
	rm -f "$IOW_TMP/$1.pid"
}

# cgroups_doing_io MAJ:MIN CGROUP...: true once every cgroup has completed IO
# on the device (fio started and the controller let it through)
cgroups_doing_io() {
	local d=$1 c; shift
	for c in "$@"; do
		[ "$(cg_ios "$c" "$d")" -gt 0 ] || return 1
	done
}

# ---- shares --------------------------------------------------------------

# measure_ios MAJ:MIN SECONDS CGROUP...: prints one line per cgroup
# "CGROUP IOS" with the IOs each completed on the device over SECONDS, read
# from io.stat before and after (all cgroups sampled back to back)
measure_ios() {
	local d=$1 secs=$2 c; shift 2
	local -A before
	for c in "$@"; do before[$c]=$(cg_ios "$c" "$d"); done
	sleep "$secs"
	for c in "$@"; do echo "$c $(( $(cg_ios "$c" "$d") - before[$c] ))"; done
}

# root_ios MAJ:MIN [r|w|rw]: completed IOs of the whole device (diskstats)
dev_ios() {
	local name
	name=$(basename "$(readlink -f "/sys/dev/block/$1")")
	awk -v n="$name" -v m="${2:-rw}" '$3 == n { if (m == "r") print $4; else if (m == "w") print $8; else print $4 + $8 }' /proc/diskstats
}

# share OF TOTAL -> decimal share with 4 digits
share() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f\n", a / b; else print "0" }'; }

# in_range X LO HI: true if LO <= X <= HI (decimals)
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# ---- null_blk devices through configfs -------------------------------------

NULLB_CFS=/sys/kernel/config/nullb

# nullb_create NAME "key=value ...": create and power on a configfs null_blk
# device (attributes as in Documentation/block/null_blk.rst, e.g. irqmode,
# completion_nsec, hw_queue_depth, size in MiB); prints its /dev path, which
# is /dev/NAME (6.1 names configfs devices after their directory)
nullb_create() {
	local name=$1 kv d
	d=$NULLB_CFS/$name
	[ -d "$NULLB_CFS" ] || { echo "no $NULLB_CFS (configfs or null_blk missing)" >&2; return 1; }
	mkdir "$d" || return 1
	for kv in $2; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || { echo "nullb $name: cannot set $kv" >&2; return 1; }
	done
	echo 1 > "$d/power" || return 1
	poll_until 10 test -b "/dev/$name" || { echo "nullb $name: /dev/$name did not appear" >&2; return 1; }
	echo "/dev/$name"
}

# nullb_remove NAME: power the device off (del_gendisk, even under IO) and
# remove it
nullb_remove() {
	local d=$NULLB_CFS/$1
	[ -d "$d" ] || return 0
	echo 0 > "$d/power" 2>/dev/null || true
	rmdir "$d"
}
