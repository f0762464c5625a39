#!/usr/bin/env bash
# The progress line: on a terminal, replay run prints "ops DONE/TOTAL ...
# elapsed ... ETA ..." on stderr (a final one at the end); nothing with
# --quiet, nothing when stderr is not a terminal.  script(1) gives the run
# a real pseudo-terminal.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v script >/dev/null || { echo "SKIP: script(1) (util-linux) not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-progress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trace=$SRCDIR/traces/strace-probe.txt
# ops the runner walks: every op of the 3 ranks (replay dump prints one line an op)
total=$("$REPLAY" dump "$trace" | grep -vc '^#')
mkdir "$tmp/t1" "$tmp/t2" "$tmp/t3"

# on a terminal
script -qec "'$REPLAY' run --no-drop-caches '$trace' '$tmp/t1' >/dev/null" "$tmp/tty.log" >/dev/null
grep -aq "ops $total/$total " "$tmp/tty.log" || { echo "FAIL: no final progress line 'ops $total/$total' on a terminal:"; cat -v "$tmp/tty.log"; exit 1; }
grep -aq "elapsed .* ETA " "$tmp/tty.log" || { echo "FAIL: progress line without elapsed/ETA"; cat -v "$tmp/tty.log"; exit 1; }

# on a terminal, --quiet
script -qec "'$REPLAY' run --quiet --no-drop-caches '$trace' '$tmp/t2' >/dev/null" "$tmp/quiet.log" >/dev/null
if grep -aq "ETA" "$tmp/quiet.log"; then echo "FAIL: progress printed with --quiet"; cat -v "$tmp/quiet.log"; exit 1; fi

# stderr not a terminal
"$REPLAY" run --no-drop-caches "$trace" "$tmp/t3" >/dev/null 2>"$tmp/err.log"
if grep -q "ETA" "$tmp/err.log"; then echo "FAIL: progress printed to a file"; cat "$tmp/err.log"; exit 1; fi
echo "ok: progress line on a terminal ($total ops), none with --quiet or off a terminal"
