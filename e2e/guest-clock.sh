# shellcheck shell=bash
# Sourced by e2e/run.sh and e2e/demo.sh: kernel command-line words that give
# the TCG guest a real clock.
#
# The tinyconfig guest has no ACPI, hence no HPET or PM timer, so its TSC
# calibration fails ("tsc: Unable to calibrate against PIT ... Marking TSC
# unstable") and it falls back to the jiffies clocksource. Jiffies lose ticks
# when the host is loaded, guest time runs slow, and every rate measured in
# the guest is inflated: the 1000-IOPS disk measured 1058 IO/s on a quiet host
# and up to ~1470 IO/s on a loaded one, while the controller (which runs on
# guest time) caps at its model's 1000 - a fake "work conservation" failure.
# Under TCG the guest's rdtsc reads the host's TSC, so telling the guest the
# host's TSC frequency (tsc_early_khz) makes the TSC usable: the same fio then
# measured 1004 IO/s.
#
#   guest_clock_append    prints "tsc_early_khz=N tsc=reliable", or nothing
#                         when the host's TSC frequency cannot be found
guest_clock_append() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | head -n1)
	if [ -z "$mhz" ] && grep -qw constant_tsc /proc/cpuinfo; then
		mhz=$(awk -F: '/^cpu MHz/ { gsub(/ /, "", $2); print $2; exit }' /proc/cpuinfo)
	fi
	[ -n "$mhz" ] || return 0
	awk -v m="$mhz" 'BEGIN { printf "tsc_early_khz=%d tsc=reliable\n", m * 1000 }'
}
