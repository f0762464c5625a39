#!/usr/bin/env bash
# The throughput timeline: bytes done sampled every --sample-interval ms,
# non-decreasing, never above what the job did.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-tl-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 400 x (4 KiB write + fdatasync): tens of milliseconds at least
gen_writes 900 /tl/f.dat 400 4096 1 > "$tmp/t.txt"
mkdir "$tmp/tgt"
"$REPLAY" run --sample-interval 2 --no-drop-caches --quiet -o "$tmp/t.json" "$tmp/t.txt" "$tmp/tgt" > /dev/null
# when 512 samples are full, every second one is kept and the interval doubles
jq -e '.runs[0].jobs[0] as $j | $j.timeline.interval_ns as $iv
       | ([range(12)] | map(pow(2; .) * 2000000) | index($iv)) != null
       and ($j.timeline.bytes | length) >= 1
       and ($j.timeline.bytes | length) <= 512
       and ($iv == 2000000 or ($j.timeline.bytes | length) >= 256)
       and ($j.timeline.bytes | length) <= ($j.completion_ns / $iv | floor) + 2
       and ($j.timeline.bytes | . == sort)
       and ($j.timeline.bytes | max) <= $j.write.done_bytes
       and $j.write.done_bytes == 1638400' "$tmp/t.json" >/dev/null \
    || fail "timeline: $(jq -c '.runs[0].jobs[0] | {timeline, io_ns, d: .write.done_bytes}' "$tmp/t.json")"
# a bad interval is refused
if "$REPLAY" run --sample-interval 0 "$tmp/t.txt" "$tmp/tgt" 2> "$tmp/err"; then fail "interval 0 accepted"; fi
grep -q "invalid sample interval '0'" "$tmp/err" || fail "message: $(cat "$tmp/err")"
echo "ok"
