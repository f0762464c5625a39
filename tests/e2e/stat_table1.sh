#!/usr/bin/env bash
# stat_table1.sh - the study's Table I from `replay stat` on the synthetic
# workloads of `replay gen` (LANL-Trace and libsysio grammars, parsed like
# real data): access pattern of reads and writes and the read/write ratio,
# plus the LANL strided variant (stride = N ranks x object size) and the
# zipf reads (random).  Expected values are the study's, and the strided
# stride is computed here from the parameters.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$REPLAY" gen --list >"$tmp/list" 2>&1; then
	echo "SKIP: replay gen is not available: $(head -1 "$tmp/list")"; exit 77
fi

fails=0
# name, expected read pattern, write pattern, ratio, gen args...
row() {
	local name=$1 rp=$2 wp=$3 ratio=$4; shift 4
	if ! "$REPLAY" gen "$@" -o "$tmp/$name" >/dev/null 2>"$tmp/$name.gen"; then
		echo "FAIL $name: replay gen $*: $(cat "$tmp/$name.gen")"; fails=$((fails + 1)); return
	fi
	if ! "$REPLAY" stat --json "$tmp/$name" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		echo "FAIL $name: replay stat: $(cat "$tmp/$name.err")"; fails=$((fails + 1)); return
	fi
	local got
	got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p=j["patterns"]
print(p["read"]["pattern"], p["write"]["pattern"], j["read_write_ratio_text"])' "$tmp/$name.json")
	if [ "$got" != "$rp $wp $ratio" ]; then
		echo "FAIL $name: got '$got', expected '$rp $wp $ratio'"; fails=$((fails + 1))
	else
		echo "ok   $(printf '%-14s' "$name") $got"
	fi
}

# The study's Table I (few ranks and a small scale keep the test fast).
row lanl-64k     sequential   sequential   0.51/0.49 lanl-64k --processes 4
row lanl-1024k   sequential   sequential   0.50/0.50 lanl-1024k --processes 4 --objects 8
row alegra       unrecognized unrecognized 0.14/0.86 alegra --processes 4
row cth          unrecognized unrecognized 0.67/0.33 cth --processes 4
row s3d          N/A          sequential   0.00/1.00 s3d --processes 4
# Patterns beyond the table
row zipf         random       N/A          1.00/0.00 zipf-reads --processes 2
row lanl-strided strided      strided      0.50/0.50 lanl-64k --processes 4 --objects 16 --strided

# the stride of N-to-1 strided is N ranks x object size
if [ -f "$tmp/lanl-strided.json" ]; then
	s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["patterns"]["write"]["stride"])' "$tmp/lanl-strided.json")
	[ "$s" = $((4 * 65536)) ] || { echo "FAIL lanl-strided: stride $s, expected $((4 * 65536))"; fails=$((fails + 1)); }
fi

[ "$fails" -eq 0 ] || { echo "$fails row(s) failed"; exit 1; }
echo "stat_table1: Table I reproduced"
