#!/usr/bin/env bash
# engines_libaio: -e libaio end to end (see engines_common.bash).
set -euo pipefail
source "$(dirname "$0")/engines_common.bash"

run_engine libaio
# libaio without --direct is synchronous in the kernel: replay says so
grep -qi "direct" libaio.err || { echo "FAIL: no buffered-libaio warning:"; cat libaio.err; exit 1; }
echo "engines_libaio: ok"
