#!/usr/bin/env bash
# I/O through a file mapping is not in a syscall trace: `replay run` says so
# once, naming the file, on a capture made at test time of python's mmap
# module (a shared, writable mapping of a data file it made, as numpy's
# memmap does), and not for a program whose only mappings are the loader's
# (its shared libraries) or private reads of the system's files.
set -euo pipefail
: "${REPLAY:?}"
command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "skip: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/w" "$tmp/t1" "$tmp/t2"
cat >"$tmp/mm.py" <<'PY'
import mmap, os
fd = os.open('mm.dat', os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.ftruncate(fd, 65536)
m = mmap.mmap(fd, 65536, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[0:4096] = b'x' * 4096
m.flush()
m.close()
os.close(fd)
PY
(cd "$tmp/w" && strace -f -tt -T -y -o "$tmp/mm.txt" "$py" "$tmp/mm.py")
grep -q 'mmap(.*MAP_SHARED.*mm.dat' "$tmp/mm.txt" || { echo "FAIL: the capture has no shared mapping of mm.dat"; exit 1; }
"$REPLAY" --no-drop-caches "$tmp/mm.txt" "$tmp/t1" >/dev/null 2>"$tmp/err1" || { cat "$tmp/err1"; exit 1; }
n=$(grep -c 'mapping.* (mmap) of ' "$tmp/err1" || true)
[ "$n" = 1 ] || { echo "FAIL: $n mmap warnings (1 expected):"; cat "$tmp/err1"; exit 1; }
grep -q "(mmap) of $tmp/w/mm.dat: .*not in the trace, not replayed (some are shared and writable" "$tmp/err1" ||
	{ echo "FAIL: the warning does not name mm.dat as shared and writable:"; cat "$tmp/err1"; exit 1; }
echo "ok python mmap: $(grep 'mapping' "$tmp/err1")"

# cat maps only libraries and the locale archive (private reads): no warning
(cd "$tmp/w" && strace -f -tt -T -y -o "$tmp/cat.txt" sh -c "cat mm.dat > copy.dat")
"$REPLAY" --no-drop-caches --no-default-excludes "$tmp/cat.txt" "$tmp/t2" >/dev/null 2>"$tmp/err2" || { cat "$tmp/err2"; exit 1; }
if grep -q 'mapping.* (mmap)' "$tmp/err2"; then
	# private read-only mappings of data (the locale archive) are data
	# mappings too; only the loader's must never count
	grep -Eq '\(mmap\) of .*/lib[^/ ,]*\.so(\.[0-9]+)*(,|:| and)' "$tmp/err2" &&
		{ echo "FAIL: a library counted as data:"; cat "$tmp/err2"; exit 1; }
fi
echo "ok cat (--no-default-excludes): no shared library named as a data mapping"
