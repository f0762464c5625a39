#!/usr/bin/env bash
# run_oracle_ops.sh - run_parallel/run_sequential check bytes per rank; this
# checks what the workers did, op for op, under strace -f -y (issue 15):
# per traced rank, its data ops (kind, file, offset, length) and syncs in
# order (tests/tools/strace_oracle.py + fidelity_compare.py, independent
# of replay's parser), and its opens (path and access mode, in order:
# tests/e2e/opens.awk) against the same reading of the trace.  The replay
# may add read-only opens after the traced ones: the end-of-run flush.
# Parallel mode on sync and libaio, sequential mode on sync.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed by the oracle"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-oracle-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
trace=$SRCDIR/tests/data/run/s_f_tt_T_y.txt
root=/tmp/fmtprobe                  # where the traced program worked
TOOLS=$SRCDIR/tests/tools
strace -f -o "$tmp/probe" true 2>/dev/null ||
    { echo "SKIP: strace cannot trace here (ptrace refused)"; exit 77; }

python3 "$TOOLS/strace_oracle.py" --root "$root" "$trace" > "$tmp/want.json"
awk -v ROOT="$root" -f "$SRCDIR/tests/e2e/opens.awk" "$trace" > "$tmp/want.opens"
[ "$(wc -l < "$tmp/want.opens")" -ge 6 ] || fail "the oracle read too few opens from the trace"

check() {   # check MODE ENGINE
    local mode=$1 eng=$2 tg=$tmp/tgt q=()
    rm -rf "$tg"; mkdir "$tg"
    [ "$eng" = sync ] || q=(-q 4)
    # LeakSanitizer cannot run under ptrace (the other tests check leaks)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -y -o "$tmp/rep.strace" "$REPLAY" run -m "$mode" -e "$eng" "${q[@]}" \
        --no-drop-caches --quiet -o "$tmp/r.json" "$trace" "$tg" > "$tmp/out" 2>&1 ||
        { cat "$tmp/out"; fail "$mode $eng: replay run failed"; }
    local tgr; tgr=$(cd "$tg" && pwd)
    python3 "$TOOLS/strace_oracle.py" --root "$root" --strip "$tgr" "$tmp/rep.strace" \
        > "$tmp/got.json"
    python3 "$TOOLS/fidelity_compare.py" "$tmp/want.json" "$tmp/got.json" "$tmp/r.json" \
        > "$tmp/cmp" || { cat "$tmp/cmp"; fail "$mode $eng: data ops or syncs differ"; }
    [ "$(grep -c '^ok pid' "$tmp/cmp")" = 3 ] || { cat "$tmp/cmp"; fail "$mode $eng: 3 ranks expected"; }
    awk -v ROOT="$tgr$root" -f "$SRCDIR/tests/e2e/opens.awk" "$tmp/rep.strace" > "$tmp/got.opens"
    local n=0 name pid wpid
    while read -r pid wpid; do
        name="pid $pid"
        awk -v p="$pid" '$1 == p { print $2, $3 }' "$tmp/want.opens" > "$tmp/w1"
        awk -v p="$wpid" '$1 == p { print $2, $3 }' "$tmp/got.opens" > "$tmp/g1"
        [ -s "$tmp/w1" ] || fail "$mode $eng: rank $name has no traced open"
        # the traced opens, in order, then only read-only ones (the flush)
        head -n "$(wc -l < "$tmp/w1")" "$tmp/g1" | cmp -s - "$tmp/w1" ||
            fail "$mode $eng: rank $name opens differ: traced [$(tr '\n' ';' < "$tmp/w1")]" \
                 "replayed [$(tr '\n' ';' < "$tmp/g1")]"
        tail -n "+$(( $(wc -l < "$tmp/w1") + 1 ))" "$tmp/g1" | awk '$2 != "r" { exit 1 }' ||
            fail "$mode $eng: rank $name opened more than it traced: [$(tr '\n' ';' < "$tmp/g1")]"
        n=$((n + 1))
    done < <(jq -r '.runs[0].jobs[] | "\(.rank_name | sub("^pid "; "")) \(.pid)"' "$tmp/r.json")
    [ "$n" = 3 ] || fail "$mode $eng: $n ranks checked, 3 expected"
    echo "ok $mode $eng: 3 ranks op for op ($(tail -1 "$tmp/cmp" | sed 's/^ok //')), opens equal"
}

check parallel sync
if "$REPLAY" run --dry-run -e libaio "$trace" "$tmp" > /dev/null 2>&1; then
    check parallel libaio
else
    echo "note: libaio unavailable here, its check skipped"
fi
check sequential sync
