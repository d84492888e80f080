#!/usr/bin/env bash
# The automatic model fit (issue 4) on the 1000-IOPS throttled disk, which
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

# read_iops NAME: the read IOPS of a finished fio job
read_iops() {
	python3 -c 'import json, sys; print("%.1f" % json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' \
		"$IOW_TMP/$1.json"
}

# rbps_of MAJ:MIN: the rbps figure of the device's cost model
rbps_of() { dev_line "$(iow_model_file)" "$1" | sed -nE 's/.* rbps=([0-9]+).*/\1/p'; }

flood_first() {
	local rot=$1 d class fitted solo with pct
	d=$(dev_majmin "$DEV")
	prep_device "$DEV"
	# a class change resets the fit: both runs start from none
	set_rotational "$DEV" $((1 - rot))
	set_rotational "$DEV" "$rot"
	iow_model_auto "$DEV"
	iow_enable_auto "$DEV"
	class=$(rbps_of "$d")
	fio_start flood t31/f "$DEV" write --bs=1M --iodepth=16
	if ! poll_until 30 cgroups_doing_io "$d" t31/f; then
		tap_fail "rot=$rot: the flood did IO within 30 s"
		tap_fail "rot=$rot: reader measured"
		fio_stop flood
		return
	fi
	FIO_RUNTIME=$SECS fio_start rd t31/r "$DEV" randread --iodepth=1
	fio_wait rd
	fitted=$(rbps_of "$d")
	fio_stop flood
	with=$(read_iops rd)
	FIO_RUNTIME=4 fio_start rd t31/r "$DEV" randread --iodepth=1
	fio_wait rd
	solo=$(read_iops rd)
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
