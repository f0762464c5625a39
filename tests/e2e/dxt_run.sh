#!/usr/bin/env bash
# dxt_run: DXT dumps replayed in parallel mode into a temp dir, the
# replayer itself traced with `strace -ff -y`.  Each worker's preads and
# pwrites, read independently from strace's output, must be exactly its
# rank's segments (tests/tools/dxt_oracle.py: kind, path beneath the
# target, offset, length, in start-time order), and the run's bytes per
# rank the sum of the segments' lengths.  Both layers.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$SRCDIR/tests/data/dxt
# LeakSanitizer cannot run under ptrace: off for the traced run only (the
# sanitizer build checks leaks in every other test)
lsan_off="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)

check() { # DUMP LAYER
	local dump=$1 layer=$2 t=$tmp/$(basename "$1").$2
	mkdir -p "$t/tgt"
	if ! ASAN_OPTIONS="$lsan_off" strace -ff -y -qq -e trace=pread64,pwrite64,preadv,pwritev,read,write -o "$t/st" \
		"$REPLAY" run -m parallel "${drop[@]}" --quiet --dxt-layer "$layer" -o "$t/r.json" \
		"$dump" "$t/tgt" >"$t/out" 2>&1; then
		cat "$t/out"
		echo "FAIL: replay run on $(basename "$dump")"
		exit 1
	fi
	python3 "$SRCDIR/tests/tools/dxt_oracle.py" ops "$dump" "$layer" >"$t/oracle.json"
	python3 - "$t" "$(basename "$dump") $layer" <<'PY'
import glob, json, os, re, sys
t, what = sys.argv[1], sys.argv[2]
tgt = os.path.realpath(os.path.join(t, "tgt"))
def fail(msg):
    print(f"FAIL {what}: {msg}"); sys.exit(1)
want = json.load(open(os.path.join(t, "oracle.json")))
run = json.load(open(os.path.join(t, "r.json")))
jobs = run["runs"][0]["jobs"]
norm = lambda p: os.path.normpath(re.sub("/+", "/", p))
pos = re.compile(r'^(pread64|pwrite64)\((\d+)<([^>]*)>, .*, (\d+), (\d+)\) = (-?\d+)$')
other = re.compile(r'^(read|write|preadv|pwritev)\((\d+)<([^>]*)>')
if len(jobs) != len(want):
    fail(f"{len(jobs)} workers for {len(want)} ranks")
for j in jobs:
    rank = j["rank_name"].split()[1]          # "rank N": the DXT rank
    exp = want[rank]
    got = []
    for line in open(os.path.join(t, f"st.{j['pid']}")):
        m = other.match(line)
        if m and m.group(3).startswith(tgt + "/"):
            fail(f"rank {rank}: {m.group(1)} on {m.group(3)}: every op must be one pread/pwrite")
        m = pos.match(line.rstrip("\n"))
        if not m or not m.group(3).startswith(tgt + "/"):
            continue                           # not a file beneath the target
        kind, fd, path, n, off, ret = m.groups()
        got.append(["read" if kind == "pread64" else "write", path[len(tgt):], int(off), int(n)])
        if int(ret) != int(n):
            fail(f"rank {rank}: {line.strip()[:120]}: short transfer")
    exp = [[k, norm(p), o, n] for k, p, o, n in exp]
    if got != exp:
        for i, (g, e) in enumerate(zip(got, exp)):
            if g != e:
                fail(f"rank {rank}: op {i}: replayed {g}, traced {e}")
        fail(f"rank {rank}: {len(got)} ops replayed, {len(exp)} traced")
    for d in ("read", "write"):
        b = sum(n for k, p, o, n in exp if k == d)
        if j[d]["io_bytes"] != b:
            fail(f"rank {rank}: {d} io_bytes {j[d]['io_bytes']}, segments {b}")
# fidelity: the traced side counts every segment, those of 0.0000 s too
# (below DXT's 0.1 ms), as the replayed side does; a traced percentile of
# 0 has no error (null): they were left out, and 10 reads traced against
# 36 replayed read "p50 100 us, error -0.2 %"
fid = run.get("fidelity", {}).get("by_class", {})
for d in ("read", "write"):
    n = sum(1 for v in want.values() for k, p, o, l in v if k == d)
    if not n or d not in fid:
        continue
    c = fid[d]
    if c["traced_ops"] != n or c["replayed_ops"] != n:
        fail(f"fidelity {d}: traced_ops {c['traced_ops']}, replayed_ops {c['replayed_ops']}, segments {n}")
    for q in ("p50", "p99"):
        if (c[f"traced_{q}_ns"] == 0) != (c[f"{q}_error_pct"] is None):
            fail(f"fidelity {d}: traced {q} {c[f'traced_{q}_ns']} ns, error {c[f'{q}_error_pct']}")
print(f"ok {what}: {len(jobs)} ranks, {sum(len(v) for v in want.values())} segments replayed op for op")
PY
}

check "$D/ior_hdf5_example.dxt.txt" posix
check "$D/ior_hdf5_example.dxt.txt" mpiio
check "$D/unet3d_a100.dxt.txt.gz" posix
check "$D/treddy_h5d_no_h5f.dxt.txt" posix
check "$D/hdf5_diagonal_write_bytes_range_dxt.dxt.txt" posix
check "$D/parser-versions/ior_hdf5_example.util-main-45bcba8.dxt.txt" posix
echo "DXT replays: every rank's ops are its segments"

# a segment longer than one call can move (0x7ffff000 bytes): every byte
# written, in both the run's JSON and the replayer's own pwrite64 calls
# (it moved 0x7ffff000, 4096 bytes short, before it was split)
t=$tmp/long
mkdir -p "$t/tgt"
{
	printf '# darshan log version: 3.21\n# nprocs: 1\n\n'
	printf '# ***************************************************\n# DXT_POSIX module data\n'
	printf '# ***************************************************\n\n'
	printf '# DXT, file_id: 7, file_name: /d/long\n# DXT, rank: 0, hostname: n1\n'
	printf '# DXT, write_count: 1, read_count: 0\n'
	printf ' X_POSIX       0  write        0            8192      2147483648      0.0010      0.5000\n'
} >"$t/long.dxt.txt"
ASAN_OPTIONS="$lsan_off" strace -ff -y -qq -e trace=pwrite64,pwritev,write -o "$t/st" \
	"$REPLAY" run "${drop[@]}" --quiet -o "$t/r.json" "$t/long.dxt.txt" "$t/tgt" >"$t/out" 2>&1 ||
	{ cat "$t/out"; echo "FAIL: replay run of a 2 GiB segment"; exit 1; }
python3 - "$t" <<'PY'
import glob, json, os, re, sys
t = sys.argv[1]
run = json.load(open(os.path.join(t, "r.json")))
got = run["runs"][0]["jobs"][0]["write"]["io_bytes"]
assert got == 2147483648, f"run wrote {got} bytes, the segment 2147483648"
moved, end = 0, 0
for f in glob.glob(os.path.join(t, "st.*")):
    for line in open(f):
        m = re.match(r'^pwrite64\(\d+<([^>]*)>, .*, (\d+), (\d+)\) = (\d+)$', line.rstrip("\n"))
        if m and m.group(1).endswith("/d/long"):
            moved += int(m.group(4))
            end = max(end, int(m.group(3)) + int(m.group(4)))
assert moved == 2147483648 and end == 8192 + 2147483648, f"pwrite64 moved {moved} bytes, up to {end}"
print("ok: a 2 GiB segment: 2147483648 bytes written, up to offset 2147491840")
PY
# stat's Darshan figures count the segment once, as Darshan's header and
# buckets do, though it is replayed as 2 ops (they counted 2 writes)
"$REPLAY" stat --json "$t/long.dxt.txt" >"$t/st.json" 2>/dev/null
jq -e '(.file_ranks[0].writes == 1) and (.size_histogram_darshan.write["1G_PLUS"] == 1) and
	([.size_histogram_darshan.write[]] | add == 1)' "$t/st.json" >/dev/null ||
	{ jq -c '{fr: .file_ranks, dh: .size_histogram_darshan.write}' "$t/st.json"; echo "FAIL: stat of a 2 GiB segment"; exit 1; }
"$REPLAY" dump "$t/long.dxt.txt" >"$t/dump"
[ "$(grep -c ' write ' "$t/dump")" = 2 ] && [ "$(grep -c 'piece,' "$t/dump")" = 1 ] ||
	{ cat "$t/dump"; echo "FAIL: dump of a 2 GiB segment: 2 writes, the second a piece"; exit 1; }
echo "ok: stat counts it as 1 write (1G_PLUS), dump shows its 2 ops, the second a piece"
rm -rf "$t"
