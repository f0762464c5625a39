#!/usr/bin/env bash
# engines_uring: -e io_uring end to end (see engines_common.bash); skips
# (77) with replay's own reason when the kernel or seccomp blocks io_uring.
set -euo pipefail
source "$(dirname "$0")/engines_common.bash"

mkdir -p probe
if ! "$REPLAY" run -e io_uring --no-drop-caches --quiet trace.txt probe 2> probe.err; then
	if grep -q "io_uring is blocked" probe.err; then
		echo "SKIP: $(cat probe.err)"
		exit 77
	fi
	cat probe.err; exit 1
fi
run_engine io_uring
echo "engines_uring: ok"
