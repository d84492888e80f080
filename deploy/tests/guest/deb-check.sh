#!/bin/bash
# deb-check.sh - the hook's Debian package in the QEMU guest (Debian bookworm
# with containerd): dpkg -i, the packaged binary and config work, no runtime
# config is touched by the package itself, dpkg -r leaves only the admin's
# config (the conffile), dpkg -P leaves nothing. Prints TAP.
#
# Run by deploy/tests/stage.sh through vm/run.sh; the package comes from
# `make hook-deb` (build/deb/ on the 9p share, or DEB=path).
set -uo pipefail

SRC=${IOWEIGHT_SRC:-/ioweight}
# shellcheck source=../../../vm/tap.sh
source "$SRC/vm/tap.sh"

deb=${DEB:-$(ls "$SRC"/build/deb/ioweight-hook_*_amd64.deb 2>/dev/null | head -n 1)}
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
	echo "1..0 # SKIP no hook package in $SRC/build/deb (make hook-deb)"
	exit 0
fi
version=$(dpkg-deb --field "$deb" Version)
conffile=/etc/ioweight/conf.d/50-default.json

tap_plan 16
echo "# $(basename "$deb") on $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
# what a runtime reads: containerd's config, the wrapper's place, hooks.d
runtime_files() {
	local d=(/etc/containerd /usr/local/sbin /usr/share/containers/oci/hooks.d /etc/crio)
	{ find "${d[@]}" -type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum
	  find "${d[@]}" 2>/dev/null | sort; } > "$1"
}
runtime_files /tmp/runtime-before

tap_check "dpkg -i installs the package" dpkg -i "$deb"
tap_check "dpkg says it is installed" bash -c "dpkg-query -W -f='\${Status}' ioweight-hook | grep -qx 'install ok installed'"
tap_check "ioweight-hook version prints $version" bash -c "ioweight-hook version | grep -q '^ioweight-hook $version '"
tap_check "the binary is /usr/bin/ioweight-hook" test "$(command -v ioweight-hook)" = /usr/bin/ioweight-hook
tap_check "$conffile is a conffile" bash -c "dpkg-query -W -f='\${Conffiles}' ioweight-hook | grep -q ' $conffile '"
tap_check "$conffile is cni-like-config/default.json" cmp "$conffile" "$SRC/cni-like-config/default.json"
tap_check "validate accepts the packaged config" ioweight-hook validate /etc/ioweight/conf.d
tap_check "the package has no maintainer scripts" \
	bash -c "! ls /var/lib/dpkg/info/ioweight-hook.{preinst,postinst,prerm,postrm,config} 2>/dev/null | grep -q ."
runtime_files /tmp/runtime-after
tap_check "installing the package changed no runtime config" diff /tmp/runtime-before /tmp/runtime-after
tap_check "install --dry-run wires containerd to the packaged binary" \
	bash -c "ioweight-hook install --runtime containerd --dry-run | grep -q \"'/usr/bin/ioweight-hook'\""

# every path the package put on disk, before removal
dpkg -L ioweight-hook | while read -r p; do [ -d "$p" ] || { [ -e "$p" ] && echo "$p"; }; done | sort > /tmp/files
echo "# the package installed $(wc -l < /tmp/files) files"

tap_check "dpkg -r removes the package" dpkg -r ioweight-hook
tap_check "dpkg keeps only its config: status config-files" \
	bash -c "dpkg-query -W -f='\${Status}' ioweight-hook | grep -qx 'deinstall ok config-files'"
tap_check "no file of the package is left but the admin config" \
	bash -c "left=\$(while read -r p; do [ -e \"\$p\" ] && echo \"\$p\"; done < /tmp/files); [ \"\$left\" = '$conffile' ] || { echo \"left: \$left\"; false; }"
tap_check "the admin config survives dpkg -r unchanged" cmp "$conffile" "$SRC/cni-like-config/default.json"
tap_check "dpkg -P purges the config" bash -c "dpkg -P ioweight-hook && [ ! -e $conffile ] && ! dpkg-query -W ioweight-hook 2>/dev/null"
tap_check "nothing of the package remains after the purge" \
	bash -c "[ ! -e /etc/ioweight ] && left=\$(while read -r p; do [ -e \"\$p\" ] && echo \"\$p\"; done < /tmp/files); [ -z \"\$left\" ] || { echo \"left: \$left\"; false; }"

echo "# deb-check: $((_tap_n - _tap_failed)) passed, $_tap_failed failed"
tap_done
