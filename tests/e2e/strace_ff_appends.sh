#!/usr/bin/env bash
# strace_ff_appends: four shells each append seq's output to one new log
# ten times (40 writer processes), captured with strace -ff -tt: the files
# are merged on their common clock, where a stat of the log (seq's fstat
# of its stdout) can show a size ahead of the appends before it (strace
# stamps a call when it starts: an append in flight).  The plan took the
# data nobody wrote as the log's content before the run and prepared it
# (audit PC: 1 MiB more than the program left, 3 captures of 3, exit 0, no
# word); with one strace file the size prepared was already capped by the
# smallest size shown before the first write, now with the files of one
# -ff capture too.  The replay must leave the log the program left.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
mkdir "$tmp/w" "$tmp/cap"
(cd "$tmp/w" && strace -ff -tt -T -y -o "$tmp/cap/p" bash -c \
	'for w in 1 2 3 4; do ( for i in 1 2 3 4 5 6 7 8 9 10; do seq 1 $((w*3000)) >> log.txt; done ) & done; wait') \
	2> "$tmp/strace.err" ||
	{ grep -qi ptrace "$tmp/strace.err" && { echo "skip: strace cannot trace here"; exit 0; }
	  fail "strace: $(cat "$tmp/strace.err")"; }
want=$(stat -c %s "$tmp/w/log.txt")
mkdir "$tmp/t"
"$REPLAY" run --dry-run "$tmp/cap/p" "$tmp/t" > "$tmp/dry" 2>&1 || fail "dry run: $(cat "$tmp/dry")"
grep -q "w/log.txt " "$tmp/dry" || fail "no plan line for log.txt: $(cat "$tmp/dry")"
! grep -Eq "w/log.txt .* prepare [0-9.]+ [KMG]?i?B \([1-9]" "$tmp/dry" ||
	fail "log.txt prepared with data: $(grep log.txt "$tmp/dry")"
for e in sync libaio; do
	rm -rf "$tmp/t"; mkdir "$tmp/t"
	"$REPLAY" run --keep --no-drop-caches -e $e "$tmp/cap/p" "$tmp/t" > "$tmp/out" 2> "$tmp/err" ||
		fail "$e: exit $?: $(cat "$tmp/err")"
	got=$(stat -c %s "$tmp/t$tmp/w/log.txt")
	[ "$got" = "$want" ] || fail "$e: log.txt $got bytes, the program left $want"
done
echo "ok: 40 appending processes of an -ff capture: log.txt $want bytes, as the program left, with sync and libaio"
