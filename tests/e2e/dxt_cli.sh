#!/usr/bin/env bash
# dxt_cli: the DXT support seen from the command line: detection, the
# incomplete-trace warning (stat, convert, run, and the run's JSON),
# errors that say why (no DXT, a dump cut by the parser, an unknown layer),
# a .darshan log of a format version replay does not decode through a FAKE
# darshan-dxt-parser put on PATH by this test (Darshan is not packaged in
# Debian; the fake prints the dump the real 3.5.0 parser made from that very
# log), synthesized opens in `dump`,
# hosts kept through an .ops file, and -n taking the lowest ranks.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$SRCDIR/tests/data/dxt
fail() { echo "FAIL: $*"; exit 1; }
expect_fail() { # EXIT-CODE STDERR-REGEX ARGS...
	local want=$1 re=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq "$want" ] || { cat "$tmp/err"; fail "exit $rc (want $want): $*"; }
	grep -qE -- "$re" "$tmp/err" || { cat "$tmp/err"; fail "stderr lacks /$re/: $*"; }
}
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)

# -- incomplete: read, warned, marked --------------------------------------
inc=$D/partial_data_dxt.show-incomplete.dxt.txt.gz
"$REPLAY" stat "$inc" >"$tmp/out" 2>"$tmp/err"
grep -q "warning: .*the trace is incomplete (DXT_POSIX,DXT_MPIIO" "$tmp/err" || fail "stat: no warning"
grep -q '^incomplete     yes: DXT_POSIX,DXT_MPIIO' "$tmp/out" || fail "stat: not marked"
"$REPLAY" convert --quiet "$inc" -o "$tmp/inc.ops" 2>"$tmp/err"
grep -q "the trace is incomplete" "$tmp/err" || fail "convert: no warning"
# the mark travels with the .ops file
"$REPLAY" stat --json "$tmp/inc.ops" >"$tmp/inc.json" 2>"$tmp/err"
grep -q "the trace is incomplete" "$tmp/err" || fail "stat of the .ops: no warning"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["incomplete"] == "DXT_POSIX,DXT_MPIIO", d["incomplete"]' "$tmp/inc.json"
mkdir "$tmp/tgt"
"$REPLAY" run "${drop[@]}" --quiet -o "$tmp/inc-run.json" "$tmp/inc.ops" "$tmp/tgt" >"$tmp/inc-run.out" 2>"$tmp/err"
grep -q "the trace is incomplete" "$tmp/err" || fail "run: no warning"
# the summary (stdout: the batch log) says it under the trace line too
grep -A1 '^trace: ' "$tmp/inc-run.out" | grep -q "^             incomplete (DXT_POSIX,DXT_MPIIO: Darshan's DXT buffer filled up)" \
    || fail "run summary: $(head -3 "$tmp/inc-run.out")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["options"]["trace_incomplete"] == "DXT_POSIX,DXT_MPIIO"' "$tmp/inc-run.json"
"$REPLAY" run "${drop[@]}" --quiet -o "$tmp/ok-run.json" "$D/ior_hdf5_example.dxt.txt" "$tmp/tgt" >/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["options"]["trace_incomplete"] is False' "$tmp/ok-run.json"

# -- nothing to replay: why ---------------------------------------------------
expect_fail 1 "the DXT_POSIX module is announced but no block follows.*--show-incomplete" \
	"$REPLAY" stat "$D/partial_data_dxt.dxt.txt"
expect_fail 1 "holds no DXT trace" "$REPLAY" stat "$D/no-dxt_mpi-io-test-x86_64-3.5.0.dxt.txt"
expect_fail 1 ":84: X_MPIIO offset unknown.*use --dxt-layer posix" \
	"$REPLAY" run "${drop[@]}" --dxt-layer mpiio "$D/mpi-io-test-x86_64-3.1.6.dxt.txt" "$tmp/tgt"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "a refused trace left files in the target"
# a rank the header's nprocs does not have: a warning with its line, once
sed 's/^# nprocs: 4$/# nprocs: 2/' "$D/mpi-io-test-x86_64-3.1.6.dxt.txt" >"$tmp/np2.txt"
"$REPLAY" stat "$tmp/np2.txt" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; fail "nprocs 2: refused"; }
[ "$(grep -c "warning: .*np2.txt:[0-9]*: rank 2 is not below the header's nprocs (2;" "$tmp/err")" = 1 ] ||
	{ cat "$tmp/err"; fail "nprocs 2: no warning (or more than one)"; }
# two dumps in one file (cat D D, or a loop of darshan-dxt-parser > all.txt):
# read as one job it doubled every segment; refused at the second header
m=$D/mpi_io_test_with_dxt.dxt.txt
cat "$m" "$m" >"$tmp/two.txt"
expect_fail 1 "two.txt:$(($(wc -l <"$m") + 1)): a second dump header \('# darshan log version:', the first at line 1\): the file holds more than one darshan-dxt-parser dump.*give each dump as its own trace" \
	"$REPLAY" stat "$tmp/two.txt"
expect_fail 1 "two.txt:.*more than one darshan-dxt-parser dump" \
	"$REPLAY" run "${drop[@]}" "$tmp/two.txt" "$tmp/tgt"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "two dumps: files left in the target"
# a dump cut inside its last end time, without the newline: refused, not
# read as a shorter duration
head -c -4 "$m" >"$tmp/cut.txt"
expect_fail 1 "cut.txt:$(wc -l <"$m"): the dump ends inside this segment line: it has no newline.*truncated dump" \
	"$REPLAY" stat "$tmp/cut.txt"
echo "ok two dumps in one file, a last line cut: refused with FILE:LINE"
expect_fail 2 "invalid DXT layer 'both'" "$REPLAY" stat --dxt-layer both "$D/ior_hdf5_example.dxt.txt"
expect_fail 2 "invalid DXT layer 'both'" "$REPLAY" run --dxt-layer both "$D/ior_hdf5_example.dxt.txt" "$tmp/tgt"
expect_fail 2 "invalid DXT layer" "$REPLAY" dump --dxt-layer x "$D/ior_hdf5_example.dxt.txt"
expect_fail 2 "invalid DXT layer" "$REPLAY" convert --dxt-layer x "$D/ior_hdf5_example.dxt.txt" -o "$tmp/x.ops"

# -- a binary log of a format version replay does not read: the tool as a child
# (replay reads 3.10 to 3.41 itself: tests/e2e/dxt_binary.sh; these copies
# claim a newer version, 3.51)
as351() { { printf '3.51\0\0\0\0'; tail -c +9 "$1"; } >"$tmp/$(basename "$1")"; }
as351 "$D/ior_hdf5_example.darshan"
as351 "$D/mpi_io_test_with_dxt.darshan"
as351 "$D/mpi-io-test-x86_64-3.1.6.darshan"
log=$tmp/ior_hdf5_example.darshan
expect_fail 1 "binary Darshan log of format version '3.51', which replay does not read itself.*'darshan-dxt-parser' is not on PATH.*darshan-dxt-parser --show-incomplete" \
	env PATH=/nonexistent "$REPLAY" stat "$log"
mkdir "$tmp/bin"
cat >"$tmp/bin/darshan-dxt-parser" <<FAKE
#!/bin/sh
# FAKE darshan-dxt-parser for this test: prints the real 3.5.0 dump of the log
[ "\$1" = --show-incomplete ] || exit 9
case "\$2" in
*ior_hdf5_example.darshan) exec cat "$D/ior_hdf5_example.dxt.txt" ;;
*mpi_io_test_with_dxt.darshan) exec cat "$D/mpi_io_test_with_dxt.dxt.txt" ;;
esac
echo "Error: failed to open darshan log file \$2." >&2
exit 255
FAKE
chmod +x "$tmp/bin/darshan-dxt-parser"
PATH=$tmp/bin:$PATH "$REPLAY" dump "$log" >"$tmp/bin.dump"
"$REPLAY" dump "$D/ior_hdf5_example.dxt.txt" >"$tmp/txt.dump"
cmp -s "$tmp/bin.dump" "$tmp/txt.dump" || fail "the .darshan route gives other ops than the text"
PATH=$tmp/bin:$PATH "$REPLAY" stat --json "$tmp/mpi_io_test_with_dxt.darshan" >/dev/null
expect_fail 1 "'darshan-dxt-parser' failed reading '.*mpi-io-test-x86_64-3.1.6.darshan' \(exit status 255\): Error: failed to open" \
	env PATH="$tmp/bin:$PATH" "$REPLAY" stat "$tmp/mpi-io-test-x86_64-3.1.6.darshan"
# a version replay reads never goes to the tool (the fake fails on this one)
PATH=$tmp/bin:$PATH "$REPLAY" dump "$D/mpi-io-test-x86_64-3.1.6.darshan" >"$tmp/own.dump"
"$REPLAY" dump "$D/mpi-io-test-x86_64-3.1.6.dxt.txt" | cmp -s - "$tmp/own.dump" ||
	fail "a 3.10 log with a tool on PATH: not read by replay itself"

# -- dump marks what the reader made up ------------------------------------------
grep -q '^0 0 0 open 0 - - 3 oflags=0x42,mode=0644,synth,line=75 /global/cscratch1/sd/ssnyder/test123.h5$' \
	"$tmp/txt.dump" || fail "dump: synthesized open"
grep -q '^0 219700000 0 close 0 - - 0 synth,line=75 ' "$tmp/txt.dump" || fail "dump: synthesized close"

# -- hosts through an .ops file; -n N takes ranks 0..N-1 -------------------------
"$REPLAY" convert --quiet "$D/mpi_io_test_with_dxt.dxt.txt" -o "$tmp/m.ops"
"$REPLAY" stat --json "$tmp/m.ops" >"$tmp/m.json"
python3 - "$tmp/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hosts = {r["host"] for r in d["per_rank"]}
assert all(h.startswith("sn") for h in hosts), hosts
assert sum(h["nranks"] for h in d["hosts"]) == 32
assert [r["pid"] for r in d["per_rank"]] == list(range(32))
PY
rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
"$REPLAY" run -m parallel -n 2 "${drop[@]}" --quiet -o "$tmp/n2.json" "$D/ior_hdf5_example.dxt.txt" "$tmp/tgt" >/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(j["rank_name"] for j in d["runs"][0]["jobs"]) == ["rank 0", "rank 1"]' "$tmp/n2.json"
# --ranks counts the ranks with I/O in the layer; where those carry other
# numbers of their own (jlbez: only every sixth MPI rank wrote through
# POSIX) a selection says which rank it took, and a number past the end
# says which rank has it, if one does
J="$D/jlbez_8a_benchmark_write_parallel.dxt.txt.gz"
"$REPLAY" stat --ranks 1 "$J" 2> "$tmp/note.err" > /dev/null
grep -qx "replay: note: --ranks counts the trace's ranks with I/O, 0 to 63, as 'replay stat' lists them: rank 1 is the trace's 'rank 6'" \
    "$tmp/note.err" || fail "--ranks note: $(cat "$tmp/note.err")"
"$REPLAY" run --dry-run --ranks 66 "$J" "$tmp/tgt" > /dev/null 2> "$tmp/r66.err" && fail "--ranks 66 accepted"
grep -q "no rank 66 (the trace has 64 ranks, 0 to 63); the trace's own 'rank 66' is rank 11$" "$tmp/r66.err" \
    || fail "--ranks 66: $(cat "$tmp/r66.err")"
"$REPLAY" run --dry-run --ranks 383 "$J" "$tmp/tgt" > /dev/null 2> "$tmp/r383.err" && fail "--ranks 383 accepted"
grep -q "its own 'rank 383' has none" "$tmp/r383.err" || fail "--ranks 383: $(cat "$tmp/r383.err")"
# contiguous ranks: no note
"$REPLAY" stat --ranks 1 "$D/ior_hdf5_example.dxt.txt" 2> "$tmp/nonote.err" > /dev/null
[ ! -s "$tmp/nonote.err" ] || fail "a note where numbers agree: $(cat "$tmp/nonote.err")"

# -- dumps made here: a module banner, then blocks ------------------------
banner() { # MODULE
	printf '\n# ***************************************************\n# %s module data\n' "$1"
	printf '# ***************************************************\n\n'
}
block() { # ID NAME RANK WRITES READS
	printf '# DXT, file_id: %s, file_name: %s\n# DXT, rank: %s, hostname: n1\n' "$1" "$2" "$3"
	printf '# DXT, write_count: %s, read_count: %s\n' "$4" "$5"
}

# a 3 GiB MPI-IO write: all its bytes, as two ops (it was clamped to
# 0x7ffff000) sharing its 3 ms by length (3e6 x 0x7ffff000 / 3 GiB =
# 1999996 ns); the .ops convert writes says the same
{
	printf '# darshan log version: 3.21\n# nprocs: 1\n'
	banner DXT_POSIX
	block 7 /d/big 0 1 0
	printf ' X_POSIX       0  write        0               0            4096      0.0010      0.0020\n'
	banner DXT_MPIIO
	block 7 /d/big 0 1 0
	printf ' X_MPIIO       0  write        0            4096      3221225472      0.0010      0.0040\n'
} >"$tmp/big.dxt.txt"
"$REPLAY" dump --dxt-layer mpiio "$tmp/big.dxt.txt" >"$tmp/big.dump"
grep -q '^0 0 1999996 write 0 4096 2147479552 2147479552 line=[0-9]* /d/big$' "$tmp/big.dump" ||
	{ cat "$tmp/big.dump"; fail "3 GiB: first piece"; }
grep -q '^0 0 1000004 write 0 2147483648 1073745920 1073745920 piece,line=[0-9]* /d/big$' "$tmp/big.dump" ||
	{ cat "$tmp/big.dump"; fail "3 GiB: second piece"; }
"$REPLAY" convert --quiet --dxt-layer mpiio "$tmp/big.dxt.txt" -o "$tmp/big.ops"
for src in "$tmp/big.dxt.txt" "$tmp/big.ops"; do
	"$REPLAY" stat --json --dxt-layer mpiio "$src" >"$tmp/big.json"
	python3 - "$tmp/big.json" <<'PY' || fail "3 GiB stat of $src"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["bytes_written"] == 3221225472, d["bytes_written"]
assert d["patterns"]["write"]["requests"] == 2, d["patterns"]["write"]
n = d["notes"]
assert (n["dxt_longer_than_one_call"], n["dxt_longer_than_one_call_ops"]) == (1, 2), n
PY
done

# files with segments only in the other layer: warned by stat, convert,
# dump and run (they are not replayed), and counted
{
	printf '# darshan log version: 3.21\n# nprocs: 2\n'
	banner DXT_POSIX
	block 7 /d/shared 0 1 0
	printf ' X_POSIX       0  write        0               0            4096      0.0010      0.0020\n'
	block 8 /d/hints 0 0 1
	printf ' X_POSIX       0   read        0               0              80      0.0005      0.0006\n'
	banner DXT_MPIIO
	block 7 /d/shared 0 1 0
	printf ' X_MPIIO       0  write        0               0            4096      0.0010      0.0020\n'
	block 9 /d/mpiio-only 1 1 0
	printf ' X_MPIIO       1  write        0               0            1000      0.0010      0.0020\n'
	block 10 /d/mpiio-only2 1 1 0
	printf ' X_MPIIO       1  write        0               0             500      0.0010      0.0020\n'
} >"$tmp/layers.dxt.txt"
w_mpiio='warning: .*layers\.(dxt\.txt|ops): 1 file has segments only in the DXT_POSIX layer, none in the replayed DXT_MPIIO layer \(80 bytes there; /d/hints\): it is not replayed; use --dxt-layer posix'
w_posix='warning: .*layers\.(dxt\.txt|ops): 2 files have segments only in the DXT_MPIIO layer, none in the replayed DXT_POSIX layer \(1500 bytes there; the first: /d/mpiio-only\): they are not replayed; use --dxt-layer mpiio'
"$REPLAY" stat --dxt-layer mpiio "$tmp/layers.dxt.txt" >"$tmp/out" 2>"$tmp/err"
grep -qE "$w_mpiio" "$tmp/err" || { cat "$tmp/err"; fail "stat mpiio: no other-layer warning"; }
grep -qE '^  files only in the other layer +1$' "$tmp/out" || fail "stat mpiio: not counted"
"$REPLAY" stat "$tmp/layers.dxt.txt" >"$tmp/out" 2>"$tmp/err"
grep -qE "$w_posix" "$tmp/err" || { cat "$tmp/err"; fail "stat posix: no other-layer warning"; }
grep -qE '^  files only in the other layer +2$' "$tmp/out" || fail "stat posix: not counted"
grep -qE '^    their bytes there +1500$' "$tmp/out" || fail "stat posix: bytes"
"$REPLAY" convert --quiet "$tmp/layers.dxt.txt" -o "$tmp/layers.ops" 2>"$tmp/err"
grep -qE "$w_posix" "$tmp/err" || { cat "$tmp/err"; fail "convert: no other-layer warning"; }
"$REPLAY" dump --dxt-layer mpiio "$tmp/layers.dxt.txt" >/dev/null 2>"$tmp/err"
grep -qE "$w_mpiio" "$tmp/err" || { cat "$tmp/err"; fail "dump: no other-layer warning"; }
rm -rf "$tmp/tgt2" && mkdir "$tmp/tgt2"
"$REPLAY" run "${drop[@]}" --quiet -o "$tmp/layers.json" "$tmp/layers.ops" "$tmp/tgt2" >/dev/null 2>"$tmp/err"
grep -qE "$w_posix" "$tmp/err" || { cat "$tmp/err"; fail "run: no other-layer warning"; }
# every file in both layers: no such warning
"$REPLAY" stat --dxt-layer mpiio "$D/ior_hdf5_example.dxt.txt" >/dev/null 2>"$tmp/err"
! grep -q 'only in the' "$tmp/err" || fail "an other-layer warning where there is none"

# records without a name ("(null)"): one file per record id, warned
{
	printf '# darshan log version: 3.21\n# nprocs: 2\n'
	banner DXT_POSIX
	block 1001 '(null)' 0 1 0
	printf ' X_POSIX       0  write        0               0             100      0.0010      0.0020\n'
	block 1000 '(null)' 1 1 0
	printf ' X_POSIX       1  write        0               0             300      0.0010      0.0020\n'
} >"$tmp/null.dxt.txt"
"$REPLAY" stat --json "$tmp/null.dxt.txt" >"$tmp/null.json" 2>"$tmp/err"
grep -q 'warning: .*null.dxt.txt: 2 Darshan records have no file name' "$tmp/err" ||
	{ cat "$tmp/err"; fail "(null) names: no warning"; }
python3 - "$tmp/null.json" <<'PY' || fail "(null) names: files"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((e["path"], e["bytes_written"]) for e in d["file_ranks"])
assert got == [("darshan-record-1000", 300), ("darshan-record-1001", 100)], got
assert d["notes"]["dxt_unnamed_records"] == 2, d["notes"]
PY
# a file written as one, then the directory of another (the job removed it
# and made a directory: DXT shows neither): said before the run, which made
# it a directory and dropped its writes with exit 0 and no word (audit DX)
{
	printf '# darshan log version: 3.21\n# nprocs: 1\n\n'
	printf '# ***************************************************\n# DXT_POSIX module data\n'
	printf '# ***************************************************\n\n'
	printf '# DXT, file_id: 7, file_name: /scratch/out\n# DXT, rank: 0, hostname: n1\n'
	printf '# DXT, write_count: 1, read_count: 0\n'
	printf ' X_POSIX       0  write        0               0              10      0.1000      0.1100\n'
	printf '# DXT, file_id: 8, file_name: /scratch/out/x\n# DXT, rank: 0, hostname: n1\n'
	printf '# DXT, write_count: 1, read_count: 0\n'
	printf ' X_POSIX       0  write        0               0              10      0.5000      0.5100\n'
} >"$tmp/fd.dxt.txt"
mkdir -p "$tmp/fdt"
"$REPLAY" run --dry-run "$tmp/fd.dxt.txt" "$tmp/fdt" >/dev/null 2>"$tmp/fd.err" || { cat "$tmp/fd.err"; echo "FAIL: dry run"; exit 1; }
grep -qF "warning: '/scratch/out' is written as a file and is the directory of '/scratch/out/x', and the trace records no unlink, mkdir or rename" "$tmp/fd.err" ||
	{ cat "$tmp/fd.err"; echo "FAIL: a file used as a directory: no warning"; exit 1; }
# the same in a trace that records its name changes (strace: the unlink,
# the mkdir): nothing to say
cat >"$tmp/fd.strace" <<'T'
100 10:00:00.100000 openat(AT_FDCWD, "/scratch/out", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
100 10:00:00.100001 write(3, "x"..., 10) = 10
100 10:00:00.100002 close(3) = 0
100 10:00:00.200000 unlink("/scratch/out") = 0
100 10:00:00.300000 mkdir("/scratch/out", 0755) = 0
100 10:00:00.500000 openat(AT_FDCWD, "/scratch/out/x", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
100 10:00:00.500001 write(3, "x"..., 10) = 10
100 10:00:00.500002 close(3) = 0
T
"$REPLAY" run --dry-run "$tmp/fd.strace" "$tmp/fdt" >/dev/null 2>"$tmp/fd.err" || { cat "$tmp/fd.err"; echo "FAIL: dry run (strace)"; exit 1; }
! grep -q "is written as a file" "$tmp/fd.err" || { cat "$tmp/fd.err"; echo "FAIL: warned for a strace trace that unlinks and mkdirs"; exit 1; }
echo "DXT from the command line: ok"
