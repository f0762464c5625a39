#!/usr/bin/env bash
# lanl_convert.sh - LANL-Trace fixtures through the real binary (detect,
# parse, build, .ops, stat).  Per-rank bytes are computed here with awk from
# the fixture text; ranks come from the timing file, or, without one, from
# file-name order; truncated names are per rank unless the traced command
# line says -type 2; malformed lines fail with file:line.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
DATA="$SRCDIR/tests/data/lanl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# "W R" bytes of one per-rank file: results of SYS_ write/read family lines
# (one-line or resumed), plus the count of a one-line MPI_File_iwrite (no
# nested syscall: MPI_BYTE elements).
bytes() {
	awk '
	/^#/ && /SUMMARY COUNT/ { stop = 1 }
	stop { next }
	/<unfinished \.\.\.>/ { next }
	{
		res = $0; sub(/.*\) *= */, "", res); sub(/ .*/, "", res)
		if ($0 ~ /SYS_(write|pwrite64|pwrite|writev)[( ]/) w += res
		else if ($0 ~ /SYS_(read|pread64|pread|readv)[( ]/) r += res
		else if ($0 ~ /MPI_File_iwrite\(/) { split($0, a, ","); w += a[3] }
	}
	END { printf "%d %d\n", w, r }' "$1"
}

# stat --json -> "name bytes_written bytes_read" per rank, in rank order
ranks() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d["per_rank"]:
    print(r["name"], r["bytes_written"], r["bytes_read"])'
}
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# 1. N-to-N with a timing file: rank 0 is host13 (not first by name)
"$REPLAY" convert "$DATA/nton" -o "$tmp/nton.ops" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "convert nton"; }
grep -q ' of lanl ' "$tmp/out" || fail "nton not detected as lanl: $(cat "$tmp/out")"
"$REPLAY" stat --json "$tmp/nton.ops" > "$tmp/nton.json"
got=$(ranks < "$tmp/nton.json")
want="host13.10378 $(bytes "$DATA/nton/host13.10378.trace")
host12.10377 $(bytes "$DATA/nton/host12.10377.trace")"
[ "$got" = "$want" ] || fail "nton ranks/bytes: got [$got] want [$want]"
# the truncated name became one private file per rank, flagged
n=$(jq_py 'sum(1 for f in d["files"] if f["truncated_name"] and not f["shared"])' < "$tmp/nton.json")
want_n=$(grep -l 'SYS_open("[^"]*"\.\.\.' "$DATA"/nton/*.trace | wc -l)
[ "$n" = "$want_n" ] || fail "nton: $n truncated private files, want $want_n"

# 2. the same files without the timing file: documented recovery.  host13's
#    in-file barrier lines still say it is rank 0; host12 has none and gets
#    the next free rank.  Without any barrier line: file-name order, names
#    host.pid from the file names.
mkdir "$tmp/notiming"
cp "$DATA"/nton/*.trace "$tmp/notiming/"
"$REPLAY" stat --json "$tmp/notiming" > "$tmp/nt.json"
got=$(ranks < "$tmp/nt.json" | awk '{print $1}' | paste -sd' ')
[ "$got" = "host13.10378 host12.10377" ] || fail "no timing file: ranks [$got]"
sed -i '/ barrier at /d' "$tmp/notiming/host13.10378.trace"
"$REPLAY" stat --json "$tmp/notiming" > "$tmp/nt.json"
got=$(ranks < "$tmp/nt.json" | awk '{print $1}' | paste -sd' ')
[ "$got" = "host12.10377 host13.10378" ] || fail "no barrier lines: ranks [$got]"

# 3. N-to-1 (-type 2 in the traced command line): one shared file
"$REPLAY" stat --json "$DATA/nto1" > "$tmp/nto1.json"
[ "$(jq_py 'd["files_shared"]' < "$tmp/nto1.json")" = 1 ] || fail "nto1: not one shared file"
[ "$(jq_py 'd["files"][0]["path"]' < "$tmp/nto1.json")" = /scratch/mpi_io_test.out.shared ] || fail "nto1 path"
got=$(ranks < "$tmp/nto1.json")
want="node1.2001 $(bytes "$DATA/nto1/node1.2001.trace")
node2.2002 $(bytes "$DATA/nto1/node2.2002.trace")"
[ "$got" = "$want" ] || fail "nto1 ranks/bytes: got [$got] want [$want]"

# 4. a bad timestamp: file:line error, non-zero exit; --skip-bad counts it
mkdir "$tmp/bad"
cp "$DATA"/nton/* "$tmp/bad/"
sed -i '7s/^23:59:58/23:5x:58/' "$tmp/bad/host13.10378.trace"
if "$REPLAY" convert "$tmp/bad" -o "$tmp/bad.ops" 2> "$tmp/err"; then fail "bad timestamp accepted"; fi
grep -q 'host13.10378.trace:7: expected a time' "$tmp/err" || fail "bad timestamp message: $(cat "$tmp/err")"
"$REPLAY" convert --skip-bad "$tmp/bad" -o "$tmp/bad.ops" > "$tmp/out" 2>&1 || fail "--skip-bad: $(cat "$tmp/out")"
[ "$("$REPLAY" stat --json "$tmp/bad.ops" | jq_py 'd["notes"]["bad_lines"]')" = 1 ] || fail "bad_lines != 1"

# 5. a timing file that does not know a trace file's process
mkdir "$tmp/mismatch"
cp "$DATA"/nton/* "$tmp/mismatch/"
sed -i 's/(10377)/(99999)/' "$tmp/mismatch/timing"
if "$REPLAY" convert "$tmp/mismatch" -o "$tmp/m.ops" 2> "$tmp/err"; then fail "unmatched rank accepted"; fi
grep -q "cannot match '.*host12.10377.trace' to a rank of the timing file" "$tmp/err" || fail "mismatch message: $(cat "$tmp/err")"
echo "lanl_convert: ok"
