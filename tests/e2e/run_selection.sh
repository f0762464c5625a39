#!/usr/bin/env bash
# A run of part of a trace (-n fewer processes than ranks, --ranks) says
# what it replays: the workload: line gives the replayed ranks' figures
# (and the whole trace's, named as such, under it), filtered: and the
# JSON's "filtered" count the replayed ranks' ops.  Before, `-n 2` of the
# 32-rank lanl-64k said "workload: all 32 ranks: ... write 100.0 MiB" and
# "(6688 replayed)" while the run wrote 6.2 MiB.  The figures are checked
# against awk over the trace files (the timing file names each rank's
# file), not replay's parser; the same for a Darshan DXT trace.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-selection-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
lanl=$SRCDIR/traces/lanl-64k

# "RB RN WB WN" of the listed ranks (comma-separated) of a LANL-Trace
# directory: bytes and requests of the reads and writes that succeeded.
lanl_count() {
	awk -v want="$1" '
	BEGIN { n = split(want, w, ","); for (i = 1; i <= n; i++) sel[w[i]] = 1 }
	FILENAME ~ /\/timing$/ {
		# "0: host01.lanl.gov (14185) Entered barrier at ..."
		if (match($0, /^[0-9]+: [^ ]+ \([0-9]+\)/)) {
			split(substr($0, RSTART, RLENGTH), f, /[: ()]+/)
			rank[f[2] "." f[3] ".trace"] = f[1]
		}
		next
	}
	FNR == 1 { k = split(FILENAME, p, "/"); r = rank[p[k]]; if (r == "") { print "no rank for " p[k] > "/dev/stderr"; exit 2 } }
	!(r in sel) { next }
	/ SYS_(read|pread64)\(/ || / SYS_(write|pwrite64)\(/ {
		if (!match($0, /\) += +-?[0-9]+/)) next
		v = substr($0, RSTART, RLENGTH); sub(/^\) += +/, "", v); v += 0
		if (v <= 0) next
		if ($0 ~ /SYS_(read|pread64)\(/) { rb += v; rn++ } else { wb += v; wn++ }
	}
	END { printf "%d %d %d %d\n", rb, rn, wb, wn }' "$lanl/timing" "$lanl"/*.trace
}

# replay's byte format (util.c fmt_bytes): "6.2 MiB", "512 B"
human() {
	awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); i = 1
		while (b >= 1024 && i < 5) { b /= 1024; i++ }
		if (i == 1) printf "%.0f B\n", b; else printf "%.1f %s\n", b, u[i] }'
}

# "read B in N requests (...), write B in N (" of the awk counts
figures() {
	local rb rn wb wn
	read -r rb rn wb wn <<<"$1"
	echo "read $(human "$rb") in $rn requests (sequential), write $(human "$wb") in $wn (sequential)"
}

all_ranks=$(seq -s, 0 31)
whole=$(figures "$(lanl_count "$all_ranks")")

check_lanl() {   # NAME OPTIONS... -- RANKS_REPLAYED NOTE
	local name=$1; shift
	local opts=() ranks note
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	ranks=$2 note=$3
	local nrep; nrep=$(awk -F, '{ print NF }' <<<"$ranks")
	mkdir "$tmp/t$name"
	"$REPLAY" run --no-drop-caches -e sync "${opts[@]}" -o "$tmp/$name.json" "$lanl" "$tmp/t$name" \
		> "$tmp/$name.out" 2> "$tmp/$name.err" || fail "$name: $(tail -3 "$tmp/$name.err")"
	local counts; counts=$(lanl_count "$ranks")
	local w; w=$(grep '^workload:' "$tmp/$name.out") || fail "$name: no workload line"
	local want="workload:    $nrep of the trace's 32 ranks replayed: 1 file (1 shared), $(figures "$counts")"
	[[ "$w" == "$want"* ]] || fail "$name: workload line
  got:  $w
  want: $want..."
	local wa; wa=$(grep -A1 '^workload:' "$tmp/$name.out" | tail -1)
	[[ "$wa" == "             whole trace, all 32 ranks: 1 file (1 shared), $whole"* ]] \
		|| fail "$name: whole-trace line: $wa (want ... $whole)"
	# filtered: names the ranks left out and counts the replayed ranks' ops
	local fl; fl=$(grep '^filtered:' "$tmp/$name.out")
	[[ "$fl" == *"$note" ]] || fail "$name: filtered line: $fl (want ...$note)"
	local kept; kept=$(sed -n 's/^filtered: .*(\([0-9]*\) replayed).*/\1/p' <<<"$fl")
	jq -e --argjson k "$kept" '.filtered.ops_kept == $k' "$tmp/$name.json" > /dev/null \
		|| fail "$name: JSON ops_kept $(jq .filtered.ops_kept "$tmp/$name.json") != text $kept"
	[ "$kept" -lt "$whole_kept" ] || fail "$name: $kept replayed ops, the whole trace has $whole_kept"
	# the jobs moved exactly the counted bytes
	local rb rn wb wn
	read -r rb rn wb wn <<<"$counts"
	jq -e --argjson r "$rb" --argjson w "$wb" \
		'([.runs[0].jobs[].read.done_bytes] | add) == $r and ([.runs[0].jobs[].write.done_bytes] | add) == $w' \
		"$tmp/$name.json" > /dev/null || fail "$name: jobs' bytes differ from the trace's ($rb, $wb)"
	echo "$name: $w"
}

mkdir "$tmp/dry"
whole_kept=$("$REPLAY" run --dry-run "$lanl" "$tmp/dry" | sed -n 's/^filtered: .*(\([0-9]*\) replayed).*/\1/p')
[ -n "$whole_kept" ] || fail "dry run: no filtered line"
check_lanl n2 -n 2 -- 0,1 "; 30 ranks past the 2 replayed (-n)"
jq -e '.filtered.ranks_beyond_processes == 30 and .filtered.ranks_not_selected == 0' "$tmp/n2.json" \
	> /dev/null || fail "n2: JSON filtered: $(jq -c .filtered "$tmp/n2.json")"
check_lanl ranks --ranks 5,9-10 -- 5,9,10 "; 29 ranks not in --ranks"
check_lanl both --ranks 4-7 -n 3 -- 4,5,6 "; 28 ranks not in --ranks; 1 rank past the 3 replayed (-n)"
jq -e '.filtered.ranks_beyond_processes == 1 and .filtered.ranks_not_selected == 28' "$tmp/both.json" \
	> /dev/null || fail "both: JSON filtered: $(jq -c .filtered "$tmp/both.json")"

# the whole trace: one line, as before
mkdir "$tmp/tall"
"$REPLAY" run --no-drop-caches -e sync "$lanl" "$tmp/tall" > "$tmp/all.out" 2>&1 || fail "all: $(tail -3 "$tmp/all.out")"
grep -q "^workload:    all 32 ranks: 1 file (1 shared), $whole" "$tmp/all.out" \
	|| fail "all: $(grep '^workload' "$tmp/all.out")"
! grep -A1 '^workload:' "$tmp/all.out" | grep -q 'whole trace' || fail "all: a whole-trace line"
grep -q "^filtered:    [0-9]* ops left out ($whole_kept replayed)$" "$tmp/all.out" \
	|| fail "all: $(grep '^filtered' "$tmp/all.out")"

# Darshan DXT: 4 ranks, each writes and reads 16 MiB; -n 2 replays ranks 0 and 1
dxt=$SRCDIR/tests/data/dxt/mpi-io-test-x86_64-3.1.6.dxt.txt
read -r rb rn wb wn < <(awk '$1 == "X_POSIX" && ($2 == 0 || $2 == 1) {
	if ($3 == "read") { rb += $6; rn++ } else if ($3 == "write") { wb += $6; wn++ } }
	END { printf "%d %d %d %d\n", rb, rn, wb, wn }' "$dxt")
mkdir "$tmp/tdxt"
"$REPLAY" run --no-drop-caches -e sync -n 2 "$dxt" "$tmp/tdxt" > "$tmp/dxt.out" 2>&1 \
	|| fail "dxt: $(tail -3 "$tmp/dxt.out")"
want="workload:    2 of the trace's 4 ranks replayed: 1 file (1 shared), read $(human "$rb") in $rn requests"
grep -q "^$want" "$tmp/dxt.out" || fail "dxt: $(grep '^workload' "$tmp/dxt.out") (want $want)"
grep -q ", write $(human "$wb") in $wn (" <<<"$(grep '^workload' "$tmp/dxt.out")" \
	|| fail "dxt: writes: $(grep '^workload' "$tmp/dxt.out") (want $(human "$wb") in $wn)"
grep -q '^filtered:    0 ops left out (8 replayed); 2 ranks past the 2 replayed (-n)$' "$tmp/dxt.out" \
	|| fail "dxt: $(grep '^filtered' "$tmp/dxt.out")"
echo "ok: -n and --ranks: the workload, filtered: and JSON describe the replayed ranks"
