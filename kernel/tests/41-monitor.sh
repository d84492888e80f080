#!/usr/bin/env bash
# tools/cgroup/monitor_ioweight.py against a live workload: two
# cgroups at 500:100 doing random reads must both show up active with
# hweights of 83.33% and 16.67% (within 5 points) in the table and in
# --json, whose every line must parse; on a device without the controller
# the monitor must fail with a clear message.
#
# drgn needs a vmlinux with DWARF matching the running kernel: the
# "monitor" variant (kernel/scripts/build.sh monitor) provides one; the
# test skips on kernels without (the default test kernel has none, to keep
# its build fast). IOW_VMLINUX and IOW_MONITOR override the search.
source /ioweight/vm/tap.sh
source /ioweight/kernel/tests/lib/iow.sh
source /ioweight/kernel/tests/lib/scenarios.sh

DRGN_TIMEOUT=${DRGN_TIMEOUT:-600}
dev="" vmlinux="" monitor=""

# find_vmlinux: the first candidate with debug info whose GNU build ID is
# the running kernel's (/sys/kernel/notes)
find_vmlinux() {
	python3 - "$@" << 'EOF'
import struct, sys

def notes_build_id(data):
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, typ = struct.unpack_from('<III', data, off)
        name_off = off + 12
        desc_off = name_off + ((namesz + 3) & ~3)
        if typ == 3 and data[name_off:name_off + namesz].rstrip(b'\0') == b'GNU':
            return data[desc_off:desc_off + descsz]
        off = desc_off + ((descsz + 3) & ~3)
    return None

def elf_sections(path):
    with open(path, 'rb') as f:
        eh = f.read(64)
        if eh[:4] != b'\x7fELF' or eh[4] != 2:
            return {}
        shoff, = struct.unpack_from('<Q', eh, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', eh, 0x3a)
        f.seek(shoff)
        shdrs = [struct.unpack('<IIQQQQIIQQ', f.read(shentsize)[:64])
                 for _ in range(shnum)]
        stroff, strsize = shdrs[shstrndx][4], shdrs[shstrndx][5]
        f.seek(stroff)
        strtab = f.read(strsize)
        out = {}
        for sh in shdrs:
            name = strtab[sh[0]:strtab.index(b'\0', sh[0])].decode()
            out[name] = (sh[4], sh[5], sh[1])
        return out, f

try:
    running = notes_build_id(open('/sys/kernel/notes', 'rb').read())
except OSError:
    sys.exit(1)
for path in sys.argv[1:]:
    try:
        secs, _ = elf_sections(path)
        if '.debug_info' not in secs:
            continue
        with open(path, 'rb') as f:
            for name, (off, size, typ) in secs.items():
                if typ != 7:    # SHT_NOTE
                    continue
                f.seek(off)
                if notes_build_id(f.read(size)) == running:
                    print(path)
                    sys.exit(0)
    except (OSError, ValueError):
        continue
sys.exit(1)
EOF
}

setup() {
	[ "$(iow_kind)" = ioweight ] || tap_skip_all "no io.weight.cost_model (ioweight controller absent)"
	command -v drgn > /dev/null || tap_skip_all "drgn not installed in the guest"
	command -v fio > /dev/null || tap_skip_all "fio not installed in the guest"
	local m
	for m in "${IOW_MONITOR:-}" /ioweight/build/linux/tools/cgroup/monitor_ioweight.py; do
		if [ -n "$m" ] && [ -f "$m" ]; then monitor=$m; break; fi
	done
	[ -n "$monitor" ] || tap_skip_all "no tools/cgroup/monitor_ioweight.py in the kernel tree"
	vmlinux=$(find_vmlinux ${IOW_VMLINUX:-} /ioweight/build/kernel-monitor/vmlinux \
		"/lib/modules/$(uname -r)/build/vmlinux" "/boot/vmlinux-$(uname -r)") ||
		tap_skip_all "no vmlinux with debug info for the running kernel (build the monitor variant)"
	[ -r /proc/kcore ] || tap_skip_all "no /proc/kcore"
	[ -b /dev/vdb ] && dev=/dev/vdb || tap_skip_all "no test device /dev/vdb"
	cg_make t41/a t41/b
}

cleanup() {
	fio_stop job0 job1 2> /dev/null
	nullb_remove t41 2> /dev/null
	cg_kill_rm t41
	[ -z "$dev" ] || prep_device "$dev" 2> /dev/null || true
}
trap cleanup EXIT

mon() { timeout "$DRGN_TIMEOUT" drgn -k -s "$vmlinux" "$monitor" "$@"; }

# a fresh null_blk device: the controller was never set up on it
absent() {
	local out rc=0 nb name
	if ! nb=$(nullb_create t41 "size=64" 2> /dev/null); then
		tap_skip "monitor on a device without the controller" "cannot create a null_blk device"
		return
	fi
	name=$(basename "$nb")
	out=$(mon "$name" --count 1 2>&1) || rc=$?
	nullb_remove t41
	if [ "$rc" = 1 ] && grep -q "not set up on $name" <<< "$out"; then
		tap_ok "monitor on a device without the controller fails clearly"
	else
		tap_fail "monitor on a device without the controller fails clearly" "rc=$rc: $out"
	fi
}

# check_json FILE: every line parses; the last sample has both groups
# active with hweights within 5 points of 83.33 and 16.67, vrate at 100%
check_json() {
	python3 - "$1" << 'EOF'
import json, sys
want = {'/t41/a': 500 / 6, '/t41/b': 100 / 6}
samples = []
for line in open(sys.argv[1]):
    if line.strip():
        obj = json.loads(line)
        if 'device' in obj:
            samples.append({'dev': obj, 'cg': {}})
        else:
            samples[-1]['cg'][obj['cgroup']] = obj
if not samples:
    sys.exit('no samples')
last = samples[-1]
print(f"# device: {json.dumps(last['dev'])}")
bad = []
for path, pct in want.items():
    g = last['cg'].get(path)
    if g is None:
        bad.append(f'{path} missing')
        continue
    print(f"# {path}: active={g['is_active']} hweight_active={g['hweight_active_pct']:.2f}%"
          f" weight={g['weight']} usage={g['usage_pct']:.1f}%")
    if not g['is_active'] or abs(g['hweight_active_pct'] - pct) > 5:
        bad.append(f"{path}: active={g['is_active']} hweight {g['hweight_active_pct']:.2f} vs {pct:.2f}")
# the test holds vrate at 100% (iow_enable_fixed): the monitor must say so
if abs(last['dev']['vrate_pct'] - 100) > 0.5:
    bad.append(f"vrate {last['dev']['vrate_pct']:.2f}% vs the fixed 100%")
if last['dev']['state'] != 'RUN':
    bad.append(f"device state {last['dev']['state']}")
if bad:
    sys.exit('; '.join(bad))
EOF
}

main() {
	local iops out
	absent

	prep_device "$dev"
	iops=$(solo_iops "$dev" randread 3)
	user_model "$dev" "$iops" "$iops" 4096
	iow_enable_fixed "$dev" 100 100
	cg_weight t41/a 500 && cg_weight t41/b 100
	fio_start job0 t41/a "$dev" randread
	fio_start job1 t41/b "$dev" randread
	if ! poll_until 30 cgroups_doing_io "$(dev_majmin "$dev")" t41/a t41/b; then
		tap_fail "both cgroups do IO" "no IO within 30 s"
		return
	fi
	sleep "$IOW_SETTLE"

	if out=$(mon "$(basename "$dev")" --count 2 --interval 1 2>&1); then
		sed 's/^/# /' <<< "$out"
		if grep -qE '^/?t41/a +\*' <<< "$out" && grep -qE '^/?t41/b +\*' <<< "$out"; then
			tap_ok "table shows both cgroups active"
		else
			tap_fail "table shows both cgroups active" "$out"
		fi
	else
		tap_fail "monitor table output" "$out"
	fi

	if mon "$(basename "$dev")" --json --count 2 --interval 1 --cgroup 't41/' \
		> "$IOW_TMP/mon.json" 2> "$IOW_TMP/mon.err"; then
		tap_check "--json: every line parses, both groups active with hweights 83.33/16.67 +-5" \
			check_json "$IOW_TMP/mon.json"
	else
		tap_fail "monitor --json" "$(cat "$IOW_TMP/mon.err")"
	fi
	fio_stop job0 job1
}

setup
echo "# monitor: $monitor; vmlinux: $vmlinux; device: $dev"
main
tap_done
