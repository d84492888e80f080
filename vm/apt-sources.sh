#!/usr/bin/env bash
# Print one-line "deb URI SUITE COMPONENTS" entries for Debian bookworm taken
# from the host's own apt configuration (sources.list and deb822 .sources),
# so the guest image comes from whatever mirror this machine is set up for.
set -euo pipefail

{
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -e 's/#.*//' | awk '$1 == "deb" { print }' |
		sed -E 's/^deb +(\[[^]]*\] +)?/deb /' || true
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled != "no")
					for (i = 1; i <= nu; i++)
						for (j = 1; j <= ns; j++)
							print "deb " u[i] " " s[j] " " comps
				types = ""; nu = 0; ns = 0; comps = ""; enabled = ""
			}
			/^[[:space:]]*#/ { next }
			/^[[:space:]]*$/ { flush(); next }
			{
				key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
				if (key == "types") types = $0
				else if (key == "uris") nu = split($0, u, " ")
				else if (key == "suites") ns = split($0, s, " ")
				else if (key == "components") comps = $0
				else if (key == "enabled") enabled = tolower($0)
			}
			END { flush() }' "$f"
	done
} | awk '$3 ~ /^bookworm/ && !seen[$0]++'
