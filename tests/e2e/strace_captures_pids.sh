#!/usr/bin/env bash
# Several strace captures given together (one per node of a job, or one
# strace per MPI rank) each have their own pids: the nodes of a job hand
# out the same ones, and a capture without -f has no pid column at all.
# They were taken for one capture: the processes with the same pid merged
# into one rank (4 ranks of an MPI job replayed as 2, their writes into
# each other's files, exit 0), under a false pid-reuse warning (audit MP).
# Captured now, each "node" in a pid namespace of its own (unshare -p: the
# same pids, as on nodes booted alike):
#  - strace -ff, two captures: as many ranks as both alone, named with
#    their capture, and the replay leaves the files the programs left;
#  - strace -f, one file a node: the same;
#  - strace without -f, one file a rank (no pid column): a rank each.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"

# job NODE N: what one node of the "job" does: a shell writing N KB to
# its out file and, in a subshell, N times 10 bytes to its kid file
job() { echo "dd if=/dev/zero of=$tmp/src/$1/out bs=1000 count=$2 2>/dev/null; (dd if=/dev/zero of=$tmp/src/$1/kid bs=10 count=$2 2>/dev/null)"; }

# ranks TRACE...: the ranks replay stat counts
ranks() { "$REPLAY" stat "$@" 2> /dev/null | awk '$1 == "ranks" { print $2 }'; }

# replayed KIND TRACE...: replays the traces in parallel and compares the
# files left with those the programs left
replayed() {
	local kind=$1 want got rc=0
	shift
	want=$(cd "$tmp/src" && find . -type f -printf '%p %s\n' | sort)
	rm -rf "$tmp/t"; mkdir "$tmp/t"
	"$REPLAY" run -m parallel --keep --no-drop-caches --exclude '*' --include "$tmp/src/*" \
		"$@" "$tmp/t" > "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" = 0 ] || fail "$kind: exit $rc: $(grep -v '^replay: \(start\|end\)' "$tmp/err")"
	! grep -q "pid reuse" "$tmp/err" || fail "$kind: taken for pid reuse: $(cat "$tmp/err")"
	got=$(cd "$tmp/t$tmp/src" && find . -type f -printf '%p %s\n' | sort)
	[ "$got" = "$want" ] || fail "$kind: the replay left $(echo $got), the programs $(echo $want)"
}

ns=1
unshare -p -f --mount-proc true 2> "$tmp/unshare.err" || ns=0
if [ "$ns" = 1 ]; then
	for how in ff f; do
		rm -rf "$tmp/src" "$tmp/$how"; mkdir -p "$tmp/src/A" "$tmp/src/B" "$tmp/$how/A" "$tmp/$how/B"
		opt=-ff out=t
		[ "$how" = f ] && opt=-f out=trace
		for node in A B; do
			n=3; [ "$node" = B ] && n=5
			unshare -p -f --mount-proc strace "$opt" -tt -y -o "$tmp/$how/$node/$out" sh -c "$(job "$node" "$n")" \
				2> "$tmp/strace.err" || fail "strace ($how, $node): $(cat "$tmp/strace.err")"
		done
		if [ "$how" = ff ]; then
			a=$tmp/ff/A/t b=$tmp/ff/B/t
			[ "$(cd "$tmp/ff/A" && ls)" = "$(cd "$tmp/ff/B" && ls)" ] \
				|| fail "the namespaces gave other pids: $(ls "$tmp/ff/A" "$tmp/ff/B")"
		else
			a=$tmp/f/A/trace b=$tmp/f/B/trace
		fi
		: > "$tmp/$how/A/strace.err"   # an empty file beside a capture: no capture
		ra=$(ranks "$tmp/$how/A") rb=$(ranks "$b") rab=$(ranks "$a" "$b")
		"$REPLAY" stat "$tmp/$how/A" > "$tmp/stat1" 2> /dev/null
		! grep -q "pid [0-9]* of " "$tmp/stat1" || fail "$how: one capture named as one of several: $(grep pid "$tmp/stat1")"
		[ -n "$ra" ] && [ "$rab" = $((ra + rb)) ] || fail "$how: $rab ranks of both, $ra and $rb alone"
		"$REPLAY" stat "$a" "$b" > "$tmp/stat" 2> /dev/null
		grep -qF " of $b " "$tmp/stat" || fail "$how: no rank named with its capture: $(grep pid "$tmp/stat")"
		replayed "$how" "$a" "$b"
		echo "ok strace $opt, two nodes with the same pids: $rab ranks ($ra + $rb), the files the programs left"
	done
else
	echo "note: no pid namespace here ($(head -c 200 "$tmp/unshare.err")): the -ff and -f checks skipped"
fi

# strace without -f: no pid column; each file is one process
rm -rf "$tmp/src" "$tmp/plain"; mkdir -p "$tmp/src/A" "$tmp/src/B" "$tmp/plain"
strace -tt -y -o "$tmp/plain/rank0" dd if=/dev/zero of="$tmp/src/A/out" bs=1000 count=3 2> /dev/null
strace -tt -y -o "$tmp/plain/rank1" dd if=/dev/zero of="$tmp/src/B/out" bs=1000 count=5 2> /dev/null
! grep -q '^[0-9]* [0-9]' "$tmp/plain/rank0" || fail "the capture without -f has a pid column"
[ "$(ranks "$tmp/plain/rank0" "$tmp/plain/rank1")" = 2 ] \
	|| fail "plain: $(ranks "$tmp/plain/rank0" "$tmp/plain/rank1") ranks of two processes"
replayed plain "$tmp/plain/rank0" "$tmp/plain/rank1"
echo "ok strace without -f, two files: 2 ranks, the files the programs left"
