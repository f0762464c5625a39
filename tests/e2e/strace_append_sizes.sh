#!/usr/bin/env bash
# Files the traced program appended to, and files it found empty: the plan
# prepares each with the size it had when tracing began, so a replay with
# --keep leaves every file with the size the traced program left.  Real
# captures made here:
#  - Python's open('a') of a log that existed (10000 bytes: O_CREAT|O_APPEND,
#    its fstat and lseek SEEK_END show the size), then the appended part
#    read back (the plan took it as made by the run: the read found nothing);
#  - `echo x >> shlog; cat shlog`: the shell appends before anything shows
#    the size, cat's fstat and read show it after (prepared with the size
#    after the append: 2 bytes too many);
#  - a file created empty and probed at EOF as sqlite does (pread 0 bytes at
#    0, 24 and 4096), then written 1 byte (prepared with the probe's offset).
#  - a python parent and a forked child each open('a') a log that existed
#    (321 bytes) 60 times: their appends interleave, and a size one shows
#    while the other's append is in flight (strace prints a call's line when
#    it starts) lags it; the pass took the next larger size for data from
#    before the trace (prepared 3-17 KiB, every append landed that much
#    later).  Captured again (up to 8 times) until it shows such a size.
# The reference is an independent reading of the capture (python, not
# replay's parser): the last st_size the traced program's final os.stat of
# each file showed, checked against the files themselves; for the shared
# log, the size shown before any write and what the writes appended.
set -euo pipefail
: "${REPLAY:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-append-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
mkdir w
head -c 10000 /dev/urandom > w/log.txt
head -c 10000 /dev/urandom > w/shlog
cat > append.py <<PY
with open("$tmp/w/log.txt", "a") as f:
    f.write("y" * 100)
with open("$tmp/w/log.txt") as f:
    f.seek(10000)
    assert len(f.read()) == 100
PY
cat > eof.py <<PY
import os
p = "$tmp/w/db.sqlite"
try:
    os.open(p, os.O_RDONLY)
except FileNotFoundError:
    pass
fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
os.fstat(fd)
assert os.pread(fd, 100, 0) == b"" and os.pread(fd, 16, 24) == b""
assert os.pread(fd, 16, 4096) == b""
os.pwrite(fd, b"a", 0)
os.close(fd)
PY
cat > final.py <<PY
import os
for n in ("log.txt", "shlog", "db.sqlite"):
    os.stat("$tmp/w/" + n)
PY
strace -f -tt -T -y -o cap.txt sh -c "python3 append.py; echo x >> $tmp/w/shlog; cat $tmp/w/shlog > /dev/null; python3 eof.py; python3 final.py"

# the independent reading: each file's size at the traced program's last
# stat of it (the final.py pass), and the files on disk agree
python3 - "$tmp/w" cap.txt > ref.txt <<'PY'
import re, sys, os
d, cap = sys.argv[1], sys.argv[2]
last = {}
pat = re.compile(r'(?:newfstatat|stat|lstat|statx)\([^"]*"(' + re.escape(d) + r'/[^"]+)".*?(?:st_size|stx_size)=(\d+)')
for line in open(cap, errors="replace"):
    m = pat.search(line)
    if m:
        last[m.group(1)] = int(m.group(2))
for n in ("log.txt", "shlog", "db.sqlite"):
    p = d + "/" + n
    assert p in last, "no stat of " + p + " in the capture"
    assert last[p] == os.path.getsize(p), (p, last[p], os.path.getsize(p))
    print(p, last[p])
PY
[ "$(wc -l < ref.txt)" = 3 ] || fail "reference: $(cat ref.txt)"
grep -q "/log.txt 10100\$" ref.txt && grep -q "/shlog 10002\$" ref.txt && grep -q "/db.sqlite 1\$" ref.txt ||
	fail "the capture is not what this test is about: $(cat ref.txt)"

# the plan: the initial sizes (logs), nothing for the file the trace made
mkdir tgt
"$REPLAY" run --dry-run cap.txt tgt > plan.txt 2>&1 || fail "dry run: $(tail -3 plan.txt)"
grep -Eq "w/log.txt +[a-z]+ +prepare .*\(10000 bytes\)" plan.txt || fail "log.txt: $(grep 'w/log.txt' plan.txt)"
grep -Eq "w/shlog +[a-z]+ +prepare .*\(10000 bytes\)" plan.txt || fail "shlog: $(grep 'w/shlog' plan.txt)"
grep -Eq "w/db.sqlite +[a-z]+ +-, created by the run" plan.txt || fail "db.sqlite: $(grep 'w/db.sqlite' plan.txt)"

# the replay: exit 0, no mismatch (the read back of the append found
# nothing), and after a full replay kept each file as the traced program
# left it (sequential mode runs each rank alone, on what it needs
# prepared: no mismatch either)
for m in sequential parallel; do
	rm -rf tgt && mkdir tgt
	keep=; [ "$m" = parallel ] && keep=--keep
	"$REPLAY" run $keep --no-drop-caches -m "$m" -o "r-$m.json" cap.txt tgt > "run-$m.txt" 2>&1 ||
		fail "$m: replay failed: $(grep -E 'mismatch|trace line|failed' "run-$m.txt" | head -5)"
	jq -e '.runs[0].jobs | map(.mismatches.total) | add == 0' "r-$m.json" > /dev/null ||
		fail "$m: mismatches: $(jq -c '[.runs[0].jobs[].mismatches]' "r-$m.json")"
done
while read -r p size; do
	got=$(stat -c %s "tgt$p") || fail "tgt$p missing"
	[ "$got" = "$size" ] || fail "$p: $got bytes after the replay, the trace left $size"
done < ref.txt

# two processes appending to one log that existed
cat > shared.py <<'PY'
import os, sys
log = sys.argv[1]
pid = os.fork()
if pid == 0:
    for i in range(60):
        with open(log, "a") as f:
            f.write("c" * (100 + i))
    os._exit(0)
for i in range(60):
    with open(log, "a") as f:
        f.write("p" * (200 + i))
os.waitpid(pid, 0)
PY
# the independent reading: the size shown before any write of the log (its
# initial size), that size plus what the writes asked (both python's, whole),
# and how many sizes shown differ from the writes begun before them
cat > shared_ref.py <<'PY'
import re, sys
cap, log = sys.argv[1], sys.argv[2]
tag = "<" + log + ">"
shown = re.compile(r"st_size=(\d+)|SEEK_END\) = (\d+)|^\) = (\d+)")
wr = re.compile(r"write\(\d+" + re.escape(tag) + r", \".*\"(?:\.\.\.)?, (\d+)")
ev, pending = [], {}          # in the order the calls start: ["w"|"s", n]
for line in open(cap, errors="replace"):
    m = re.match(r"(\d+)\s+\S+\s+(.*)", line)   # pid (padded), time, call
    if not m:
        continue
    pid, rest = m.groups()
    m = re.match(r"<\.\.\. (\w+) resumed>(.*)", rest)
    if m and pid in pending:
        e = pending.pop(pid)
        v = shown.search(m.group(2).strip())
        if v:
            e[1] = int(v.group(1) or v.group(2) or v.group(3))
        continue
    if tag not in rest:
        continue
    w = wr.search(rest)
    if w:
        ev.append(["w", int(w.group(1))])
    elif rest.startswith(("newfstatat(", "fstat(", "lseek(")):
        e = ["s", None]
        if "unfinished" in rest:
            if rest.startswith("lseek(") and "SEEK_END" not in rest:
                continue
            pending[pid] = e
        else:
            v = shown.search(rest)
            if not v:
                continue
            e[1] = int(v.group(1) or v.group(2))
        ev.append(e)
initial, appended, stale = None, 0, 0
for kind, n in ev:
    if kind == "w":
        appended += n
    elif n is None:
        continue
    elif not appended:        # before any write: the smallest shown
        initial = n if initial is None else min(initial, n)
    elif n != initial + appended:
        stale += 1
print(initial, initial + appended, stale)
PY
mkdir -p s
for try in 1 2 3 4 5 6 7 8; do
	head -c 321 /dev/urandom > s/shared.log
	strace -f -tt -T -y -o scap.txt python3 shared.py "$tmp/s/shared.log"
	read -r init final stale < <(python3 shared_ref.py scap.txt "$tmp/s/shared.log") ||
		fail "shared: cannot read the capture"
	[ "$init" = 321 ] && [ "$final" = "$(stat -c %s s/shared.log)" ] ||
		fail "shared: the capture is not what this test is about: $init $final $stale"
	[ "$stale" -gt 0 ] && break
done
[ "$stale" -gt 0 ] || echo "note: shared: no size shown behind an append in flight in 8 captures"
rm -rf tgt && mkdir tgt
"$REPLAY" run --dry-run scap.txt tgt > splan.txt 2>&1 || fail "shared dry run: $(tail -3 splan.txt)"
grep -Eq "s/shared.log +[a-z]+ +prepare .*\($init bytes\)" splan.txt ||
	fail "shared.log ($stale sizes shown behind an append): $(grep 's/shared.log' splan.txt), the trace showed $init"
for m in sequential parallel; do
	rm -rf tgt && mkdir tgt
	keep=; [ "$m" = parallel ] && keep=--keep
	"$REPLAY" run $keep --no-drop-caches -m "$m" -o "s-$m.json" scap.txt tgt > "srun-$m.txt" 2>&1 ||
		fail "shared $m: replay failed: $(grep -E 'mismatch|trace line|failed' "srun-$m.txt" | head -5)"
	jq -e '.runs[0].jobs | map(.mismatches.total) | add == 0' "s-$m.json" > /dev/null ||
		fail "shared $m: mismatches: $(jq -c '[.runs[0].jobs[].mismatches]' "s-$m.json")"
done
got=$(stat -c %s "tgt$tmp/s/shared.log") || fail "tgt$tmp/s/shared.log missing"
[ "$got" = "$final" ] || fail "shared.log: $got bytes after the replay, the trace left $final"
echo "ok"
