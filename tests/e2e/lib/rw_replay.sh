# rw_replay.sh - replay a capture under strace and check, by an independent
# reading of both straces (python, not replay's parser), that every read
# and write of the capture is in each copy of the replay (sourced).
#
# rw_io_reader FILE: writes the reader to FILE.  `python3 FILE TRACE ROOT
# capture|replay` prints (kind, path beneath ROOT, offset, bytes moved) and
# how many times, of every successful read and write (replay asks a read
# for the bytes the traced one got); "#INODE" (an O_TMPFILE file's name) is
# "#".  A read or write without an offset is at its descriptor's position:
# 0 after the open, then set by lseek and moved by what each call returned.
# In a replay's strace the first process (the parent, which prepares) is
# left out.
#
# rw_replay_all CAP W T WANT READER [RANKS]: `replay run` of CAP into T
# under strace -f -y, with -m parallel, -m sequential, and 2 and 3 copies
# (-n 2*RANKS, -n 3*RANKS -m sequential, under .replay-copy-K/; RANKS, the
# capture's processes, 1 unless told); each must exit 0 with no
# mismatch and leave T empty, and each copy must hold every line of WANT
# (the reader's output on CAP, whose program ran in W).  Prints an ok or
# FAIL line per run; returns 1 when any failed.  The replay runs under
# ptrace: LeakSanitizer is turned off.

export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

rw_io_reader() {
	cat >"$1" <<'PY'
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
}

rw_replay_all() {
	local cap=$1 W=$2 T=$3 want=$4 io=$5 nr=${6:-1} work fail=0 bad args ncopies k root missing
	work=$(mktemp -d)
	for args in "-m parallel" "-m sequential" "-n $((2 * nr))" "-n $((3 * nr)) -m sequential"; do
		rm -rf "$T"; mkdir "$T"
		bad=0
		# shellcheck disable=SC2086
		if ! strace -f -y -o "$work/rep.txt" "$REPLAY" run --no-drop-caches $args "$cap" "$T" \
				>"$work/run.out" 2>&1; then
			echo "FAIL run $args: exit status"; cat "$work/run.out"; fail=1; continue
		fi
		if grep -q -i 'mismatch' "$work/run.out"; then
			echo "FAIL run $args: mismatches"; grep -i -A3 'mismatch' "$work/run.out"; bad=1
		fi
		[ -z "$(ls -A "$T")" ] || { echo "FAIL run $args: left in the target:"; find "$T"; bad=1; }
		ncopies=1
		case $args in "-n "*) ncopies=${args#-n }; ncopies=$((${ncopies%% *} / nr)) ;; esac
		for ((k = 0; k < ncopies; k++)); do
			# the copy's root: TARGET/W, TARGET/.replay-copy-K/W
			root=$T/${W#/}
			[ "$k" = 0 ] || root=$T/.replay-copy-$k/${W#/}
			python3 "$io" "$work/rep.txt" "$root" replay >"$work/got"
			# every (kind, file, offset, length) of the capture, as many times
			missing=$(awk 'FILENAME == ARGV[1] { n[$1" "$2" "$3" "$4] += $5; next }
				{ k = $1" "$2" "$3" "$4; if (n[k] < $5) print k, "want", $5, "got", n[k] + 0 }' \
				"$work/got" "$want")
			if [ -n "$missing" ]; then
				echo "FAIL run $args, copy $k: not replayed:"; echo "$missing"; bad=1
			fi
		done
		if [ "$bad" = 0 ]; then
			echo "ok run $args: the $(awk '{ n += $5 } END { print n }' "$want") reads and writes of the capture replayed (copies: $ncopies)"
		else
			fail=1
		fi
	done
	rm -rf "$work"
	return $fail
}
