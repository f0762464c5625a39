#!/usr/bin/env bash
# Fidelity on real programs captured at test time (issue 11): git python_threads sqlite rsync fio_psync fio_libaio dd_direct symlink_ckpt.
# See tests/e2e/lib/fidelity.sh.
FIDELITY_ONLY="git python_threads sqlite rsync fio_psync fio_libaio dd_direct symlink_ckpt"
# shellcheck source=lib/fidelity.sh
. "$SRCDIR/tests/e2e/lib/fidelity.sh"
