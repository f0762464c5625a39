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
grep -q "256 processes (more processes than ranks: 1 rank reused round-robin, each reuse on its own copy of the files, 256 copies)" \
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

# a cleanup that fails in every copy (--force leaves a directory the run
# renamed, it may hold the user's files): the results are written all the
# same (the cleanup runs beside them), the message names the first failure
# of the highest copy, as a walk over the copies would, and the status is 1
cat > "$tmp/rn.txt" <<'EOF'
mkdir("/a", 0755) = 0
openat(AT_FDCWD, "/a/f", O_WRONLY|O_CREAT, 0644) = 3
write(3, "abcd", 4) = 4
close(3) = 0
rename("/a", "/b") = 0
EOF
mkdir "$tmp/tgt2"
rc=0
"$REPLAY" run -n 12 --force --no-drop-caches -o "$tmp/rn.json" "$tmp/rn.txt" "$tmp/tgt2" \
    > "$tmp/rn.out" 2> "$tmp/rn.err" || rc=$?
[ "$rc" = 1 ] || fail "failed cleanup: exit $rc, not 1: $(cat "$tmp/rn.err")"
grep -q "cannot remove '$tmp/tgt2/.replay-copy-11/b' (Directory not empty) and 22 more" "$tmp/rn.err" \
    || fail "failed cleanup message: $(cat "$tmp/rn.err")"
# said before the end line, which comes once the cleanup is over
sed -n '3p' "$tmp/rn.err" | grep -q 'cannot remove' && sed -n '4p' "$tmp/rn.err" | grep -q '^replay: end .*exit status 1$' \
    || fail "failed cleanup: stderr out of order: $(cat "$tmp/rn.err")"
jq -e '(.runs[0].jobs | length) == 12 and all(.runs[0].jobs[]; .status == "done")' "$tmp/rn.json" \
    >/dev/null || fail "failed cleanup: no results"
grep -q 'completion' "$tmp/rn.out" || fail "failed cleanup: no summary: $(head -5 "$tmp/rn.out")"
n=$(find "$tmp/tgt2" -name f -path '*/b/f' | wc -l)
[ "$n" = 12 ] || fail "failed cleanup: $n of 12 renamed directories left as they were"
rm -rf "${tmp:?}/tgt2"
echo "ok"
