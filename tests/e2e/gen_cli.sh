#!/usr/bin/env bash
# gen_cli.sh - `replay gen` as a user meets it: --list, the output rules
# (no overwrite without --force, nothing left behind on errors), the same
# bytes for the same seed, and bad usage -> exit 2 with a clear message.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# --list names the ten workloads
"$REPLAY" gen --list >"$tmp/list"
for w in lanl-64k lanl-1024k alegra cth s3d seq-writer seek-chain writers-32 zipf-reads checkpoint; do
	grep -q "^$w " "$tmp/list" || fail "--list lacks $w"
done

# expect_usage DESCRIPTION PATTERN -- args: exit 2 and PATTERN on stderr
expect_usage() {
	local what=$1 pat=$2; shift 3
	local rc=0
	"$REPLAY" gen "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 2 ]; then fail "$what: exit $rc, expected 2"; return; fi
	grep -q -- "$pat" "$tmp/err" || fail "$what: stderr lacks '$pat': $(head -2 "$tmp/err")"
}
expect_usage "unknown workload"  "unknown workload 'nope'" -- nope -o "$tmp/x"
expect_usage "unknown lists"     "zipf-reads"              -- nope -o "$tmp/x"
expect_usage "no workload"       "which workload"          -- -o "$tmp/x"
expect_usage "no -o"             "-o PATH is required"     -- cth
expect_usage "bad scale"         "--scale expects"         -- cth -o "$tmp/x" --scale abc
expect_usage "zero scale"        "--scale expects"         -- cth -o "$tmp/x" --scale 0
expect_usage "bad ranks"         "--processes expects"         -- cth -o "$tmp/x" --processes -3
expect_usage "bad object size"   "--object-size expects"   -- lanl-64k -o "$tmp/x" --object-size 12Q
expect_usage "single process"    "single-process"          -- seq-writer -o "$tmp/x" --processes 2
expect_usage "lanl-only option"  "lanl-\* workloads only"  -- alegra -o "$tmp/x" --strided
expect_usage "unknown option"    "unknown"                 -- cth -o "$tmp/x" --frobnicate
[ ! -e "$tmp/x" ] || fail "a failed gen left '$tmp/x'"

# same seed -> same bytes; another seed -> other bytes
"$REPLAY" gen alegra --processes 2 --scale 0.05 --seed 7 -o "$tmp/a1" >/dev/null
"$REPLAY" gen alegra --processes 2 --scale 0.05 --seed 7 -o "$tmp/a2" >/dev/null
"$REPLAY" gen alegra --processes 2 --scale 0.05 --seed 8 -o "$tmp/a3" >/dev/null
cmp -s "$tmp/a1" "$tmp/a2" || fail "same seed gave different bytes"
cmp -s "$tmp/a1" "$tmp/a3" && fail "different seeds gave the same bytes"
"$REPLAY" gen lanl-64k --processes 3 --objects 4 --seed 5 -o "$tmp/d1" >/dev/null
"$REPLAY" gen lanl-64k --processes 3 --objects 4 --seed 5 -o "$tmp/d2" >/dev/null
diff -r "$tmp/d1" "$tmp/d2" >/dev/null || fail "same seed gave different LANL directories"
[ "$(ls "$tmp/d1" | wc -l)" -eq 4 ] || fail "lanl-64k --processes 3: expected 3 rank files + timing, got $(ls "$tmp/d1")"

# existing output: refused (exit 2, untouched) unless --force
sum1=$(md5sum <"$tmp/a1")
rc=0; "$REPLAY" gen alegra --processes 2 --scale 0.05 --seed 9 -o "$tmp/a1" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] || fail "overwrite without --force: exit $rc"
grep -q -- "--force" "$tmp/err" || fail "overwrite message does not mention --force"
[ "$(md5sum <"$tmp/a1")" = "$sum1" ] || fail "refused overwrite changed the file"
"$REPLAY" gen alegra --processes 2 --scale 0.05 --seed 9 -o "$tmp/a1" --force >/dev/null || fail "--force did not replace"
[ "$(md5sum <"$tmp/a1")" != "$sum1" ] || fail "--force left the old content"
# a directory holding anything else is never replaced
mkdir "$tmp/mine"; echo keep >"$tmp/mine/notes.txt"
rc=0; "$REPLAY" gen lanl-64k --processes 2 --objects 2 -o "$tmp/mine" --force >/dev/null 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "--force replaced a foreign directory"
[ -f "$tmp/mine/notes.txt" ] || fail "a foreign file was removed"
# nor a file that is not a trace gen wrote (here a data file), nor a
# trace of the other format
head -c 1000 /dev/urandom >"$tmp/data.bin"
dsum=$(md5sum <"$tmp/data.bin")
rc=0; "$REPLAY" gen seq-writer -o "$tmp/data.bin" --force >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -ne 0 ] || fail "--force replaced a data file"
[ "$(md5sum <"$tmp/data.bin")" = "$dsum" ] || fail "the data file was changed"
grep -q "is not an strace trace written by 'replay gen'" "$tmp/err" || fail "message: $(cat "$tmp/err")"
rc=0; "$REPLAY" gen seq-writer -o "$tmp/a1" --force >/dev/null 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "--force replaced a libsysio trace by an strace one"
"$REPLAY" gen seq-writer --scale 0.01 -o "$tmp/s1" >/dev/null || fail "seq-writer"
"$REPLAY" gen seq-writer --scale 0.01 --seed 5 -o "$tmp/s1" --force >/dev/null || fail "--force did not replace gen's strace output"
# no temporaries left next to the outputs
ls -a "$tmp" | grep -q 'tmp' && fail "temporary files left: $(ls -a "$tmp")"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "gen_cli: ok"
