#!/usr/bin/env bash
# What changes a file's size orders the other processes' later ops on it,
# on captures made at test time:
#  - `cmd > f; cmd2 >> f` and `tee f; tee -a f`: the appender's writes land
#    at the end of the file the first writer left, so they wait for its
#    writes (before: the appends ran beside the first writer's writes,
#    which overwrote them: 4.0-4.8 MB where the programs left 6 MB);
#  - a process that truncates a shared file (ftruncate, as Open MPI's
#    MPI_File_preallocate does on every rank, or an O_TRUNC open) before
#    another one writes it: the write waits for the truncate (before: the
#    truncate, replayed after the write, cut it: 4096 bytes where the
#    program left 17408);
#  - sqlite3 (a WAL database, VACUUM, a second database in DELETE mode),
#    whose close-time ftruncate to the size the file already had made the
#    next process's read of the first page run before the page was
#    written ("read moved 0 bytes, the trace 4096").
# Each capture is replayed -m parallel 3 times (--keep); the final sizes of
# the replayed tree must equal those the traced programs left (read by
# python's os.stat, not replay's parser), with exit 0.
set -euo pipefail
: "${REPLAY:?}"
command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
for p in cat head tee; do
	command -v "$p" >/dev/null || { echo "skip: $p not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# capture NAME CMD: run CMD under strace in $tmp/NAME/w (the work tree)
capture() {
	local name=$1 cmd=$2
	mkdir -p "$tmp/$name/w"
	(cd "$tmp/$name/w" && strace -f -tt -T -y -o "$tmp/$name/cap.txt" sh -c "$cmd" >/dev/null)
}

# sizes DIR: "relative-path size" of every regular file beneath DIR
sizes() {
	python3 - "$1" <<'EOF'
import os, sys
top = sys.argv[1]
for d, _, fs in sorted(os.walk(top)):
    for f in sorted(fs):
        p = os.path.join(d, f)
        st = os.lstat(p)
        if os.path.isfile(p) and not os.path.islink(p):
            print(os.path.relpath(p, top), st.st_size)
EOF
}

# check NAME FILE...: replay NAME's capture 3 times, the FILEs (relative to
# the work tree) must end with the traced sizes
check() {
	local name=$1; shift
	local w=$tmp/$name/w n
	n=$("$REPLAY" stat "$tmp/$name/cap.txt" | awk '/^ranks/ && !n { n = $2 } END { print n }')
	for i in 1 2 3; do
		local t=$tmp/$name/t$i
		mkdir -p "$t"
		if ! "$REPLAY" -m parallel -n "$n" --keep --quiet --no-drop-caches \
			"$tmp/$name/cap.txt" "$t" >"$tmp/$name/out$i" 2>&1; then
			echo "FAIL $name run $i: replay exited non-zero:"; tail -5 "$tmp/$name/out$i"
			fail=1; continue
		fi
		local f want got
		for f in "$@"; do
			want=$(stat -c %s "$w/$f")
			got=$(stat -c %s "$t$w/$f" 2>/dev/null || echo missing)
			if [ "$want" != "$got" ]; then
				echo "FAIL $name run $i: $f has $got bytes, the traced program left $want"
				fail=1
			fi
		done
	done
	[ "$fail" = 0 ] && echo "ok $name (-m parallel -n $n, 3 runs): $(for f in "$@"; do printf '%s %s B; ' "$f" "$(stat -c %s "$w/$f")"; done)"
	return 0
}

head -c 3000000 /dev/urandom >"$tmp/in.bin"
capture cat "cat '$tmp/in.bin' > o.txt; cat '$tmp/in.bin' >> o.txt"
check cat o.txt
capture tee "head -c 3000000 '$tmp/in.bin' | tee r.txt >/dev/null; head -c 3000000 '$tmp/in.bin' | tee -a r.txt >/dev/null"
check tee r.txt

# a process truncates the shared file, then (told through a pipe, which the
# replay does not see) the other writes 16 KiB at 1024 and reads it back;
# the truncating process first writes 20 MB elsewhere, so a replay that
# does not make the write wait runs it before the truncate
cat >"$tmp/trunc.py" <<'EOF'
import os, sys
mode = sys.argv[1]
fd = os.open('f.dat', os.O_RDWR | os.O_CREAT, 0o644)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    b = os.open('busy.dat', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for k in range(320):
        os.write(b, b'x' * 65536)
    os.close(b)
    if mode == 'ftruncate':
        f2 = os.open('f.dat', os.O_RDWR)
        os.ftruncate(f2, 4096)
    else:
        f2 = os.open('f.dat', os.O_WRONLY | os.O_TRUNC)
    os.close(f2)
    os.write(w, b'1')
    os._exit(0)
os.read(r, 1)
os.pwrite(fd, b'a' * 16384, 1024)
assert len(os.pread(fd, 16384, 1024)) == 16384
os.close(fd)
os.waitpid(pid, 0)
EOF
# the system's python, not a wrapper script (pyenv's shims) with processes
# of its own
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
capture ftruncate "'$py' '$tmp/trunc.py' ftruncate"
check ftruncate f.dat busy.dat
capture otrunc "'$py' '$tmp/trunc.py' otrunc"
check otrunc f.dat busy.dat

if command -v sqlite3 >/dev/null; then
	cat >"$tmp/sq.sql" <<'EOF'
PRAGMA journal_mode=WAL;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT x, printf('%080d', x) FROM c;
EOF
	capture sqlite "sqlite3 db.sqlite < '$tmp/sq.sql';
		sqlite3 db.sqlite 'UPDATE t SET b = upper(b) WHERE a % 7 = 0;';
		sqlite3 db.sqlite 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;';
		sqlite3 db.sqlite 'SELECT count(*) FROM t;'"
	grep -q 'ftruncate(.*db.sqlite' "$tmp/sqlite/cap.txt" ||
		echo "note: this sqlite3 made no ftruncate of db.sqlite"
	check sqlite db.sqlite
else
	echo "skip part: sqlite3 not installed"
fi
exit "$fail"
