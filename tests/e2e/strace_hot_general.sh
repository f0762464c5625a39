#!/usr/bin/env bash
# strace_hot_general: the strace reader's hot path (hot_line: the usual
# complete call read straight through) and its general way read every line
# alike.  Real programs captured here (python threads, whose calls strace
# splits into <unfinished ...> / <... resumed>; sqlite3; git; rsync; dd
# under -i -n; an MPI-IO program under mpirun when MPI is installed) and a
# synthetic trace are converted twice, as is and with REPLAY_STRACE_GENERAL=1
# (every line the general way), with and without --skip-bad: exit status,
# messages and .ops bytes must be the same.  Then the same for 600 copies
# (200 under the sanitizers) of the traces' heads with one line damaged (a byte dropped, added or
# changed, the line cut), where the general way's message must come out
# whichever way the line was read.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
CAPDIR=$(mktemp -d)
trap 'rm -rf "$CAPDIR"' EXIT
# shellcheck source=lib/captures.sh
. "$SRCDIR/tests/e2e/lib/captures.sh"

traces=()
for name in python_threads sqlite git rsync dd_in mpi_f; do
	rc=0
	capture "$name" >/dev/null 2>&1 || rc=$?
	if [ "$rc" = 77 ]; then
		echo "skip $name: its program is not installed"
		continue
	fi
	[ "$rc" = 0 ] || { echo "FAIL: capture of $name failed ($rc)"; exit 1; }
	traces+=("$CAPDIR/$name/trace")
done
bash "$SRCDIR/scripts/bench-parse" --generate "$CAPDIR/gen" --format strace 2 >/dev/null
traces+=("$CAPDIR/gen/strace")
# lines at the edges of the hot path's shape, each of which it must leave
# to the general way (or read as that does)
mkdir "$CAPDIR/edge"
cat >"$CAPDIR/edge/trace" <<'TRACE'
100  10:00:00.000001 openat(AT_FDCWD</w>, "/w/f", O_RDWR|O_CREAT, 0644) = 3</w/f> <0.000010>
100  10:00:00.000002 pwrite64(3</w/f>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000003 getpid(/* ) = 1 <0.000001> */) = 100 <0.000002>
100  10:00:00.000004 futex(0x7f0, FUTEX_WAKE_PRIVATE, 1) = 0 <0.000002>
100  10:00:00.000005 pwrite64(3</w/f>, "abc"..., 4096, 4096) = 4096 <0.000010>strace: Process 101 attached
101  10:00:00.000006 pwrite64(3</w/f>, "abc"..., 4096, 8192) = 4096 <0.000010>
100  10:00:60.000007 pread64(3</w/f>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000008 pread64(3</w/f (deleted)>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000009 pread64(3</w/f>(deleted), "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000010 pread64(3</w/x\x41>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000011 pread64(3</w/f<char 1:3>>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000012 pread64(3</w/a->b>, "abc"..., 4096, 0) = 4096 <0.000010>
100  [00007f0000001234] 10:00:00.000013 pread64(3</w/f>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000014 [00007f0000001234] pread64(3</w/f>, "abc"..., 4096, 0) = 4096 <0.000010>
100  10:00:00.000015 getppid( <unfinished ...>
100  10:00:00.000016 <... getppid resumed>) = 1 <0.000002>
100  10:00:00.000017 pread64(3</w/f>, "abc"..., 4096, -1) = 4096 <0.000010>
100  10:00:00.000018 pread64(3</w/f>, "abc"..., 4096, 0) = -1 EIO (Input/output error) <0.000010>
100  10:00:00.000019 read(3</w/f>, "abc"..., 4096) = 0
100  10:00:00.000020 close(3</w/f>) = 0 <0.000002>
100  10:00:00.000021 getpid(/* ) = 1 <0.000001>
TRACE
traces+=("$CAPDIR/edge/trace")
[ "${#traces[@]}" -ge 3 ] || { echo "FAIL: fewer than 3 traces captured"; exit 1; }

# convert TRACE OUT [ARGS...] -> OUT.rc OUT.err OUT.ops, the hot way and
# the general way
both() {
	local t=$1 o=$2
	shift 2
	local rc=0
	"$REPLAY" convert --quiet "$@" "$t" -o "$o.h.ops" >/dev/null 2>"$o.h.err" || rc=$?
	echo "$rc" >"$o.h.rc"
	rc=0
	REPLAY_STRACE_GENERAL=1 "$REPLAY" convert --quiet "$@" "$t" -o "$o.g.ops" >/dev/null \
		2>"$o.g.err" || rc=$?
	echo "$rc" >"$o.g.rc"
	cmp -s "$o.h.rc" "$o.g.rc" && cmp -s "$o.h.err" "$o.g.err" || return 1
	[ "$(cat "$o.h.rc")" != 0 ] || cmp -s "$o.h.ops" "$o.g.ops"
}

for t in "${traces[@]}"; do
	for opt in "" --skip-bad; do
		both "$t" "$CAPDIR/whole" $opt || {
			echo "FAIL: $t ${opt:-(strict)}: the hot path and the general way differ"
			diff "$CAPDIR/whole.h.err" "$CAPDIR/whole.g.err" | head -5
			cmp "$CAPDIR/whole.h.ops" "$CAPDIR/whole.g.ops" | head -2
			exit 1
		}
	done
	echo "ok $(basename "$(dirname "$t")"): $(wc -l <"$t") lines, same .ops both ways"
done

# one damaged line in each copy of a trace's first 150 lines: 600 copies,
# 200 in a sanitizer build (each run costs ten times as much there)
ncopies=600
case "$REPLAY" in *asan* | *portable* | *sanit*) ncopies=200 ;; esac
mkdir "$CAPDIR/mut"
python3 - "$CAPDIR/mut" "$ncopies" "${traces[@]}" <<'PY'
import random, sys
out, total, traces = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rng = random.Random(17)
per = max(1, total // len(traces))
alphabet = ' "<>(),{}[]\\:.=-0123456789xe?/\t'
n = 0
for t in traces:
    with open(t, 'rb') as f:
        lines = f.read().split(b'\n')[:150]
    for _ in range(per):
        k = rng.randrange(len(lines))
        l = bytearray(lines[k])
        if not l:
            continue
        i = rng.randrange(len(l))
        op = rng.randrange(9)
        c = rng.choice(alphabet).encode()
        if op == 0:
            del l[i]
        elif op == 1:
            l[i:i] = c
        elif op == 2:
            l[i:i + 1] = c
        elif op == 3:
            del l[i:]
        elif op == 4:   # strace's own message cutting the line
            l[i:] = b'strace: Process 4242 attached'
        elif op == 5:   # a comment where a word was
            l[i:i] = b'/* ), */'
        elif op == 6:   # a leap second
            j = l.find(b':', 0, 20)
            if j > 0 and l[j + 3:j + 4] == b':':
                l[j + 4:j + 6] = b'60'
        elif op == 7:   # left unfinished
            j = l.find(b')')
            l[j if j > 0 else i:] = b' <unfinished ...>'
        else:           # -i's address
            j = l.find(b' ', l.find(b' ') + 2) + 1 if l[:1].isdigit() else 0
            l[j:j] = b'[00007f0000001234] '

        m = lines[:k] + [bytes(l)] + lines[k + 1:]
        with open('%s/m%04d' % (out, n), 'wb') as f:
            f.write(b'\n'.join(m) + b'\n')
        n += 1
PY
nm=0 nbad=0
for m in "$CAPDIR"/mut/m*; do
	for opt in --skip-bad ""; do
		both "$m" "$CAPDIR/one" $opt || {
			echo "FAIL: damaged copy $(basename "$m") ${opt:-(strict)}: the hot path and the general way differ"
			diff "$CAPDIR/one.h.err" "$CAPDIR/one.g.err" | head -5
			exit 1
		}
	done
	nm=$((nm + 1))
	[ "$(cat "$CAPDIR/one.h.rc")" = 0 ] || nbad=$((nbad + 1))
done
[ "$nm" -ge $((ncopies * 4 / 5)) ] || { echo "FAIL: only $nm damaged copies"; exit 1; }
[ "$nbad" -ge $((ncopies / 6)) ] ||
	{ echo "FAIL: only $nbad of $nm damaged copies refused: the damage did not reach the reader"; exit 1; }
echo "ok: $nm damaged copies read alike both ways ($nbad of them refused without --skip-bad)"
