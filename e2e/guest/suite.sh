#!/bin/bash
# Guest side of e2e/run.sh: set the guest up (e2e/guest/setup.sh), then run
# the given TAP tests with the project's runner.
#
#   e2e/guest/suite.sh RESULTS_FILE TEST...
set -uo pipefail
results=$1; shift
if ! /ioweight/e2e/guest/setup.sh; then
	echo "not ok - e2e guest setup failed (see above)"
	echo "0 1 0" > "$results"
	exit 1
fi
exec /ioweight/vm/tap-runner.sh -r "$results" -t "${E2E_TEST_TIMEOUT:-600}" "$@"
