#!/usr/bin/env bash
# Fidelity on real programs captured at test time that move bytes between
# descriptors: cp and cat (copy_file_range), fio --ioengine=splice (splice
# to and from a pipe).  See tests/e2e/lib/fidelity.sh and captures.sh.
FIDELITY_ONLY="cp_copy fio_splice"
# shellcheck source=lib/fidelity.sh
. "$SRCDIR/tests/e2e/lib/fidelity.sh"
