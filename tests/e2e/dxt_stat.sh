#!/usr/bin/env bash
# dxt_stat: `replay stat --json` on every DXT fixture equals Darshan's own
# counts, as an independent reading of the text finds them
# (tests/tools/dxt_oracle.py): per (file, rank) the block header's
# write_count/read_count and the sum of the listed lengths, the totals,
# Darshan's access-size buckets, ranks per host, each Lustre file's OST set,
# one synthesized open and close per block.  Both layers where the dump has
# them.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$SRCDIR/tests/data/dxt
oracle=$SRCDIR/tests/tools/dxt_oracle.py

check() { # DUMP LAYER
	local dump=$1 layer=$2
	# all of it: the default excludes are checked below
	"$REPLAY" stat --json --no-default-excludes --dxt-layer "$layer" "$dump" >"$tmp/stat.json" 2>"$tmp/err"
	python3 "$oracle" counts "$dump" "$layer" >"$tmp/oracle.json"
	python3 - "$tmp/stat.json" "$tmp/oracle.json" "$(basename "$dump") $layer" <<'PY'
import json, os, re, sys
st, orc, what = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
def fail(msg):
    print(f"FAIL {what}: {msg}"); sys.exit(1)
norm = lambda p: os.path.normpath(re.sub("/+", "/", p))  # replay keeps paths normalized
rank_of = {r["rank"]: r["pid"] for r in st["per_rank"]}   # stream rank -> DXT rank (pid)
got = {(norm(e["path"]), rank_of[e["rank"]]): e for e in st["file_ranks"]}
want = {(norm(e["path"]), e["rank"]): e for e in orc["file_ranks"]}
if set(got) != set(want):
    fail(f"(file, rank) pairs differ: {sorted(set(got) ^ set(want))[:5]}")
for k, w in want.items():
    for f in ("reads", "writes", "bytes_read", "bytes_written"):
        if got[k][f] != w[f]:
            fail(f"{k} {f}: replay {got[k][f]}, block header/lines {w[f]}")
t = orc["totals"]
if (st["bytes_read"], st["bytes_written"]) != (t["bytes_read"], t["bytes_written"]):
    fail(f"bytes {st['bytes_read']}/{st['bytes_written']} != {t['bytes_read']}/{t['bytes_written']}")
if (st["patterns"]["read"]["requests"], st["patterns"]["write"]["requests"]) != (t["reads"], t["writes"]):
    fail("request counts differ")
if st["size_histogram_darshan"] != orc["hist"]:
    fail(f"Darshan buckets {st['size_histogram_darshan']} != {orc['hist']}")
hosts = {h["host"]: sorted(rank_of[i] for i in h["ranks"]) for h in st["hosts"]}
if hosts != orc["hosts"]:
    fail(f"hosts {hosts} != {orc['hosts']}")
osts = {norm(f["path"]): f["osts"] for f in st["files"] if f["osts"] is not None}
if osts != {norm(p): o for p, o in orc["osts"].items()}:
    fail(f"OST sets {osts} != {orc['osts']}")
for o in st["ost_sets"]:
    if o["files"] != sum(1 for v in osts.values() if v == o["osts"]):
        fail("ost_sets file counts")
if st["synthesized"] != {"open": len(want), "close": len(want)}:
    fail(f"synthesized {st['synthesized']} for {len(want)} blocks")
if st["format"] != "dxt" or st["notes"]["dxt_layer"] != what.split()[1]:
    fail("format/layer not recorded")
print(f"ok {what}: {len(want)} (file, rank) pairs, {t['reads']} reads, {t['writes']} writes")
PY
}

for f in mpi-io-test-x86_64-3.1.6.dxt.txt ior_hdf5_example.dxt.txt mpi_io_test_with_dxt.dxt.txt \
	 treddy_h5d_no_h5f.dxt.txt hdf5_diagonal_write_bytes_range_dxt.dxt.txt \
	 nonmpi_dxt_anonymized.dxt.txt.gz partial_data_dxt.show-incomplete.dxt.txt.gz \
	 unet3d_a100.dxt.txt.gz jlbez_8a_benchmark_write_parallel.dxt.txt.gz \
	 parser-versions/mpi-io-test-x86_64-3.1.6.util-3.1.8.dxt.txt \
	 parser-versions/ior_hdf5_example.util-3.4.4.dxt.txt \
	 parser-versions/ior_hdf5_example.util-main-45bcba8.dxt.txt; do
	check "$D/$f" posix
done
for f in ior_hdf5_example.dxt.txt mpi_io_test_with_dxt.dxt.txt \
	 partial_data_dxt.show-incomplete.dxt.txt.gz jlbez_8a_benchmark_write_parallel.dxt.txt.gz \
	 parser-versions/ior_hdf5_example.util-main-45bcba8.dxt.txt; do
	check "$D/$f" mpiio
done

# the text report carries the same sections
"$REPLAY" stat "$D/ior_hdf5_example.dxt.txt" >"$tmp/out.txt"
grep -q '^  open       4 (4 synthesized: not in the trace)$' "$tmp/out.txt"
grep -q "^request sizes, Darshan's buckets" "$tmp/out.txt"
grep -qE '^  100K_1M +16 +16$' "$tmp/out.txt"
grep -qE '^  106 +1 +4202504 +4195800$' "$tmp/out.txt"
grep -qE '^  nid00097 +4 +4202504 +4195800  0-3$' "$tmp/out.txt"
grep -qE '^ +0 +12 +7 +1051088 +1048808  /global/cscratch1/sd/ssnyder/test123.h5$' "$tmp/out.txt"
echo "dxt stat equals the block headers on every fixture"

# by default the MPI runtime's shared-memory files Darshan also traced
# (/tmp/ompi.*/...sm) are left out, and stat says so
"$REPLAY" stat --json "$D/mpi_io_test_with_dxt.dxt.txt" >"$tmp/def.json"
python3 - "$tmp/def.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
paths = {e["path"] for e in d["file_ranks"]}
assert not any(p.startswith("/tmp/ompi.") for p in paths), paths
rules = {r["rule"]: r for r in d["filtered"]["rules"]}
assert "/tmp/ompi.*" in rules and rules["/tmp/ompi.*"]["files"] == 32, rules   # 32 distinct names in the dump
PY
echo "default excludes leave out the Open MPI session files of a DXT trace"
