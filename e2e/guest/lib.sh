# shellcheck shell=bash
# Shared by the e2e guest scripts and tests (source it after vm/tap.sh when a
# test prints TAP). Everything runs inside the guest, the repo at /ioweight.
#
#   e2e_kernel              ioweight | iocost | none: which controller the kernel has
#   e2e_dev                 MAJ:MIN of the test disk ($E2E_DISK, default /dev/vdb)
#   e2e_use_config NAME|PATH  make e2e/config/NAME (or the file PATH) the only
#                           file in /etc/ioweight/conf.d
#   pod_run MANIFEST [kcri run options]     (kcri: e2e/guest/kcri, the CRI client)
#   pod_rm NAME | pod_cg NAME [CONTAINER]
#   cg_file CGROUP FILE     a cgroup file's content ('' if absent)
#   drop_caches
E2E=/ioweight/e2e
PODS=/ioweight/examples/pods
KCRI=$E2E/guest/kcri
# the cgroup driver of this boot: cgroupfs, or systemd (e2e/run.sh's systemd
# group boots with systemd as PID 1 and E2E_CGROUP_DRIVER=systemd)
E2E_CGROUP_DRIVER=${E2E_CGROUP_DRIVER:-cgroupfs}
export KCRI_CGROUP_DRIVER=$E2E_CGROUP_DRIVER
PAUSE_IMAGE=localhost/ioweight/pause:e2e
# RuntimeClass objects kcri resolves runtimeClassName with: the deployed one
# (ioweight) and the suite's narrowed handler (setup.sh)
RUNTIME_CLASSES=(--runtime-class /ioweight/deploy/kubernetes/runtimeclass.yaml
		 --runtime-class "$E2E/config/runtimeclass-classonly.yaml")
CGIO=$E2E/guest/cgio
E2E_DISK=${E2E_DISK:-/dev/vdb}
HOOK_LOG=/var/log/ioweight-hook.log
CONF_DIR=/etc/ioweight/conf.d

e2e_log() { printf '# [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }

e2e_kernel() {
	if [ -e /sys/fs/cgroup/io.weight.qos ]; then echo ioweight
	elif [ -e /sys/fs/cgroup/io.cost.qos ]; then echo iocost
	else echo none
	fi
}

e2e_dev() {
	local n
	n=$(basename "$(readlink -f "$E2E_DISK")")
	cat "/sys/class/block/$n/dev"
}

# Configs are written for the ioweight kernel; on the baseline kernel (for
# developing the plumbing) the same profiles drive io.cost's files, with
# explicit latency targets: io.cost's automatic QoS for a non-rotational disk
# has rpct=0 (no latency target) and vrate up to 10000%, so it never throttles
# this disk and weights do nothing. A config that names its kernelFiles is
# meant for the kernel it names and is copied as it is.
e2e_use_config() {
	local src=$E2E/config/$1 dst
	[[ $1 != */* ]] || src=$1
	[ -f "$src" ] || { echo "e2e: no config $src" >&2; return 1; }
	dst=$CONF_DIR/$(basename "$src")
	mkdir -p "$CONF_DIR"
	rm -f "$CONF_DIR"/*
	if [ "$(e2e_kernel)" = iocost ] && [ "$(jq 'has("kernelFiles")' "$src")" = false ]; then
		jq '.kernelFiles = {"weight": "io.weight", "costModel": "io.cost.model", "qos": "io.cost.qos"}
		    | .profiles |= map_values(.qos = {"ctrl": "user", "rpct": 90, "rlat": 100000,
						      "wpct": 90, "wlat": 100000, "min": 25, "max": 150})' \
			"$src" > "$dst"
	else
		cp "$src" "$dst"
	fi
}

pod_run() { "$KCRI" run "${RUNTIME_CLASSES[@]}" "$@"; }
pod_rm() { "$KCRI" rm "$@"; }
pod_cg() { "$KCRI" cgroup "$@"; }

cg_file() { cat "/sys/fs/cgroup$1/$2" 2>/dev/null || true; }

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# rm every pod kcri knows (test cleanup)
pods_rm_all() {
	local n
	for n in $("$KCRI" ls | cut -f1); do "$KCRI" rm "$n" > /dev/null || true; done
}

# root file that enables the controller per device, by kernel
qos_file() {
	case $(e2e_kernel) in
	ioweight) echo /sys/fs/cgroup/io.weight.qos ;;
	iocost) echo /sys/fs/cgroup/io.cost.qos ;;
	*) echo /dev/null ;;
	esac
}

# pod_io_started NAME: the pod's cgroup has done IO on the test disk
pod_io_started() {
	local cg
	cg=$(pod_cg "$1") || return 1
	cg_io_started "$cg"
}

# wait_pods_io NAME...: bounded wait until every pod does IO
wait_pods_io() {
	local n
	for n in "$@"; do
		poll_until 30 pod_io_started "$n" || { echo "pod $n did no IO on $E2E_DISK within 30 s" >&2; return 1; }
	done
}

# cg_io_started CGROUP: the cgroup has done IO on the test disk
cg_io_started() {
	local line
	line=$(grep "^$(e2e_dev) " "/sys/fs/cgroup$1/io.stat" 2>/dev/null) || return 1
	[[ $line =~ rios=([0-9]+).*wios=([0-9]+) ]] && [ $((BASH_REMATCH[1] + BASH_REMATCH[2])) -gt 0 ]
}

# calibrate: the disk's capacity in IO units/s with the controller disabled:
# 4 KiB random reads at QD32 from a scratch cgroup; once its IO has started,
# 1 s warm-up, then a 5 s window. Prints the rate. The hook re-enables the
# controller at the next pod start.
calibrate() {
	local dev cg=/e2e-calib pid rate
	dev=$(e2e_dev)
	echo "$dev enable=0" > "$(qos_file)" 2>/dev/null || true
	mkdir -p "/sys/fs/cgroup$cg"
	bash -c "echo \$\$ > /sys/fs/cgroup$cg/cgroup.procs; exec fio --name=calib --filename=$E2E_DISK \
		--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --time_based --runtime=60 \
		--output=/dev/null" &
	pid=$!
	if poll_until 30 cg_io_started "$cg"; then
		sleep 1 # warm-up inside a fixed measurement schedule, not synchronisation
		rate=$("$CGIO" share --dev "$dev" --window 5 calib="$cg" | jq '.total_rate | floor')
	else
		rate=0
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rmdir "/sys/fs/cgroup$cg" 2>/dev/null || true
	echo "$rate"
}

# shares JSON_FROM_CGIO NAME: a pod's share in percent, one decimal
share_pct() { jq -r --arg n "$2" '.pods[$n].share * 1000 | round / 10' <<< "$1"; }

# within VALUE TARGET TOL: |VALUE - TARGET| <= TOL (floats)
within() { awk -v v="$1" -v t="$2" -v d="$3" 'BEGIN { exit !((v - t) <= d && (t - v) <= d) }'; }
# at_least VALUE MIN (floats)
at_least() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v >= m) }'; }
