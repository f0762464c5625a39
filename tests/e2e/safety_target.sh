#!/usr/bin/env bash
# safety_target.sh - the real binary against unsafe targets and the file
# preparation: a regular file, a character device, a block device (only
# stat'ed) and a missing directory are refused with a clear message; files
# the run would overwrite are refused without --force (and kept with it);
# --dry-run prints the sizes to prepare (checked against awk on the trace)
# and creates nothing; prepared files hold real, non-zero, non-sparse data;
# reused ranks get their own copies; cleanup leaves the target as before.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tgt="$tmp/target"
mkdir -p "$tgt" "$tmp/log"
fail() { echo "FAIL: $*" >&2; exit 1; }
tsnap() {
	(cd "$1" && find . -printf '%p %y %s %m\n' | LC_ALL=C sort &&
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
# refused CMD... : must exit 1 (not 0, not a signal); stderr in log/err
refused() {
	local rc=0
	"$@" > "$tmp/log/out" 2> "$tmp/log/err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/log/err" >&2; fail "exit $rc from: $*"; }
}

# Two processes (strace -f): both read data/in.dat (shared), each writes
# its own output (private).
tr=$tmp/two.txt
cat > "$tr" <<'EOF'
10    21:00:00.000100 openat(AT_FDCWD, "/data/in.dat", O_RDONLY) = 3 <0.000010>
11    21:00:00.000150 openat(AT_FDCWD, "/data/in.dat", O_RDONLY) = 3 <0.000010>
10    21:00:00.000200 pread64(3, "abcdefghabcdefghabcdefghabcdefgh"..., 65536, 0) = 65536 <0.000010>
11    21:00:00.000250 pread64(3, "abcdefghabcdefghabcdefghabcdefgh"..., 4096, 2097152) = 4096 <0.000010>
10    21:00:00.000300 pread64(3, "abcdefghabcdefghabcdefghabcdefgh"..., 65536, 1048576) = 65536 <0.000010>
10    21:00:00.000400 close(3) = 0 <0.000003>
11    21:00:00.000450 close(3) = 0 <0.000003>
10    21:00:00.000500 openat(AT_FDCWD, "/data/out.10", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4 <0.000010>
11    21:00:00.000550 openat(AT_FDCWD, "/data/out.11", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4 <0.000010>
10    21:00:00.000600 write(4, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"..., 4096) = 4096 <0.000010>
11    21:00:00.000650 write(4, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"..., 8192) = 8192 <0.000010>
10    21:00:00.000700 close(4) = 0 <0.000003>
11    21:00:00.000750 close(4) = 0 <0.000003>
EOF
# independently: the size to prepare is the largest offset + bytes read
prep=$(awk '/pread64\(3,/ { n = $0; sub(/.*\.\.\., /, "", n); split(n, a, /[,)]/); off = a[2] + 0;
	r = $0; sub(/.*= /, "", r); sub(/ <.*/, "", r); if (off + r > m) m = off + r } END { print m }' "$tr")
[ "$prep" -eq 2101248 ] || fail "awk computed $prep"
w10=$(awk '$1 == 10 && /write\(4,/ { sub(/.*= /, ""); sub(/ <.*/, ""); print }' "$tr")
w11=$(awk '$1 == 11 && /write\(4,/ { sub(/.*= /, ""); sub(/ <.*/, ""); print }' "$tr")

# --- unsafe targets -------------------------------------------------------
echo x > "$tmp/regular"
refused "$REPLAY" run "$tr" "$tmp/regular"
grep -q "target '$tmp/regular' is a regular file, not a directory" "$tmp/log/err" || fail "regular file message"
[ "$(cat "$tmp/regular")" = x ] || fail "regular file changed"
# A device node as the target: refused, naming its type; the first node of
# the list that really is one (/dev/null is a plain file in some containers).
device_target() {
	local test=$1 what=$2 d dev=""
	shift 2
	for d in "$@"; do
		[ "$test" "$d" ] && { dev=$d; break; }
	done
	if [ -z "$dev" ]; then
		echo "note: no $what device node found; $what-device target not checked"
		return 0
	fi
	refused "$REPLAY" run "$tr" "$dev"
	grep -q "target '$dev' is a $what device, not a directory" "$tmp/log/err" ||
		fail "$what device message"
}
device_target -c character /dev/null /dev/zero /dev/full /dev/urandom /dev/random /dev/tty
device_target -b block /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda /dev/loop0
refused "$REPLAY" run "$tr" "$tmp/missing/dir"
grep -q "target directory '$tmp/missing/dir' does not exist" "$tmp/log/err" || fail "missing message"
[ ! -e "$tmp/missing" ] || fail "missing target was created"

# --- dry run: the plan, nothing created -----------------------------------
before=$(tsnap "$tgt")
"$REPLAY" run --dry-run "$tr" "$tgt" > "$tmp/log/plan"
grep -Eq "^  data/in.dat +shared +prepare .*\\($prep bytes\\)" "$tmp/log/plan" || { cat "$tmp/log/plan" >&2; fail "in.dat line"; }
grep -Eq "^  data/out.10 +private +-, created by the run" "$tmp/log/plan" || fail "out.10 line"
grep -q "2 traced ranks, 2 replayed by 2 processes" "$tmp/log/plan" || fail "ranks line"
grep -q "process 1: rank 1 (pid 11)" "$tmp/log/plan" || fail "process line"
[ "$(tsnap "$tgt")" = "$before" ] || fail "dry run changed the target"

# --- a real run: prepared data is real; cleanup restores the target ------
"$REPLAY" run --no-drop-caches --quiet --keep "$tr" "$tgt" > /dev/null
f=$tgt/data/in.dat
[ "$(stat -c %s "$f")" -eq "$prep" ] || fail "in.dat size"
[ $(( $(stat -c %b "$f") * $(stat -c %B "$f") )) -ge "$prep" ] || fail "in.dat is sparse"
[ "$(tr -d '\000' < "$f" | wc -c)" -eq "$prep" ] || fail "in.dat holds zero bytes"
[ "$(stat -c %s "$tgt/data/out.10")" -eq "$w10" ] || fail "out.10 size"
[ "$(stat -c %s "$tgt/data/out.11")" -eq "$w11" ] || fail "out.11 size"

# --- what --keep left is now in the way: refused without --force ---------
kept=$(tsnap "$tgt")
refused "$REPLAY" run --no-drop-caches --quiet "$tr" "$tgt"
grep -q "already holds 'data/out.10' and 1 more name (files or directories) the run" "$tmp/log/err" || { cat "$tmp/log/err" >&2; fail "existing message"; }
# (the kept input, large enough and only read, is not in the way: used as is)
"$REPLAY" run --dry-run --force "$tr" "$tgt" > "$tmp/log/plan"
grep -Eq "^  data/in.dat +shared +present, used as is \(needs $prep bytes\)" "$tmp/log/plan" ||
	{ cat "$tmp/log/plan" >&2; fail "in.dat not reused"; }
grep -q -- "--force" "$tmp/log/err" || fail "no --force hint"
[ "$(tsnap "$tgt")" = "$kept" ] || fail "a refused run changed the target"
# with --force it runs, and keeps what was there before (rewritten by the run)
rm "$tgt/data/out.11"
echo "user's file" > "$tgt/data/out.10"
in_sum=$(sha256sum < "$tgt/data/in.dat")
"$REPLAY" run --no-drop-caches --quiet --force "$tr" "$tgt" > /dev/null
[ -f "$tgt/data/out.10" ] || fail "--force removed a file that existed before"
[ "$(stat -c %s "$tgt/data/out.10")" -eq "$w10" ] || fail "--force: out.10 not rewritten by the run"
[ "$(sha256sum < "$tgt/data/in.dat")" = "$in_sum" ] || fail "the input in place was rewritten"
[ ! -e "$tgt/data/out.11" ] || fail "--force run left its files"
rm -rf "${tgt:?}"/*
[ "$(tsnap "$tgt")" = "$before" ] || fail "target not empty"

# --- reused ranks: -n 3 on 2 ranks -> copy 1 replays rank 0 only ---------
"$REPLAY" run --dry-run -n 3 "$tr" "$tgt" > "$tmp/log/plan"
grep -q "2 copies of the file set" "$tmp/log/plan" || { cat "$tmp/log/plan" >&2; fail "copies line"; }
grep -q "process 2: rank 0 (pid 10), copy 1" "$tmp/log/plan" || fail "process 2 line"
"$REPLAY" run --no-drop-caches --quiet --keep -n 3 "$tr" "$tgt" > /dev/null
c1=$tgt/.replay-copy-1
[ "$(stat -c %s "$c1/data/in.dat")" -eq "$prep" ] || fail "copy 1 in.dat size"
[ "$(tr -d '\000' < "$c1/data/in.dat" | wc -c)" -eq "$prep" ] || fail "copy 1 in.dat zero bytes"
[ "$(stat -c %s "$c1/data/out.10")" -eq "$w10" ] || fail "copy 1 out.10"
[ ! -e "$c1/data/out.11" ] || fail "copy 1 holds rank 1's file"
[ "$(stat -c %s "$tgt/data/out.11")" -eq "$w11" ] || fail "copy 0 out.11"
rm -rf "${tgt:?}"/* "$tgt"/.replay-copy-1
# and without --keep, nothing stays
"$REPLAY" run --no-drop-caches --quiet -n 3 "$tr" "$tgt" > /dev/null
[ "$(tsnap "$tgt")" = "$before" ] || fail "-n 3 run left files"
echo "safety_target: ok (prepared $prep bytes per copy, targets refused, --force/--keep)"
