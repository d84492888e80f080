#!/usr/bin/env bash
# Install the Debian packages listed in the given files, only those missing.
# Quiet when everything is already there.
set -euo pipefail
want=$(cat "$@" 2>/dev/null | sed -e 's/#.*//' | xargs -n1 | sort -u)
missing=()
for p in $want; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
[ "$(id -u)" = 0 ] || { echo "deps.sh: need root to install: ${missing[*]}" >&2; exit 1; }
echo "[deps $(date +%H:%M:%S)] apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || { echo "deps.sh: apt-get update failed" >&2; exit 1; }
apt-get install -y -q --no-install-recommends "${missing[@]}" > /tmp/ioweight-apt.log 2>&1 ||
	{ tail -n 20 /tmp/ioweight-apt.log >&2; echo "deps.sh: apt-get install failed" >&2; exit 1; }
echo "[deps $(date +%H:%M:%S)] installed ${#missing[@]} packages"
