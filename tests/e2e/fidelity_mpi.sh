#!/usr/bin/env bash
# Fidelity on real programs captured at test time (issue 11): mpi_f mpi_ff.
# See tests/e2e/lib/fidelity.sh.
FIDELITY_ONLY="mpi_f mpi_ff"
# shellcheck source=lib/fidelity.sh
. "$SRCDIR/tests/e2e/lib/fidelity.sh"
