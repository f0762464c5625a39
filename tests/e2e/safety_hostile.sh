#!/usr/bin/env bash
# safety_hostile.sh - replay, for real, an strace trace written to hurt:
# absolute paths into /etc and into a directory next to the target, "/.."
# climbs, and unlink/rename/mkdir of those paths.  Everything must land
# beneath TARGET, nothing outside may change (checksummed and listed with
# mtimes before and after), and after the run the target must be exactly as
# before.  Also: a relative path climbing out of its directory is refused; a
# symlink planted in the target pointing outside (absolute or relative) is
# refused; reused ranks (-n 3) keep their copies beneath the target.  All of
# it with openat2 and with the O_NOFOLLOW walk (REPLAY_RESOLVE=walk).
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out="$tmp/outside"          # next to the target: must never change
tgt="$tmp/target"
mkdir -p "$out/sub" "$tgt" "$tmp/traces" "$tmp/log"
printf 'sentinel data\n' > "$out/keep"
head -c 5000 /dev/urandom > "$out/sub/blob"
sleep 0.01                  # so a change would show in the mtimes

fail() { echo "FAIL: $*" >&2; exit 1; }

# Listing (type, size, mode, mtime) and content checksums of a tree.
snap() {
	(cd "$1" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
# The target's own mtime changes when the run creates and removes files in
# it: compare its contents, not its times.
tsnap() {
	(cd "$1" && find . -printf '%p %y %s %m\n' | LC_ALL=C sort &&
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
etc_snap() { stat -c '%n %s %Y %i' /etc/passwd; }

# The hostile trace (strace -f -tt -T style, one process).
t=0
line() { t=$((t + 100)); printf '4242  21:23:21.%06d %s <0.000010>\n' "$t" "$1"; }
{
	line 'openat(AT_FDCWD, "/../../etc/passwd", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3'
	line 'write(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 65536) = 65536'
	line 'write(3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., 1000) = 1000'
	line 'close(3) = 0'
	line "openat(AT_FDCWD, \"$out/keep\", O_RDWR) = 4"
	line 'read(4, "sentinel data\n", 100) = 14'
	line 'pwrite64(4, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"..., 4096, 0) = 4096'
	line 'close(4) = 0'
	line "openat(AT_FDCWD, \"/..//../$out/sub/../sub/blob\", O_RDONLY) = 5"
	line 'read(5, "\1\2\3\4\5\6\7\10\11\12\13\14\15\16\17\20\21\22\23\24\25\26\27\30\31\32\33\34\35\36\37 "..., 8192) = 5000'
	line 'close(5) = 0'
	line "unlink(\"$out/sub/blob\") = 0"
	line "mkdir(\"/../../$out/newdir\", 0755) = 0"
	line "rename(\"/etc/passwd\", \"/../$out/stolen\") = 0"
	line "openat(AT_FDCWD, \"$tmp/../${tmp##*/}/outside/made\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 6"
	line 'write(6, "made"..., 4) = 4'
	line 'close(6) = 0'
} > "$tmp/traces/hostile.txt"

printf '4242  21:23:21.000100 openat(AT_FDCWD, "../outside/keep", O_WRONLY|O_TRUNC) = 3 <0.000010>\n4242  21:23:21.000200 write(3, "x", 1) = 1 <0.000010>\n' \
	> "$tmp/traces/climb.txt"

# Independent expectations from the trace text: bytes written on fd 3
# (the file later renamed to .../stolen) and the size of the data read
# from .../keep before any write (what must be prepared).
stolen_size=$(awk '/ write\(3,/ { sub(/.*= /, ""); sub(/ <.*/, ""); s += $0 } END { print s }' \
	"$tmp/traces/hostile.txt")
[ "$stolen_size" -eq 66536 ] || fail "awk computed $stolen_size"
nwrites=$(grep -cE '^[0-9]+ +[0-9:.]+ (write|pwrite64)\(' "$tmp/traces/hostile.txt")
nreads=$(grep -cE '^[0-9]+ +[0-9:.]+ (read|pread64)\(' "$tmp/traces/hostile.txt")

out0=$(snap "$out")
tmp0=$(cd "$tmp" && find . \( -path ./target -o -path ./log \) -prune -o -printf '%p %y %s %T@\n' | LC_ALL=C sort)
etc0=$(etc_snap)
tgt0=$(tsnap "$tgt")

check_outside() {
	[ "$(snap "$out")" = "$out0" ] || { diff <(echo "$out0") <(snap "$out") >&2 || true; fail "$1: outside changed"; }
	[ "$(cd "$tmp" && find . \( -path ./target -o -path ./log \) -prune -o -printf '%p %y %s %T@\n' | LC_ALL=C sort)" = "$tmp0" ] ||
		fail "$1: the target's parent changed"
	[ "$(etc_snap)" = "$etc0" ] || fail "$1: /etc changed"
}

for resolve in openat2 walk; do
	export REPLAY_RESOLVE="$resolve"
	[ "$resolve" = walk ] || unset REPLAY_RESOLVE

	# 1. the real run, with cleanup: outside untouched, target as before
	"$REPLAY" run --no-drop-caches --no-default-excludes --quiet "$tmp/traces/hostile.txt" "$tgt" > "$tmp/log/run.out" 2> "$tmp/log/run.err" ||
		{ cat "$tmp/log/run.err" >&2; fail "$resolve: hostile run failed"; }
	# every traced read and write was replayed (and counted) ...
	grep -q "^write  *$nwrites " "$tmp/log/run.out" || { cat "$tmp/log/run.out" >&2; fail "$resolve: $nwrites writes not replayed"; }
	grep -q "^read  *$nreads " "$tmp/log/run.out" || { cat "$tmp/log/run.out" >&2; fail "$resolve: $nreads reads not replayed"; }
	check_outside "$resolve run"
	[ "$(tsnap "$tgt")" = "$tgt0" ] || { diff <(echo "$tgt0") <(tsnap "$tgt") >&2 || true; fail "$resolve: target not left as before"; }

	# 2. --keep: the files are there, beneath the target, with the traced sizes
	"$REPLAY" run --no-drop-caches --no-default-excludes --quiet --keep "$tmp/traces/hostile.txt" "$tgt" > /dev/null
	check_outside "$resolve keep"
	[ "$(stat -c %s "$tgt$out/stolen")" -eq "$stolen_size" ] || fail "$resolve: stolen size"
	[ ! -e "$tgt/etc/passwd" ] || fail "$resolve: etc/passwd was renamed by the trace"
	[ "$(stat -c %s "$tgt$out/keep")" -eq 4096 ] || fail "$resolve: keep size"
	[ ! -e "$tgt$out/sub/blob" ] || fail "$resolve: blob was unlinked by the trace"
	[ -d "$tgt$out/newdir" ] || fail "$resolve: newdir"
	[ "$(stat -c %s "$tgt$out/made")" -eq 4 ] || fail "$resolve: made"
	rm -rf "${tgt:?}"/*
	[ "$(tsnap "$tgt")" = "$tgt0" ] || fail "target not empty again"

	# 3. reused ranks: copies live beneath the target too
	"$REPLAY" run --no-drop-caches --no-default-excludes --quiet -n 3 "$tmp/traces/hostile.txt" "$tgt" > "$tmp/log/run.out" 2> "$tmp/log/run.err" ||
		{ cat "$tmp/log/run.err" >&2; fail "$resolve: -n 3 failed"; }
	grep -q 'reused round-robin' "$tmp/log/run.out" || { cat "$tmp/log/run.out" >&2; fail "$resolve: reuse not said"; }
	grep -q "^write  *$((3 * nwrites)) " "$tmp/log/run.out" || { cat "$tmp/log/run.out" >&2; fail "$resolve: -n 3 writes"; }
	check_outside "$resolve -n 3"
	[ "$(tsnap "$tgt")" = "$tgt0" ] || fail "$resolve: -n 3 left files"

	# 4. a relative path climbing out is refused, naming it
	if "$REPLAY" run --no-drop-caches --no-default-excludes --quiet "$tmp/traces/climb.txt" "$tgt" > /dev/null 2> "$tmp/log/run.err"; then
		fail "$resolve: climbing path accepted"
	fi
	grep -q "trace path '../outside/keep' climbs above" "$tmp/log/run.err" || { cat "$tmp/log/run.err" >&2; fail "$resolve: message"; }
	check_outside "$resolve climb"

	# 5. symlinks planted in the target, pointing outside: refused
	mkdir -p "$tgt$tmp"
	for link in "$out" "../../../outside"; do
		ln -s "$link" "$tgt$tmp/outside"
		snapped=$(tsnap "$tgt")
		if "$REPLAY" run --no-drop-caches --no-default-excludes --quiet --force "$tmp/traces/hostile.txt" "$tgt" > /dev/null 2> "$tmp/log/run.err"; then
			fail "$resolve: planted link '$link' accepted"
		fi
		grep -q "leads outside the target" "$tmp/log/run.err" || { cat "$tmp/log/run.err" >&2; fail "$resolve: link message"; }
		check_outside "$resolve link $link"
		[ "$(tsnap "$tgt")" = "$snapped" ] || fail "$resolve: target changed under a refused plan"
		rm "$tgt$tmp/outside"
	done
	rm -rf "${tgt:?}"/*
done
echo "safety_hostile: ok (openat2 and walk; outside, /etc and the target's parent unchanged)"
