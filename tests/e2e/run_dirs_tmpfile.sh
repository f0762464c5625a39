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
# independent reading of both straces (the python below, not replay's
# parser) checks that every read and write of the capture, as (kind, file,
# offset, length), is in each copy of the replay; then: exit 0, no
# mismatch, nothing left in the target, and the --dry-run lines of both.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "strace not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the replay runs under strace: LeakSanitizer cannot work under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
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

# (kind, path beneath ROOT, offset, bytes moved) and how many times, of
# every successful read and write (replay asks a read for the bytes the
# traced one got); "#INODE" (an O_TMPFILE file's name) is "#".
# A read or write without an offset is at its descriptor's position: 0
# after the open, then set by lseek and moved by what each call returned.
cat >"$tmp/io.py" <<'PY'
import collections, re, sys
trace, root, replay = sys.argv[1], sys.argv[2].rstrip('/') + '/', sys.argv[3] == 'replay'
LINE = re.compile(r'^(\d+)\s+(?:\d+:\d+:\d+\.\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)')
FD = re.compile(r'^(\d+)<([^>]*)>(?:\(deleted\))?(?:,|$)')
pos, io, first, cut = {}, collections.Counter(), None, {}
for line in open(trace):
    line = line.rstrip('\n')
    pid = line.split(' ', 1)[0]
    if line.endswith(' <unfinished ...>'):     # a call cut in two by -f
        cut[pid] = line[:-len(' <unfinished ...>')]
        continue
    r = re.match(r'^\d+\s+(?:\d+:\d+:\d+\.\d+\s+)?<\.\.\. \w+ resumed>(.*)$', line)
    if r:
        line = cut.pop(pid, '') + r.group(1)
    m = LINE.match(line)
    if not m:
        continue
    pid, name, args, ret = m.group(1), m.group(2), m.group(3), int(m.group(4))
    first = first or pid
    if (replay and pid == first) or ret < 0:
        continue        # (the replayer's parent prepares; its workers replay)
    if name in ('open', 'openat', 'creat'):
        pos[(pid, str(ret))] = 0
        continue
    f = FD.match(args)      # the fd, as -y decorates it; the numbers last
    a = [x.strip() for x in args.rsplit(',', 2)]
    if not f:
        continue
    key = (pid, f.group(1))
    if name == 'lseek':
        pos[key] = ret
    elif name in ('read', 'write', 'pread64', 'pwrite64'):
        if name in ('read', 'write'):
            off = pos.get(key, 0)
            pos[key] = off + ret
        else:
            off = int(a[2])
        if f.group(2).startswith(root):
            rel = re.sub(r'#\d+$', '#', f.group(2)[len(root):])
            io[(name.lstrip('p').replace('64', ''), rel, off, ret)] += 1
for k, n in sorted(io.items()):
    print(*k, n)
PY
python3 "$tmp/io.py" "$tmp/cap.txt" "$W" capture >"$tmp/want"
for io in 'write ckpt.tmp/rank0/data 0 100000' 'read ckpt.1/rank0/data 0 100000' \
		'write # 0 70000' 'read # 0 70000' 'write # 4096 9999'; do
	grep -q "^$io " "$tmp/want" ||
		{ echo "FAIL: the capture's reading misses '$io'"; cat "$tmp/want"; exit 1; }
done

fail=0
T=$tmp/tgt
for args in "-m parallel" "-m sequential" "-n 2" "-n 3 -m sequential"; do
	rm -rf "$T"; mkdir "$T"
	bad=0
	# shellcheck disable=SC2086
	if ! strace -f -y -o "$tmp/rep.txt" "$REPLAY" run --no-drop-caches $args "$tmp/cap.txt" "$T" \
			>"$tmp/run.out" 2>&1; then
		echo "FAIL run $args: exit status"; cat "$tmp/run.out"; fail=1; continue
	fi
	if grep -q -i 'mismatch' "$tmp/run.out"; then
		echo "FAIL run $args: mismatches"; grep -i -A3 'mismatch' "$tmp/run.out"; bad=1
	fi
	[ -z "$(ls -A "$T")" ] || { echo "FAIL run $args: left in the target:"; find "$T"; bad=1; }
	ncopies=1
	case $args in "-n "*) ncopies=${args#-n }; ncopies=${ncopies%% *} ;; esac
	for ((k = 0; k < ncopies; k++)); do
		# the copy's root: TARGET/W, TARGET/.replay-copy-K/W
		root=$T/${W#/}
		[ "$k" = 0 ] || root=$T/.replay-copy-$k/${W#/}
		python3 "$tmp/io.py" "$tmp/rep.txt" "$root" replay >"$tmp/got"
		# every (kind, file, offset, length) of the capture, as many times
		missing=$(awk 'FILENAME == ARGV[1] { n[$1" "$2" "$3" "$4] += $5; next }
			{ k = $1" "$2" "$3" "$4; if (n[k] < $5) print k, "want", $5, "got", n[k] + 0 }' \
			"$tmp/got" "$tmp/want")
		if [ -n "$missing" ]; then
			echo "FAIL run $args, copy $k: not replayed:"; echo "$missing"; bad=1
		fi
	done
	if [ "$bad" = 0 ]; then
		echo "ok run $args: the $(awk '{ n += $5 } END { print n }' "$tmp/want") reads and writes of the capture replayed (copies: $ncopies)"
	else
		fail=1
	fi
done

"$REPLAY" run --dry-run "$tmp/cap.txt" "$T" >"$tmp/dry.out" 2>&1
if grep -E 'ckpt\.1 +dir +-, a traced rename makes it' "$tmp/dry.out" >/dev/null &&
	! grep -E 'ckpt\.1/rank0 ' "$tmp/dry.out" | grep -q 'created' &&
	grep -E '/#[0-9]+ +private +-, unnamed: the run opens O_TMPFILE' "$tmp/dry.out" >/dev/null; then
	echo "ok --dry-run: ckpt.1 made by the rename, the O_TMPFILE file unnamed"
else
	echo "FAIL --dry-run:"; grep -E 'ckpt|#' "$tmp/dry.out"; fail=1
fi
exit $fail
