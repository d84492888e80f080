# shellcheck shell=bash
# Small TAP producer for guest tests: source it, then call
#   tap_plan N | tap_ok "desc" | tap_fail "desc" [details] | tap_skip "desc" "why"
#   tap_todo "desc" "why" [details]   (known failure, TAP TODO)
#   tap_check "desc" CMD...      (ok if CMD succeeds)
#   tap_eq "desc" EXPECTED ACTUAL
#   tap_done                      (exit status: 1 if anything failed)
# and poll_until TIMEOUT_SEC CMD... to wait for a condition instead of sleeping.
_tap_n=0 _tap_failed=0

tap_plan() { _tap_planned=1; echo "1..$1"; }
tap_ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
tap_fail() {
	_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $1"
	[ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/# /'
}
# tap_todo "desc" "why" [details]: a known failure, tracked elsewhere (TAP TODO):
# reported as "not ok ... # TODO why" and counted apart, not as a failure
tap_todo() {
	_tap_n=$((_tap_n + 1))
	echo "not ok $_tap_n - $1 # TODO $2"
	[ $# -lt 3 ] || printf '%s\n' "$3" | sed 's/^/# /'
}
tap_skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
tap_skip_all() { echo "1..0 # SKIP $1"; exit 0; }
tap_check() {
	local desc=$1 out; shift
	if out=$("$@" 2>&1); then tap_ok "$desc"; else tap_fail "$desc" "$out"; fi
}
tap_eq() {
	if [ "$2" = "$3" ]; then tap_ok "$1"; else tap_fail "$1" "expected: $2"$'\n'"got:      $3"; fi
}
tap_done() {
	[ -n "${_tap_planned:-}" ] || echo "1..$_tap_n"
	[ "$_tap_failed" = 0 ]
}
# poll_until SECONDS CMD...: run CMD every 50 ms until it succeeds; 1 on timeout
poll_until() {
	local limit=$1 end; shift
	end=$(( $(date +%s%N) + limit * 1000000000 ))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.05
	done
}
