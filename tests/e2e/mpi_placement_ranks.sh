#!/usr/bin/env bash
# replay-mpi's placement lines ("MPI rank Q on HOST: trace ranks ...") and
# its node table name the trace ranks (the numbers of the processes' jobs,
# stat, dump and --ranks), not the plan's process indexes; with copies
# (-n above the ranks) each copy with its ranks.  The trace: rank 1 only
# reads /etc/passwd (left out by the default filter), ranks 0 and 2-5 write.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
. "$SRCDIR/tests/e2e/lib/ranks_trace.sh"
ranks_trace "$tmp/six.txt"

# run NAME ARGS...: replay-mpi -np 4 on the trace; its placement lines and
# node rows (host, trace ranks) into $tmp/NAME.place
run() {
	local name=$1; shift
	rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
	mpi 4 "${drop[@]}" -o "$tmp/$name.json" "$@" "$tmp/six.txt" "$tmp/tgt" >"$tmp/$name.out" 2>&1 ||
		{ cat "$tmp/$name.out"; fail "$name: replay-mpi"; }
	{ sed -n 's/^  MPI rank \([0-9]*\) on [^:]*: /\1: /p' "$tmp/$name.out"
	  awk '/^  node +trace ranks/ { on = 1; next } on && /^  [^ ]/ { sub(/^  [^ ]+ +/, "node: "); sub(/ +[0-9.]+ [KMG]?i?B .*/, ""); print } on && !/^  / { on = 0 }' "$tmp/$name.out"
	} >"$tmp/$name.place"
}
expect() {
	local name=$1 want=$2
	[ "$(cat "$tmp/$name.place")" = "$want" ] || { cat "$tmp/$name.out"; fail "$name: got
$(cat "$tmp/$name.place")
want
$want"; }
}

run filtered
expect filtered "0: trace ranks 0,2
1: trace rank 3
2: trace rank 4
3: trace rank 5
node: 0,2-5"
# the JSON jobs replay those ranks, in plan order
jobs=$(jq -r '[.runs[0].jobs[].rank] | map(tostring) | join(",")' "$tmp/filtered.json")
[ "$jobs" = "0,2,3,4,5" ] || fail "JSON jobs' ranks $jobs"

run copies --ranks 0 -n 8
expect copies "0: trace rank 0, copies 0-1
1: trace rank 0, copies 2-3
2: trace rank 0, copies 4-5
3: trace rank 0, copies 6-7
node: 0, copies 0-7"

run mixed --ranks 0,2,3 -n 8
expect mixed "0: trace ranks 0,2, copy 0
1: trace ranks 3, copy 0; 0, copy 1
2: trace ranks 2-3, copy 1
3: trace ranks 0,2, copy 2
node: 0,2-3, copies 0-1; 0,2, copy 2"
echo "ok replay-mpi -np 4: placement and node rows name the trace ranks and copies"
