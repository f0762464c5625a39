#!/usr/bin/env bash
# engines_bind: --bind placement.  On a synthetic 2-package machine
# (HWLOC_SYNTHETIC) the reported cpusets must be hwloc-calc's own answer for
# the cores the mode promises; on this machine the bind is real and each
# job's cpuset is one core's PUs.
set -euo pipefail
: "${REPLAY:?REPLAY must point to the binary}"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-bind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

for r in 0 1 2; do
	printf '%d  10:00:00.00000%d openat(AT_FDCWD, "/b/f%d", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>\n' $((600 + r)) "$r" "$r"
	printf '%d  10:00:00.00010%d write(3, "xx"..., 4096) = 4096 <0.000010>\n' $((600 + r)) "$r"
	printf '%d  10:00:00.00020%d close(3) = 0 <0.000010>\n' $((600 + r)) "$r"
done > trace.txt
py() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# "8,9,10" -> "8-10" (hwloc list syntax)
as_list() { tr ',' '\n' | awk 'NR == 1 { s = p = $1; next } $1 == p + 1 { p = $1; next }
	{ o = o (o ? "," : "") (s == p ? s : s "-" p); s = p = $1 }
	END { o = o (o ? "," : "") (s == p ? s : s "-" p); print o }'; }

syn="pack:2 numa:1 core:4 pu:2"
if command -v hwloc-calc >/dev/null; then
	calc() { hwloc-calc -i "$syn" "$@" -I pu --po --sep , | as_list; }
	mkdir t1
	HWLOC_SYNTHETIC="$syn" "$REPLAY" run --bind spread --no-drop-caches --quiet -o spread.json trace.txt t1
	# spread: worker 0 -> package 0 core 0, worker 1 -> package 1 core 0, worker 2 -> package 0 core 1
	[ "$(py spread.json "d['runs'][0]['jobs'][0]['cpuset']")" = "$(calc pack:0.core:0)" ]
	[ "$(py spread.json "d['runs'][0]['jobs'][1]['cpuset']")" = "$(calc pack:1.core:0)" ]
	[ "$(py spread.json "d['runs'][0]['jobs'][2]['cpuset']")" = "$(calc pack:0.core:1)" ]
	[ "$(py spread.json "d['runs'][0]['jobs'][1]['numa_node']")" = "$(hwloc-calc -i "$syn" pack:1 --local-memory --po)" ]
	HWLOC_SYNTHETIC="$syn" "$REPLAY" run --bind numa --no-drop-caches --quiet -o numa.json trace.txt t1
	[ "$(py numa.json "d['runs'][0]['jobs'][1]['cpuset']")" = "$(calc node:1)" ]
	[ "$(py numa.json "d['runs'][0]['jobs'][2]['cpuset']")" = "$(calc node:0)" ]
	HWLOC_SYNTHETIC="$syn" "$REPLAY" run --bind core --no-drop-caches --quiet -o core.json trace.txt t1
	[ "$(py core.json "d['runs'][0]['jobs'][2]['cpuset']")" = "$(calc core:2)" ]
	echo "ok: synthetic placement matches hwloc-calc"
fi

# this machine: a real bind to one core per worker (mod the core count)
mkdir t2
"$REPLAY" run --bind core --no-drop-caches --quiet -o real.json trace.txt t2
ncores=$(hwloc-calc --number-of core machine:0 2>/dev/null || nproc)
for j in 0 1 2; do
	cs=$(py real.json "d['runs'][0]['jobs'][$j]['cpuset']")
	if command -v hwloc-calc >/dev/null; then
		want=$(hwloc-calc "core:$((j % ncores))" -I pu --po --sep , | as_list)
		[ "$cs" = "$want" ] || { echo "FAIL: job $j cpuset '$cs', expected '$want'"; exit 1; }
	else
		[ -n "$cs" ]
	fi
done
# numa on this machine: CPUs (and memory) of node j mod nnodes
"$REPLAY" run --bind numa --no-drop-caches --quiet -o realnuma.json trace.txt t2
if command -v hwloc-calc >/dev/null; then
	nn=$(hwloc-calc --number-of numa machine:0)
	for j in 0 1; do
		want=$(hwloc-calc "node:$((j % nn))" -I pu --po --sep , | as_list)
		[ "$(py realnuma.json "d['runs'][0]['jobs'][$j]['cpuset']")" = "$want" ]
		[ "$(py realnuma.json "d['runs'][0]['jobs'][$j]['numa_node']")" = "$(hwloc-calc "node:$((j % nn))" -I numa --po)" ]
	done
fi
# unknown mode: usage error naming it
if "$REPLAY" run --bind socket --no-drop-caches trace.txt t2 2> bad.err; then
	echo "FAIL: --bind socket accepted"; exit 1
fi
grep -q "socket" bad.err
echo "engines_bind: ok"
