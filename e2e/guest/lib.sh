# shellcheck shell=bash
# Shared by the e2e guest scripts and tests (source it after vm/tap.sh when a
# test prints TAP). Everything runs inside the guest, the repo at /ioweight.
#
#   e2e_kernel              ioweight | iocost | none: which controller the kernel has
#   e2e_dev                 MAJ:MIN of the test disk ($E2E_DISK, default /dev/vdb)
#   e2e_use_config NAME     make e2e/config/NAME the only file in /etc/ioweight/conf.d
#   pod_run MANIFEST [kpod run options]     (kpod: e2e/guest/kpod)
#   pod_rm NAME | pod_cg NAME [CONTAINER]
#   cg_file CGROUP FILE     a cgroup file's content ('' if absent)
#   drop_caches
E2E=/ioweight/e2e
PODS=/ioweight/examples/pods
KPOD=$E2E/guest/kpod
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
# developing the plumbing) the same profiles drive io.cost's files.
e2e_use_config() {
	local src=$E2E/config/$1
	[ -f "$src" ] || { echo "e2e: no config $src" >&2; return 1; }
	mkdir -p "$CONF_DIR"
	rm -f "$CONF_DIR"/*
	if [ "$(e2e_kernel)" = iocost ]; then
		jq '.kernelFiles = {"weight": "io.weight", "costModel": "io.cost.model", "qos": "io.cost.qos"}' \
			"$src" > "$CONF_DIR/$1"
	else
		cp "$src" "$CONF_DIR/$1"
	fi
}

pod_run() { "$KPOD" run "$@"; }
pod_rm() { "$KPOD" rm "$@"; }
pod_cg() { "$KPOD" cgroup "$@"; }

cg_file() { cat "/sys/fs/cgroup$1/$2" 2>/dev/null || true; }

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# rm every pod kpod knows (test cleanup)
pods_rm_all() {
	local n
	for n in $("$KPOD" ls | cut -f1); do "$KPOD" rm "$n" > /dev/null || true; done
}
