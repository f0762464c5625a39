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
# The reference is an independent reading of the capture (python, not
# replay's parser): the last st_size the traced program's final os.stat of
# each file showed, checked against the files themselves.
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
echo "ok"
