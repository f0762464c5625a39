#!/usr/bin/env bash
# Run the EXAMPLES of replay(1) as written (jq runs its manual's examples):
# every command line of the first example block, in a temporary directory,
# must exit 0.  `replay` is the binary under test.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the examples replay with cache drops and need root"; exit 77; }
[ -w /proc/sys/vm/drop_caches ] || { echo "SKIP: /proc/sys/vm/drop_caches is not writable here"; exit 77; }
command -v gnuplot >/dev/null || { echo "SKIP: gnuplot not installed (replay plot example)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/replay-man-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$REPLAY" "$work/bin/replay"
export PATH="$work/bin:$PATH"
cd "$work"
# the first .nf block after .SH EXAMPLES
awk '/^\.SH EXAMPLES/{on=1;next} /^\.SH/{on=0} on && /^\.nf/{blk=1;next} on && /^\.fi/{if(blk) exit} on && blk' \
    "$SRCDIR/man/replay.1" | sed -e 's/\\-/-/g' > examples.sh
n=$(grep -c . examples.sh)
[ "$n" -ge 5 ] || { echo "FAIL: only $n example lines found"; exit 1; }
i=0
while IFS= read -r cmd; do
    [ -z "$cmd" ] && continue
    i=$((i + 1))
    echo "+ $cmd"
    if ! bash -c "$cmd" >"out.$i" 2>&1; then
        echo "FAIL: example $i exited non-zero: $cmd"; cat "out.$i"; exit 1
    fi
done < examples.sh
# the examples did what they say
[ -s lanl.ops ] && [ -s old.json ] && [ -s new.json ] && [ -s aio.json ] && [ -f iologs/rank-0.iolog ] \
    || { echo "FAIL: an example did not produce its output"; ls -la; exit 1; }
ls plots/*.png >/dev/null
grep -q '"completion_ns"' new.json
# the compare example compares: its row pairs the two runs (a ratio for new,
# not "-", which a row of one set only gets)
awk '$1 ~ /^lanl/ && $2 == "parallel" && $3 == 8 {
         for (i = 4; i < NF; i++) if ($i ~ /^[0-9.]+$/ && $(i + 1) ~ /^\[/) n++
         if (n >= 2) ok = 1 }
     END { exit !ok }' compare.txt \
    || { echo "FAIL: the compare example compares nothing:"; cat compare.txt; exit 1; }
[ -z "$(find old new -mindepth 1)" ] || { echo "FAIL: targets not left empty"; ls -laR old new; exit 1; }
echo "ran $i examples"
