#!/usr/bin/env bash
# Fidelity on real programs captured at test time under other strace flags:
# python threads with -z, sqlite3 with -e read=all -e write=all (hex dumps),
# dd with -i -n.  See tests/e2e/lib/fidelity.sh and captures.sh.
FIDELITY_ONLY="python_z sqlite_xdump dd_in"
# shellcheck source=lib/fidelity.sh
. "$SRCDIR/tests/e2e/lib/fidelity.sh"
