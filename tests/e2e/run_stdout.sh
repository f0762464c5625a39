#!/usr/bin/env bash
# The results on stdout: `-o -` prints the JSON there (as --output-format
# json without -o), not into a file named "-"; and a reader of stdout that
# goes away before the results are written (| true, a jq that failed)
# makes the write fail, not the process die: the target is still cleaned
# (that runs beside the writing of the results), the failure is said, and
# the exit status is 1.  Before, SIGPIPE killed replay with the run's files
# left in the target.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-stdout-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
trace="$SRCDIR/tests/data/strace/s_f_tt_T.txt"        # 3 ranks, 4 files
mkdir "$tmp/t"
cd "$tmp"

"$REPLAY" run --no-drop-caches -o - "$trace" t > out.json 2> err || fail "-o -: $(cat err)"
[ ! -e ./- ] || fail "-o - wrote a file named '-'"
jq -e '(.jobs | length) == 3 and .runs[0].completion_ns > 0' out.json > /dev/null \
	|| fail "-o -: stdout is not the result JSON: $(head -c 200 out.json)"
grep -q '^class ' out.json && fail "-o -: the summary went to stdout too"
"$REPLAY" run --no-drop-caches --output-format json+ -o - "$trace" t > plus.json 2> err
jq -e '[.jobs[].write.clat_ns | has("bins")] | any' plus.json > /dev/null || fail "json+ -o -: no bins"

# 12 processes (4 copies of the files), so the cleanup has work to do
for fmt in json normal; do
	set +e
	"$REPLAY" run --no-drop-caches -n 12 --output-format "$fmt" "$trace" t 2> err.$fmt | true
	rc=${PIPESTATUS[0]}
	set -e
	left=$(find t -mindepth 1 | head -3)
	[ -z "$left" ] || fail "$fmt to a closed pipe: files left in the target: $left"
	if [ "$fmt" = json ]; then
		[ "$rc" = 1 ] || fail "json to a closed pipe: exit $rc, want 1"
		grep -q "cannot write the JSON to stdout: Broken pipe" err.json \
			|| fail "json to a closed pipe: $(cat err.json)"
	else
		[ "$rc" = 0 ] || fail "summary to a closed pipe: exit $rc: $(cat err.normal)"
	fi
	grep -q "replay: end .*: exit status $rc" err.$fmt || fail "$fmt: no end line: $(cat err.$fmt)"
done
echo "ok"
