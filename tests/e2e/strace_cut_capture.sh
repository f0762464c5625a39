#!/usr/bin/env bash
# A capture cut mid-line is read: strace killed with SIGKILL (a Slurm job
# at its time limit) leaves its last line unfinished, without a newline.
# Captures made here: python threads writing under strace -f, strace
# killed while they run (and -ff, many processes, its files read with a
# descriptor limit that makes the reader close and reopen them), plus a
# whole capture cut with head -c in the middle of its last write line.
# Each loads with one warning naming the cut line, cut_lines counted, the
# unfinished calls counted as skipped (no error); the replay issues every
# write an independent reading of the capture (python, not replay's
# parser) finds before the cut, and strace of the replay sees them.
# The same cut line followed by a newline, or a bad line elsewhere, is
# still an error.  Before: "expected ')'" and nothing replayed.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-cut-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
mkdir w tgt
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# the program: NT threads (or processes) writing 4 KiB blocks to their own
# files until killed; "ready" once each has written
cat > writer.py <<'PY'
import os, sys, threading, time
parent = os.getppid()                   # strace
w, nt, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def loop(i):
    fd = os.open(os.path.join(w, "d%d" % i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    b = bytes([65 + i % 26]) * 4096
    n = 0
    while True:
        os.write(fd, b)
        n += 1
        if n == 4:
            open(os.path.join(w, "ready%d" % i), "w").close()
        if n % 64 == 0:
            os.lseek(fd, 0, os.SEEK_SET)
        time.sleep(0.0002)
# the tracer's SIGKILL does not kill the tracees: each process leaves
# once its parent (strace, or the first python) is gone, or after 60 s
def orphaned(ppid):
    t0 = time.time()
    while os.getppid() == ppid and time.time() - t0 < 60:
        time.sleep(0.01)
    os._exit(0)
if mode == "threads":
    for i in range(nt):
        threading.Thread(target=loop, args=(i,), daemon=True).start()
    orphaned(parent)
else:
    me = os.getpid()
    for i in range(nt):
        if os.fork() == 0:
            threading.Thread(target=orphaned, args=(me,), daemon=True).start()
            loop(i)
    orphaned(parent)
PY

# capture until every writer is running, then SIGKILL strace (it kills
# its tracees with it: PTRACE_O_EXITKILL); until its output ends mid-line
capture_killed() {     # OUT NT MODE STRACE-ARGS...
	local out=$1 nt=$2 mode=$3 k
	shift 3
	for try in 1 2 3 4 5; do
		rm -rf w/* "$out"*
		strace "$@" -o "$out" python3 writer.py "$tmp/w" "$nt" "$mode" & local sp=$!
		for k in $(seq 1 200); do
			[ "$(ls w | grep -c ready)" -ge "$nt" ] && break
			sleep 0.05
		done
		sleep 0.2
		kill -KILL "$sp"
		wait "$sp" 2>/dev/null || true
		# the last byte of some file is not a newline: cut mid-line
		for f in "$out"*; do
			[ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ] && return 0
		done
	done
	return 1
}

# the independent reading: successful write() calls of each file before
# the cut (a last line without its newline does not count; an unfinished
# write is not done), summed per written file
cat > sums.py <<'PY'
import re, sys, collections
sums = collections.Counter()
pend = {}
for path in sys.argv[1:]:
    data = open(path, "rb").read().decode("utf-8", "replace")
    lines = data.split("\n")
    if not data.endswith("\n"):
        lines = lines[:-1]           # the cut line
    for l in lines:
        m = re.match(r"^(?:(\d+)\s+)?\d\d:\d\d:\d\d\.\d+ (.*)$", l)
        if not m:
            continue
        pid, rest = m.group(1) or path, m.group(2)
        w = re.match(r'write\(\d+<([^>]*/w/d\d+)>, .*\) += (\d+) <', rest)
        if w:
            sums[w.group(1)] += int(w.group(2))
            continue
        u = re.match(r'write\(\d+<([^>]*/w/d\d+)>, .* <unfinished \.\.\.>$', rest)
        if u:
            pend[pid] = u.group(1)
            continue
        r = re.match(r'<\.\.\. write resumed>.*\) += (\d+) <', rest)
        if r and pid in pend:
            sums[pend.pop(pid)] += int(r.group(1))
for f in sorted(sums):
    print(f, sums[f])
PY

# what the replay wrote, as strace of the replay sees it: pwrite64 bytes
# per file beneath the target, the target prefix taken off
cat > replayed.py <<'PY'
import re, sys, collections
tgt = sys.argv[1]
sums = collections.Counter()
for path in sys.argv[2:]:
    for l in open(path, errors="replace"):
        m = re.search(r'pwrite(?:64|v2?)?\(\d+<' + re.escape(tgt) + r'([^>]*/w/d\d+)>, .*\) = (\d+)$', l)
        if m:
            sums[m.group(1)] += int(m.group(2))
for f in sorted(sums):
    print(f, sums[f])
PY

check() {      # NAME TRACE-ARG FILES...
	local name=$1 arg=$2
	shift 2
	python3 sums.py "$@" > "$name.want"
	[ -s "$name.want" ] || fail "$name: no writes before the cut"
	"$REPLAY" stat --json "$arg" > "$name.json" 2> "$name.err" || fail "$name: stat: $(cat "$name.err")"
	grep -q "the capture ends mid-line" "$name.err" ||
		fail "$name: no warning about the cut: $(cat "$name.err")"
	# (strace killed may also leave a process forked in its last instant
	# without its -ff file: that warning is right, and not this test's)
	[ "$(grep 'warning' "$name.err" | grep -vc 'has no strace -ff file')" = 1 ] ||
		fail "$name: more warnings: $(cat "$name.err")"
	jq -e '.notes.cut_lines >= 1 and .notes.bad_lines == 0 and (.notes.cut_line | test(":[0-9]+$"))' \
		"$name.json" >/dev/null || fail "$name: $(jq -c '.notes | {cut_lines, cut_line, bad_lines}' "$name.json")"
	# (-ff: a file per process of the replay, its lines whole)
	strace -ff -y -e trace=pwrite64,pwritev,pwritev2 -o "$name.rs" \
		"$REPLAY" run --quiet --no-drop-caches "$arg" tgt > /dev/null 2> "$name.run" ||
		fail "$name: run: $(cat "$name.run")"
	grep -q "the capture ends mid-line" "$name.run" || fail "$name: run did not warn"
	# the batch log and the JSON keep it too
	"$REPLAY" run --no-drop-caches -o "$name.res.json" "$arg" tgt > "$name.sum" 2>/dev/null ||
		fail "$name: run -o"
	grep -q "^             cut mid-line at .*:[0-9]* .*(strace killed?)" "$name.sum" ||
		fail "$name: the summary does not say the capture was cut: $(head -3 "$name.sum")"
	jq -e '.options.trace_cut_lines >= 1' "$name.res.json" > /dev/null ||
		fail "$name: options.trace_cut_lines: $(jq -c '.options.trace_cut_lines' "$name.res.json")"
	python3 replayed.py "$tmp/tgt" "$name".rs.* > "$name.got"
	diff "$name.want" "$name.got" > /dev/null ||
		fail "$name: replayed writes differ from the capture's: $(diff "$name.want" "$name.got" | head -5)"
}

# 1. -f, 3 threads, killed
capture_killed f.txt 3 threads -f -tt -T -y || { echo "SKIP: strace never ended mid-line when killed"; exit 77; }
check f f.txt f.txt
# the calls the kill left unfinished (never resumed) are counted as
# skipped.unfinished:NAME, no error
python3 - f.txt > f.unf <<'PY'
import re, sys
data = open(sys.argv[1], errors="replace").read()
lines = data.split("\n")
if not data.endswith("\n"):
    lines = lines[:-1]
pend = {}
for l in lines:
    m = re.match(r"^(\d+)\s+\S+ (.*)$", l)
    if not m:
        continue
    if m.group(2).endswith("<unfinished ...>"):
        pend[m.group(1)] = 1
    elif m.group(2).startswith("<... "):
        pend.pop(m.group(1), None)
print(len(pend))
PY
"$REPLAY" stat --json f.txt 2>/dev/null |
	jq -e --argjson n "$(cat f.unf)" '[.notes.skipped | to_entries[] | select(.key | startswith("unfinished:")) | .value] | add // 0 | . == $n' >/dev/null ||
	fail "f: $(cat f.unf) calls left unfinished, skipped: $("$REPLAY" stat --json f.txt 2>/dev/null | jq -c '.notes.skipped | with_entries(select(.key | startswith("unfinished")))')"

# 2. -ff, 12 processes, killed; read with 48 descriptors (8 files open at once)
if capture_killed ff 12 procs -ff -tt -T -y; then
	python3 sums.py ff.* > ff.want
	( ulimit -n 48; "$REPLAY" stat --json ff > ff.json 2> ff.err ) || fail "ff: stat: $(cat ff.err)"
	grep -q "the capture ends mid-line" ff.err || fail "ff: no warning: $(cat ff.err)"
	jq -e '.notes.cut_lines >= 1' ff.json >/dev/null || fail "ff: $(jq -c '.notes.cut_lines' ff.json)"
	check ff ff ff.*
else
	echo "note: no -ff file ended mid-line"
fi

# 3. a whole capture cut with head -c in the middle of its last write line
rm -rf w/*
timeout 60 strace -f -tt -T -y -o whole.txt python3 - "$tmp/w" <<'PY'
import os, sys
fd = os.open(os.path.join(sys.argv[1], "d0"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(50):
    os.write(fd, b"x" * 1000)
os.close(fd)
PY
last=$(grep -n 'write([0-9]*<[^>]*/w/d0>' whole.txt | tail -1 | cut -d: -f1)
[ -n "$last" ] || fail "whole: no write in the capture"
cutat=$(( $(head -n $((last - 1)) whole.txt | wc -c) + $(sed -n "${last}p" whole.txt | wc -c) / 2 ))
head -c "$cutat" whole.txt > cut.txt
check cut cut.txt cut.txt
"$REPLAY" stat --json cut.txt 2>/dev/null | jq -e --arg l "$last" '.notes.cut_line | endswith(":" + $l)' >/dev/null ||
	fail "cut: cut_line is not line $last"

# still errors: the cut line with its newline, a bad line before the end
{ cat cut.txt; echo; } > cutnl.txt
if "$REPLAY" stat cutnl.txt > /dev/null 2> cutnl.err; then fail "cutnl: accepted"; fi
grep -q "cutnl.txt:$last: expected" cutnl.err || fail "cutnl: $(cat cutnl.err)"
bad=$(grep -n ') = 0 <' cut.txt | sed -n 3p | cut -d: -f1)
sed "${bad}s/) = 0 </ = 0 </" cut.txt > mid.txt
cmp -s cut.txt mid.txt && fail "mid: line $bad not damaged"
if "$REPLAY" stat mid.txt > /dev/null 2> mid.err; then fail "mid: a bad line $bad was accepted"; fi
grep -q "mid.txt:$bad: expected" mid.err || fail "mid: $(cat mid.err)"
echo "ok"
