#!/bin/sh
# shellcheck shell=dash
# entrypoint.sh - the ioweight installer DaemonSet's container (busybox ash:
# POSIX sh plus `local`, checked as dash).
#
# On start:
#   1. check the ConfigMap's files (copied out of /config) with the image's
#      `ioweight-hook validate`: an invalid config changes nothing on the host;
#   2. copy the hook to the host (HOOK_PATH, default /usr/local/bin/ioweight-hook)
#      and check that the host can run it (`version` in the host's mount
#      namespace, through nsenter: the host's libc must be new enough);
#   3. put the ConfigMap's files into the host's /etc/ioweight/conf.d, and
#      remove the ones an earlier run placed that the ConfigMap no longer has
#      (the list is /etc/ioweight/installer-managed); a host file of the same
#      name that this installer did not place and that differs is an error;
#   4. `ioweight-hook install --runtime containerd --prefix /host`, with the
#      host's path of the hook, and restart containerd only if its
#      configuration files changed (sha256 before and after);
#   5. mark the pod ready and wait, re-syncing the config every SYNC_INTERVAL
#      seconds (a ConfigMap edit reaches the nodes without a restart).
# On SIGTERM (pod deleted, node unlabelled, rolling update): the same
# install with --uninstall, a containerd restart if that changed its
# configuration, and removal of the hook and the config files it placed.
#
# Environment (set in daemonset.yaml): NODE_NAME, CONTAINERD_RESTART
# (systemd|kill|none), IOWEIGHT_INSTALL_ARGS, UNINSTALL_ON_EXIT (true|false),
# SYNC_INTERVAL (seconds, 0 = never), RESTART_TIMEOUT (seconds), HOST_EXEC
# (how to run a host command, default `nsenter -t 1 -m --`: the host's mount
# namespace through PID 1, which hostPID makes the host's init).
set -eu

HOST=${HOST_ROOT:-/host}
IMAGE_HOOK=/opt/ioweight/bin/ioweight-hook
HOOK_PATH=${HOOK_PATH:-/usr/local/bin/ioweight-hook}
CONFIG_SRC=${CONFIG_SRC:-/config}
CONFIG_DIR=/etc/ioweight/conf.d
MANAGED=/etc/ioweight/installer-managed
STATE=${STATE_DIR:-/run/ioweight-installer}
RESTART=${CONTAINERD_RESTART:-systemd}
INSTALL_ARGS=${IOWEIGHT_INSTALL_ARGS:-}
UNINSTALL=${UNINSTALL_ON_EXIT:-true}
SYNC_INTERVAL=${SYNC_INTERVAL:-60}
RESTART_TIMEOUT=${RESTART_TIMEOUT:-60}
HOST_EXEC=${HOST_EXEC:-nsenter -t 1 -m --}
SOCK=$HOST/run/containerd/containerd.sock

log() { echo "ioweight-installer[${NODE_NAME:-node}]: $*"; }
die() { log "error: $*"; exit 1; }

check_env() {
	case $RESTART in systemd|kill|none) ;; *) die "CONTAINERD_RESTART must be systemd, kill or none, got \`$RESTART\`" ;; esac
	case $UNINSTALL in true|false) ;; *) die "UNINSTALL_ON_EXIT must be true or false, got \`$UNINSTALL\`" ;; esac
	case $HOOK_PATH in
	/usr/local/*/*) ;;
	*) die "HOOK_PATH must be under /usr/local (the host path mounted at $HOST/usr/local), got \`$HOOK_PATH\`" ;;
	esac
	case $SYNC_INTERVAL$RESTART_TIMEOUT in *[!0-9]*) die "SYNC_INTERVAL and RESTART_TIMEOUT must be whole seconds" ;; esac
	[ -x "$IMAGE_HOOK" ] || die "$IMAGE_HOOK missing from the image"
	[ -d "$HOST/usr/local" ] && [ -d "$HOST/etc/containerd" ] && [ -d "$HOST/etc/ioweight" ] ||
		die "host paths not mounted under $HOST (see daemonset.yaml's volumes)"
}

# Copy $1 to $2 with mode $3 through a temporary file and a rename (never a
# half-written file, no ETXTBSY on a running binary). Status 0 when it
# copied, 1 when $2 already had the same bytes.
copy_if_changed() {
	if [ -f "$2" ] && cmp -s "$1" "$2"; then
		return 1
	fi
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2.ioweight-new"
	chmod "$3" "$2.ioweight-new"
	mv -f "$2.ioweight-new" "$2"
	return 0
}

# The ConfigMap's files, dereferenced (the volume holds links into ..data)
# into $STATE/conf.d, then validated as one directory.
stage_config() {
	local f n=0
	rm -rf "$STATE/conf.d"
	mkdir -p "$STATE/conf.d"
	for f in "$CONFIG_SRC"/*; do
		[ -e "$f" ] || continue
		case ${f##*/} in
		*.json|*.conf) cp -L "$f" "$STATE/conf.d/${f##*/}"; n=$((n + 1)) ;;
		*) die "ConfigMap file ${f##*/} is neither *.json nor *.conf: the hook would never read it" ;;
		esac
	done
	if ! "$IMAGE_HOOK" validate "$STATE/conf.d"; then
		die "the ConfigMap's config is invalid (above); nothing was changed on the host"
	fi
	log "config: $n file(s) from the ConfigMap are valid"
}

install_hook() {
	if copy_if_changed "$IMAGE_HOOK" "$HOST$HOOK_PATH" 0755; then
		log "hook copied to $HOOK_PATH"
	else
		log "hook at $HOOK_PATH is up to date"
	fi
	# runc runs the hook in the host: it must start there, with the host's libc
	# shellcheck disable=SC2086
	if ! out=$($HOST_EXEC "$HOOK_PATH" version 2>&1); then
		rm -f "$HOST$HOOK_PATH"
		die "the host cannot run $HOOK_PATH ($out); removed it, containerd left alone"
	fi
	log "host runs $out"
}

is_managed() { [ -f "$HOST$MANAGED" ] && grep -qxF "$1" "$HOST$MANAGED"; }

sync_config() {
	local f name changed=0
	mkdir -p "$HOST$CONFIG_DIR"
	: > "$STATE/managed.new"
	for f in "$STATE"/conf.d/*; do
		[ -e "$f" ] || continue
		name=${f##*/}
		if [ -e "$HOST$CONFIG_DIR/$name" ] && ! is_managed "$name"; then
			# the admin's (or the package's) own file: share it if identical
			cmp -s "$f" "$HOST$CONFIG_DIR/$name" && continue
			die "$CONFIG_DIR/$name exists on the host, was not placed by this installer and differs from the ConfigMap's: rename the ConfigMap key or remove the host file"
		fi
		echo "$name" >> "$STATE/managed.new"
		if copy_if_changed "$f" "$HOST$CONFIG_DIR/$name" 0644; then
			log "config: wrote $CONFIG_DIR/$name"
			changed=1
		fi
	done
	if [ -f "$HOST$MANAGED" ]; then
		while read -r name; do
			[ -n "$name" ] && ! grep -qxF "$name" "$STATE/managed.new" || continue
			rm -f "$HOST$CONFIG_DIR/$name"
			log "config: removed $CONFIG_DIR/$name (no longer in the ConfigMap)"
			changed=1
		done < "$HOST$MANAGED"
	fi
	cp "$STATE/managed.new" "$HOST$MANAGED.ioweight-new"
	mv -f "$HOST$MANAGED.ioweight-new" "$HOST$MANAGED"
	[ "$changed" = 1 ] || log "config: $CONFIG_DIR is up to date"
}

# One line that changes whenever a containerd configuration file does.
containerd_sum() {
	local f
	for f in "$HOST/etc/containerd/config.toml" "$HOST"/etc/containerd/conf.d/*.toml; do
		[ -f "$f" ] && sha256sum "$f"
	done | sha256sum | cut -d' ' -f1
}

containerd_pid() {
	local p comm
	for p in /proc/[0-9]*; do
		comm=$(cat "$p/comm" 2>/dev/null) || continue
		[ "$comm" = containerd ] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}

# containerd listens again: its socket exists and was made at or after $1
# (seconds since the epoch); inode numbers are no proof, they get reused
sock_fresh() { [ -S "$SOCK" ] && [ "$(stat -c %Z "$SOCK" 2>/dev/null || echo 0)" -ge "$1" ]; }

restart_containerd() {
	local t0 pid newpid i=0
	t0=$(date +%s)
	case $RESTART in
	none)
		log "containerd's configuration changed: restart containerd on this node (CONTAINERD_RESTART=none)"
		return 0 ;;
	systemd)
		log "restarting containerd (systemctl restart containerd in the host)"
		# shellcheck disable=SC2086
		$HOST_EXEC systemctl restart containerd || { log "error: systemctl restart containerd failed"; return 1; } ;;
	kill)
		pid=$(containerd_pid) || { log "error: no containerd process to signal"; return 1; }
		log "sending SIGTERM to containerd (pid $pid); its supervisor starts it again"
		kill -TERM "$pid" ;;
	esac
	# bounded wait: a new containerd process (kill) and a fresh socket
	while :; do
		if [ "$RESTART" = kill ]; then
			newpid=$(containerd_pid || true)
			if [ -n "$newpid" ] && [ "$newpid" != "$pid" ] && sock_fresh "$t0"; then
				break
			fi
		elif sock_fresh "$t0"; then
			break
		fi
		i=$((i + 1))
		[ "$i" -le $((RESTART_TIMEOUT * 5)) ] ||
			{ log "error: containerd did not come back within ${RESTART_TIMEOUT}s"; return 1; }
		sleep 0.2
	done
	log "containerd is back"
}

# Run the installer on the host's files; restart containerd if they changed.
wire_runtime() {
	local before after
	before=$(containerd_sum)
	# word splitting of IOWEIGHT_INSTALL_ARGS is intended
	# shellcheck disable=SC2086
	"$IMAGE_HOOK" install --runtime containerd --prefix "$HOST" --hook-path "$HOOK_PATH" "$@" $INSTALL_ARGS ||
		return 1
	after=$(containerd_sum)
	if [ "$before" = "$after" ]; then
		log "containerd's configuration is unchanged: no restart"
		return 0
	fi
	restart_containerd
}

sleeper=""
on_term() {
	local rc=0 name
	trap - TERM INT
	rm -f "$STATE/ready"
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
	if [ "$UNINSTALL" != true ]; then
		log "stopping; UNINSTALL_ON_EXIT=false leaves the hook installed"
		exit 0
	fi
	log "stopping: uninstalling the hook from containerd"
	wire_runtime --uninstall || { log "error: uninstall failed"; rc=1; }
	if [ -f "$HOST$MANAGED" ]; then
		while read -r name; do
			[ -z "$name" ] || rm -f "$HOST$CONFIG_DIR/$name"
		done < "$HOST$MANAGED"
		rm -f "$HOST$MANAGED"
		rmdir "$HOST$CONFIG_DIR" 2>/dev/null || true
	fi
	# the hook only if it is still the one this image placed
	if [ "$rc" = 0 ] && cmp -s "$IMAGE_HOOK" "$HOST$HOOK_PATH"; then
		rm -f "$HOST$HOOK_PATH"
	fi
	log "stopped (status $rc)"
	exit "$rc"
}

main() {
	log "starting: $("$IMAGE_HOOK" version)"
	check_env
	mkdir -p "$STATE"
	rm -f "$STATE/ready"
	trap on_term TERM INT
	stage_config
	install_hook
	sync_config
	wire_runtime || die "installing the hook into containerd failed"
	touch "$STATE/ready"
	log "ready; SIGTERM uninstalls"
	while :; do
		if [ "$SYNC_INTERVAL" = 0 ]; then
			sleep 3600 & sleeper=$!
		else
			sleep "$SYNC_INTERVAL" & sleeper=$!
		fi
		wait "$sleeper" || true
		sleeper=""
		[ "$SYNC_INTERVAL" = 0 ] && continue
		# a ConfigMap edit: validate, then sync; an invalid one is logged
		# and the host keeps the last good files
		if (stage_config > "$STATE/sync.log" 2>&1); then
			sync_config
		else
			grep 'error:' "$STATE/sync.log" | tail -n 1
		fi
	done
}

main "$@"
