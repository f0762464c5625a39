#!/usr/bin/env bash
# Without the right to drop the page cache: a clear error before anything is
# prepared, unless --no-drop-caches, which the results record.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib/nobody.sh
. "$SRCDIR/tests/e2e/lib/nobody.sh"
nobody_setup perm
if as_nobody test -w /proc/sys/vm/drop_caches; then
    echo "skip: an unprivileged user may drop caches here"
    exit 77
fi

set +e
as_nobody "$REPLAY" run --quiet "$tmp/t.txt" "$tmp/tgt" > /dev/null 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "exit $rc, want 1"
grep -q "cannot drop the page cache: '/proc/sys/vm/drop_caches': Permission denied (run as root, or pass --no-drop-caches)" \
    "$tmp/err" || fail "message: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "prepared files before failing: $(find "$tmp/tgt")"

as_nobody "$REPLAY" run --quiet --no-drop-caches -o "$tmp/out/r.json" "$tmp/t.txt" "$tmp/tgt" > "$tmp/out.txt"
grep -q "^page cache: *not dropped (--no-drop-caches)" "$tmp/out.txt" || fail "summary"
jq -e '.options.drop_caches == false and .runs[0].drop_caches == "skipped (--no-drop-caches)"
       and .runs[0].incomplete == false' "$tmp/out/r.json" >/dev/null || fail "json"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "files left: $(find "$tmp/tgt")"
echo "ok"
