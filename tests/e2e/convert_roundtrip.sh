#!/usr/bin/env bash
# convert_roundtrip.sh - convert a real strace capture to .ops, then check
# that stat, dump and the fio-iolog export agree with the trace text
# (counts made here with awk), that an .ops input gives the same results
# as the text it came from, and that bad input fails cleanly.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
DATA="$SRCDIR/tests/data/stat"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
jq_() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

T="$DATA/s_f_tt_T_y.txt"

# -- convert: summary line, a valid .ops file -----------------------------
"$REPLAY" convert "$T" -o "$tmp/a.ops" >"$tmp/summary"
cat "$tmp/summary"
grep -q "^$tmp/a.ops: 3 ranks, [0-9]* ops from 81 lines " "$tmp/summary" ||
	fail "summary line: $(cat "$tmp/summary")"
head -c 8 "$tmp/a.ops" | grep -q REPLAYOP || fail "no .ops magic"

# -- stat of the .ops equals stat of the text (but for load notes) --------
"$REPLAY" stat --no-default-excludes --json "$T" >"$tmp/text.json"
"$REPLAY" stat --no-default-excludes --json "$tmp/a.ops" >"$tmp/ops.json"
python3 - "$tmp/text.json" "$tmp/ops.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for j in (a, b):
    j.pop("notes")
if a != b:
    for k in a:
        if a[k] != b.get(k):
            print("differs:", k, a[k], b.get(k))
    sys.exit(1)
EOF
[ "$(jq_ "$tmp/ops.json" 'j["bytes_written"]')" = 212868 ] || fail "bytes_written of the .ops"
[ "$(jq_ "$tmp/ops.json" 'j["read_write_ratio_text"]')" = "0.12/0.88" ] || fail "ratio: $(jq_ "$tmp/ops.json" 'j["read_write_ratio_text"]')"

# -- dump: one line per op, columns as documented ---------------------------
"$REPLAY" dump "$tmp/a.ops" >"$tmp/dump"
head -1 "$tmp/dump" | grep -qx '# rank t_ns dur_ns kind handle offset len result extra path' ||
	fail "dump header: $(head -1 "$tmp/dump")"
nops=$(jq_ "$tmp/ops.json" 'j["ops_total"]')
[ "$(grep -vc '^#' "$tmp/dump")" -eq "$nops" ] || fail "dump has $(grep -vc '^#' "$tmp/dump") lines, stat says $nops ops"
# writes in the dump, counted and summed from its result column, against
# the trace text: 12 write-family calls returning 212868 bytes in all
read -r nw sw < <(awk '$4 == "write" { n++; s += $8 } END { print n, s }' "$tmp/dump")
want_nw=$(grep -cE '^[0-9]+ +[0-9:.]+ (write|pwrite64|writev)\(' "$T")
[ "$nw" -eq "$want_nw" ] && [ "$sw" -eq 212868 ] || fail "dump writes: $nw calls $sw bytes (want $want_nw, 212868)"
# the pwrite64 of 4096 bytes at 1048576 on /tmp/fmtprobe/t.dat appears as such
grep -Eq '^[0-9]+ [0-9]+ [0-9]+ write [0-9]+ 1048576 4096 4096 [^ ]+ /tmp/fmtprobe/t.dat$' "$tmp/dump" ||
	fail "pwrite64 line not found in the dump"
# --rank: only that rank, as many lines as its ops
"$REPLAY" dump --ranks 1 "$tmp/a.ops" | grep -v '^#' >"$tmp/dump1"
[ "$(awk '$1 != 1' "$tmp/dump1" | wc -l)" -eq 0 ] || fail "dump --ranks 1 printed other ranks"
[ "$(wc -l <"$tmp/dump1")" -eq "$(jq_ "$tmp/ops.json" 'j["per_rank"][1]["ops"]')" ] || fail "dump --ranks 1 count"
# dumping the text trace gives the same lines
"$REPLAY" dump "$T" | cmp -s - "$tmp/dump" || fail "dump of the text differs from dump of the .ops"

# -- convert an .ops again: identical bytes ------------------------------
"$REPLAY" convert --quiet "$tmp/a.ops" -o "$tmp/b.ops"
cmp "$tmp/a.ops" "$tmp/b.ops" || fail ".ops copy differs"

# -- fio iologs: one per rank, every read and write of the trace ---------
"$REPLAY" convert --to fio-iolog --no-default-excludes -o "$tmp/iolog" "$T" >/dev/null
for r in 0 1 2; do
	[ "$(head -1 "$tmp/iolog/rank-$r.iolog")" = "fio version 2 iolog" ] || fail "rank-$r.iolog header"
done
[ ! -e "$tmp/iolog/rank-3.iolog" ] || fail "an iolog for a rank that does not exist"
nrw=$(cat "$tmp"/iolog/rank-*.iolog | awk '$2 == "read" || $2 == "write"' | wc -l)
want_rw=$(( $(jq_ "$tmp/ops.json" 'j["ops"]["read"] + j["ops"]["write"]') ))
[ "$nrw" -eq "$want_rw" ] || fail "iologs hold $nrw reads+writes, the trace $want_rw"
# by default, the reads and writes `run` replays: stat's, with its default
# excludes (the loader's /etc/ld.so.cache and libc are left out)
"$REPLAY" convert --to fio-iolog -o "$tmp/iolog-def" "$T" >/dev/null
"$REPLAY" stat --json "$T" >"$tmp/def.json"
nrw=$(cat "$tmp"/iolog-def/rank-*.iolog | awk '$2 == "read" || $2 == "write"' | wc -l)
want_rw=$(( $(jq_ "$tmp/def.json" 'j["ops"]["read"] + j["ops"]["write"]') ))
[ "$nrw" -eq "$want_rw" ] || fail "default iologs hold $nrw reads+writes, run would replay $want_rw"
! grep -hE '^[^ ]*/(etc|usr|lib)/' "$tmp"/iolog-def/rank-*.iolog || fail "system files in the default iologs"

# -- bad input: clear message, non-zero exit, no crash ---------------------
expect_fail() { # stderr-regex, args...
	local re=$1; shift
	local rc=0
	"$REPLAY" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "'replay $*' exited $rc"
	grep -Eq "$re" "$tmp/err" || fail "'replay $*' said: $(cat "$tmp/err")"
}
expect_fail "^replay: .*'?$tmp/missing'?.*No such file" stat "$tmp/missing"
expect_fail "^replay: .*'?$tmp/missing'?.*No such file" dump "$tmp/missing"
head -c 3000 /dev/urandom >"$tmp/noise.bin"
expect_fail "^replay: .*noise.bin" stat "$tmp/noise.bin"
printf 'hello world\nthis is not a trace\n' >"$tmp/notes.txt"
expect_fail "^replay: .*notes.txt" stat "$tmp/notes.txt"
head -c 200 "$tmp/a.ops" >"$tmp/cut.ops"
expect_fail "^replay: .*cut.ops" stat "$tmp/cut.ops"
expect_fail "^replay: dump: no rank 7" dump --ranks 7 "$tmp/a.ops"
expect_fail "^replay: dump: bad rank list" dump --ranks x "$tmp/a.ops"
expect_fail "^replay: convert: -o FILE.ops is required" convert "$T"
expect_fail "^replay: convert: unknown output kind" convert --to csv -o "$tmp/x" "$T"
expect_fail "^replay: stat: no TRACE" stat --json
[ ! -e "$tmp/x" ] || fail "a failed convert left output"
echo "convert_roundtrip: ok"
