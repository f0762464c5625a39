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
echo "DXT from the command line: ok"
