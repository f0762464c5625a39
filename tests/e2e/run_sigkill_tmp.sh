#!/usr/bin/env bash
# A run killed with SIGKILL (no handler can run: the OOM killer, a job's
# time limit after KillWait) leaves no temporary .ops file in $TMPDIR: the
# converted trace is unlinked as soon as it is mapped.  Checked in a
# private TMPDIR while the run is going and after the kill.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 - "$tmp/slow.txt" <<'PY'
import sys
l = ['4242 10:00:00.000000 openat(AT_FDCWD, "/data/out.dat", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000020>']
for i in range(40):
    l.append('4242 10:00:%09.6f pwrite64(3, "abc"..., 4096, %d) = 4096 <0.000050>' % (0.1 * (i + 1), i * 4096))
open(sys.argv[1], "w").write("\n".join(l) + "\n")
PY
mkdir "$tmp/tmpd" "$tmp/t"
TMPDIR="$tmp/tmpd" "$REPLAY" run --timing trace --no-drop-caches --quiet "$tmp/slow.txt" "$tmp/t" \
	>"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 100); do      # until a worker has written (the trace is loaded)
	sleep 0.05
	[ -s "$tmp/t/data/out.dat" ] && break
done
[ -s "$tmp/t/data/out.dat" ] || fail "the run never wrote: $(cat "$tmp/out")"
left=$(find "$tmp/tmpd" -type f | wc -l)
[ "$left" = 0 ] || fail "$left file(s) in TMPDIR during the run: $(ls "$tmp/tmpd")"
kids=$(pgrep -P "$pid" || true)
kill -KILL "$pid"                     # the parent first: no handler runs
[ -z "$kids" ] || kill -KILL $kids 2>/dev/null || true   # then its workers
wait "$pid" 2>/dev/null || true
pid=
left=$(find "$tmp/tmpd" -type f | wc -l)
[ "$left" = 0 ] || fail "$left file(s) left in TMPDIR after SIGKILL: $(ls "$tmp/tmpd")"
echo "ok SIGKILL mid-run leaves nothing in TMPDIR"
