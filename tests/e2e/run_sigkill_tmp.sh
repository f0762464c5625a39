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

# SIGKILL while the trace is still being read (an MPI_Abort of another
# rank, a time limit): the .ops being written has no name at all (an
# O_TMPFILE file), so TMPDIR holds nothing then either.  The trace comes
# through a FIFO held open, so the reading is caught half way.
for cmd in run dump; do
	rm -rf "$tmp/tmpd" "$tmp/t" "$tmp/fifo"
	mkdir "$tmp/tmpd" "$tmp/t"
	mkfifo "$tmp/fifo"
	if [ "$cmd" = run ]; then
		TMPDIR="$tmp/tmpd" "$REPLAY" run --no-drop-caches --quiet -f strace "$tmp/fifo" "$tmp/t" \
			>"$tmp/out" 2>&1 &
	else
		TMPDIR="$tmp/tmpd" "$REPLAY" dump -f strace "$tmp/fifo" >"$tmp/out" 2>&1 &
	fi
	pid=$!
	exec 7>"$tmp/fifo"
	head -20 "$tmp/slow.txt" >&7
	# until the reader holds what it was given (its writer is open: the
	# ops file exists by then, named or not)
	for _ in $(seq 100); do
		sleep 0.05
		grep -q "^rchar: [1-9]" "/proc/$pid/io" 2>/dev/null && break
	done
	sleep 0.2
	kill -0 "$pid" || fail "$cmd: replay ended before the trace did: $(cat "$tmp/out")"
	left=$(find "$tmp/tmpd" -type f | wc -l)
	[ "$left" = 0 ] || fail "$cmd: $left file(s) in TMPDIR while the trace is read: $(ls "$tmp/tmpd")"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	exec 7>&-
	left=$(find "$tmp/tmpd" -type f | wc -l)
	[ "$left" = 0 ] || fail "$cmd: $left file(s) left in TMPDIR after SIGKILL while reading: $(ls "$tmp/tmpd")"
done
echo "ok SIGKILL while the trace is read leaves nothing in TMPDIR"

# Without /proc (or where the file system has no O_TMPFILE) the .ops is a
# named temporary file, still gone once the run has it mapped and after it
noproc() { unshare -m sh -c 'mount -t tmpfs none /proc && exec "$0" "$@"' "$@"; }
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "skip: without /proc: needs root and unshare -m (uid $(id -u))"
elif ! noproc "$REPLAY" --version > /dev/null 2>&1; then
	echo "skip: without /proc: this build cannot start without /proc (a sanitizer's runtime reads it)"
else
	rm -rf "$tmp/tmpd" "$tmp/t"
	mkdir "$tmp/tmpd" "$tmp/t"
	TMPDIR="$tmp/tmpd" noproc strace -f -e trace=openat,unlink,rename -o "$tmp/named.st" \
		"$REPLAY" run --no-drop-caches --bind none -o "$tmp/named.json" "$tmp/slow.txt" "$tmp/t" > "$tmp/out" 2>&1 \
		|| { grep -q "PTRACE\|ptrace" "$tmp/out" && echo "skip: strace cannot trace here"; } \
		|| fail "run without /proc: $(cat "$tmp/out")"
	if [ -s "$tmp/named.st" ]; then
		grep -q "openat(.*\"$tmp/tmpd/replay-[^\"]*\.ops\.tmp" "$tmp/named.st" \
			|| fail "without /proc: no named temporary .ops: $(grep "$tmp/tmpd" "$tmp/named.st")"
		grep -q "O_TMPFILE" "$tmp/named.st" && fail "without /proc: an O_TMPFILE file was used"
	fi
	left=$(find "$tmp/tmpd" -type f | wc -l)
	[ "$left" = 0 ] || fail "without /proc: $left file(s) left in TMPDIR: $(ls "$tmp/tmpd")"
	jq -e '[.runs[0].jobs[].write.total_ios] | add == 40' "$tmp/named.json" > /dev/null \
		|| fail "without /proc: not the trace's 40 writes: $(cat "$tmp/out")"
	echo "ok without /proc: a named temporary .ops, removed"
fi
