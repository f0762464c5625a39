#!/usr/bin/env bash
# safety_redteam.sh - the real binary against the corners of the target
# contract that safety_hostile.sh and safety_target.sh leave out:
#  1. the root directory as TARGET ("/", "//", "/etc/..", a symlink to /) is
#     refused, with --force too (checked with --dry-run so a regression
#     cannot write to the live system);
#  2. ops on the copy root itself (unlink("/"), rmdir("/"), mkdir("/"),
#     rename to and from "/", rmdir("/."), open("")) fail with EINVAL, never
#     crash, with -n 2 (two copies);
#  3. escaped bytes in strace strings: hex "..", octal ".." and a newline in
#     a name stay beneath the target; an embedded \0 is refused;
#  4. a name component longer than NAME_MAX fails the op and cleanup does
#     not complain about it;
#  5. a final symbolic link planted in the target: read through when it
#     stays inside, refused when it leads outside, refused even with --force
#     when the run would create or write through it (a dangling link would
#     leave a file the cleanup never knew);
#  6. --force: files and directories that were there survive the cleanup
#     byte for byte, only what the run created is removed;
#  7. a directory the run made, filled and renamed is removed with its
#     contents (without --force only: with it, it may hold the user's files);
#  8. a preparation that fails half way (no inodes left on a tmpfs that is
#     the target itself, a mount point) leaves the target as it was;
#  9. a hard link planted in the target to a file outside: refused when the
#     run would change it (even with --force), also through a new name the
#     trace links to it, used as it is when only read;
# 10. a FIFO or a device node where the trace reads a file: refused even
#     with --force (filling it would block, or write the device).
# A sentinel directory next to the target is listed (mtimes) and
# checksummed before and after every run.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}"
tmp=$(mktemp -d /var/tmp/replay-redteam.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
sen="$tmp/sentinel"
tgt="$tmp/target"
mkdir -p "$sen/d" "$tgt"
printf 'sentinel data\n' > "$sen/keep"
head -c 3000 /dev/urandom > "$sen/d/blob"
sleep 0.01

fail() { echo "FAIL: $*" >&2; exit 1; }
snap() {
	(cd "$1" && find . -printf '%p %y %s %m %T@ %l\n' | LC_ALL=C sort &&
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
# the target's own mtime changes when files come and go: not compared
tsnap() {
	(cd "$1" && find . -mindepth 1 -printf '%p %y %s %m %T@ %l\n' | LC_ALL=C sort &&
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
sen0=$(snap "$sen")
check_sentinel() {
	[ "$(snap "$sen")" = "$sen0" ] || { diff <(echo "$sen0") <(snap "$sen") >&2 || true; fail "$1: sentinel changed"; }
}
# trace NAME < lines: strace -f -tt -T text, @S@ = the sentinel directory
trace() {
	local t=0 l
	while IFS= read -r l; do
		t=$((t + 100))
		l=${l//@S@/$sen}
		printf '4242  21:23:21.%06d %s <0.000010>\n' "$t" "$l"
	done > "$tmp/$1.txt"
}
# run EXPECTED_RC NAME ARGS...: replay the trace NAME into the target
run() {
	local want=$1 name=$2 rc=0
	shift 2
	"$REPLAY" run --no-drop-caches --no-default-excludes --quiet "$@" "$tmp/$name.txt" "$tgt" > "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" -eq "$want" ] || { cat "$tmp/err" >&2; fail "$name: exit $rc, expected $want"; }
	check_sentinel "$name"
}
empty() { [ -z "$(ls -A "$tgt")" ] || { ls -laR "$tgt" >&2; fail "$1: target not empty"; }; }

# --- 1. the root directory ------------------------------------------------
never=/var/tmp/replay-redteam-never-$$
trace root <<EOF
openat(AT_FDCWD, "$never", O_WRONLY|O_CREAT, 0644) = 3
write(3, "x", 1) = 1
EOF
ln -s / "$tmp/rootlink"
for spell in / // /etc/.. "$tmp/rootlink"; do
	for force in "" --force; do
		rc=0
		"$REPLAY" run --dry-run --no-default-excludes $force "$tmp/root.txt" "$spell" > "$tmp/out" 2> "$tmp/err" || rc=$?
		[ "$rc" -eq 1 ] || fail "root target '$spell' $force: exit $rc"
		grep -q "target '$spell' is the root directory" "$tmp/err" || { cat "$tmp/err" >&2; fail "root message"; }
		[ ! -s "$tmp/out" ] || fail "root target '$spell': a plan was printed"
	done
done
[ ! -e "$never" ] || { rm -f "$never"; fail "a file was created at the root"; }

# --- 2. the copy root itself ----------------------------------------------
trace rootops <<'EOF'
unlink("/") = 0
rmdir("/") = 0
mkdir("/", 0755) = 0
rename("/x", "/") = 0
rename("/", "/y") = 0
rmdir("/.") = 0
rmdir("/a/..") = 0
openat(AT_FDCWD, "", O_WRONLY|O_CREAT, 0644) = 3
write(3, "abc", 3) = 3
EOF
run 1 rootops -n 2 --continue-on-error
# per process: 7 metadata ops on "/" (EINVAL) and the open of "" (EISDIR)
grep -q '16 replayed ops failed or moved fewer bytes than traced (.*; EISDIR 2; EINVAL 14)' "$tmp/err" || { cat "$tmp/err" >&2; fail "rootops errors"; }
empty rootops

# --- 3. escaped bytes -----------------------------------------------------
trace hexclimb <<'EOF'
openat(AT_FDCWD, "\x2e\x2e/\x2e\x2e/etc/replay-x", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
write(3, "abc", 3) = 3
EOF
run 1 hexclimb
grep -q "hexclimb.txt:1: trace path '../../etc/replay-x' climbs above" "$tmp/err" || { cat "$tmp/err" >&2; fail "hex climb message"; }
empty hexclimb
trace escaped <<'EOF'
openat(AT_FDCWD, "/\56\56/\x2e\x2e/@S@/keep", O_WRONLY|O_TRUNC|O_CREAT, 0644) = 3
write(3, "abcd", 4) = 4
openat(AT_FDCWD, "/new\nline", O_WRONLY|O_CREAT, 0644) = 5
write(5, "abcdef", 6) = 6
EOF
run 0 escaped --keep
[ "$(stat -c %s "$tgt$sen/keep")" -eq 4 ] || fail "octal/hex '..': not beneath the target"
[ "$(stat -c %s "$tgt/new"$'\n'"line")" -eq 6 ] || fail "newline in a name"
rm -rf "${tgt:?}"/* && empty escaped
# a name with an escaped NUL in it: the kernel stops at a NUL and strace
# prints names so; no capture holds one: refused at its line
trace nul <<'EOF'
openat(AT_FDCWD, "nul\0/../../../@S@/keep", O_WRONLY|O_CREAT, 0644) = 4
write(4, "abcde", 5) = 5
EOF
run 1 nul
grep -q "nul.txt:1: expected a file name without a NUL byte" "$tmp/err" || { cat "$tmp/err" >&2; fail "embedded NUL message"; }
empty nul
run 0 escaped -n 3
empty "escaped -n 3"

# --- 4. a component longer than NAME_MAX ------------------------------------
long=$(printf 'n%.0s' $(seq 300))
trace namemax <<EOF
openat(AT_FDCWD, "/d/$long", O_WRONLY|O_CREAT, 0644) = 3
write(3, "abc", 3) = 3
EOF
run 1 namemax --continue-on-error
grep -q 'replayed op failed or moved fewer bytes than traced (open 1; ENAMETOOLONG 1)' "$tmp/err" || { cat "$tmp/err" >&2; fail "namemax error"; }
! grep -q 'cannot remove' "$tmp/err" || { cat "$tmp/err" >&2; fail "namemax: cleanup complained"; }
empty namemax

# --- 5. final symbolic links planted in the target -----------------------------
echo "0123456789" > "$tgt/real"
ln -s real "$tgt/in"
ln -s nowhere "$tgt/dang"
ln -s ../sentinel/keep "$tgt/out"
t0=$(tsnap "$tgt")
trace readin <<'EOF'
openat(AT_FDCWD, "/in", O_RDONLY) = 3
read(3, "0123456789\n", 11) = 11
EOF
run 0 readin
grep -q '^read  *1  *11 B' "$tmp/out" || { cat "$tmp/out" >&2; fail "read through an inside link"; }
[ "$(tsnap "$tgt")" = "$t0" ] || fail "readin: target changed"
trace readout <<'EOF'
openat(AT_FDCWD, "/out", O_RDONLY) = 3
read(3, "sentinel data\n", 14) = 14
EOF
run 1 readout --force
grep -q "target/out' leads outside the target" "$tmp/err" || { cat "$tmp/err" >&2; fail "readout message"; }
trace dangling <<'EOF'
openat(AT_FDCWD, "/dang", O_WRONLY|O_CREAT, 0644) = 3
write(3, "abc", 3) = 3
EOF
run 1 dangling --force
grep -q "target/dang' is a symbolic link the run would write" "$tmp/err" || { cat "$tmp/err" >&2; fail "dangling message"; }
[ ! -e "$tgt/nowhere" ] || fail "a file was created through a dangling link"
[ "$(tsnap "$tgt")" = "$t0" ] || fail "links: target changed"
rm -rf "${tgt:?}"/* && empty links

# --- 6. --force: what was there survives the cleanup -----------------------------
mkdir -p "$tgt/d/e" "$tgt/keepdir"
echo "user" > "$tgt/d/user"
head -c 5000 /dev/urandom > "$tgt/keepdir/data"
echo "old" > "$tgt/d/e/over"
trace force <<'EOF'
mkdir("/d", 0755) = -1 EEXIST (File exists)
mkdir("/d/e/f", 0755) = 0
openat(AT_FDCWD, "/d/e/over", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
write(3, "abc", 3) = 3
close(3) = 0
openat(AT_FDCWD, "/d/e/f/new", O_WRONLY|O_CREAT, 0644) = 4
write(4, "abc", 3) = 3
close(4) = 0
openat(AT_FDCWD, "/keepdir/data", O_RDONLY) = 5
read(5, "x", 4096) = 4096
EOF
run 1 force
grep -q "already holds 'd/e/over'" "$tmp/err" || { cat "$tmp/err" >&2; fail "force: refusal"; }
before=$(tsnap "$tgt" | grep -v 'd/e/over\|^\./d/e ')
data=$(sha256sum < "$tgt/keepdir/data")
run 0 force --force
[ "$(tsnap "$tgt" | grep -v 'd/e/over\|^\./d/e ')" = "$before" ] || { diff <(echo "$before") <(tsnap "$tgt") >&2 || true; fail "force: pre-existing files changed"; }
[ "$(sha256sum < "$tgt/keepdir/data")" = "$data" ] || fail "force: input used as is was rewritten"
[ "$(stat -c %s "$tgt/d/e/over")" -eq 3 ] || fail "force: d/e/over not overwritten by the run"
[ ! -e "$tgt/d/e/f" ] || fail "force: the directory the run made is still there"
rm -rf "${tgt:?}"/* && empty force

# --- 7. a directory the run made and renamed, with its files: all removed ---
trace renamedir <<'EOF'
mkdir("/a", 0755) = 0
openat(AT_FDCWD, "/a/f", O_WRONLY|O_CREAT, 0644) = 3
write(3, "abc", 3) = 3
close(3) = 0
mkdir("/a/s", 0755) = 0
openat(AT_FDCWD, "/a/s/g", O_WRONLY|O_CREAT, 0644) = 4
write(4, "abcd", 4) = 4
close(4) = 0
rename("/a", "/b") = 0
openat(AT_FDCWD, "/p/q/f", O_WRONLY|O_CREAT, 0644) = 5
write(5, "abc", 3) = 3
close(5) = 0
mkdir("/p/n", 0755) = 0
rename("/p/q/f", "/p/n/h") = 0
EOF
run 0 renamedir --keep
[ "$(stat -c %s "$tgt/b/s/g")" -eq 4 ] && [ -f "$tgt/b/f" ] && [ -f "$tgt/p/n/h" ] || fail "renamedir: --keep"
rm -rf "${tgt:?}"/* && empty renamedir
run 0 renamedir -n 3
empty "renamedir -n 3"
# with --force a renamed directory may hold the user's files: left in
# place, and the cleanup says it cannot remove it
echo "user" > "$tgt/ufile"
run 1 renamedir --force
grep -q "cannot remove '$tgt/b': Directory not empty" "$tmp/err" || { cat "$tmp/err" >&2; fail "renamedir --force message"; }
[ "$(cat "$tgt/ufile")" = "user" ] || fail "renamedir --force: user file"
# --- 8. preparation failing half way (no inodes left): nothing left behind --
# The target is the tmpfs mount point itself; a user file there survives.
mnt="$tmp/mnt"
mkdir "$mnt"
if mount -t tmpfs -o size=20m,nr_inodes=24 tmpfs "$mnt" 2>/dev/null; then
	trap 'umount "$mnt" 2>/dev/null || true; rm -rf "$tmp"' EXIT
	echo "user" > "$mnt/userfile"
	for i in $(seq 30); do
		printf '4242  21:23:21.%06d openat(AT_FDCWD, "/d%d/f", O_RDONLY) = 3 <0.000010>\n' $((i * 10)) "$i"
		printf '4242  21:23:21.%06d read(3, "x", 100000) = 100000 <0.000010>\n' $((i * 10 + 5))
	done > "$tmp/inodes.txt"
	rc=0
	"$REPLAY" run --no-drop-caches --no-default-excludes --quiet -n 2 "$tmp/inodes.txt" "$mnt" > /dev/null 2> "$tmp/err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/err" >&2; fail "inodes: exit $rc"; }
	grep -q "cannot create directory '$mnt/d[0-9]*': No space left on device" "$tmp/err" ||
		{ cat "$tmp/err" >&2; fail "inodes: message"; }
	[ "$(ls -A "$mnt")" = "userfile" ] && [ "$(cat "$mnt/userfile")" = "user" ] ||
		{ ls -la "$mnt" >&2; fail "inodes: target not as before"; }
	check_sentinel inodes
	umount "$mnt"
else
	echo "note: cannot mount a tmpfs here: preparation failing half way not checked"
fi
# --- 9. a hard link planted in the target to a file outside -------------------
rm -rf "${tgt:?}"/* && empty "before hardlink"
ln "$sen/keep" "$tgt/hl"
trace hardlink <<'EOF'
openat(AT_FDCWD, "/hl", O_WRONLY) = 3
pwrite64(3, "abc", 3, 0) = 3
EOF
run 1 hardlink --force
grep -q "target/hl' has 2 hard links" "$tmp/err" || { cat "$tmp/err" >&2; fail "hardlink message"; }
# only read: used as it is, nothing written
trace hardread <<'EOF'
openat(AT_FDCWD, "/hl", O_RDONLY) = 3
read(3, "sentinel data\n", 14) = 14
EOF
run 0 hardread
rm "$tgt/hl" && empty hardlink
# the trace links it to a new name and writes that: the same data
ln "$sen/keep" "$tgt/hl"
trace linkwrite <<'EOF'
link("/hl", "/hl2") = 0
openat(AT_FDCWD, "/hl2", O_WRONLY|O_TRUNC) = 3
write(3, "OWNED!", 6) = 6
close(3) = 0
EOF
run 1 linkwrite --force
grep -q "target/hl' has 2 hard links" "$tmp/err" || { cat "$tmp/err" >&2; fail "link-then-write message"; }
rm "$tgt/hl"
# a file of the user's (one link) linked and written: changed, so --force
printf 'mine\n' > "$tgt/hl"
run 1 linkwrite
grep -q "already holds 'hl', which the run would overwrite or remove" "$tmp/err" || { cat "$tmp/err" >&2; fail "link-then-write without --force"; }
[ "$(cat "$tgt/hl")" = mine ] || fail "the user's file changed"
rm "$tgt/hl" && empty linkwrite
# --- 10. a FIFO, a socket, a device in the target: refused, --force or not ---
trace special <<'EOF'
openat(AT_FDCWD, "/sp", O_RDONLY) = 3
read(3, "x", 65536) = 65536
close(3) = 0
EOF
mkfifo "$tgt/sp"
# (a FIFO opened to be filled would block for ever: bounded)
rc=0; timeout 20 "$REPLAY" run --no-drop-caches --force --quiet "$tmp/special.txt" "$tgt" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] || { cat "$tmp/err" >&2; fail "FIFO in the target: exit $rc"; }
grep -q "target/sp' is a FIFO: the run makes and uses only regular files and directories: refusing it, even with --force" "$tmp/err" || { cat "$tmp/err" >&2; fail "FIFO message"; }
rm "$tgt/sp"
if mknod "$tgt/sp" c 1 3 2>/dev/null; then      # /dev/null's numbers
	run 1 special --force
	grep -q "target/sp' is a character device" "$tmp/err" || { cat "$tmp/err" >&2; fail "device message"; }
	rm "$tgt/sp"
else
	echo "note: cannot mknod here (not root): device node not checked"
fi
check_sentinel special
empty special
echo "safety_redteam: ok (root target refused 8 ways; copy-root ops EINVAL; escapes beneath; links; --force cleanup; renamed dirs; failed preparation; hard links; special files)"
