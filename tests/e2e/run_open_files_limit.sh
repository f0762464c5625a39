#!/usr/bin/env bash
# A rank that holds more files open at once than a process may have here
# (ulimit -n) is refused before the run, with the rank, the count, the
# trace line and the limit; --dry-run says it.  It failed mid-run with
# EMFILE ("Too many open files"), after the preparation (audit DX).
# Captured now: python opens 300 files, writes each, closes them all.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
mkdir "$tmp/src" "$tmp/t"
cat > "$tmp/many.py" <<'PY'
import os, sys
fds = [os.open(os.path.join(sys.argv[1], "f%03d" % i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
       for i in range(int(sys.argv[2]))]
for fd in fds:
    os.write(fd, b"x" * 100)
for fd in fds:
    os.close(fd)
PY
strace -f -tt -y -o "$tmp/many.strace" python3 "$tmp/many.py" "$tmp/src" 300 2> "$tmp/strace.err" \
	|| fail "strace: $(cat "$tmp/strace.err")"
sel=(--exclude '*' --include "$tmp/src/*")
# 235 at once fit in 256 with replay's own descriptors: replayed (a margin
# of 32 refused such a trace, which the release before replayed)
mkdir "$tmp/src235"
strace -f -tt -y -o "$tmp/m235.strace" python3 "$tmp/many.py" "$tmp/src235" 235 2> "$tmp/strace.err" \
	|| fail "strace: $(cat "$tmp/strace.err")"
(ulimit -n 256 && ulimit -Hn 256 && exec "$REPLAY" run --no-drop-caches --keep --exclude '*' --include "$tmp/src235/*" \
	"$tmp/m235.strace" "$tmp/t") > "$tmp/out" 2> "$tmp/err" || fail "235 files under 256: $(cat "$tmp/err")"
[ "$(find "$tmp/t" -type f -size 100c | wc -l)" = 235 ] || fail "235 files under 256: $(find "$tmp/t" -type f | wc -l) files"
rm -rf "$tmp/t"; mkdir "$tmp/t"
# with 256 descriptors at most: refused, the target untouched
rc=0
(ulimit -n 256 && ulimit -Hn 256 && exec "$REPLAY" run --no-drop-caches "${sel[@]}" "$tmp/many.strace" "$tmp/t") \
	> "$tmp/out" 2> "$tmp/err" || rc=$?
[ "$rc" = 1 ] || fail "256 descriptors: exit $rc: $(cat "$tmp/err")"
grep -q "^replay: rank 0 (pid [0-9]*) holds up to 300 files open at once (the open at trace line [0-9]*), and a process may have 256 descriptors here (ulimit -n, the hard limit), [0-9]* of them the replay's own: the run would fail there with 'Too many open files' (EMFILE); raise the hard limit .* to at least 3[0-9][0-9]$" "$tmp/err" \
	|| fail "256 descriptors: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/t")" ] || fail "256 descriptors: the target was written: $(ls -A "$tmp/t")"
(ulimit -n 256 && ulimit -Hn 256 && exec "$REPLAY" run --dry-run "${sel[@]}" "$tmp/many.strace" "$tmp/t") \
	> "$tmp/out" 2> "$tmp/err" || fail "dry run: $(cat "$tmp/err")"
grep -q "warning: rank 0 (pid [0-9]*) holds up to 300 files open at once" "$tmp/err" \
	|| fail "dry run: no warning: $(cat "$tmp/err")"
# with 1024: replayed
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 1024 ]; then
	echo "ok 300 files open at once: refused under ulimit -n 256 (target untouched), warned by --dry-run"
	echo "note: the hard limit here is $(ulimit -Hn): the run under 1024 is skipped"
	exit 0
fi
(ulimit -n 1024 && exec "$REPLAY" run --no-drop-caches --keep "${sel[@]}" "$tmp/many.strace" "$tmp/t") \
	> "$tmp/out" 2> "$tmp/err" || fail "1024 descriptors: $(cat "$tmp/err")"
[ "$(find "$tmp/t" -type f -size 100c | wc -l)" = 300 ] || fail "1024 descriptors: $(find "$tmp/t" -type f | wc -l) files"
echo "ok 300 files open at once: refused under ulimit -n 256 (target untouched), warned by --dry-run, replayed under 1024; 235 replayed under 256"
