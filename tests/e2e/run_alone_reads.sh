#!/usr/bin/env bash
# A rank that reads back what other ranks wrote into a file it made itself
# (O_CREAT|O_TRUNC), replayed without them (-m sequential: each rank
# alone; --ranks, -n: ranks left out): their data is not there, and no
# preparation can put it there (the rank's own O_TRUNC open would wipe
# it).  The run stopped there: "read ... 0 bytes where the trace moved
# 65536", exit 1, the other ranks never replayed (audit APP).  Now the
# read moves what it finds, is counted (alone_short_reads, _bytes) and
# said ("alone: ..."), not a mismatch; the same trace in parallel has no
# such read.  Captured now: a main thread truncates, 4 threads pwrite
# their 64 KiB, the main thread preads one back.
set -euo pipefail
command -v jq > /dev/null || { echo "skip: jq is not installed"; exit 0; }
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
mkdir "$tmp/src" "$tmp/t"
cat > "$tmp/mt.py" <<'PY'
import os, sys, threading
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
def part(k):
    os.pwrite(fd, bytes([65 + k]) * 65536, k * 65536)
ts = [threading.Thread(target=part, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
assert len(os.pread(fd, 65536, 2 * 65536)) == 65536
os.close(fd)
PY
strace -f -tt -T -y -o "$tmp/mt.strace" python3 "$tmp/mt.py" "$tmp/src/mt.dat" 2> "$tmp/strace.err" \
	|| fail "strace: $(cat "$tmp/strace.err")"
sel=(--exclude '*' --include "$tmp/src/*")
# run ARGS...: replays into a fresh target, the JSON to $tmp/r.json
run() {
	rm -rf "$tmp/t"; mkdir "$tmp/t"
	"$REPLAY" run --no-drop-caches "${sel[@]}" -o "$tmp/r.json" "$@" "$tmp/mt.strace" "$tmp/t" \
		> "$tmp/out" 2> "$tmp/err"
}
for how in "-m sequential" "--ranks 0" "-n 1"; do
	# shellcheck disable=SC2086  # the options as words
	run $how || fail "$how: exit $?: $(grep -v '^replay: \(start\|end\)' "$tmp/err")"
	grep -q "^alone:       1 read found 64.0 KiB less than the trace read: data other ranks write" "$tmp/out" \
		|| fail "$how: no alone line: $(cat "$tmp/out")"
	jq -e '[.runs[0].jobs[] | .alone_short_reads] | add == 1' "$tmp/r.json" > /dev/null \
		|| fail "$how: alone_short_reads $(jq -c '[.runs[0].jobs[] | .alone_short_reads]' "$tmp/r.json")"
	jq -e '[.runs[0].jobs[] | .alone_short_bytes] | add == 65536' "$tmp/r.json" > /dev/null \
		|| fail "$how: alone_short_bytes $(jq -c '[.runs[0].jobs[] | .alone_short_bytes]' "$tmp/r.json")"
	jq -e '.incomplete == false' "$tmp/r.json" > /dev/null || fail "$how: the run is marked incomplete"
done
# sequential: every rank replayed, the threads' 4 x 64 KiB written
run -m sequential
jq -e '[.runs[0].jobs[].write.io_bytes] | add == 262144' "$tmp/r.json" > /dev/null \
	|| fail "sequential: written $(jq -c '[.runs[0].jobs[].write.io_bytes]' "$tmp/r.json")"
# together: the read finds its data
run -m parallel || fail "parallel: exit $?: $(cat "$tmp/err")"
! grep -q "^alone:" "$tmp/out" || fail "parallel: $(grep '^alone:' "$tmp/out")"
jq -e '[.runs[0].jobs[] | .alone_short_reads] | add == 0' "$tmp/r.json" > /dev/null || fail "parallel: alone_short_reads"
jq -e '[.runs[0].jobs[].read.io_bytes] | add == 65536' "$tmp/r.json" > /dev/null \
	|| fail "parallel: read $(jq -c '[.runs[0].jobs[].read.io_bytes]' "$tmp/r.json")"
# not excused: a short read whose writer is replayed too (--ranks 0,1
# leaves out only rank 2, which writes another file), nor one of a file
# the reader made itself after another rank's file of that name was
# unlinked (a1, a2: hand-made, impossible as traced, so a mismatch)
cat > "$tmp/a1.strace" <<'T'
100 10:00:00.000100 openat(AT_FDCWD, "/w/F", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
100 10:00:00.000200 write(3, "x"..., 4096) = 4096 <0.000010>
100 10:00:00.000300 close(3) = 0 <0.000010>
101 10:00:00.001000 openat(AT_FDCWD, "/w/F", O_RDONLY) = 3 <0.000010>
101 10:00:00.001100 read(3, "x"..., 8192) = 8192 <0.000010>
101 10:00:00.001200 close(3) = 0 <0.000010>
102 10:00:00.002000 openat(AT_FDCWD, "/w/G", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
102 10:00:00.002100 write(3, "y"..., 10) = 10 <0.000010>
102 10:00:00.002200 close(3) = 0 <0.000010>
T
cat > "$tmp/a2.strace" <<'T'
100 10:00:00.000100 openat(AT_FDCWD, "/w/X", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
100 10:00:00.000200 write(3, "x"..., 10) = 10 <0.000010>
100 10:00:00.000300 close(3) = 0 <0.000010>
100 10:00:00.000400 unlink("/w/X") = 0 <0.000010>
101 10:00:00.001000 openat(AT_FDCWD, "/w/X", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
101 10:00:00.001100 write(3, "z"..., 4096) = 4096 <0.000010>
101 10:00:00.001200 pread64(3, "z"..., 8192, 0) = 8192 <0.000010>
101 10:00:00.001300 close(3) = 0 <0.000010>
T
for c in "a1 --ranks 0,1" "a2 --ranks 1" "a2 -m sequential"; do
	set -- $c
	t=$1
	shift
	rm -rf "$tmp/t"; mkdir "$tmp/t"
	rc=0
	"$REPLAY" run --no-drop-caches "$@" "$tmp/$t.strace" "$tmp/t" > "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "4096 bytes where the trace moved 8192" "$tmp/err" \
		|| fail "$t $*: exit $rc, not the mismatch: $(grep -v '^replay: \(start\|end\)' "$tmp/err")"
done
echo "ok a read of the other ranks' data after the rank's own O_TRUNC: -m sequential, --ranks 0, -n 1 replay it as the short read it becomes (said, counted); parallel reads its 65536 bytes; a short read with its writer replayed, or of the reader's own file, is a mismatch"
