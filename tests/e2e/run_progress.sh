#!/usr/bin/env bash
# The progress line: on a terminal, replay run prints "ops DONE/TOTAL ...
# elapsed ... ETA ..." on stderr (a final one at the end), counting the ops
# replayed (not those the filter leaves out); nothing with
# --quiet, nothing when stderr is not a terminal.  script(1) gives the run
# a real pseudo-terminal.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v script >/dev/null || { echo "SKIP: script(1) (util-linux) not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-progress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trace=$SRCDIR/traces/strace-probe.txt
mkdir "$tmp/t1" "$tmp/t2" "$tmp/t3"
# the ops replayed: those of the 3 ranks the filter keeps (the dry run's
# "filtered: N ops left out (M replayed)"), fewer than the trace's
total=$("$REPLAY" run --dry-run "$trace" "$tmp/t1" | sed -n 's/^filtered: .*(\([0-9]*\) replayed).*/\1/p')
all=$("$REPLAY" dump "$trace" | grep -vc '^#')
[ -n "$total" ] && [ "$total" -lt "$all" ] || { echo "FAIL: replayed ops '$total' of $all: the trace lost its filtered ops?"; exit 1; }

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
