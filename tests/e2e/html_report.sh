#!/usr/bin/env bash
# html_report.sh - `replay compare --html`: one self-contained page from real
# results (a bundled LANL trace replayed on two target directories, 2 runs
# each).  Checked by tests/tools/html_check.py, not by replay: nothing to
# fetch (no script, link, image, URL), the workload ops/bytes and the
# completion medians agree with the result files; then the page is opened
# in a real headless browser (Debian's chromium): no console message, and a
# screenshot that is not blank.  The checker itself must reject a page
# with a script that logs to the console (so the check can fail).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
chk() { python3 "$SRCDIR/tests/tools/html_check.py" "$@"; }

trace="$SRCDIR/traces/lanl-64k"
for t in a b; do
	mkdir -p "$tmp/$t"
	"$REPLAY" run -r 2 -n 4 --no-drop-caches --quiet --sample-interval 1 -o "$tmp/$t.json" \
		"$trace" "$tmp/$t" >/dev/null || fail "replay run on target $t"
done
"$REPLAY" compare --html "$tmp/page.html" -L disk-a,disk-b "$tmp/a.json" "$tmp/b.json" >"$tmp/table" ||
	fail "replay compare --html"
[ -s "$tmp/page.html" ] && [ ! -e "$tmp/page.html.tmp" ] || fail "page not written whole"
grep -q "disk-b" "$tmp/table" || fail "the table is still printed with --html"
chk static "$tmp/page.html"
chk numbers "$tmp/page.html" "$tmp/a.json" "$tmp/b.json"
grep -q "p99.9" "$tmp/page.html" || fail "no p99.9 mark"
grep -q " us\b" "$tmp/page.html" && fail "the page says 'us', not µs"

# a bad output path: a clear error, non-zero exit, nothing left behind
if "$REPLAY" compare --html "$tmp/nodir/page.html" "$tmp/a.json" >/dev/null 2>"$tmp/err"; then
	fail "--html into a missing directory succeeded"
fi
grep -q "cannot create" "$tmp/err" || fail "unclear error: $(cat "$tmp/err")"

browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: no chromium to open the page in (Debian package chromium)"; exit 77; }
open_page() {   # PAGE SHOT LOG
	timeout 90 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
		--user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
		--window-size=1200,2000 --screenshot="$2" "file://$1" >"$3" 2>&1
}
printf '<html><body><p>x</p><script>console.error("html-check-probe")</script></body></html>\n' \
	>"$tmp/probe.html"
open_page "$tmp/probe.html" "$tmp/probe.png" "$tmp/probe.log" ||
	{ echo "SKIP: chromium cannot run here: $(tail -2 "$tmp/probe.log")"; exit 77; }
chk console "$tmp/probe.log" >/dev/null && fail "the console check missed a console.error"
chk static "$tmp/probe.html" >/dev/null && fail "the static check missed a <script>"
open_page "$tmp/page.html" "$tmp/shot.png" "$tmp/page.log" || fail "chromium failed: $(tail -3 "$tmp/page.log")"
chk console "$tmp/page.log"
chk png "$tmp/shot.png" 1
echo "ok html report: self-contained, numbers agree, renders in chromium"
