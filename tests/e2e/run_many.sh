#!/usr/bin/env bash
# 256 processes on a one-rank trace: the rank is reused round-robin, each
# reuse on its own copy of the files, said in the output; all complete.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-many-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

gen_writes 800 /many/f.dat 3 100 0 > "$tmp/t.txt"
mkdir "$tmp/tgt"
"$REPLAY" run -m parallel -n 256 --no-drop-caches --quiet -o "$tmp/m.json" "$tmp/t.txt" "$tmp/tgt" \
    > "$tmp/out"
grep -q "256 processes (more processes than ranks: 1 ranks reused round-robin, each reuse on its own copy of the files, 256 copies)" \
    "$tmp/out" || fail "reuse not said: $(head -3 "$tmp/out")"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "files left: $(find "$tmp/tgt" | head)"
jq -e '.options.processes == 256 and .options.rank_reuse == true and .options.copies == 256
       and (.runs[0].jobs | length) == 256 and .runs[0].incomplete == false' "$tmp/m.json" \
    >/dev/null || fail "options/jobs"
jq -e 'all(.runs[0].jobs[]; .rank == 0 and .status == "done" and .write.io_bytes == 300
       and .write.total_ios == 3 and .open.total_ios == 1)' "$tmp/m.json" >/dev/null \
    || fail "a job did not replay its rank"
jq -e '[.runs[0].jobs[].copy] | sort == [range(256)]' "$tmp/m.json" >/dev/null \
    || fail "copies are not 0..255"
jq -e '[.runs[0].jobs[].pid] | unique | length == 256' "$tmp/m.json" >/dev/null || fail "pids"

# --keep: each copy really is a separate file
"$REPLAY" run -n 4 --keep --no-drop-caches --quiet "$tmp/t.txt" "$tmp/tgt" > /dev/null
n=$(find "$tmp/tgt" -name f.dat -size 300c | wc -l)
[ "$n" = 4 ] || fail "--keep -n 4: $n copies of f.dat"
echo "ok"
