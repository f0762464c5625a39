#!/usr/bin/env bash
# truncate(path) and a write's per-call sync flags, from a capture made
# here (python3: os.truncate, by absolute and relative path, then an
# O_APPEND write after it; os.pwritev with RWF_DSYNC and RWF_SYNC), and
# libaio's io_submit (fio, when installed).  An independent reading of the
# capture (python regexes, not replay's parser) says what was traced;
# strace of the replay, read the same way, says what was issued:
#  - every traced truncate is replayed (an ftruncate of that path beneath
#    the target), with every engine, and the files end the size the
#    program left them (the append lands after the truncated end);
#  - each RWF_DSYNC / RWF_SYNC write is issued with its flag: pwritev2 by
#    the sync engine, aio_rw_flags by libaio (io_uring's submissions are
#    not visible to strace: its run must succeed, and
#    unit/test_engine_uring checks the flag reaches the kernel);
#  - io_submit iocbs are counted as io_submit_iocbs (and, the old name,
#    io_submit_iocbs_as_sync), and become aread/awrite + await ops.
# Before: truncate was a skipped call, the flags were dropped (a plain
# pwrite64), and the counter had only its old name.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
python3 -c 'import os; os.RWF_DSYNC, os.RWF_SYNC, os.pwritev' 2>/dev/null ||
	{ echo "SKIP: this python3 has no os.pwritev/RWF_DSYNC"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-trunc-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
mkdir -p w/sub tgt
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

strace -f -tt -T -y -o cap.txt python3 - "$tmp/w" <<'PY'
import os, sys
w = sys.argv[1]
a, b = os.path.join(w, "a.dat"), os.path.join(w, "sub", "b.dat")
for p, n in ((a, 20000), (b, 3000)):
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"x" * n)
    os.close(fd)
os.truncate(a, 5000)                    # shrink, by absolute path
os.chdir(os.path.join(w, "sub"))
os.truncate("b.dat", 70000)             # grow, by relative path
fd = os.open(a, os.O_WRONLY | os.O_APPEND)
os.write(fd, b"y" * 10)                 # at 5000, the truncated end
os.close(fd)
fd = os.open(os.path.join(w, "c.dat"), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.pwritev(fd, [b"d" * 100, b"e" * 28], 0, os.RWF_DSYNC)
os.pwritev(fd, [b"s" * 64], 4096, os.RWF_SYNC)
os.pwritev(fd, [b"p" * 32], 8192)
os.fsync(fd)
os.close(fd)
PY

# the independent reading of the capture
python3 - cap.txt > want.txt <<'PY'
import re, sys
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r'\btruncate\("([^"]*)", (\d+)\) = 0', l)
    if m:
        print("truncate", m.group(1).rsplit("/", 1)[-1], m.group(2))
    m = re.search(r'pwritev2\(\d+<[^>]*/(c\.dat)>, .*, (\d+), (\d+), (RWF_\w+)\) = (\d+)', l)
    if m:
        print("pwritev2", m.group(1), m.group(3), m.group(5), m.group(4))
PY
cat > want.ref <<'EOF'
truncate a.dat 5000
truncate b.dat 70000
pwritev2 c.dat 0 128 RWF_DSYNC
pwritev2 c.dat 4096 64 RWF_SYNC
EOF
diff want.ref want.txt > /dev/null || fail "the capture is not what this test is about: $(cat want.txt)"

# the op stream: two ftruncate ops, no skipped truncate, the flags kept
"$REPLAY" stat --json cap.txt > stat.json
jq -e '.ops.ftruncate == 2 and (.notes.skipped.truncate // 0) == 0' stat.json >/dev/null ||
	fail "stat: $(jq -c '{ftruncate: .ops.ftruncate, skipped: .notes.skipped.truncate}' stat.json)"
"$REPLAY" dump cap.txt > dump.txt
grep -Eq ' write .*dsync,line=[0-9]+ .*/c\.dat$' dump.txt || fail "dump: no dsync write: $(grep c.dat dump.txt)"
grep -Eq ' write .*[ ,]sync,line=[0-9]+ .*/c\.dat$' dump.txt || fail "dump: no sync write: $(grep c.dat dump.txt)"

uring=yes
"$REPLAY" run --quiet --no-drop-caches -e io_uring cap.txt tgt >/dev/null 2>uring.err ||
	{ grep -q "io_uring" uring.err && uring=no; }
engines="sync libaio"; [ "$uring" = yes ] && engines="$engines io_uring" || echo "note: io_uring unavailable here: $(head -1 uring.err)"
for e in $engines; do
	rm -rf tgt/* rs.*
	strace -ff -y -e trace=ftruncate,truncate,pwrite64,pwritev2,io_submit -o rs \
		"$REPLAY" run --quiet --no-drop-caches --keep -e "$e" -o "r-$e.json" cap.txt tgt > /dev/null 2> "run-$e.err" ||
		fail "$e: run failed: $(cat "run-$e.err")"
	jq -e '.runs[0].jobs[0] | .mismatches.total == 0 and .write.errors == 0' "r-$e.json" >/dev/null ||
		fail "$e: $(jq -c '.runs[0].jobs[0] | {mismatches, e: .write.errors}' "r-$e.json")"
	# what the replay issued, read from its strace
	python3 - "$tmp/tgt" "$e" rs.* > "got-$e.txt" <<'PY'
import re, sys
tgt, eng = sys.argv[1], sys.argv[2]
out = []
for path in sys.argv[3:]:
    for l in open(path, errors="replace"):
        m = re.search(r'ftruncate\(\d+<' + re.escape(tgt) + r'[^>]*/([ab]\.dat)>, (\d+)\) = 0', l)
        if m:
            out.append("truncate %s %s" % m.groups())
        m = re.search(r'pwritev2\(\d+<' + re.escape(tgt) + r'[^>]*/(c\.dat)>, .*, (\d+), (RWF_\w+)\) = (\d+)', l)
        if m:
            out.append("pwritev2 %s %s %s %s" % (m.group(1), m.group(2), m.group(4), m.group(3)))
        # (the buffer is quoted: it may hold any byte, braces too)
        for cb in re.finditer(r'aio_rw_flags=(RWF_\w+), aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=\d+<' +
                              re.escape(tgt) + r'[^>]*/(c\.dat)>, aio_buf=.*?, aio_nbytes=(\d+), aio_offset=(\d+)\}', l):
            out.append("pwritev2 %s %s %s %s" % (cb.group(2), cb.group(4), cb.group(3), cb.group(1)))
for o in sorted(out):
    print(o)
PY
	case $e in
	io_uring) grep '^truncate' want.ref | sort > "want-$e.txt" ;;
	*) sort want.ref > "want-$e.txt" ;;
	esac
	diff "want-$e.txt" "got-$e.txt" > /dev/null ||
		fail "$e: replayed $(tr '\n' ';' < "got-$e.txt"), traced $(tr '\n' ';' < "want-$e.txt")"
	# the files end as the program left them
	for f in a.dat sub/b.dat c.dat; do
		want=$(stat -c %s "w/$f")
		got=$(stat -c %s "tgt$tmp/w/$f" 2>/dev/null || echo none)
		[ "$want" = "$got" ] || fail "$e: $f is $got bytes, the program left $want"
	done
done

# libaio's io_submit: async submits and their waits, counted under the
# new name and the old
if command -v fio >/dev/null; then
	rm -rf w/* tgt/*
	strace -f -tt -T -y -o aio.txt fio --name=j --ioengine=libaio --iodepth=4 --rw=randrw \
		--bs=4k --size=256k --filename="$tmp/w/f.dat" --output=/dev/null > /dev/null 2>&1 ||
		fail "fio under strace failed"
	python3 - aio.txt > aio.want <<'PY'
import re, sys
rd = wr = 0
pend = {}
for l in open(sys.argv[1], errors="replace"):
    l = l.rstrip("\n")
    pid = l.split(" ", 1)[0]
    if " <unfinished ...>" in l:             # -f: joined with its rest
        pend[pid] = l[:l.index(" <unfinished ...>")]
        continue
    r = re.search(r'<\.\.\. \w+ resumed>(.*)$', l)
    if r:
        if pid not in pend:
            continue
        l = pend.pop(pid) + r.group(1)
    m = re.search(r'io_submit\(0x[0-9a-f]+, \d+, \[(.*)\]\) = (\d+)', l)
    if not m:
        continue
    cbs = re.findall(r'aio_lio_opcode=(IOCB_CMD_\w+)', m.group(1))[:int(m.group(2))]
    rd += sum(c in ("IOCB_CMD_PREAD", "IOCB_CMD_PREADV") for c in cbs)
    wr += sum(c in ("IOCB_CMD_PWRITE", "IOCB_CMD_PWRITEV") for c in cbs)
print(rd, wr)
PY
	read -r rd wr < aio.want
	[ "$rd" -gt 0 ] && [ "$wr" -gt 0 ] || fail "fio: no iocbs in the capture ($rd $wr)"
	"$REPLAY" stat --json aio.txt > aio.json
	jq -e --argjson r "$rd" --argjson w "$wr" '.ops.aread == $r and .ops.awrite == $w and
	    .ops.await == $r + $w and .notes.io_submit_iocbs == $r + $w and
	    .notes.io_submit_iocbs_as_sync == .notes.io_submit_iocbs' aio.json >/dev/null ||
		fail "fio: traced $rd/$wr iocbs; $(jq -c '{ops: (.ops | {read, write, aread, awrite, await}), n: .notes.io_submit_iocbs, old: .notes.io_submit_iocbs_as_sync}' aio.json)"
else
	echo "note: fio is not installed: io_submit not checked"
fi
echo "ok"
