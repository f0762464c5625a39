#!/usr/bin/env bash
# lanl_ranks_missing: a LANL directory whose timing file lists more ranks
# than the rank files given (one deleted, or a subset given on purpose) is
# read, with a warning from every command that loads it (stat, convert,
# dump, run, run --dry-run, and an .ops file made from it) naming the
# missing ranks as the timing file lists them and how many are replayed.
# It was a stat note only: a run replayed 31 of 32 ranks without a word.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-lanlmiss-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)

L=$tmp/L
cp -r "$SRCDIR/traces/lanl-64k" "$L"
rm "$L/host02.lanl.gov.14211.trace"
want="warning: $L: the timing file $L/timing lists 32 ranks and no trace file was given for 1 of them: 31 of the 32 ranks are replayed; missing: rank 2 (host02.lanl.gov, pid 14211)"
check() { # NAME: stderr in $tmp/err
    [ "$(grep -cF -- "$want" "$tmp/err")" = 1 ] || fail "$1: no warning (or not once): $(cat "$tmp/err")"
}
"$REPLAY" stat "$L" > "$tmp/stat.out" 2> "$tmp/err" || fail "stat: exit $?"
check stat
grep -q '^ranks          31$' "$tmp/stat.out" || fail "stat: $(head -8 "$tmp/stat.out")"
"$REPLAY" convert --quiet "$L" -o "$tmp/L.ops" 2> "$tmp/err" || fail "convert: exit $?"
check convert
"$REPLAY" dump "$L" > /dev/null 2> "$tmp/err" || fail "dump: exit $?"
check dump
mkdir "$tmp/tgt"
"$REPLAY" run --dry-run "$L" "$tmp/tgt" > /dev/null 2> "$tmp/err" || fail "dry-run: exit $?"
check dry-run
"$REPLAY" run "${drop[@]}" --quiet -m parallel -n 32 "$L" "$tmp/tgt" > /dev/null 2> "$tmp/err" ||
    fail "run: exit $?: $(cat "$tmp/err")"
check run
# the .ops file keeps what the timing file said
want=${want/"$L: "/"$tmp/L.ops: "}
"$REPLAY" stat "$tmp/L.ops" > /dev/null 2> "$tmp/err" || fail "stat .ops: exit $?"
check "stat of the .ops"

# every rank file there: no warning
"$REPLAY" stat "$SRCDIR/traces/lanl-64k" > /dev/null 2> "$tmp/err"
[ ! -s "$tmp/err" ] || fail "all ranks: $(cat "$tmp/err")"
echo "ok a rank file missing: warned by stat, convert, dump, run, dry-run and the .ops"
