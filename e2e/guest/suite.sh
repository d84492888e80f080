#!/bin/bash
# Guest side of e2e/run.sh: set the guest up (e2e/guest/setup.sh), run the
# given TAP tests with the project's runner, and copy the hook's, containerd's
# and the installer's logs into the run directory.
#
#   e2e/guest/suite.sh RUN_DIR TEST...     RUN_DIR relative to /ioweight;
#                                          results go to RUN_DIR/results
set -uo pipefail
rundir=/ioweight/$1; shift
export E2E_RESULTS_DIR=${rundir#/ioweight/}
collect_logs() {
	cp /var/log/ioweight-hook.log /var/log/containerd.log /var/log/ioweight-install.log \
		/var/log/ioweight-install-podman.log "$rundir/" 2>/dev/null || true
}
if ! /ioweight/e2e/guest/setup.sh; then
	echo "not ok - e2e guest setup failed (see above)"
	echo "0 1 0" > "$rundir/results"
	collect_logs
	exit 1
fi
/ioweight/vm/tap-runner.sh -r "$rundir/results" -t "${E2E_TEST_TIMEOUT:-600}" "$@"
rc=$?
collect_logs
exit "$rc"
