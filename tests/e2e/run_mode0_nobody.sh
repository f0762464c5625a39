#!/usr/bin/env bash
# Not as root: a file the trace makes unreadable (mode 0000, or 0200: lock
# and secret files) cannot be opened again for the end's flush; the run
# failed ("flush of '/m/secret': cannot open it: Permission denied", exit
# 1: audit REG).  Such a file is flushed by a sync of the target's file
# system, and the run completes.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/nobody.sh"
nobody_setup mode0
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$tmp/m.txt" <<'T'
7 10:00:00.000001 openat(AT_FDCWD, "/m/secret", O_WRONLY|O_CREAT|O_TRUNC, 000) = 3 <0.000010>
7 10:00:00.000002 pwrite64(3, "x"..., 4096, 0) = 4096 <0.000010>
7 10:00:00.000003 close(3) = 0 <0.000010>
7 10:00:00.000004 openat(AT_FDCWD, "/m/wo", O_WRONLY|O_CREAT|O_TRUNC, 0200) = 3 <0.000010>
7 10:00:00.000005 write(3, "x"..., 100) = 100 <0.000010>
7 10:00:00.000006 close(3) = 0 <0.000010>
T
chmod 644 "$tmp/m.txt"
rc=0
as_nobody "$REPLAY" run --no-drop-caches -o "$tmp/out/m.json" "$tmp/m.txt" "$tmp/tgt" \
	> "$tmp/out/m.out" 2> "$tmp/out/m.err" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/out/m.err")"
jq -e '.runs[0].failed == false and .runs[0].jobs[0].write.io_bytes == 4196' "$tmp/out/m.json" > /dev/null ||
	fail "json: $(jq -c '.runs[0] | {failed, w: .jobs[0].write.io_bytes}' "$tmp/out/m.json")"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "files left: $(find "$tmp/tgt")"
echo "ok files of mode 0000 and 0200, not as root: flushed, the run complete"
