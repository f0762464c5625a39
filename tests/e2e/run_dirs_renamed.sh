#!/usr/bin/env bash
# A real program captured at test time (strace -f -tt -T -y of python3),
# with directories that were there before the capture, renamed by it:
#   - mv data/old data/new, read new/x/y/file, mv new/x new/x2, append to
#     and read new/x2/y/file.  Before: the plan prepared data/old as a
#     0-byte file and the file under its new name; the renames failed with
#     EISDIR and ENOTEMPTY, the run exited 1;
#   - shutil.rmtree(ckpt) of a tree there before, rename ckpt.tmp (with
#     subdirectories) to ckpt, read back.  Before: ckpt/a... made before the
#     run, the rmdir and rename failed with ENOTEMPTY, the reads ENOENT
#     (exit 0, a warning);
#   - rotation: rmtree ckpt.2; mv ckpt.1 ckpt.2; mv ckpt.0 ckpt.1; write a
#     new ckpt.0; read ckpt.1 and ckpt.2 back.  Before: every file prepared
#     with 0 bytes, the reads got nothing (exit 1).
# The files there before the capture are made before it (not traced): the
# plan must infer them, under the names they had when the trace began.
# The replay runs under strace -f -y (parallel, sequential, -n 2 and -n 3
# -m sequential), and an independent reading of both straces (lib/rw_replay.sh) checks that every read and write of the
# capture, as (kind, file, offset, length), is in each copy of the replay;
# then: exit 0, no mismatch, nothing left in the target, and the --dry-run
# lines naming where the renamed files are prepared.
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
# there before the capture
mkdir -p "$W/data/old/x/y" "$W/ckpt/old"
head -c 4444 /dev/zero | tr '\0' a >"$W/data/old/x/y/file"
echo old >"$W/ckpt/old/f"
for g in 0 1 2; do
	mkdir -p "$W/rot/ckpt.$g/r0"
	head -c $((1000 * (g + 1))) /dev/zero | tr '\0' b >"$W/rot/ckpt.$g/r0/d"
done

PY=$(python3 -c 'import sys; print(sys.executable)')
strace -f -tt -T -y -o "$tmp/cap.txt" "$PY" -c '
import os, shutil, sys
w = sys.argv[1]
os.chdir(w)
os.rename("data/old", "data/new")
with open("data/new/x/y/file", "rb") as f:
    assert len(f.read()) == 4444
os.rename("data/new/x", "data/new/x2")
with open("data/new/x2/y/file", "ab") as f:
    f.write(b"1" * 777)
with open("data/new/x2/y/file", "rb") as f:
    assert len(f.read()) == 5221
os.makedirs("ckpt.tmp/a/b")
for n, p in enumerate(("ckpt.tmp/a/p0", "ckpt.tmp/a/b/p1")):
    with open(p, "wb") as f:
        f.write(b"c" * (10000 * (n + 1)))
shutil.rmtree("ckpt")
os.rename("ckpt.tmp", "ckpt")
for n, p in enumerate(("ckpt/a/p0", "ckpt/a/b/p1")):
    with open(p, "rb") as f:
        assert len(f.read()) == 10000 * (n + 1)
shutil.rmtree("rot/ckpt.2")
os.rename("rot/ckpt.1", "rot/ckpt.2")
os.rename("rot/ckpt.0", "rot/ckpt.1")
os.makedirs("rot/ckpt.0/r0")
with open("rot/ckpt.0/r0/d", "wb") as f:
    f.write(b"n" * 5000)
for g, n in ((1, 1000), (2, 2000)):
    with open("rot/ckpt.%d/r0/d" % g, "rb") as f:
        assert len(f.read()) == n
' "$W"

# the capture's reads and writes, by the reader of lib/rw_replay.sh
rw_io_reader "$tmp/io.py"
python3 "$tmp/io.py" "$tmp/cap.txt" "$W" capture >"$tmp/want"
for io in 'read data/new/x/y/file 0 4444' 'write data/new/x2/y/file 4444 777' \
		'read data/new/x2/y/file 0 5221' 'read ckpt/a/p0 0 10000' 'read ckpt/a/b/p1 0 20000' \
		'read rot/ckpt.1/r0/d 0 1000' 'read rot/ckpt.2/r0/d 0 2000'; do
	grep -q "^$io " "$tmp/want" ||
		{ echo "FAIL: the capture's reading misses '$io'"; cat "$tmp/want"; exit 1; }
done

fail=0
T=$tmp/tgt
rw_replay_all "$tmp/cap.txt" "$W" "$T" "$tmp/want" "$tmp/io.py" || fail=1

rm -rf "$T"; mkdir "$T"
"$REPLAY" run --dry-run "$tmp/cap.txt" "$T" >"$tmp/dry.out" 2>&1
R=${W#/}
if grep -E "^  $R/data/new/x/y/file +private +prepare .*\(4444 bytes\) +as '$R/data/old/x/y/file'" \
		"$tmp/dry.out" >/dev/null &&
	grep -E "^  $R/data/old +dir +created" "$tmp/dry.out" >/dev/null &&
	grep -E "^  $R/rot/ckpt.1/r0/d +private +prepare .*\(2000 bytes\)" "$tmp/dry.out" >/dev/null &&
	grep -E "^  $R/rot/ckpt.0/r0/d +private +prepare .*\(1000 bytes\)" "$tmp/dry.out" >/dev/null; then
	echo "ok --dry-run: renamed files prepared under their first names, with their sizes"
else
	echo "FAIL --dry-run:"; grep -E "data|ckpt" "$tmp/dry.out"; fail=1
fi

# Hard links of files there before the capture, read through the new name
# (ln a b; cat b), in the same directory and into another one there before.
# The link shares the inode: what is read through b was a's data, so a is
# prepared with it and the run's link makes b.  Before: a prepared with 0
# bytes, the read of b got nothing (exit 1).  Captured with -y (the read's
# fd shown as b) and without (relative names, beneath TARGET itself).
L=$tmp/l
mkdir -p "$L/c/sub"
L=$(cd "$L" && pwd -P)
printf 0123456789 >"$L/c/a"
head -c 5000 /dev/zero | tr '\0' z >"$L/c/a2"
LN='ln a b; cat b >/dev/null; ln a2 sub/b2; cat sub/b2 >/dev/null'
(cd "$L/c" && strace -f -tt -T -y -o "$tmp/ln_y.txt" sh -c "$LN")
rm "$L/c/b" "$L/c/sub/b2"
(cd "$L/c" && strace -f -tt -T -o "$tmp/ln_noy.txt" sh -c "$LN")
rm "$L/c/b" "$L/c/sub/b2"
python3 "$tmp/io.py" "$tmp/ln_y.txt" "$L/c" capture >"$tmp/ln_want"
for io in 'read b 0 10' 'read sub/b2 0 5000'; do
	grep -q "^$io " "$tmp/ln_want" ||
		{ echo "FAIL: the link capture's reading misses '$io'"; cat "$tmp/ln_want"; exit 1; }
done
# (sh, each ln and cat: one rank each; a copy is that many processes)
rm -rf "$T"; mkdir "$T"
for c in ln_y ln_noy; do
	nr=$("$REPLAY" run --dry-run "$tmp/$c.txt" "$T" 2>&1 | sed -n 's/^  \([0-9]*\) traced ranks.*/\1/p')
	[ -n "$nr" ] || { echo "FAIL: no rank count in the --dry-run of $c"; exit 1; }
	root=$L/c
	[ "$c" = ln_y ] || root=/   # without -y: relative names, beneath TARGET
	rw_replay_all "$tmp/$c.txt" "$root" "$T" "$tmp/ln_want" "$tmp/io.py" "$nr" || fail=1
done
rm -rf "$T"; mkdir "$T"
"$REPLAY" run --dry-run "$tmp/ln_y.txt" "$T" >"$tmp/dry.out" 2>&1
R=${L#/}
if grep -E "^  $R/c/a +private +prepare .*\(10 bytes\)" "$tmp/dry.out" >/dev/null &&
	grep -E "^  $R/c/a2 +private +prepare .*\(5000 bytes\)" "$tmp/dry.out" >/dev/null &&
	grep -E "^  $R/c/b +[a-z]+ +-, created by the run" "$tmp/dry.out" >/dev/null &&
	grep -E "^  $R/c/sub/b2 +[a-z]+ +-, created by the run" "$tmp/dry.out" >/dev/null; then
	echo "ok --dry-run: link sources prepared with what is read through the links"
else
	echo "FAIL --dry-run (links):"; grep -E "$R" "$tmp/dry.out"; fail=1
fi
exit $fail
