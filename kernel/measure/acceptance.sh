#!/usr/bin/env bash
# `make acceptance`: the controller's acceptance measurements, judged.
#
#   kernel/measure/acceptance.sh [--kernel ioweight|baseline|PATH] [--no-build]
#                                [--parts part1,part2[,handover][,matrix]] [--secs N]
#                                [--only DEV,DEV] [--out FILE]
#
# Runs kernel/measure/part1.sh (sharing at a fixed device rate; 10 s per
# measurement), part2.sh (automatic parameters; 30 s per measurement), and
# handover.sh (a pod's removal) and matrix.sh when they exist, each in its
# own guest boot, and judges every figure they print: a JSON line with an
# "ok" field is a figure with a target (the part script states the target
# and decides "ok"); the others (no-control and solo references) are
# context. It takes tens of minutes.
#
# Writes one JSON document with every figure, the kernel's bzImage sha256
# and the machine's load: for a standard run (no --parts, --secs or --only)
# bench/results/<date>-acceptance-<kernel>-<sha>.json (sha: the bzImage's
# sha256, 12 hex digits), else build/measure/acceptance-<time>.json (or
# FILE). Exit status: 0 when every figure meets its target, 1 when one
# misses or a part broke (no figures, or a non-zero exit), 2 on bad usage.
#   --no-build   use the kernel and guest image as they are (default: build
#                what is missing first, as make test does)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
kernel=ioweight build=1 parts="" secs="" only="" out=""
t0=$(date +%s)

die() { echo "acceptance: $*" >&2; exit 2; }
say() { printf '[acceptance %s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - t0 ))" "$*"; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=${2:?--kernel needs a variant or a bzImage path}; shift 2 ;;
		--no-build) build=""; shift ;;
		--parts) parts=${2:?--parts needs a list, e.g. part1,part2}; shift 2 ;;
		--secs) secs=${2:?--secs needs seconds}; shift 2 ;;
		--only) only=${2:?--only needs devices, e.g. nullb0}; shift 2 ;;
		--out) out=${2:?--out needs a file}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown argument $1 (see --help)" ;;
		esac
	done
	[ -z "$secs" ] || [[ $secs =~ ^[1-9][0-9]*$ ]] || die "--secs takes whole seconds, not '$secs'"
	local p
	for p in ${parts//,/ }; do
		[ -x "kernel/measure/$p.sh" ] || die "--parts: no kernel/measure/$p.sh"
	done
	standard=""
	[ -n "$parts$secs$only" ] || standard=1
	if [ -z "$parts" ]; then
		parts=part1,part2
		[ ! -x kernel/measure/handover.sh ] || parts+=,handover
		[ ! -x kernel/measure/matrix.sh ] || parts+=,matrix
	fi
}

bzimage() {
	case $kernel in
	*/*) echo "$kernel" ;;
	*) echo "build/kernel-$kernel/arch/x86/boot/bzImage" ;;
	esac
}

prepare() {
	if [ -n "$build" ]; then
		case $kernel in
		*/*) ;;
		*) say "kernel '$kernel' (built only if its inputs changed)"
		   kernel/scripts/tree.sh
		   kernel/scripts/build.sh "$kernel" ;;
		esac
		say "guest image (built only if its package list changed)"
		vm/build-image.sh
	fi
	[ -f "$(bzimage)" ] || die "no kernel at $(bzimage) (make kernel KVARIANT=$kernel)"
	[ -f build/vm/root.img ] || die "no guest image (make image)"
}

# run_part NAME: one guest boot; its JSON lines in $dir/NAME.jsonl, its
# exit status in $dir/NAME.rc
run_part() {
	local name=$1 s args=() rc
	case $name in
	part2) s=${secs:-30} ;;
	*) s=${secs:-10} ;;
	esac
	args=(--kernel "$kernel" --secs "$s")
	[ -z "$only" ] || args+=(--only "$only")
	say "$name: kernel/measure/$name.sh ${args[*]}"
	set +e
	MEASURE_OUT=$dir/$name.jsonl "kernel/measure/$name.sh" "${args[@]}" 2>&1 | tee "$dir/$name.log"
	rc=${PIPESTATUS[0]}
	set -e
	echo "$rc" > "$dir/$name.rc"
	echo "kernel/measure/$name.sh ${args[*]}" > "$dir/$name.cmd"
	say "$name: exit $rc"
}

# host load now, for the record (the figures are timing-sensitive)
host_load() {
	echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg); kernel builds $(pgrep -fc kernel/scripts/build.sh || true);" \
		"qemu processes $(pgrep -c qemu-system || true)"
}

judge() {
	local target=$1
	python3 - "$dir" "$target" "$parts" "$(sha256sum "$(bzimage)" | cut -c1-12)" \
		"$kernel" "$(git rev-parse HEAD)" "$load_start" "$(host_load)" "${standard:-0}" <<-'EOF'
	import json, os, sys
	d, target, parts, sha, kernel, head, load0, load1, standard = sys.argv[1:]
	doc = {"kind": "acceptance", "kernel": kernel, "bzImage_sha256_12": sha,
	       "git_head": head, "standard_run": standard == "1",
	       "host_load": {"start": load0, "end": load1}, "parts": {}, "missed": [], "broken": []}
	for p in parts.split(","):
	    rc = int(open(f"{d}/{p}.rc").read().strip() or 1)
	    figs, ctx = [], []
	    for line in open(f"{d}/{p}.jsonl") if os.path.exists(f"{d}/{p}.jsonl") else []:
	        try:
	            j = json.loads(line)
	        except ValueError:
	            continue
	        (figs if "ok" in j else ctx).append(j)
	    doc["parts"][p] = {"command": open(f"{d}/{p}.cmd").read().strip(), "exit": rc,
	                       "figures": figs, "context": ctx}
	    if rc != 0 or not figs:
	        doc["broken"].append(f"{p}: exit {rc}, {len(figs)} figures")
	    for f in figs:
	        name = " ".join([p, str(f.get("dev", "?")), str(f.get("figure", "?"))]
	                        + [str(f[k]) for k in ("rw", "config", "path") if k in f])
	        print(f"{'ok  ' if f['ok'] is True else 'MISS'} {name}")
	        if f["ok"] is not True:
	            doc["missed"].append(name)
	doc["figures"] = sum(len(v["figures"]) for v in doc["parts"].values())
	doc["ok"] = not doc["missed"] and not doc["broken"]
	os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
	with open(target, "w") as f:
	    json.dump(doc, f, indent=1, sort_keys=True)
	    f.write("\n")
	for b in doc["broken"]:
	    print(f"BROKEN {b}")
	print(f"acceptance: {doc['figures'] - len(doc['missed'])} of {doc['figures']} figures "
	      f"met their targets, {len(doc['missed'])} missed, {len(doc['broken'])} parts broken; "
	      f"{os.path.relpath(target)}")
	sys.exit(0 if doc["ok"] else 1)
	EOF
}

main() {
	parse_args "$@"
	prepare
	dir=build/measure/acceptance-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$dir"
	if [ -z "$out" ]; then
		if [ -n "$standard" ]; then
			out=bench/results/$(date +%Y-%m-%d)-acceptance-$(basename "$kernel")-$(sha256sum "$(bzimage)" | cut -c1-12).json
		else
			out=$dir.json
		fi
	fi
	load_start=$(host_load)
	say "parts $parts on $(bzimage); run dir $dir; host: $load_start"
	local p
	for p in ${parts//,/ }; do run_part "$p"; done
	judge "$out"
}

main "$@"
