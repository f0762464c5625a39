#!/usr/bin/env bash
# Real captures of Debian programs under several strace flag sets
# (tests/data/strace/README says how each was made).  For each one:
#   - stat --json: bytes read and written per traced process equal the sum
#     of what the traced calls returned (strace_sums.awk, which reads the -y
#     decorations, independently of replay's parser);
#   - convert works without --skip-bad (no line is rejected);
#   - run --no-drop-caches into a temp dir replays it (exit 0).
# Then what each capture showed was wrong before (see the README).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
D=$SRCDIR/tests/data/strace
AWK=$SRCDIR/tests/e2e/strace_sums.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# file  run-options.  dbench's clients/ is made by client 1 and used by
# client 0, edge.py's d/ by the main thread and used by its thread and
# children (which also read files the main thread wrote): replayed whole,
# in both modes, the plan prepares for each rank what it found there.
caps=(
	"dbench_cwd.txt"
	"py_X_stderr.txt"
	"h5perf_f_tt_T_y.txt"
	"sqlite_wal_efile.txt"
	"tar_f_r_yy.txt"
	"sysbench_n.txt"
	"sysbench_C.txt"
	"sysbench_k_head.txt"
	"edge_f_tt_T_y.txt"
	"h5py_e_rw_y.txt"
	"ckpt_rename_f_tt_T_y.txt"
)
for c in "${caps[@]}"; do
	read -r f runopt <<<"$c"
	T=$D/$f
	"$REPLAY" stat --no-default-excludes --json "$T" >"$tmp/s.json"
	bad=$(jq '.notes.bad_lines' "$tmp/s.json")
	[ "$bad" = 0 ] || { echo "FAIL $f: $bad bad lines"; exit 1; }
	main=$(jq '.per_rank[0].pid' "$tmp/s.json")  # unprefixed lines (stderr)
	want=$(awk -f "$AWK" "$T" | awk -v m="$main" '{ if ($1 == "main") $1 = m; print $1, $3, $5 }' | sort)
	got=$(jq -r '.per_rank[] | select(.bytes_read + .bytes_written > 0) |
		"\(.pid) \(.bytes_read) \(.bytes_written)"' "$tmp/s.json" | sort)
	if [ "$want" != "$got" ]; then
		echo "FAIL $f: per-process bytes (pid read written), expected"; echo "$want"
		echo "got"; echo "$got"; exit 1
	fi
	"$REPLAY" convert --quiet "$T" -o "$tmp/t.ops"
	rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
	# shellcheck disable=SC2086
	for mode in parallel sequential; do
		if ! "$REPLAY" run -m "$mode" --no-drop-caches --no-default-excludes --quiet $runopt "$tmp/t.ops" "$tmp/tgt" >"$tmp/run.out" 2>&1; then
			echo "FAIL $f: replay run -m $mode"; cat "$tmp/run.out"; exit 1
		fi
		[ -z "$(ls -A "$tmp/tgt")" ] || { echo "FAIL $f: -m $mode left files"; ls -laR "$tmp/tgt"; exit 1; }
	done
	echo "ok $f: $(echo "$got" | wc -l) processes," \
		"$(echo "$got" | awk '{r+=$2; w+=$3} END {print r" B read, "w" B written"}'), replayed"
done

# dbench: the working directory only ever shows as "AT_FDCWD</tmp/...>";
# the plain mkdir("./clients") is the directory the openat calls name.
"$REPLAY" convert --quiet "$D/dbench_cwd.txt" -o "$tmp/db.ops"
mk=$("$REPLAY" dump "$tmp/db.ops" | awk '$4 == "mkdir" && $8 == 0 {print $NF}' | sort -u | head -3)
want_mk=$(printf '%s\n' /tmp/r2/cap/dbench/clients /tmp/r2/cap/dbench/clients/client0 /tmp/r2/cap/dbench/clients/client0/~dmtmp)
[ "$mk" = "$want_mk" ] || { echo "FAIL dbench mkdir paths:"; echo "$mk"; exit 1; }
echo "ok dbench: mkdir paths resolved against the decorated AT_FDCWD"

# -X verbose: "openat(-100 /* AT_FDCWD */</dir>, ...)" is an open, not an
# open synthesized later from a decoration.
n_open=$(grep -c 'openat(-100 /\* AT_FDCWD \*/<[^>]*>, "th[0-9]\.dat"' "$D/py_X_stderr.txt")
"$REPLAY" convert --quiet "$D/py_X_stderr.txt" -o "$tmp/py.ops"
got_open=$("$REPLAY" dump "$tmp/py.ops" | awk '$4 == "open" && $NF ~ /\/th[0-9]\.dat$/ && $9 !~ /implicit/' | wc -l)
[ "$n_open" = "$got_open" ] || { echo "FAIL -X verbose: $got_open opens of th*.dat, expected $n_open"; exit 1; }
echo "ok -X verbose: $got_open traced opens of th*.dat"

# cat's copy_file_range asks for 9223372035781033984 bytes; the op keeps at
# most what one call can move (MAX_RW_COUNT), so the run can size buffers.
big=$("$REPLAY" convert --quiet "$D/edge_f_tt_T_y.txt" -o "$tmp/e.ops" &&
	"$REPLAY" dump "$tmp/e.ops" | awk '!/^#/ && $7 != "-" && $7 > 2147479552' | wc -l)
[ "$big" = 0 ] || { echo "FAIL: $big ops longer than MAX_RW_COUNT"; exit 1; }
echo "ok copy_file_range: no request above MAX_RW_COUNT"

# strace -f without -y: chdir("d") from a start the trace never names; the
# files below it keep their place (d/sub/b.dat got cfr 4000 + sendfile 1000).
"$REPLAY" stat --no-default-excludes --json "$D/edge_f_plain.txt" >"$tmp/p.json"
bw=$(jq '[.files[] | select(.path == "d/sub/b.dat") | .bytes_written] | add' "$tmp/p.json")
at=$(jq '[.files[] | select(.path == "d/a.dat") | .bytes_written] | add' "$tmp/p.json")
want_at=$(grep -E '(write|pwrite64|pwritev2?)\(3</tmp/r2/cap/w2/d/a\.dat>' "$D/edge_f_tt_T_y.txt" |
	sed -nE 's/.*\) += ([0-9]+)( <.*)?$/\1/p' | awk '{s += $1} END {print s}')
[ "$bw" = 5000 ] || { echo "FAIL no -y: d/sub/b.dat written $bw, expected 5000"; exit 1; }
[ "$at" = "$want_at" ] || { echo "FAIL no -y: d/a.dat written $at, expected $want_at"; exit 1; }
echo "ok no -y: relative chdir kept (d/a.dat $at B, d/sub/b.dat $bw B written)"

# edge.py's writes to a.dat: write 5000 B (position 5000), pwritev 300 B at
# 8192 (size 8492), pwritev2(-1, RWF_APPEND) 300 B appended at 8492
# (position 8792), then the forked child's write(3) of 333 B at the shared
# position 8792.
offs=$("$REPLAY" dump "$tmp/e.ops" | awk '$4 == "write" && $NF ~ /\/d\/a\.dat$/ {printf "%s%s", sep, $6; sep=" "}')
[ "$offs" = "0 8192 8492 8792" ] || { echo "FAIL a.dat write offsets: $offs"; exit 1; }
echo "ok pwritev2 RWF_APPEND: a.dat written at $offs"

# strace -ff -tt -T -yy -s 0 -o pyff: one file per thread (python, 3
# threads): per-file sums (-v pid) equal the per-process bytes; it replays.
FF=$D/py_ff
"$REPLAY" stat --no-default-excludes --json "$FF"/pyff.* >"$tmp/ff.json"
[ "$(jq '.notes.bad_lines' "$tmp/ff.json")" = 0 ] || { echo "FAIL -ff: bad lines"; exit 1; }
want=$(for f in "$FF"/pyff.*; do awk -v pid="${f##*.}" -f "$AWK" "$f"; done | awk '{print $1, $3, $5}' | sort)
got=$(jq -r '.per_rank[] | select(.bytes_read + .bytes_written > 0) |
	"\(.pid) \(.bytes_read) \(.bytes_written)"' "$tmp/ff.json" | sort)
[ "$want" = "$got" ] || { echo "FAIL -ff: expected"; echo "$want"; echo "got"; echo "$got"; exit 1; }
[ "$(echo "$got" | wc -l)" = 4 ] || { echo "FAIL -ff: expected the main thread and 3 threads"; exit 1; }
"$REPLAY" convert --quiet "$FF"/pyff.* -o "$tmp/ff.ops"
rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
"$REPLAY" run --no-drop-caches --no-default-excludes --quiet "$tmp/ff.ops" "$tmp/tgt" >"$tmp/run.out" 2>&1 ||
	{ echo "FAIL -ff: replay run"; cat "$tmp/run.out"; exit 1; }
echo "ok -ff -yy -s 0: 4 threads, $(echo "$got" | awk '{r+=$2; w+=$3} END {print r" B read, "w" B written"}'), replayed"

# strace -y -e trace=read,write,pread64,pwrite64: no open or close is
# traced, so fd 3 is a new file whenever its decoration changes (python's
# modules, then the HDF5 file).  Each file gets the bytes of the calls that
# name it, and the default run replays the HDF5 file's I/O (before, every
# call stayed on the first file fd 3 named, under /usr: nothing to replay).
H=$D/h5py_e_rw_y.txt
"$REPLAY" stat --json "$H" >"$tmp/h.json"
got=$(jq -r '.files[] | select(.path == "/tmp/hpcsweep/c11/s.h5") | "\(.bytes_read) \(.bytes_written)"' "$tmp/h.json")
want=$(awk '/<\/tmp\/hpcsweep\/c11\/s\.h5>/ && match($0, /\) += [0-9]+/) {
		n = substr($0, RSTART, RLENGTH); sub(/.* /, "", n)
		if ($3 ~ /^p?read/) r += n; else w += n }
	END { print r + 0, w + 0 }' "$H")
[ "$got" = "$want" ] || { echo "FAIL -e trace=read,write: s.h5 read/written '$got', expected '$want'"; exit 1; }
rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
"$REPLAY" run --no-drop-caches --quiet "$H" "$tmp/tgt" >"$tmp/run.out" 2>&1 ||
	{ echo "FAIL -e trace=read,write: replay run"; cat "$tmp/run.out"; exit 1; }
n=$("$REPLAY" dump "$H" | awk '$4 == "close" && $9 ~ /synth/' | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL -e trace=read,write: no synthesized close of a replaced fd"; exit 1; }
echo "ok -e trace=read,write -y: s.h5 $want (read, written) B, $n fds replaced, replayed"

# A checkpoint directory written, renamed and read back (dd into
# ckpt.tmp/, mv ckpt.tmp ckpt.1, cat ckpt.1/data): ckpt.1/data is the file
# dd wrote, moved by the rename, not one that existed before (prepared,
# ckpt.1 was then not empty and the replayed rename failed: ENOTEMPTY).
C=$D/ckpt_rename_f_tt_T_y.txt
rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
"$REPLAY" run --dry-run "$C" "$tmp/tgt" >"$tmp/dry.out" 2>&1
grep -q 'ckpt\.1/data .*prepare' "$tmp/dry.out" && { echo "FAIL ckpt rename: ckpt.1/data prepared"; cat "$tmp/dry.out"; exit 1; }
for mode in parallel sequential; do
	"$REPLAY" run -m "$mode" --no-drop-caches "$C" "$tmp/tgt" >"$tmp/run.out" 2>&1 ||
		{ echo "FAIL ckpt rename: replay run -m $mode"; cat "$tmp/run.out"; exit 1; }
	if grep -q 'mismatch' "$tmp/run.out"; then
		echo "FAIL ckpt rename: -m $mode mismatches"; cat "$tmp/run.out"; exit 1
	fi
done
echo "ok directory rename: ckpt.1/data made by the rename, replayed without mismatch"
