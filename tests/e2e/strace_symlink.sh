#!/usr/bin/env bash
# symlink/symlinkat replayed.  A capture made here of programs nobody wrote
# for this test: git init (its file-system probe: symlink("testing",
# ".git/tXXXXXX"), lstat, unlink), git clone of a local repository holding
# a symbolic link (checked out with symlink), ln -s (relative content, an
# absolute one naming a traced file, one naming a system file) and tar -x
# of an archive with links (symlinkat under a dirfd, one climbing above /,
# tar's placeholder files replaced by the links).  Checked independently
# (tests/tools/symlink_check.py reads strace output, not replay's parser):
# under strace the replay makes every link at its mapped path in every
# copy, a relative content as traced, any other pointing at the path it
# named inside the copy, the probes' lstat and unlink succeed after the
# link, nothing is created outside the target; and by replay's own
# outputs: no mismatch in parallel, sequential, copies and the O_NOFOLLOW
# walk, stat and dump count the links, --dry-run shows them, the fio iolog
# export leaves them out, the traced directory is untouched.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v git >/dev/null || { echo "SKIP: git is not installed"; exit 77; }
command -v tar >/dev/null || { echo "SKIP: tar is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-symlink-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
check="$SRCDIR/tests/tools/symlink_check.py"
cd "$tmp"
mkdir w tgt tmpd
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

# the fixtures, not captured: a repository with a link, an archive with links
(
	cd w
	printf 'hello\n' > data.txt
	git init -q src
	printf 'x\n' > src/f
	ln -s f src/link-to-f
	git -C src add f link-to-f
	git -C src commit -q -m one
	mkdir -p arc/sub
	printf 'y\n' > arc/sub/g
	ln -s sub/g arc/rel
	ln -s ../../../../../../../../etc arc/esc
	ln -s "$tmp/w/data.txt" arc/abs
	tar -cf a.tar -C arc .
)
(
	cd w
	strace -f -tt -T -y -o ../cap.txt sh -c 'git init -q r && git clone -q src dst &&
		ln -s data.txt lrel && ln -s "$PWD/data.txt" labs && ln -s /etc/hostname lsys &&
		mkdir x && tar -xf a.tar -C x'
)
[ "$(readlink w/dst/link-to-f)" = f ] || fail "git clone did not check the link out"

# the capture is what this test is about: git's probe (a link made, lstat'ed
# as one, unlinked) and links from each program
grep -Eq ' symlink\("testing", "[^"]*/r/\.git/t[^"]*"\) = 0' cap.txt || fail "no git probe link in the capture"
grep -Eq '"[^"]*/r/\.git/t[^"]*".*S_IFLNK' cap.txt || fail "no lstat of the probe link in the capture"
grep -Eq 'symlink(at)?\("f", .*link-to-f"\) = 0' cap.txt || fail "no checked-out link in the capture"
grep -Eq 'symlinkat\("sub/g", [0-9]+<' cap.txt || fail "no tar symlinkat under a dirfd in the capture"
nlinks=$(grep -Ec '(^|[ ])symlink(at)?\(' cap.txt)
find w -printf '%p %y %s %l\n' | sort > w.before

# stat and dump count them; the dry run shows them; the iolog export leaves
# them out
"$REPLAY" stat --json cap.txt > stat.json 2>/dev/null
[ "$(jq '.ops.symlink' stat.json)" = "$nlinks" ] ||
	fail "stat counts $(jq '.ops.symlink' stat.json) symlink ops, the capture has $nlinks calls"
# (into a file: grep -q leaving early would fail the pipeline under pipefail)
"$REPLAY" stat cap.txt > stat.txt 2>/dev/null
grep -Eq "^  symlink +$nlinks\$" stat.txt || fail "stat's text has no symlink count"
nranks=$(jq '.ranks' stat.json)
"$REPLAY" convert -o cap.ops cap.txt > /dev/null
"$REPLAY" dump cap.ops > cap.dump
[ "$(grep -c ' symlink ' cap.dump)" = "$nlinks" ] || fail "dump shows $(grep -c ' symlink ' cap.dump) symlink ops"
grep -Eq ' symlink .*/w/lrel -> data\.txt$' cap.dump || fail "dump does not show a link's content"
"$REPLAY" run --dry-run cap.txt tgt > dry.txt 2>&1 || fail "dry run failed: $(tail -1 dry.txt)"
grep -Eq "w/lrel +private +-, a symbolic link the run makes +-> 'data\.txt'" dry.txt ||
	fail "the dry run does not show lrel: $(grep lrel dry.txt)"
grep -Eq "w/labs .* -> 'data\.txt'" dry.txt || fail "the dry run does not show labs as made"
"$REPLAY" convert --to fio-iolog -o iologs cap.txt > /dev/null
# (names only ever made links; tar opened x/abs and x/esc as placeholder
# files, git its probe's name as a file, before the links took them)
! grep -rEq '/(lrel|labs|lsys|link-to-f|x/rel) ' iologs || fail "the fio iolog names a link"

# replays: every mode, no mismatch, nothing left
run() {   # run NAME [OPTIONS...]
	local name=$1
	shift
	"$REPLAY" run --quiet --no-drop-caches -o "$name.json" "$@" cap.txt tgt > "$name.out" 2>&1 ||
		fail "$name: replay failed: $(tail -3 "$name.out")"
	jq -e '[.runs[].jobs[].mismatches.total] | add == 0' "$name.json" > /dev/null ||
		fail "$name: mismatches: $(grep -A3 '^mismatches' "$name.out")"
	[ -z "$(ls -A tgt)" ] || fail "$name: files left in the target: $(ls -A tgt)"
}
run parallel
run sequential -m sequential
run copies -n $((2 * nranks))
REPLAY_RESOLVE=walk run walk
REPLAY_RESOLVE=walk run walk-sequential -m sequential

# the replay itself, seen by strace (LeakSanitizer cannot run under ptrace)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
for n in 1 2; do
	rm -rf rs && mkdir rs
	TMPDIR="$tmp/tmpd" strace -f -ff -y -o rs/r \
		"$REPLAY" run --quiet --no-drop-caches -n $((n * nranks)) cap.txt tgt > rs.out 2>&1 ||
		fail "replay under strace (-n $((n * nranks))) failed: $(tail -3 rs.out)"
	python3 "$check" cap.txt rs/r "$(realpath tgt)" "$(realpath tmpd)" "$tmp" "$n" > check.out ||
		fail "copies $n: $(cat check.out)"
	cat check.out
done
[ -z "$(ls -A tgt)" ] || fail "files left in the target"
find w -printf '%p %y %s %l\n' | sort > w.after
cmp -s w.before w.after || fail "the traced directory changed: $(diff w.before w.after | head -5)"
echo "ok: $nlinks symlink calls of git init, git clone, ln -s and tar -x replayed ($nranks ranks): parallel, sequential, copies, walk"
