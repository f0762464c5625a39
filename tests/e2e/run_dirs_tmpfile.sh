#!/usr/bin/env bash
# A real program captured at test time (strace -f -tt -T -y of python3):
#   - a checkpoint directory with a subdirectory, written, renamed and read
#     back (ckpt.tmp/rank0/data, rename ckpt.tmp -> ckpt.1, read
#     ckpt.1/rank0/data).  Before: the plan made ckpt.1/rank0/ ("created if
#     needed"), the replayed rename failed with ENOTEMPTY and the read was
#     never issued (a warning, exit 0);
#   - tempfile.TemporaryFile (O_TMPFILE: strace -y names the file
#     "DIR/#INODE>(deleted)") written, sought back and read, and a second
#     O_TMPFILE open of the directory written.  Before: the plan prepared a
#     regular file of that name, the replayed O_TMPFILE open of it failed
#     with ENOTDIR and all I/O on it was dropped.
# The replay runs under strace -f -y (parallel, sequential, and -n 2 and
# -n 3: more copies of the files, under .replay-copy-K/), and an
# independent reading of both straces (lib/rw_replay.sh, not replay's
# parser) checks that every read and write of the capture, as (kind, file,
# offset, length), is in each copy of the replay; then: exit 0, no
# mismatch, nothing left in the target, and the --dry-run lines of both.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "strace not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$SRCDIR/tests/e2e/lib/rw_replay.sh"
W=$tmp/w
mkdir "$W"
W=$(cd "$W" && pwd -P)

# the interpreter itself (not a wrapper script that execs it): one traced
# process, so that -n 2 is two copies of it
PY=$(python3 -c 'import sys; print(sys.executable)')
strace -f -tt -T -y -o "$tmp/cap.txt" "$PY" -c '
import os, sys, tempfile
w = sys.argv[1]
os.chdir(w)
os.makedirs("ckpt.tmp/rank0")
with open("ckpt.tmp/rank0/data", "wb") as f:
    f.write(b"x" * 100000)
os.rename("ckpt.tmp", "ckpt.1")
with open("ckpt.1/rank0/data", "rb") as f:
    assert len(f.read()) == 100000
with tempfile.TemporaryFile(dir=w) as t:
    t.write(b"T" * 70000)
    t.seek(0)
    assert len(t.read()) == 70000
    t.seek(1000)
    t.read(5000)
fd = os.open(w, os.O_TMPFILE | os.O_WRONLY, 0o644)
os.pwrite(fd, b"L" * 9999, 4096)
os.close(fd)
' "$W"
grep -E -q 'O_TMPFILE.*= [0-9]+<.*/#[0-9]+>' "$tmp/cap.txt" ||
	{ echo "no O_TMPFILE open in the capture (file system without it?)"; exit 77; }

# the capture's reads and writes, by the reader of lib/rw_replay.sh
rw_io_reader "$tmp/io.py"
python3 "$tmp/io.py" "$tmp/cap.txt" "$W" capture >"$tmp/want"
for io in 'write ckpt.tmp/rank0/data 0 100000' 'read ckpt.1/rank0/data 0 100000' \
		'write # 0 70000' 'read # 0 70000' 'write # 4096 9999'; do
	grep -q "^$io " "$tmp/want" ||
		{ echo "FAIL: the capture's reading misses '$io'"; cat "$tmp/want"; exit 1; }
done

fail=0
T=$tmp/tgt
rw_replay_all "$tmp/cap.txt" "$W" "$T" "$tmp/want" "$tmp/io.py" || fail=1

"$REPLAY" run --dry-run "$tmp/cap.txt" "$T" >"$tmp/dry.out" 2>&1
if grep -E 'ckpt\.1 +dir +-, a traced rename makes it' "$tmp/dry.out" >/dev/null &&
	! grep -E 'ckpt\.1/rank0 ' "$tmp/dry.out" | grep -q 'created' &&
	grep -E '/#[0-9]+ +private +-, unnamed: the run opens O_TMPFILE' "$tmp/dry.out" >/dev/null; then
	echo "ok --dry-run: ckpt.1 made by the rename, the O_TMPFILE file unnamed"
else
	echo "FAIL --dry-run:"; grep -E 'ckpt|#' "$tmp/dry.out"; fail=1
fi

# linkat(fd, "", AT_FDCWD, "named.txt", AT_EMPTY_PATH): the other way to
# name an O_TMPFILE file (C; Python has no call for it), then read back.
# Before: replayed as a link from "DIR/#INODE", which failed with ENOENT,
# and the read of named.txt then failed too (2 mismatches)
if command -v cc >/dev/null; then
	cat >"$tmp/tf.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
	char b[64];
	int fd = open(".", O_TMPFILE | O_RDWR, 0644);
	if (fd < 0 || write(fd, "hello world\n", 12) != 12 ||
	    linkat(fd, "", AT_FDCWD, "named.txt", AT_EMPTY_PATH))
		return 1;
	close(fd);
	fd = open("named.txt", O_RDONLY);
	return fd < 0 || read(fd, b, sizeof b) != 12;
}
EOF
	cc -o "$tmp/tf" "$tmp/tf.c"
	mkdir "$W/e"
	(cd "$W/e" && strace -f -tt -y -o "$tmp/tf.txt" "$tmp/tf")
	grep -q 'linkat(.*"", .*AT_EMPTY_PATH) = 0' "$tmp/tf.txt" || { echo "FAIL: no linkat AT_EMPTY_PATH in the capture"; exit 1; }
	mkdir "$tmp/t5"
	if "$REPLAY" run --no-drop-caches "$tmp/tf.txt" "$tmp/t5" >"$tmp/tf.out" 2>&1 &&
		! grep -q 'mismatches\|did not get the traced result' "$tmp/tf.out" &&
		"$REPLAY" run --dry-run "$tmp/tf.txt" "$tmp/t5" 2>&1 | grep -Eq '/e/named.txt +private +prepare 12 B'; then
		echo "ok linkat AT_EMPTY_PATH: the name is prepared with its 12 bytes, no mismatch"
	else
		echo "FAIL linkat AT_EMPTY_PATH:"; cat "$tmp/tf.out"; fail=1
	fi
else
	echo "note: no C compiler: linkat AT_EMPTY_PATH not checked"
fi
exit $fail
