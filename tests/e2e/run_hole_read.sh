#!/usr/bin/env bash
# A read of a hole another process's write made (a write past the end of
# the file) waits for that write in parallel mode: replayed first, it found
# the file shorter and failed ("0 bytes where the trace moved 1000"), 10
# runs in 10 of audit R's capture.  Captured now with strace -f: a parent
# writes at 0 again and again, then past the end; its child, started
# before, reads the hole once the parent is done.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
mkdir "$tmp/src" "$tmp/t"
cat > "$tmp/hole.py" <<'PY'
import os, sys
f = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.pwrite(f, b"x" * 10, 0)
r, w = os.pipe()
pid = os.fork()
if pid == 0:                            # the child: reads the hole later
    os.close(w)
    os.read(r, 1)
    g = os.open(sys.argv[1], os.O_RDONLY)
    os.pread(g, 1000, 50000)
    os.close(g)
    os._exit(0)
os.close(r)
for _ in range(200):
    os.pwrite(f, b"y" * 10, 0)
os.pwrite(f, b"z" * 10, 100000)         # the file grows past the hole
os.write(w, b"g")
os.waitpid(pid, 0)
os.close(f)
PY
strace -f -tt -T -y -o "$tmp/hole.strace" python3 "$tmp/hole.py" "$tmp/src/h.dat" 2> "$tmp/strace.err" \
	|| { grep -qi "ptrace" "$tmp/strace.err" && { echo "skip: strace cannot trace here"; exit 0; }; \
	     fail "strace: $(cat "$tmp/strace.err")"; }
# the capture is what the test needs: the child's pread of the hole got 1000
# (strace -f may split the call: "<unfinished ...>", then "<... pread64 resumed>")
grep -Eq '(pread64\([0-9]*</[^>]*h\.dat>|<\.\.\. pread64 resumed>).*, 1000, 50000\) = 1000' "$tmp/hole.strace" \
	|| fail "the capture has no pread of the hole: $(grep 'h\.dat' "$tmp/hole.strace" | tail -3)"
engines=(sync io_uring)
"$REPLAY" run --dry-run -e io_uring "$tmp/hole.strace" "$tmp/t" > /dev/null 2> "$tmp/probe.err" ||
	{ echo "note: io_uring unavailable here ($(head -1 "$tmp/probe.err")): libaio instead"; engines=(sync libaio); }
for i in 1 2 3 4 5; do
	for e in "${engines[@]}"; do
		rm -rf "$tmp/t"; mkdir "$tmp/t"
		rc=0
		"$REPLAY" run -e "$e" --no-drop-caches --exclude "*" --include "$tmp/src/*" \
			-o "$tmp/r.json" "$tmp/hole.strace" "$tmp/t" \
			> "$tmp/out" 2> "$tmp/err" || rc=$?
		[ "$rc" = 0 ] || fail "run $i ($e): exit $rc: $(grep -v '^replay: \(start\|end\)' "$tmp/err")"
		# the child's read moved its 1000 bytes (the python launcher's own reads left out)
		jq -e '[.runs[0].jobs[].read.io_bytes] | add == 1000' "$tmp/r.json" > /dev/null \
			|| fail "run $i ($e): read bytes $(jq -c '[.runs[0].jobs[].read.io_bytes]' "$tmp/r.json")"
	done
done
echo "ok 5 runs x ${engines[*]}: the hole read after the write that made it"
