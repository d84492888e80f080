#!/usr/bin/env bash
# The automatic model fit on the 1000-IOPS throttled disk, which
# charges by the 4KiB whatever the class model says: a 1 MiB direct-write
# flood at weight 100 starts first, from a fresh fit, and a 4k QD1
# rand-reader at weight 500 joins it. The fit must price size up from the
# class's figures (rbps in io.weight.cost_model well below the class's),
# and the reader must keep a good part of its solo IOPS. Before the fit
# could solve from the two windows this order gives it, the hdd class kept
# its figures and the reader 1.4% of its IOPS. Margins are wide (CI on a
# loaded 2-core host); kernel/measure/qd1stat.sh gives the figures.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh
source /ioweight/kernel/tests/lib/scenarios.sh

SECS=${AUTOFIT_SECS:-8}
DEV=/dev/vdb

setup() {
	[ "$(iow_kind)" = ioweight ] || tap_skip_all "not the io.weight controller"
	command -v fio > /dev/null || tap_skip_all "fio not installed in the guest"
	[ -b "$DEV" ] || tap_skip_all "no throttled test disk ($DEV)"
	cg_make t31/r t31/f
	cg_weight t31/r 500 && cg_weight t31/f 100
}

cleanup() {
	fio_stop rd flood 2> /dev/null
	cg_kill_rm t31
	set_rotational "$DEV" 0 2> /dev/null
	prep_device "$DEV" 2> /dev/null || true
}
trap cleanup EXIT

# rbps_of MAJ:MIN: the rbps figure of the device's cost model
rbps_of() { dev_line "$(iow_model_file)" "$1" | sed -nE 's/.* rbps=([0-9]+).*/\1/p'; }

flood_first() {
	local rot=$1 d class fitted solo with pct
	d=$(dev_majmin "$DEV")
	fresh_fit "$DEV" "$rot"
	class=$(rbps_of "$d")
	if ! flood_start t31/f "$DEV"; then
		tap_fail "rot=$rot: the flood did IO within 30 s"
		tap_fail "rot=$rot: reader measured"
		return
	fi
	FIO_RUNTIME=$SECS fio_start rd t31/r "$DEV" randread --iodepth=1
	fio_wait rd
	fitted=$(rbps_of "$d")
	fio_stop flood
	read -r with _ < <(fio_json rd)
	FIO_RUNTIME=4 fio_start rd t31/r "$DEV" randread --iodepth=1
	fio_wait rd
	read -r solo _ < <(fio_json rd)
	echo "# rot=$rot: class rbps $class, fitted $fitted; reader $with IOPS with the flood, $solo solo"
	if [ -n "$fitted" ] && [ "$((fitted * 2))" -lt "${class:-0}" ]; then
		tap_ok "rot=$rot: the fit priced size up (rbps $class -> $fitted)"
	else
		tap_fail "rot=$rot: the fit priced size up (rbps $class -> ${fitted:-none})"
	fi
	pct=$(share "$with" "$solo")
	if in_range "$pct" 0.20 10; then
		tap_ok "rot=$rot: the reader keeps $pct of its solo IOPS with the flood first (>= 0.20)"
	else
		tap_fail "rot=$rot: the reader keeps $pct of its solo IOPS with the flood first (>= 0.20)"
	fi
}

setup
flood_first 1
flood_first 0
tap_done
