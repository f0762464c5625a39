#!/usr/bin/env bash
# fioiolog_roundtrip: `replay convert --to fio-iolog` then reading the logs
# back as a trace gives the op stream again, on real traces of every format
# (strace, LANL, Sandia, DXT): per rank, every successful read, write, fsync
# and fdatasync with its path, offset, length (a short read or write: the
# bytes it moved; none: left out) and, in version 3, its time
# to the microsecond (relative to the rank's first op, as every op stream
# is); in version 2, times are 0.  And the read-back is a fixed point:
# exported again it gives byte-identical logs, read again identical ops.
# The comparison reads `replay dump` text with its own small parser.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # TRACE VERSION
	local trace=$1 v=$2 t=$tmp/$(basename "$1").v$2
	mkdir -p "$t"
	"$REPLAY" dump "$trace" >"$t/orig.dump"
	"$REPLAY" convert --quiet --to fio-iolog --no-default-excludes --iolog-version "$v" --target / -o "$t/l1" "$trace"
	"$REPLAY" dump "$t/l1" >"$t/back.dump"
	# --target /: the names are the traced absolute paths, not //path
	if grep -qE '(^| )//' "$t"/l1/rank-*.iolog; then
		echo "FAIL $trace v$v: a name starts with //: $(grep -hE '(^| )//' "$t"/l1/rank-*.iolog | head -1)"; exit 1
	fi
	# fixed point
	"$REPLAY" convert --quiet --to fio-iolog --no-default-excludes --iolog-version "$v" --target / -o "$t/l2" "$t/l1"
	diff -r "$t/l1" "$t/l2" >/dev/null || { echo "FAIL $trace v$v: logs differ once read back"; exit 1; }
	"$REPLAY" dump "$t/l2" | sed 's/,line=[0-9]*//; s/ line=[0-9]* / - /' >"$t/back2.cmp"
	sed 's/,line=[0-9]*//; s/ line=[0-9]* / - /' "$t/back.dump" | cmp -s - "$t/back2.cmp" ||
		{ echo "FAIL $trace v$v: ops differ once read back twice"; exit 1; }
	python3 - "$t/orig.dump" "$t/back.dump" "$v" "$trace" <<'PY'
import os, re, sys
orig, back, v, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), f"{sys.argv[4]} v{sys.argv[3]}"
KIND = {"read": "read", "aread": "read", "write": "write", "awrite": "write",
        "fsync": "fsync", "fdatasync": "fdatasync"}
def rows(path):
    per = {}
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split(" ", 9)
        rank, t, kind, off, ln, res, path = int(f[0]), int(f[1]), f[3], f[5], f[6], int(f[7]), f[9]
        per.setdefault(rank, []).append((t, kind, off, ln, res, path))
    return per
def norm(p):          # a relative path is exported beneath "/" too
    return os.path.normpath(re.sub("/+", "/", "/" + p))
o, b = rows(orig), rows(back)
n = 0
for rank, ops in o.items():
    first = next((t for t, k, _, _, res, _ in ops if k == "open" and res >= 0), None)
    exp = []
    for t, k, off, ln, res, path in ops:
        if k not in KIND or res < 0:
            continue
        if k in ("read", "write") and res < int(ln):
            ln = str(res)     # a short transfer: exported with what it moved
        if k in ("read", "aread", "write", "awrite") and ln == "0":
            continue
        tt = (t // 1000 - first // 1000) * 1000 if v == 3 else 0
        if k in ("fsync", "fdatasync"):
            off = ln = "-"
        exp.append((tt, KIND[k], off, ln, norm(path)))
    got = [(t, k, off, ln, p) for t, k, off, ln, res, p in b.get(rank, []) if k not in ("open", "close")]
    if got != exp:
        for i, (g, e) in enumerate(zip(got, exp)):
            if g != e:
                print(f"FAIL {what}: rank {rank} op {i}: read back {g}, traced {e}"); sys.exit(1)
        print(f"FAIL {what}: rank {rank}: {len(got)} ops read back, {len(exp)} traced"); sys.exit(1)
    n += len(exp)
print(f"ok {what}: {len(o)} ranks, {n} ops back op for op")
PY
}

for tr in tests/data/strace/s_f_tt_T_y.txt tests/data/strace/sysbench_fileio.txt \
	  tests/data/strace/h5perf_f_tt_T_y.txt traces/lanl-64k traces/cth.sanitized \
	  tests/data/dxt/ior_hdf5_example.dxt.txt tests/data/dxt/unet3d_a100.dxt.txt.gz; do
	check "$SRCDIR/$tr" 3
	check "$SRCDIR/$tr" 2
done
# an export into the directory of an earlier one leaves this export's logs
# only: the 29 other logs of lanl-64k are removed (3 ranks now), and the
# line says so
"$REPLAY" convert --quiet --to fio-iolog -o "$tmp/reuse" "$SRCDIR/traces/lanl-64k"
[ "$(ls "$tmp/reuse" | wc -l)" = 32 ] || { echo "FAIL: lanl-64k: $(ls "$tmp/reuse" | wc -l) logs"; exit 1; }
echo keep >"$tmp/reuse/notes.txt"
"$REPLAY" convert --to fio-iolog -o "$tmp/reuse" "$SRCDIR/tests/data/strace/s_f_tt_T_y.txt" >"$tmp/reuse.out"
grep -q ", removed 29 iologs of an earlier export" "$tmp/reuse.out" || { echo "FAIL: $(cat "$tmp/reuse.out")"; exit 1; }
left=$(cd "$tmp/reuse" && echo *)
[ "$left" = "notes.txt rank-0.iolog rank-1.iolog rank-2.iolog" ] || { echo "FAIL: left in the directory: $left"; exit 1; }
echo "ok an export into an earlier one's directory: removed 29 iologs of it, kept notes.txt"
echo "fio iolog round trip: ok"
