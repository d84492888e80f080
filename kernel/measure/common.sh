# shellcheck shell=bash
# Shared by kernel/measure/part*.sh: run on the host, they boot the guest
# (vm/run.sh) with the standard devices and run themselves inside it; in the
# guest they measure and print one human line and one JSON line per figure.
# The JSON lines are also collected in build/measure/<script>-<time>.jsonl
# (or MEASURE_OUT, a path inside the work tree: kernel/measure/acceptance.sh).

# measure_main SCRIPT ARGS...: host side: parse --kernel/--secs/--only, boot,
# re-run SCRIPT in the guest; guest side: return and let the script measure.
# --only vdb-rot0,vdb-rot1,nullb0 limits a script to those devices
# (measure_wants), --figures to those figures (measure_figure, where a
# script has several); the default is all of them.
measure_main() {
	local script=$1; shift
	MEASURE_SECS=${MEASURE_SECS:-10}
	MEASURE_KERNEL=ioweight
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) MEASURE_KERNEL=$2; shift 2 ;;
		--secs) MEASURE_SECS=$2; shift 2 ;;
		--only) MEASURE_ONLY=$2; shift 2 ;;
		--figures) MEASURE_FIGURES=$2; shift 2 ;;
		--guest) IN_GUEST=1; shift ;;
		-h | --help)
			sed -n '2,/^$/p' "$script" | sed 's/^# \{0,1\}//'
			exit 0 ;;
		*) echo "$(basename "$script"): unknown argument $1" >&2; exit 2 ;;
		esac
	done
	if [ -z "${IN_GUEST:-}" ]; then
		local top name out
		top=$(cd "$(dirname "$script")/../.." && pwd)
		name=$(basename "$script" .sh)
		mkdir -p "$top/build/measure"
		out=${MEASURE_OUT:-build/measure/$name-$(basename "$MEASURE_KERNEL")-$(date +%Y%m%d-%H%M%S).jsonl}
		cd "$top" || exit 1
		mkdir -p "$(dirname "$out")"
		# a script may bring its own devices (MEASURE_VM, set before
		# measure_main); the default is part1/part2's pair
		# shellcheck disable=SC2054
		[ -n "${MEASURE_VM+set}" ] || MEASURE_VM=(
			--disk size=1G,iops=1000,iops-size=4096
			--nullb "nr_devices=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2")
		vm/run.sh --kernel "$MEASURE_KERNEL" --timeout "${MEASURE_TIMEOUT:-1800}" \
			"${MEASURE_VM[@]}" \
			-- env MEASURE_SECS="$MEASURE_SECS" MEASURE_JSONL="/ioweight/$out" \
			MEASURE_ONLY="${MEASURE_ONLY:-}" MEASURE_FIGURES="${MEASURE_FIGURES:-}" \
			IOW_MODEL_FACTOR="${IOW_MODEL_FACTOR:-0.90}" \
			"/ioweight/kernel/measure/$name.sh" --guest
		local rc=$?
		echo "JSON lines: $out"
		exit "$rc"
	fi
	# a command that stops the script under set -e says where, so that a
	# part that ends with no figures is not a silent exit 1
	set -E
	trap '_rc=$?; echo "# $(basename "$0"): stopped by a failed command at line $LINENO (exit $_rc)"' ERR
	# shellcheck source=/dev/null
	source /ioweight/vm/tap.sh
	# shellcheck source=/dev/null
	source /ioweight/kernel/tests/lib/iow.sh
	# shellcheck source=/dev/null
	source /ioweight/kernel/tests/lib/scenarios.sh
	MEASURE_JSONL=${MEASURE_JSONL:-/tmp/measure.jsonl}
	: > "$MEASURE_JSONL"
	echo "# kernel $(uname -r), controller $(iow_kind), ${MEASURE_SECS}s per measurement, model factor $IOW_MODEL_FACTOR"
}

# measure_wants LABEL: whether --only (if given) names device LABEL
measure_wants() {
	[ -z "${MEASURE_ONLY:-}" ] || [[ ",$MEASURE_ONLY," == *",$1,"* ]]
}

# measure_figure NAME: whether --figures (if given) names figure NAME
measure_figure() {
	[ -z "${MEASURE_FIGURES:-}" ] || [[ ",$MEASURE_FIGURES," == *",$1,"* ]]
}

# emit HUMAN_TEXT JSON: print both; JSON also to the collection file
emit() {
	echo "$1"
	echo "$2"
	echo "$2" >> "$MEASURE_JSONL"
}

# verdict X LO HI -> true|false
verdict() { if in_range "$1" "$2" "$3"; then echo true; else echo false; fi; }

# calc EXPR (awk arithmetic) -> number with 4 decimals
calc() { awk "BEGIN { printf \"%.4f\n\", $1 }"; }

# pair_figures DEV HI LO: "HI_SHARE TOTAL_IOPS" of 4k QD32 rand-read in the
# cgroups HI and LO at once, over MEASURE_SECS (part2.sh, wctrace.sh)
pair_figures() {
	compete "$1" randread "$MEASURE_SECS" "$2" "$3" | shares_of |
		awk -v s="$MEASURE_SECS" -v hi="$2" '$1 == hi { h = $3 } { t += $2 } END { printf "%s %.1f\n", h, t / s }'
}

# ---- ioweight tracepoints (qd1trace.sh, mixtrace.sh) ----------------------
TR=/sys/kernel/tracing

# trace_init: tracefs mounted, the ioweight events present, the boot clock
# (that of /proc/uptime, so that event times can be taken relative to a
# moment the script reads from /proc/uptime)
trace_init() {
	[ -d "$TR/events" ] || mount -t tracefs none "$TR"
	[ -d "$TR/events/ioweight" ] || { echo "no ioweight tracepoints: not the ioweight kernel" >&2; exit 1; }
	echo 16384 > "$TR/buffer_size_kb"
	echo boot > "$TR/trace_clock"
}

# trace_off: every ioweight event off (for cleanup traps)
trace_off() { [ ! -d "$TR/events/ioweight" ] || echo 0 > "$TR/events/ioweight/enable"; }

# trace_fit_vrate: a fresh buffer with the fit and vrate events on
trace_fit_vrate() {
	echo > "$TR/trace"
	echo 1 > "$TR/events/ioweight/ioweight_fit/enable"
	echo 1 > "$TR/events/ioweight/ioweight_vrate/enable"
}

# trace_dump T0 N: the fit and vrate events, seconds since T0: every fit
# sample, every vrate set from measured capacity (verdict=2), every Nth
# other vrate event
trace_dump() {
	sed -nE 's/^.* ([0-9]+\.[0-9]+): ioweight_(vrate|fit): [0-9:]+ (.*)$/\1 \2 \3/p' "$TR/trace" |
		sed -E 's/ rq_wait=[0-9]+ns//' |
		awk -v t0="$1" -v n="$2" '$2 == "fit" || /verdict=2/ || ++k % n == 0 { $1 = sprintf("%7.3f", $1 - t0); print "#   " $0 }'
}
