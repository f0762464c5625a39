#!/usr/bin/env bash
# Renames and links between two directory descriptors, captured at test
# time with strace -f -tt -T WITHOUT -y: coreutils' `mv FILE DIR/` and
# `ln FILE DIR/` open DIR/ (O_PATH) and call renameat2(AT_FDCWD, "FILE",
# 3, "FILE") / linkat(AT_FDCWD, "FILE", 3, "FILE").  The new name belongs
# to the new dirfd (3), not to the old one (AT_FDCWD): resolved against the
# old one, the replay renamed copy1 onto itself, left ./copy1 and made the
# files later reached through d1/ anew, empty.
# The capture must hold such a call (skipped, saying so, when this
# coreutils makes none); then the replay (--keep, under strace -f -y) must
# leave the tree the traced programs left (names, sizes, link counts: read
# with python's os.lstat, not replay's parser), and the replay's own renames
# and links must name the new paths in their directories.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
for p in mv ln head cat; do
	command -v "$p" >/dev/null || { echo "skip: $p not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
W=$tmp/w
mkdir "$W"
W=$(cd "$W" && pwd -P)

# the traced programs run in W (a working directory the trace never names),
# then in W/sub (a relative chdir); everything they touch is made by them
(cd "$W" && strace -f -tt -T -o "$tmp/cap.txt" sh -c '
	mkdir -p sub/d1 sub/d2 && cd sub &&
	head -c 3000 /dev/zero >copy1 &&
	mv copy1 d1/ &&
	head -c 5000 /dev/zero >f2 &&
	ln f2 d2/ &&
	ln f2 d2/hl &&
	head -c 700 /dev/zero >d2/x &&
	mv d2/x d1/ &&
	echo more >>d1/copy1 &&
	cat d1/copy1 d1/x d2/f2 >/dev/null')

# the capture must hold a rename or link from one dirfd to another
python3 - "$tmp/cap.txt" >"$tmp/two.txt" <<'EOF'
import re, sys
pat = re.compile(r'\b(renameat2?|linkat)\((AT_FDCWD|\d+), "([^"]*)", (AT_FDCWD|\d+), "([^"]*)".*\) = 0\b')
for line in open(sys.argv[1]):
    m = pat.search(line)
    if m and m.group(2) != m.group(4):
        print(m.group(0))
EOF
if ! grep -q '^renameat' "$tmp/two.txt" || ! grep -q '^linkat' "$tmp/two.txt"; then
	echo "skip: this coreutils ($(mv --version | head -1)) made no rename and link between two dirfds:"
	grep -E 'renameat|linkat' "$tmp/cap.txt" || true
	exit 77
fi
echo "capture: $(wc -l <"$tmp/two.txt") calls between two dirfds:"
sed 's/^/  /' "$tmp/two.txt"
grep -q '<' "$tmp/two.txt" && { echo "FAIL: the capture is decorated (-y)"; exit 1; }

# names, sizes and link counts of a tree, read by python
cat >"$tmp/tree.py" <<'EOF'
import os, stat, sys
root = sys.argv[1]
for d, dirs, files in os.walk(root):
    for n in sorted(dirs + files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, root)
        if stat.S_ISDIR(st.st_mode):
            print("dir", rel)
        else:
            print("file", rel, st.st_size, "links=%d" % st.st_nlink)
EOF
python3 "$tmp/tree.py" "$W" | sort >"$tmp/want"
for f in 'file sub/d1/copy1 3005 links=1' 'file sub/d1/x 700 links=1' \
		'file sub/d2/f2 5000 links=3' 'file sub/d2/hl 5000 links=3' 'file sub/f2 5000 links=3'; do
	grep -qx "$f" "$tmp/want" || { echo "FAIL: the traced tree has no '$f'"; cat "$tmp/want"; exit 1; }
done
grep -q 'sub/copy1' "$tmp/want" && { echo "FAIL: the traced tree still has sub/copy1"; exit 1; }

drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
fail=0
for mode in parallel; do
	T=$tmp/tgt
	rm -rf "$T"
	mkdir "$T"
	T=$(cd "$T" && pwd -P)
	# LeakSanitizer cannot run under ptrace; -ff: no call of a worker cut
	# by another's
	rm -f "$tmp"/replay.strace*
	if ! ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -ff -y -o "$tmp/replay.strace" \
			"$REPLAY" run -m "$mode" --keep "${drop[@]}" "$tmp/cap.txt" "$T" >"$tmp/run.out" 2>&1; then
		echo "FAIL -m $mode: replay run failed"
		tail -20 "$tmp/run.out"
		fail=1
		continue
	fi
	python3 "$tmp/tree.py" "$T/${W#/}" | sort >"$tmp/got"
	if diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
		echo "ok -m $mode: the replayed tree is the traced one ($(wc -l <"$tmp/want") entries)"
	else
		echo "FAIL -m $mode: the replayed tree differs from the traced one (- traced, + replayed):"
		cat "$tmp/diff"
		fail=1
	fi
	# the replay's renames and links, by strace -y of the replayer: the
	# new name in the directory its dirfd names, beneath the target
	cat "$tmp"/replay.strace.* >"$tmp/replay.strace"
	python3 - "$tmp/replay.strace" "$T$W" >"$tmp/moves" <<'EOF'
import re, sys
target = sys.argv[2]
pat = re.compile(r'\b(renameat2?|linkat)\((?:AT_FDCWD|-?\d+)(?:<([^>]*)>)?, "([^"]*)", (?:AT_FDCWD|-?\d+)(?:<([^>]*)>)?, "([^"]*)".*\) = 0\b')
for line in open(sys.argv[1]):
    m = pat.search(line)
    if not m:
        continue
    new = m.group(5) if m.group(5).startswith("/") else (m.group(4) or "?") + "/" + m.group(5)
    if new.startswith(target + "/"):
        print("link" if m.group(1) == "linkat" else "rename", new[len(target) + 1:])
EOF
	for mv in 'rename sub/d1/copy1' 'rename sub/d1/x' 'link sub/d2/f2' 'link sub/d2/hl'; do
		grep -qx "$mv" "$tmp/moves" ||
			{ echo "FAIL -m $mode: the replay made no '$mv'; its renames and links:"; cat "$tmp/moves"; fail=1; }
	done
	[ $fail = 0 ] && echo "ok -m $mode: the replay's renames and links name $(tr '\n' ' ' <"$tmp/moves")"
done
exit $fail
