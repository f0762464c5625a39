#!/usr/bin/env bash
# The planted-name check cannot be slipped past by a link made before the
# worker's open and removed before it looks at the file (audit REG2: a
# link/unlink loop changed a file outside the target in 88 runs of 150;
# the open's file then has one name, outside).  Made certain here: strace
# holds the worker's fstat back 2 s while the name is replaced by a hard
# link to a file outside the target and, once the worker holds that file
# open, the link is removed again.  The worker must refuse it (the name,
# looked up again, no longer gives that file) and the outside file must
# stay as it was.
set -euo pipefail
: "${REPLAY:?}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v strace > /dev/null || { echo "skip: strace is not installed"; exit 0; }
tmp=$(mktemp -d /tmp/replay-e2e-race-XXXXXX)
rp= sp=
trap '[ -n "$sp" ] && kill "$sp" 2>/dev/null; [ -n "$rp" ] && kill -KILL "$rp" $(pgrep -P "$rp" 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$tmp/late.txt" <<'T'
100 10:00:00.000001 openat(AT_FDCWD, "/sub/f1", O_RDONLY) = 3 <0.000010>
100 10:00:00.000002 pread64(3, "x", 16, 0) = 16 <0.000010>
100 10:00:00.000003 close(3) = 0 <0.000010>
100 10:00:02.000001 openat(AT_FDCWD, "/sub/f1", O_RDWR) = 3 <0.000010>
100 10:00:02.000002 pwrite64(3, "xxxx", 4096, 0) = 4096 <0.000010>
100 10:00:02.000003 close(3) = 0 <0.000010>
T
echo "data outside the target" > "$tmp/victim"
sum0=$(sha256sum < "$tmp/victim")
mkdir "$tmp/t"
"$REPLAY" run --no-drop-caches --timing trace --bind none "$tmp/late.txt" "$tmp/t" > "$tmp/out" 2> "$tmp/err" &
rp=$!
for _ in $(seq 200); do [ -e "$tmp/t/sub/f1" ] && break; sleep 0.02; done
[ -e "$tmp/t/sub/f1" ] || fail "the run never prepared /sub/f1: $(cat "$tmp/err")"
w=
for _ in $(seq 100); do w=$(pgrep -P "$rp" | head -1); [ -n "$w" ] && break; sleep 0.02; done
[ -n "$w" ] || fail "no worker"
strace -qq -o /dev/null -p "$w" -e trace=fstat,newfstatat -e inject=fstat,newfstatat:delay_enter=2000000 2> "$tmp/strace.err" &
sp=$!
sleep 0.3
if ! kill -0 "$sp" 2> /dev/null; then
	echo "skip: strace cannot attach here: $(cat "$tmp/strace.err")"
	exit 0
fi
rm -f "$tmp/t/sub/f1"
ln "$tmp/victim" "$tmp/t/sub/f1"
held=0
for _ in $(seq 400); do
	if ls -l "/proc/$w/fd/" 2> /dev/null | grep -q "$tmp/victim\|sub/f1"; then held=1; break; fi
	sleep 0.01
done
rm -f "$tmp/t/sub/f1"
rc=0
wait "$rp" || rc=$?
rp=
kill "$sp" 2> /dev/null || true
wait "$sp" 2> /dev/null || true
sp=
[ "$held" = 1 ] || { echo "skip: the worker never held the planted file open (timing)"; exit 0; }
[ "$(sha256sum < "$tmp/victim")" = "$sum0" ] || fail "the file outside the target changed"
[ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat "$tmp/err")"
grep -q "failed: open '/sub/f1' (op 3, trace line 4): .*or had while it was opened" "$tmp/err" ||
	fail "message: $(cat "$tmp/err")"
echo "ok a link removed between the open and the check: refused, the outside file untouched"
