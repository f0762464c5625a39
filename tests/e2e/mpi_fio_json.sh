#!/usr/bin/env bash
# replay-mpi's JSON is fio's too: under mpirun -np 2 with 4 trace ranks,
# `--output-format json+` without -o makes the stdout one JSON document (the
# placement lines go to stderr), with one fio job per trace rank whose
# write bytes are the trace's (awk over the LANL trace) and json+ bins that
# fio's own fio_jsonplus_clat2csv validates.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
"$REPLAY" gen lanl-64k -n 4 --objects 8 -o "$tmp/lanl" >/dev/null
mkdir "$tmp/tgt"
mpi 2 -n 4 --no-drop-caches --output-format json+ "$tmp/lanl" "$tmp/tgt" \
	>"$tmp/out.json" 2>"$tmp/err" || { cat "$tmp/err"; fail "replay-mpi"; }
jq -e . "$tmp/out.json" >/dev/null || fail "stdout is not one JSON document: $(head -c 300 "$tmp/out.json")"
grep -q "^replay-mpi: 2 MPI processes" "$tmp/err" || fail "the placement is not on stderr"
[ "$(jq '.jobs | length' "$tmp/out.json")" = 4 ] || fail "jobs: $(jq '.jobs | length' "$tmp/out.json")"
want=$(awk -f "$SRCDIR/tests/e2e/lanl_sums.awk" "$tmp"/lanl/*.trace | awk '{ s += $3 } END { print s }')
got=$(jq '[.jobs[].write.io_bytes] | add' "$tmp/out.json")
[ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "fio jobs write $got bytes, the trace $want"
# fio's per-job eta, elapsed and latency target keys, and one instant for
# timestamp, timestamp_ms and time
jq -e '((((.runs[.headline_run].completion_ns / 1000000) | floor) + 999) / 1000 | floor) as $el
       | .options.depth as $q
       | all(.jobs[]; .eta == 0 and .elapsed == $el and $el >= 1
             and .latency_depth == $q and .latency_target == 0
             and .latency_percentile == 100 and .latency_window == 0)
       and (.timestamp_ms / 1000 | floor) == .timestamp' "$tmp/out.json" >/dev/null ||
	fail "fio's job keys: $(jq -c '[.jobs[] | {eta, elapsed, latency_depth}], .timestamp, .timestamp_ms' "$tmp/out.json")"
if command -v fio_jsonplus_clat2csv >/dev/null; then
	(cd "$tmp" && fio_jsonplus_clat2csv out.json lat >/dev/null && fio_jsonplus_clat2csv out.json lat --validate) \
		>"$tmp/v" 2>&1 || fail "fio_jsonplus_clat2csv: $(cat "$tmp/v")"
	[ "$(grep -c validated "$tmp/v")" = 4 ] || fail "not 4 jobs validated: $(cat "$tmp/v")"
fi
# the node row's rates are over its I/O time, the flush not in it: its
# runtime_ns is the longest worker io_ns of the last run (all on this node),
# below the node's completion, and its bins come with json+
jq -e '.mpi.node_rows[0] as $n | ([.runs[-1].jobs[].io_ns] | max) as $io
       | $n.write.runtime_ns == $io and $n.write.runtime_ns < $n.completion_ns
       and ($n.write.lat_ns.bins | length) > 0' "$tmp/out.json" >/dev/null ||
	fail "node row: $(jq -c '.mpi.node_rows[0] | {completion_ns, w: .write.runtime_ns}' "$tmp/out.json"), io_ns $(jq -c '[.runs[-1].jobs[].io_ns]' "$tmp/out.json")"
echo "ok replay-mpi --output-format json+: 4 fio jobs, $got bytes written, fio's script validates; node row over its I/O time"
