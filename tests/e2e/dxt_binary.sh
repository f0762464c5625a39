#!/usr/bin/env bash
# dxt_binary: binary Darshan logs read by replay itself, with no
# darshan-dxt-parser on PATH (Darshan is not packaged in Debian).
#  1. The three real logs of tests/data/dxt: what replay's reader prints
#     (build/darshan_text) is byte for byte the dump the real
#     darshan-dxt-parser 3.5.0 made of each; `replay dump` and `stat --json`
#     of the log equal those of the dump; a run of a log works.
#  2. Logs written by an independent writer (tests/tools/darshan_log_write.py)
#     from every real dump: zlib, bzip2 and no compression, both byte orders,
#     format versions 3.10 to 3.41, Lustre layouts of both versions,
#     incomplete modules: the reader prints the dump back (all but the
#     region sizes, which depend on the compression).
#  3. Truncated, corrupt and unknown-version logs: exit 1 with the reason,
#     never a crash.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}" "${BUILDDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$SRCDIR/tests/data/dxt
TEXT=$BUILDDIR/darshan_text
W="python3 $SRCDIR/tests/tools/darshan_log_write.py"
fail() { echo "FAIL: $*"; exit 1; }
export TZ=UTC
# no darshan-dxt-parser anywhere on PATH (a directory holding one is left out)
P=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do [ -e "$d/darshan-dxt-parser" ] || P=${P:+$P:}$d; done
export PATH=$P
! command -v darshan-dxt-parser >/dev/null || fail "darshan-dxt-parser still on PATH"
plain() { case $1 in *.gz) gzip -dc "$1";; *) cat "$1";; esac; }

# -- 1. the real logs -------------------------------------------------------
for n in mpi-io-test-x86_64-3.1.6 ior_hdf5_example mpi_io_test_with_dxt; do
	"$TEXT" "$D/$n.darshan" >"$tmp/$n.txt" || fail "$n: darshan_text failed"
	cmp -s "$tmp/$n.txt" "$D/$n.dxt.txt" ||
		{ diff "$tmp/$n.txt" "$D/$n.dxt.txt" | head; fail "$n: not darshan-dxt-parser 3.5.0's text"; }
	"$REPLAY" dump "$D/$n.darshan" >"$tmp/bin.dump"
	"$REPLAY" dump "$D/$n.dxt.txt" >"$tmp/txt.dump"
	cmp -s "$tmp/bin.dump" "$tmp/txt.dump" || fail "$n: the log gives other ops than its dump"
	"$REPLAY" stat --json "$D/$n.darshan" | jq -S 'del(.trace, .notes.source)' >"$tmp/bin.json"
	"$REPLAY" stat --json "$D/$n.dxt.txt" | jq -S 'del(.trace, .notes.source)' >"$tmp/txt.json"
	cmp -s "$tmp/bin.json" "$tmp/txt.json" ||
		{ diff "$tmp/bin.json" "$tmp/txt.json" | head; fail "$n: stat differs"; }
	echo "ok $n.darshan: darshan-dxt-parser's text, ops and stat ($(grep -c 'X_POSIX\|X_MPIIO' "$tmp/$n.txt") segments)"
done
# OST sets from the LUSTRE module reach the stat
"$REPLAY" stat --json "$D/ior_hdf5_example.darshan" | jq -e '[.. | strings | select(test("106"))] | length > 0' >/dev/null ||
	fail "ior_hdf5_example.darshan: OST 106 not in the stat"
mkdir "$tmp/tgt"
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
"$REPLAY" run "${drop[@]}" --quiet -m parallel -o "$tmp/run.json" "$D/ior_hdf5_example.darshan" "$tmp/tgt" >"$tmp/run.out"
jq -e '.ops.total == 67 and .ops.failed == 0' "$tmp/run.json" >/dev/null 2>&1 ||
	jq -e '[.jobs[] | (.read.total_ios + .write.total_ios)] | add == 59' "$tmp/run.json" >/dev/null ||
	{ head -c 600 "$tmp/run.json"; fail "run of ior_hdf5_example.darshan: not its 59 reads and writes"; }
[ -z "$(ls -A "$tmp/tgt")" ] || fail "run left files in the target"
echo "ok run of ior_hdf5_example.darshan: 59 reads and writes replayed"

# -- 2. logs from the independent writer --------------------------------------
# all but the region sizes and the compression name, which the writer's
# choice of compression decides (and the run time of 3.41 logs, from
# nanoseconds the dump does not hold)
keep() { grep -v -E '^# (job data|record table|[^ ]+ module): |^# (compression method|run time): ' || true; }
n=0
for f in "$D"/*.dxt.txt "$D"/*.dxt.txt.gz; do
	case $f in *partial_data_dxt.dxt.txt) continue;; esac   # a parser that stopped: no log
	b=$(basename "$f")
	variants=("--comp zlib" "--comp bzip2 --big-endian" "--comp none")
	# the big dumps (10^4-10^5 segments) once: the small ones cover the rest
	case $b in partial*|jlbez*|nonmpi*) variants=("--comp zlib --big-endian");; esac
	for v in "${variants[@]}"; do
		# shellcheck disable=SC2086
		$W "$f" "$tmp/g.darshan" $v || fail "writer failed on $b ($v)"
		"$TEXT" "$tmp/g.darshan" >"$tmp/g.txt" 2>"$tmp/g.err" || { cat "$tmp/g.err"; fail "$b ($v): not read"; }
		plain "$f" | keep >"$tmp/want"
		keep <"$tmp/g.txt" >"$tmp/got"
		cmp -s "$tmp/got" "$tmp/want" || { diff "$tmp/got" "$tmp/want" | head; fail "$b ($v): text differs"; }
		n=$((n + 1))
	done
done
echo "ok $n written logs (zlib, bzip2, none; both byte orders) print their dumps back"
# every format version; the writer moves module ids and header as each has them
for ver in 3.10 3.20 3.21 3.41; do
	$W "$D/mpi_io_test_with_dxt.dxt.txt" "$tmp/v.darshan" --version "$ver"
	"$TEXT" "$tmp/v.darshan" | keep | grep -v -E '^# (darshan log version|WARNING|  )' >"$tmp/got"
	keep <"$D/mpi_io_test_with_dxt.dxt.txt" | grep -v '^# darshan log version' >"$tmp/want"
	cmp -s "$tmp/got" "$tmp/want" || { diff "$tmp/got" "$tmp/want" | head; fail "format $ver: text differs"; }
	# the same ops; line numbers aside (the written log has fewer modules,
	# so fewer region lines before the segments)
	"$REPLAY" dump "$tmp/v.darshan" | sed 's/line=[0-9]*//' >"$tmp/v.dump"
	"$REPLAY" dump "$D/mpi_io_test_with_dxt.dxt.txt" | sed 's/line=[0-9]*//' >"$tmp/t.dump"
	cmp -s "$tmp/v.dump" "$tmp/t.dump" || fail "format $ver: other ops"
done
echo "ok format versions 3.10 3.20 3.21 3.41: same text and ops"
# an incomplete log (Darshan's DXT buffer filled up) is marked so
$W "$D/partial_data_dxt.show-incomplete.dxt.txt.gz" "$tmp/p.darshan"
"$REPLAY" stat "$tmp/p.darshan" >"$tmp/p.out" 2>"$tmp/p.err"
grep -q '^incomplete     yes: DXT_POSIX,DXT_MPIIO' "$tmp/p.out" || fail "incomplete log not marked"
grep -q "the trace is incomplete" "$tmp/p.err" || fail "incomplete log: no warning"
echo "ok incomplete log marked ($(grep -c X_POSIX <("$TEXT" "$tmp/p.darshan")) X_POSIX segments)"

# -- 3. bad logs ----------------------------------------------------------------
expect_bad() { # FILE REGEX
	local rc=0
	"$REPLAY" stat "$1" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/err"; fail "$1: exit $rc (want 1)"; }
	grep -qE -- "$2" "$tmp/err" || { cat "$tmp/err"; fail "$1: stderr lacks /$2/"; }
}
log=$D/mpi_io_test_with_dxt.darshan
size=$(wc -c <"$log")
for cut in 16 200 359 400 800 $((size / 2)) $((size - 1)); do
	head -c "$cut" "$log" >"$tmp/cut.darshan"
	expect_bad "$tmp/cut.darshan" "cannot read this Darshan log: .*(truncated|inside its header)"
done
echo "ok truncated logs: exit 1, 'truncated'"
$W "$D/mpi_io_test_with_dxt.dxt.txt" "$tmp/c.darshan" --corrupt-module DXT_POSIX
expect_bad "$tmp/c.darshan" "cannot read this Darshan log: .*corrupt"
$W "$D/mpi_io_test_with_dxt.dxt.txt" "$tmp/c.darshan" --corrupt-module DXT_MPIIO --comp bzip2
expect_bad "$tmp/c.darshan" "cannot read this Darshan log: .*corrupt"
echo "ok corrupt compressed data: exit 1, 'corrupt'"
# a format version replay does not know goes to the tool, which is not here
{ printf '3.51\0\0\0\0'; tail -c +9 "$D/ior_hdf5_example.darshan"; } >"$tmp/new.darshan"
expect_bad "$tmp/new.darshan" "format version '3.51', which replay does not read itself .*'darshan-dxt-parser' is not on PATH"
echo "ok unknown format version: names it and the tool"
# a binary log read as a stream (stdin, or inside gzip) says so
rc=0
"$REPLAY" stat -f dxt - <"$D/ior_hdf5_example.darshan" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "a binary Darshan log, read as a stream" "$tmp/err" ||
	{ cat "$tmp/err"; fail "a log on stdin: exit $rc"; }
gzip -c "$D/ior_hdf5_example.darshan" >"$tmp/log.darshan.gz"
expect_bad "$tmp/log.darshan.gz" "a binary Darshan log, read as a stream .*decompress a .darshan.gz first"
# a job record with no process is corrupt
sed 's/^# nprocs: .*/# nprocs: 0/' "$D/mpi-io-test-x86_64-3.1.6.dxt.txt" >"$tmp/np0.txt"
$W "$tmp/np0.txt" "$tmp/np0.darshan"
expect_bad "$tmp/np0.darshan" "cannot read this Darshan log: the job record says 0 processes: a corrupt log"
echo "ok a log on stdin or gzipped, and nprocs 0: exit 1 with the reason"
# a segment whose end is beyond 2^63 - 1
sed '48s/^\( X_POSIX       0  write        0\)               0/\1 9223372036854775798/' \
	"$D/mpi-io-test-x86_64-3.1.6.dxt.txt" >"$tmp/ovf.txt"
grep -q ' 9223372036854775798 ' "$tmp/ovf.txt" || fail "ovf.txt not made"
$W "$tmp/ovf.txt" "$tmp/ovf.darshan"
expect_bad "$tmp/ovf.darshan" "cannot read this Darshan log: DXT_POSIX record 1 \(rank 0, .*\): segment 0 has offset 9223372036854775798, length 16777216, .*: a corrupt log"
echo "ok an offset + length beyond 2^63 - 1: a corrupt log"
