#!/usr/bin/env bash
# fioiolog_fio: iologs written by fio itself (write_iolog=, two jobs run
# here into a temp dir: random reads and writes over two files each, an
# fsync every 4 writes) replay op for op.  The replayer runs under
# `strace -ff -y`; each worker's preads, pwrites and fsyncs, read
# independently from strace's output, must be its iolog's read, write and
# sync lines, in order, with the same offsets and lengths, on the same
# files mapped beneath the target, every transfer complete (fio lays its
# files out before the job: the replay prepares them).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v fio >/dev/null || { echo "SKIP: fio not installed"; exit 77; }
command -v strace >/dev/null || { echo "SKIP: strace not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/fio" "$tmp/logs" "$tmp/tgt"
fio --output=/dev/null --directory="$tmp/fio" --ioengine=psync --bs=4k --size=128k \
	--nrfiles=2 --rw=randrw --fsync=4 --randseed=7 \
	--name=a --write_iolog="$tmp/logs/rank-0.iolog" \
	--name=b --write_iolog="$tmp/logs/rank-1.iolog"
head -1 "$tmp/logs/rank-0.iolog" | grep -qE '^fio version [23] iolog$' ||
	{ echo "FAIL: fio wrote no iolog"; exit 1; }
# LeakSanitizer cannot run under ptrace: off for the traced run only (the
# sanitizer build checks leaks in every other test)
lsan_off="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
ASAN_OPTIONS="$lsan_off" strace -ff -y -qq -e trace=pread64,pwrite64,fsync,fdatasync -o "$tmp/st" \
	"$REPLAY" run -m parallel "${drop[@]}" --quiet -o "$tmp/r.json" "$tmp/logs" "$tmp/tgt" \
	>"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: replay run"; exit 1; }
python3 - "$tmp" <<'PY'
import json, os, re, sys
t = sys.argv[1]
tgt = os.path.realpath(os.path.join(t, "tgt"))
def fail(m):
    print("FAIL: " + m); sys.exit(1)
run = json.load(open(os.path.join(t, "r.json")))
call = re.compile(r'^(pread64|pwrite64)\(\d+<([^>]*)>, .*, (\d+), (\d+)\) = (-?\d+)$')
sync = re.compile(r'^(fsync|fdatasync)\(\d+<([^>]*)>\) = 0$')
total = 0
for j in run["runs"][0]["jobs"]:
    log = os.path.join(t, "logs", j["rank_name"])          # the rank is named after its file
    want = []
    lines = open(log).read().splitlines()
    v3 = lines[0] == "fio version 3 iolog"
    for l in lines[1:]:
        f = l.split()
        if v3:
            f = f[1:]
        if len(f) == 4 and f[1] in ("read", "write"):
            want.append((f[1], f[0], int(f[2]), int(f[3])))
        elif len(f) == 4 and f[1] in ("sync", "datasync"):
            want.append(("fsync" if f[1] == "sync" else "fdatasync", f[0], None, None))
    got = []
    for l in open(os.path.join(t, f"st.{j['pid']}")):
        l = l.rstrip("\n")
        m = call.match(l)
        if m and m.group(2).startswith(tgt + "/"):
            if int(m.group(5)) != int(m.group(3)):
                fail(f"short transfer: {l[:100]}")
            got.append(("read" if m.group(1) == "pread64" else "write", m.group(2)[len(tgt):],
                        int(m.group(4)), int(m.group(3))))
            continue
        m = sync.match(l)
        if m and m.group(2).startswith(tgt + "/"):
            got.append((m.group(1), m.group(2)[len(tgt):], None, None))
    # after its ops, each worker flushes the files it wrote (fsync): the
    # end-of-run flush, not an op of the log
    tail = got[len(want):]
    if any(g[0] != "fsync" for g in tail):
        fail(f"{j['rank_name']}: ops after the log's last one: {tail[:3]}")
    got = got[:len(want)]
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                fail(f"{j['rank_name']} op {i}: replayed {g}, fio logged {w}")
        fail(f"{j['rank_name']}: {len(got)} ops replayed, {len(want)} logged")
    if not any(w[0] == "write" for w in want) or not any(w[0] == "fsync" for w in want):
        fail(f"{j['rank_name']}: the job logged no write or no sync")
    total += len(want)
print(f"ok: {len(run['runs'][0]['jobs'])} fio jobs, {total} logged ops replayed op for op")
PY

# a write-only job and a job that reads less far than it writes: fio lays
# their files out in full before the job, so the replay prepares each file
# at least as long as its furthest read or write (a write-only file
# prepared empty made fio's overwrites allocating appends)
mkdir -p "$tmp/fio2" "$tmp/logs2" "$tmp/tgt2"
fio --output=/dev/null --directory="$tmp/fio2" --ioengine=psync --size=256k --randseed=3 \
	--name=w --rw=write --bs=8k --write_iolog="$tmp/logs2/rank-0.iolog" \
	--name=m --rw=randrw --rwmixread=30 --bs=16k --write_iolog="$tmp/logs2/rank-1.iolog"
"$REPLAY" run --dry-run "$tmp/logs2" "$tmp/tgt2" >"$tmp/dry2" 2>&1 || { cat "$tmp/dry2"; exit 1; }
python3 - "$tmp" <<'PY'
import os, re, sys
t = sys.argv[1]
fio = os.path.realpath(os.path.join(t, "fio2"))
ext = {}
for r in (0, 1):
    for line in open(os.path.join(t, "logs2", "rank-%d.iolog" % r)):
        f = line.split()
        if len(f) == 5:         # version 3: a time stamp first
            f = f[1:]
        if len(f) == 4 and f[1] in ("read", "write"):
            ext[f[0]] = max(ext.get(f[0], 0), int(f[2]) + int(f[3]))
if len(ext) != 2:
    print("FAIL: the logs name %d files with reads or writes (2 expected)" % len(ext)); sys.exit(1)
dry = open(os.path.join(t, "dry2")).read()
for name, end in sorted(ext.items()):
    rel = os.path.realpath(name).lstrip("/")
    m = re.search(re.escape(rel) + r"\s+\S+\s+prepare .*?\((\d+) bytes\)", dry)
    if not m:
        print("FAIL: --dry-run prepares no %s:\n%s" % (rel, dry)); sys.exit(1)
    size = os.path.getsize(name)
    if int(m.group(1)) < end or int(m.group(1)) > size:
        print("FAIL: %s prepared with %s bytes: its furthest op ends at %d, fio laid out %d"
              % (rel, m.group(1), end, size)); sys.exit(1)
    print("ok %s: prepared %s bytes (furthest op %d, fio's file %d)" % (os.path.basename(name), m.group(1), end, size))
PY
