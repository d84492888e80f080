# shellcheck shell=bash
# Measurement procedures shared by the sharing tests (kernel/tests) and the
# acceptance scripts (kernel/measure): solo throughput, competing groups,
# user cost models matching a device. Source after lib/iow.sh; needs
# poll_until (vm/tap.sh).

IOW_SETTLE=${IOW_SETTLE:-2}	# seconds between "all groups doing IO" and measuring
# A user model "matching the device" is set this fraction below the measured
# solo rate: at exactly the measured rate the budget never binds (the device
# queue, not the controller, then decides the split: 50:50 with upstream
# io.cost at 1.00, 83:17 at 0.90 on the 1000-IOPS disk).
IOW_MODEL_FACTOR=${IOW_MODEL_FACTOR:-0.90}

# prep_device DEV: the state every scenario starts from: no scheduler,
# controller off, automatic parameters, nothing cached
prep_device() {
	set_scheduler "$1" none 2>/dev/null || true
	if [ "$(iow_kind)" != none ]; then
		iow_qos "$1" "enable=0 ctrl=auto" 2>/dev/null || iow_disable "$1" || true
		iow_model_auto "$1" || true
	fi
}

# solo_iops DEV RW SECS [CGROUP]: IOPS of one fio job (4k, QD32) alone on the
# device, from /proc/diskstats over SECS after it started doing IO
solo_iops() {
	local dev=$1 rw=$2 secs=$3 cg=${4:-} d a b t0 t1
	d=$(dev_majmin "$dev")
	fio_start solo "$cg" "$dev" "$rw"
	a=$(dev_ios "$d")
	poll_until 30 dev_moved "$d" "$a" || { fio_stop solo; echo 0; return 1; }
	sleep "$IOW_SETTLE"
	a=$(dev_ios "$d"); t0=$(date +%s%N)
	sleep "$secs"
	b=$(dev_ios "$d"); t1=$(date +%s%N)
	fio_stop solo
	awk -v n=$((b - a)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f\n", n / (ns / 1e9) }'
}
dev_moved() { [ "$(dev_ios "$1")" -gt "$2" ]; }

# user_model DEV RIOPS WIOPS [BYTES_PER_IO]: a linear user cost model for a
# device measured doing RIOPS/WIOPS 4k IOs per second whether sequential or
# random, scaled by IOW_MODEL_FACTOR; size cost from BYTES_PER_IO (4096 for an iops-size=4096 throttled disk,
# where a 1 MiB IO costs 256 IOs; larger for null_blk whose completion time
# does not depend on size)
user_model() {
	local dev=$1 r w b=${4:-4096}
	r=$(awk -v x="$2" -v f="$IOW_MODEL_FACTOR" 'BEGIN { printf "%d", x * f }')
	w=$(awk -v x="$3" -v f="$IOW_MODEL_FACTOR" 'BEGIN { printf "%d", x * f }')
	iow_model "$dev" "ctrl=user model=linear rbps=$((r * b)) rseqiops=$r rrandiops=$r wbps=$((w * b)) wseqiops=$w wrandiops=$w"
}

# compete DEV RW SECS CGROUP... : fio (RW, 4k, QD32) in every cgroup at
# once; prints "CGROUP IOS" per cgroup over SECS once all are doing IO.
# Per-cgroup fio arguments can be given in FIO_ARGS_<index> (0-based).
compete() {
	local dev=$1 rw=$2 secs=$3 d i=0 c names=(); shift 3
	d=$(dev_majmin "$dev")
	for c in "$@"; do
		local extra="FIO_ARGS_$i"
		# shellcheck disable=SC2086
		fio_start "job$i" "$c" "$dev" "$rw" ${!extra:-}
		names+=("job$i"); i=$((i + 1))
	done
	if ! poll_until 30 cgroups_doing_io "$d" "$@"; then
		echo "# not every cgroup did IO within 30 s" >&2
		fio_stop "${names[@]}"
		return 1
	fi
	sleep "$IOW_SETTLE"
	measure_ios "$d" "$secs" "$@"
	fio_stop "${names[@]}"
}

# shares_of "CG IOS" lines on stdin -> "CG IOS SHARE" lines
shares_of() {
	awk '{ n[NR] = $1; v[NR] = $2; s += $2 } END { for (i = 1; i <= NR; i++) printf "%s %d %.4f\n", n[i], v[i], (s ? v[i] / s : 0) }'
}

# fio_json NAME: "IOPS P99_US" of the reads of a finished fio job
fio_json() {
	python3 - "$IOW_TMP/$1.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
pct = j["clat_ns"].get("percentile", {})
print("%.1f %.0f" % (j["iops"], pct.get("99.000000", 0) / 1000))
PY
}

# fresh_fit DEV ROT: automatic parameters for the class of rotational=ROT,
# from no model fit: the class is switched away and back, which resets it
fresh_fit() {
	prep_device "$1"
	set_rotational "$1" $((1 - $2))
	set_rotational "$1" "$2"
	iow_model_auto "$1"
	iow_enable_auto "$1"
}

# flood_start CGROUP DEV: part 2's write flood (1 MiB sequential direct
# writes, QD16) as fio job "flood"; returns once it did IO, 1 if it did
# none within 30 s (the job is then stopped)
flood_start() {
	fio_start flood "$1" "$2" write --bs=1M --iodepth=16
	poll_until 30 cgroups_doing_io "$(dev_majmin "$2")" "$1" && return 0
	echo "# the flood did no IO within 30 s" >&2
	fio_stop flood
	return 1
}
