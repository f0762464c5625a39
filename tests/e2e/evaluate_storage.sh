#!/usr/bin/env bash
# evaluate_storage.sh - scripts/evaluate-storage --quick on two scratch
# target directories with a tiny two-rank strace trace: every JSON, the
# comparison, the plots and report.md exist and agree; then one result is
# deleted and another marked incomplete, and a second invocation redoes
# exactly those two (the other results keep their mtimes).
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
if "$REPLAY" run --help 2>&1 | grep -q "not available yet"; then
	echo "SKIP: 'replay run' is not available yet"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$tmp/disk1" "$tmp/disk2"
touch "$tmp/disk1/keep-me"
cat >"$tmp/tiny.strace" <<'TRACE'
100 10:00:00.000100 openat(AT_FDCWD, "/data/out.0", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000020>
101 10:00:00.000110 openat(AT_FDCWD, "/data/out.1", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000020>
100 10:00:00.000200 write(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 65536) = 65536 <0.000050>
101 10:00:00.000210 write(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 65536) = 65536 <0.000050>
100 10:00:00.000300 write(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 65536) = 65536 <0.000050>
101 10:00:00.000310 write(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 65536) = 65536 <0.000050>
100 10:00:00.000400 fsync(3) = 0 <0.001000>
101 10:00:00.000410 fsync(3) = 0 <0.001000>
100 10:00:00.001500 pread64(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 4096, 0) = 4096 <0.000010>
101 10:00:00.001510 pread64(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 4096, 65536) = 4096 <0.000010>
100 10:00:00.001600 close(3) = 0 <0.000005>
101 10:00:00.001610 close(3) = 0 <0.000005>
TRACE

ev="$SRCDIR/scripts/evaluate-storage"
out="$tmp/out"
# an empty --procs list is refused, not taken as the default one
rc=0; "$ev" -o "$out" --procs ' ' --replay "$REPLAY" "$tmp/tiny.strace" -- "$tmp/disk2" \
	>/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--procs: empty list" "$tmp/err" || fail "--procs ' ': exit $rc, $(head -2 "$tmp/err")"
[ ! -e "$out" ] || fail "--procs ' ' made $out"
# --quick: -r 1, sequential over 2 ranks, parallel at 2; -r 2 given explicitly wins
"$ev" -o "$out" --quick -r 2 --no-drop-caches --replay "$REPLAY" "$tmp/tiny.strace" -- \
	hdd="$tmp/disk1" "$tmp/disk2" >"$tmp/log1"
cat "$tmp/log1"
grep -q "4 configuration(s) run, 0 kept" "$tmp/log1" || fail "first pass should run 4 configurations"

jsons="hdd/tiny.strace-sequential-2 hdd/tiny.strace-parallel-2 disk2/tiny.strace-sequential-2 disk2/tiny.strace-parallel-2"
for j in $jsons; do
	f="$out/json/$j.json"
	[ -s "$f" ] || fail "$f missing"
	python3 - "$f" <<'PY' || fail "$f content"
import json, sys
d = json.load(open(sys.argv[1]))
o = d["options"]
mode, n = sys.argv[1].rsplit("/", 1)[1][:-5].split("-")[1:]
assert o["mode"] == mode and o["processes"] == int(n), (o["mode"], o["processes"])
assert o["repeats"] == 2 and len(d["runs"]) == 2 and o["drop_caches"] is False
assert not any(r["incomplete"] for r in d["runs"])
assert all(len(r["jobs"]) == 2 for r in d["runs"])
PY
done
# the target's own files untouched, the scratch directory gone
[ -e "$tmp/disk1/keep-me" ] || fail "a file of the target was removed"
[ ! -e "$tmp/disk1/.replay-evaluate" ] && [ ! -e "$tmp/disk2/.replay-evaluate" ] || fail "scratch directory left behind"
[ -z "$(find "$tmp/disk1" "$tmp/disk2" -name 'out.*')" ] || fail "replayed files left behind"

# compare.txt: hdd is the baseline, both rows there; compare.json parses
grep -Eq '^tiny\.strace +sequential +2 +1\.00 \[' "$out/compare.txt" || fail "compare.txt sequential row"
grep -Eq '^tiny\.strace +parallel +2 +1\.00 \[' "$out/compare.txt" || fail "compare.txt parallel row"
python3 - "$out/compare.json" "$out/json/hdd/tiny.strace-parallel-2.json" "$out/json/disk2/tiny.strace-parallel-2.json" <<'PY' || fail "compare.json"
import json, sys, statistics
c = json.load(open(sys.argv[1]))
assert c["baseline"] == "hdd" and [s["label"] for s in c["sets"]] == ["hdd", "disk2"]
med = [statistics.median(r["completion_ns"] for r in json.load(open(f))["runs"]) for f in sys.argv[2:4]]
row = [r for r in c["rows"] if r["mode"] == "parallel"][0]
got = row["results"][1]["normalized"]["median"]
assert abs(got - med[1] / med[0]) < 1e-9, (got, med)
PY
for f in completion-sequential completion-parallel latency-tiny.strace-sequential-2 latency-tiny.strace-parallel-2; do
	[ -s "$out/plots/$f.png" ] && [ -s "$out/plots/$f.svg" ] || fail "plot $f missing"
done
grep -q '^# Storage evaluation: hdd disk2$' "$out/report.md" || fail "report title"
grep -q "^| hdd  *| .*/disk1/.replay-evaluate *| " "$out/report.md" || fail "report targets table"
grep -q '(plots/completion-sequential.png)' "$out/report.md" || fail "report links the plots"
python3 "$SRCDIR/tests/tools/html_check.py" static "$out/report.html" || fail "report.html not self-contained"
grep -q 'page cache was NOT dropped' "$out/report.md" || fail "report must say the cache was not dropped"

# resume: delete one result, mark one run of another incomplete
rm "$out/json/disk2/tiny.strace-sequential-2.json"
python3 - "$out/json/hdd/tiny.strace-parallel-2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["runs"][1]["incomplete"] = True
json.dump(d, open(sys.argv[1], "w"))
PY
keep1="$out/json/hdd/tiny.strace-sequential-2.json" keep2="$out/json/disk2/tiny.strace-parallel-2.json"
touch -d '2001-01-01 00:00:00' "$keep1" "$keep2"
m1=$(stat -c %Y "$keep1") m2=$(stat -c %Y "$keep2")
"$ev" -o "$out" --quick -r 2 --no-drop-caches --replay "$REPLAY" "$tmp/tiny.strace" -- \
	hdd="$tmp/disk1" "$tmp/disk2" >"$tmp/log2"
cat "$tmp/log2"
grep -q "2 configuration(s) run, 2 kept" "$tmp/log2" || fail "second pass should redo exactly 2"
grep -q "hdd: tiny.strace sequential -n 2 -r 2: complete, kept" "$tmp/log2" || fail "kept line"
grep -q "disk2: tiny.strace sequential -n 2 -r 2: running" "$tmp/log2" || fail "deleted result not redone"
grep -q "hdd: tiny.strace parallel -n 2 -r 2: running" "$tmp/log2" || fail "incomplete result not redone"
[ "$(stat -c %Y "$keep1")" = "$m1" ] && [ "$(stat -c %Y "$keep2")" = "$m2" ] || fail "a complete result was rewritten"
[ -s "$out/json/disk2/tiny.strace-sequential-2.json" ] || fail "deleted result not recreated"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not any(r["incomplete"] for r in d["runs"])' \
	"$out/json/hdd/tiny.strace-parallel-2.json" || fail "incomplete result still incomplete"
# results made otherwise than asked now (another engine, the cache dropped
# where it now is not) are not complete ones: run again, not kept and
# reported as the new setup's
"$ev" -o "$out" --quick -r 2 -e libaio --no-drop-caches --replay "$REPLAY" "$tmp/tiny.strace" -- \
	hdd="$tmp/disk1" "$tmp/disk2" >"$tmp/log2b"
grep -q "4 configuration(s) run, 0 kept" "$tmp/log2b" || fail "another engine: $(tail -1 "$tmp/log2b")"
jq -e '.options.engine == "libaio"' "$out/json/hdd/tiny.strace-sequential-2.json" >/dev/null ||
	fail "another engine: the result kept the old one"
touch -d '2001-01-01 00:00:00' "$keep1"
m1=$(stat -c %Y "$keep1")

# killed in the middle: a wrapper lets the sequential runs through and hangs
# on the parallel one; the evaluation is killed there (SIGTERM to the script,
# then the hung "replay"), and the next invocation runs only what is missing
out2="$tmp/out2"
cat >"$tmp/hang-replay" <<WRAP
#!/usr/bin/env bash
if [ "\$1" = run ] && [ "\$3" = parallel ]; then echo \$\$ >"$tmp/hang.pid"; exec sleep 60; fi
exec "$REPLAY" "\$@"
WRAP
chmod +x "$tmp/hang-replay"
"$ev" -o "$out2" --quick --no-drop-caches --no-parallel --replay "$REPLAY" "$tmp/tiny.strace" -- \
	"$tmp/disk1" >/dev/null
"$ev" -o "$out2" --quick --no-drop-caches --replay "$tmp/hang-replay" "$tmp/tiny.strace" -- \
	"$tmp/disk1" >"$tmp/log3" 2>&1 &
evpid=$!
for _ in $(seq 100); do [ -s "$tmp/hang.pid" ] && break; sleep 0.1; done
[ -s "$tmp/hang.pid" ] || fail "the wrapper never reached the parallel run"
kill -TERM "$evpid"
kill -TERM "$(cat "$tmp/hang.pid")"
set +e; wait "$evpid"; rc=$?; set -e
[ "$rc" -ne 0 ] || fail "killed evaluation exited 0"
[ ! -e "$out2/json/disk1/tiny.strace-parallel-2.json" ] || fail "killed run left a result"
[ ! -e "$tmp/disk1/.replay-evaluate" ] || fail "killed evaluation left its scratch directory"
touch -d '2001-01-01 00:00:00' "$out2/json/disk1/tiny.strace-sequential-2.json"
"$ev" -o "$out2" --quick --no-drop-caches --replay "$REPLAY" "$tmp/tiny.strace" -- "$tmp/disk1" >"$tmp/log4"
grep -q "1 configuration(s) run, 1 kept" "$tmp/log4" || fail "resume after kill: $(cat "$tmp/log4")"
[ "$(stat -c %Y "$out2/json/disk1/tiny.strace-sequential-2.json")" = "$(date -d '2001-01-01 00:00:00' +%s)" ] ||
	fail "resume after kill rewrote the sequential result"
[ -s "$out2/json/disk1/tiny.strace-parallel-2.json" ] && [ -s "$out2/report.md" ] || fail "resume after kill: missing output"

# usage errors
if "$ev" -o "$out" "$tmp/tiny.strace" 2>"$tmp/err"; then fail "no target accepted"; fi
grep -q "no target given" "$tmp/err" || fail "no target message"
if "$ev" -o "$out" --replay "$REPLAY" "$tmp/nope" -- "$tmp/disk1" 2>"$tmp/err"; then fail "missing trace accepted"; fi
grep -q "cannot open trace" "$tmp/err" || fail "missing trace message"
echo "evaluate-storage ok"
