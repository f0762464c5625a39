#!/usr/bin/env bash
# convert_pieces: the records of ranks that interleave (threads of an
# strace capture) past what the .ops writer holds in memory are written
# once, as pieces of ranks (a version 2 .ops, replay-ops(5)), where they
# were spilled and then copied into rank order.  REPLAY_OPS_HOLD makes a
# small capture do what a large one does at the default 32 MiB.
#
# A python program (the system's, not a test program of ours) runs three
# threads that each pwrite their own file in turn, a barrier between
# rounds; captured with strace -f at test time.  Checked:
#  - the .ops is version 2 with the small hold, version 1 without it, and
#    `replay dump` of both is the same text;
#  - an independent reading of the capture (a python script reading the
#    strace text, not replay's parser) finds every successful pwrite64,
#    file by file in the trace's order, with the offset and length the
#    dump shows;
#  - `replay run` from the version 2 .ops, and from the capture with the
#    small hold (its temporary .ops a version 2 one too), leaves the
#    files the program left.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
py=/usr/bin/python3
[ -x "$py" ] || { echo "skip: $py is not installed"; exit 0; }

mkdir "$tmp/src"
cat > "$tmp/w.py" <<'PY'
import os, sys, threading
n = int(sys.argv[1])
b = threading.Barrier(3)
def work(k):
    fd = os.open("f%d" % k, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for i in range(n):
        os.pwrite(fd, bytes([65 + k]) * (512 + k), i * (512 + k))
        b.wait()
    os.close(fd)
ts = [threading.Thread(target=work, args=(k,)) for k in range(3)]
for t in ts:
    t.start()
for t in ts:
    t.join()
PY
(cd "$tmp/src" && strace -f -tt -T -y -o "$tmp/cap.strace" "$py" "$tmp/w.py" 3000) 2> "$tmp/strace.err" ||
	{ grep -qi ptrace "$tmp/strace.err" && { echo "skip: strace cannot trace here"; exit 0; }
	  fail "strace: $(cat "$tmp/strace.err")"; }

version() { od -A n -t u4 -j 8 -N 4 "$1" | tr -d ' '; }
REPLAY_OPS_HOLD=65536 "$REPLAY" convert "$tmp/cap.strace" -o "$tmp/p.ops" > /dev/null
"$REPLAY" convert "$tmp/cap.strace" -o "$tmp/c.ops" > /dev/null
[ "$(version "$tmp/p.ops")" = 2 ] || fail "64 KiB hold: .ops version $(version "$tmp/p.ops"), not 2 (pieces)"
[ "$(version "$tmp/c.ops")" = 1 ] || fail "default hold: .ops version $(version "$tmp/c.ops"), not 1"
"$REPLAY" dump "$tmp/p.ops" > "$tmp/p.dump"
"$REPLAY" dump "$tmp/c.ops" > "$tmp/c.dump"
cmp -s "$tmp/p.dump" "$tmp/c.dump" || fail "dump of the version 2 .ops differs: $(diff "$tmp/p.dump" "$tmp/c.dump" | head -5)"
echo "ok pieces: version 2 with a 64 KiB hold, 1 without, the same $(grep -vc '^#' "$tmp/p.dump") ops"

# The capture's pwrite64 calls, file by file in order: "PATH OFFSET LEN"
# (a call split by another thread's line is two lines: its start holds
# the arguments, its resumption the result).
"$py" - "$tmp/cap.strace" > "$tmp/want" <<'PY'
import re, sys
# (strace -f pads the pid column: "1234  10:00:00.000001 ...")
start = re.compile(r'^(\d+) +\S+ pwrite64\(\d+<([^>]*)>, .*, (\d+), (\d+)(\) += (-?\d+)| <unfinished \.\.\.>)')
resumed = re.compile(r'^(\d+) +\S+ <\.\.\. pwrite64 resumed>.*\) += (-?\d+)')
pending, out = {}, {}
for line in open(sys.argv[1]):
    m = start.match(line)
    if m:
        pid, path, length, off, done, res = m.groups()
        if res is None:
            pending[pid] = (path, off, length)
            continue
        if int(res) >= 0:
            out.setdefault(path, []).append("%s %s %s" % (path, off, length))
        continue
    m = resumed.match(line)
    if m and m.group(1) in pending:
        path, off, length = pending.pop(m.group(1))
        if int(m.group(2)) >= 0:
            out.setdefault(path, []).append("%s %s %s" % (path, off, length))
for path in sorted(out):
    print("\n".join(out[path]))
PY
awk '!/^#/ && $4 == "write" && $NF ~ /\/src\/f[0-2]$/ { print $NF, $6, $7 }' "$tmp/p.dump" |
	sort -s -k1,1 > "$tmp/got"
[ "$(wc -l < "$tmp/want")" = 9000 ] || fail "the capture shows $(wc -l < "$tmp/want") pwrite64 calls, not 9000"
cmp -s "$tmp/got" "$tmp/want" || fail "dump's writes differ from the capture's: $(diff "$tmp/got" "$tmp/want" | head -5)"
echo "ok dump: 9000 writes, the capture's files, offsets and lengths in order"

sizes() { (cd "$1" && find . -type f -printf '%f %s\n' | sort); }
want=$(sizes "$tmp/src")
for how in ops capture; do
	rm -rf "$tmp/t"
	mkdir "$tmp/t"
	if [ $how = ops ]; then
		"$REPLAY" run --keep --no-drop-caches --exclude '*' --include "$tmp/src/*" \
			"$tmp/p.ops" "$tmp/t" > "$tmp/out" 2> "$tmp/err" || fail "run $how: $(cat "$tmp/err")"
	else
		REPLAY_OPS_HOLD=65536 "$REPLAY" run --keep --no-drop-caches --exclude '*' \
			--include "$tmp/src/*" "$tmp/cap.strace" "$tmp/t" > "$tmp/out" 2> "$tmp/err" ||
			fail "run $how: $(cat "$tmp/err")"
	fi
	got=$(sizes "$tmp/t$tmp/src")
	[ "$got" = "$want" ] || fail "run from the $how: files $(echo $got), the program left $(echo $want)"
	echo "ok run from the $how: $(echo $got)"
done
