#!/usr/bin/env bash
# stat_samples.sh - `replay stat --json` on every real capture in
# tests/data/stat/ (strace 6.1 in all its variants, ltrace -S) must report
# exactly the counts computed here, independently, with awk from the trace
# text: per pid and in total, the number of read-family and write-family
# calls, how many succeeded, the sum of their returned byte counts, and the
# request-size histogram.  (These captures have no short transfers, so a
# request's size is what the call returned.)
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
DATA="$SRCDIR/tests/data/stat"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Independent count: one line per pid and one "total" line,
#   KEY wcalls wok wbytes rcalls rok rbytes
# then "hist DIR BUCKET N" lines.  Pid: a "[pid N] " or "N " prefix, else
# the file's numeric suffix (strace -ff), else "main": strace -f prints no
# prefix while it traces a single process (before the first fork and after
# the others exited), so unprefixed lines belong to the one prefixed pid
# that never exits with a prefix.
# Only calls on descriptors whose path the trace shows count (replay cannot
# replay the others: they are its notes.unknown_fd_ops); such a descriptor
# comes from an open/openat with a quoted path or, in ltrace -S output, from
# a SYS_open/SYS_openat inside a library open("PATH") call.  In ltrace
# output only the SYS_ lines are system calls.
count() {
	awk '
	function bucket(n,   b, i) { b = 1024; i = 0; while (i < 12 && n > b) { b *= 2; i++ } return i }
	BEGIN {
		split("write pwrite64 pwrite writev pwritev pwritev2", w, " "); for (i in w) W[w[i]] = 1
		split("read pread64 pread readv preadv preadv2", r, " "); for (i in r) R[r[i]] = 1
	}
	FNR == 1 {
		defpid = "main"; if (match(FILENAME, /\.[0-9]+$/)) defpid = substr(FILENAME, RSTART + 1)
		# pre-scan: ltrace output?  which pid do unprefixed lines belong to?
		ltrace = 0; delete pre; delete gone
		while ((getline l < FILENAME) > 0) {
			if (l ~ / SYS_[a-z]/) ltrace = 1
			if (match(l, /^\[pid +[0-9]+\] /)) {
				q = substr(l, 1, RLENGTH); gsub(/[^0-9]/, "", q); pre[q] = 1
				if (l ~ /\+\+\+ (exited|killed)/) gone[q] = 1
			}
		}
		close(FILENAME)
		n = 0; for (q in pre) if (!(q in gone)) { n++; m = q }
		if (n == 1 && defpid == "main") defpid = m
	}
	{
		line = $0; pid = defpid
		if (match(line, /^\[pid +[0-9]+\] /)) {
			pid = substr(line, RSTART, RLENGTH); gsub(/[^0-9]/, "", pid)
			line = substr(line, RLENGTH + 1)
		} else if (match(line, /^[0-9]+ +/)) {
			pid = substr(line, 1, RLENGTH); gsub(/ /, "", pid)
			line = substr(line, RLENGTH + 1)
		}
		sub(/^ *[0-9:.]+ +/, "", line)
		gsub(/<\/[^>]*>/, "", line)    # strace -y path decorations: 3</a/b>
		resumed = 0
		if (match(line, /^<\.\.\. [A-Za-z0-9_]+ resumed>/)) {
			name = substr(line, 6, RLENGTH - 5); sub(/ resumed>$/, "", name); resumed = 1
		} else if (match(line, /^[A-Za-z0-9_]+\(/)) {
			name = substr(line, 1, RLENGTH - 1)
			args = substr(line, RLENGTH + 1)
		} else next
		sys = name
		if (ltrace) {
			if (name !~ /^SYS_/) {
				# library calls: only open("PATH") matters, to name the SYS_ open inside it
				if (name == "open" && !resumed && args ~ /^"/) libopen[pid] = 1
				if (name == "open" && (resumed || line !~ /<unfinished/)) libopen[pid] = 0
				next
			}
			sub(/^SYS_/, "", sys)
		}
		pids[pid] = 1
		if (!resumed) {
			fd = args; sub(/[^0-9].*/, "", fd)
			pathed = (args ~ /^[^,]*, *"/ || args ~ /^"/ || libopen[pid])
			if (line ~ /<unfinished \.\.\.>$/) { pfd[pid, name] = fd; ppath[pid, name] = pathed; next }
		} else {
			fd = pfd[pid, name]; pathed = ppath[pid, name]
		}
		sub(/ *<[0-9. ]+>$/, "", line)
		if (!match(line, /= -?[0-9]+( [A-Z][A-Z0-9]* \(.*\))?$/)) {
			if (sys in W || sys in R) { print "unparsed: " $0 > "/dev/stderr"; exit 3 }
			next
		}
		ret = substr(line, RSTART + 2); sub(/ .*/, "", ret); ret += 0
		if (sys ~ /^(open|openat|creat)$/ && ret >= 0) known[pid, ret] = pathed
		if (sys == "close") delete known[pid, fd]
		if (!(sys in W) && !(sys in R)) next
		d = (sys in W) ? "w" : "r"
		all[d]++
		if (!known[pid, fd]) next
		calls[d, pid]++; calls[d, "total"]++
		if (ret >= 0) {
			ok[d, pid]++; ok[d, "total"]++
			bytes[d, pid] += ret; bytes[d, "total"] += ret
			hist[d, bucket(ret)]++
		}
	}
	END {
		pids["total"] = 1
		for (p in pids)
			printf "%s %d %d %d %d %d %d\n", p, calls["w", p], ok["w", p], bytes["w", p], calls["r", p], ok["r", p], bytes["r", p]
		for (i = 0; i < 13; i++) printf "hist w %d %d\nhist r %d %d\n", i, hist["w", i], i, hist["r", i]
		printf "unknown %d\n", all["w"] + all["r"] - calls["w", "total"] - calls["r", "total"]
	}' "$@" | sort
}

# The same lines from replay's JSON (per-rank lines only for known pids).
from_json() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
p, h = j["patterns"], j["size_histogram"]
print("total %d %d %d %d %d %d" % (j["ops"]["write"] + j["ops"]["awrite"], p["write"]["requests"], j["bytes_written"],
      j["ops"]["read"] + j["ops"]["aread"], p["read"]["requests"], j["bytes_read"]))
for r in j["per_rank"]:
    if r["pid"] < 0:
        continue
    c = r["op_counts"]
    print("%d %d - %d %d - %d" % (r["pid"], c["write"], r["bytes_written"], c["read"], r["bytes_read"]))
for d, k in (("w", "write"), ("r", "read")):
    for i, lbl in enumerate(h[k]):
        print("hist %s %d %d" % (d, i, h[k][lbl]))
' "$1" | sort
}

fails=0
check() { # name, replay args...
	local name=$1; shift
	local files=()
	for a in "$@"; do
		if [ -f "$a" ]; then files+=("$a"); else files+=("$a".*); fi
	done
	if ! "$REPLAY" stat --no-default-excludes --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		echo "FAIL $name: replay stat exited non-zero:"; cat "$tmp/$name.err"; fails=$((fails + 1)); return
	fi
	count "${files[@]}" >"$tmp/$name.awk"
	# per-pid lines from JSON carry no "ok" column: compare calls and bytes
	from_json "$tmp/$name.json" >"$tmp/$name.got"
	awk '$1 == "unknown" { next } $1 == "hist" || $1 == "total" { print; next } { print $1, $2, "-", $4, $5, "-", $7 }' \
		"$tmp/$name.awk" | sort >"$tmp/$name.want"
	# keep only pids replay knows (a trace without pid prefixes has pid "main")
	grep -v '^main ' "$tmp/$name.want" >"$tmp/$name.want2" || true
	if ! diff -u "$tmp/$name.want2" "$tmp/$name.got" >"$tmp/$name.diff"; then
		echo "FAIL $name: replay stat and the independent count differ (-want +got):"
		cat "$tmp/$name.diff"; fails=$((fails + 1)); return
	fi
	# calls on descriptors with no known path are what replay reports as
	# notes.unknown_fd_ops (which also counts other ops on them)
	local unk nunk
	unk=$(awk '$1 == "unknown" { print $2 }' "$tmp/$name.awk")
	nunk=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["notes"]["unknown_fd_ops"])' "$tmp/$name.json")
	if [ "$unk" -gt "$nunk" ] || { [ "$unk" -eq 0 ] && [ "$nunk" -ne 0 ]; }; then
		echo "FAIL $name: $unk data calls on unknown descriptors, replay notes $nunk unknown-fd ops"
		fails=$((fails + 1)); return
	fi
	local total
	total=$(grep '^total ' "$tmp/$name.want2")
	echo "ok   $name: unknown-fd data calls=$unk ranks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"])' "$tmp/$name.json") total(wcalls wok wbytes rcalls rok rbytes)=${total#total }"
}

check s_f_tt_T        "$DATA/s_f_tt_T.txt"
check s_f_tt_T_y      "$DATA/s_f_tt_T_y.txt"
check s_f_ttt_stderr  "$DATA/s_f_ttt_T_stderr.txt"
check s_ff            "$DATA/s_ff"
check s_r_T           "$DATA/s_r_T.txt"
check s32_tt_T        "$DATA/s32_tt_T.txt"
check l_S_tt_T_f      "$DATA/l_S_tt_T_f.txt"

# Sanity of the expectations themselves: s32 is one process writing
# 65536 + 1024 + 4096 + 300 bytes and reading nothing.
grep -qx 'total 4 4 70956 0 0 0' "$tmp/s32_tt_T.want2" || { echo "FAIL: awk count of s32 is wrong"; fails=$((fails + 1)); }

# The ranks: one per traced pid.
python3 - "$tmp" <<'EOF' || fails=$((fails + 1))
import json, sys
t = sys.argv[1]
want = {"s_f_tt_T": 3, "s_f_tt_T_y": 3, "s_f_ttt_stderr": 3, "s_ff": 3, "s32_tt_T": 1, "l_S_tt_T_f": 3}
bad = 0
for n, k in want.items():
    got = json.load(open("%s/%s.json" % (t, n)))["ranks"]
    if got != k:
        print("FAIL %s: %d ranks, expected %d" % (n, got, k)); bad = 1
sys.exit(bad)
EOF

# Text output starts with a Table-I-like line.  s32 (i386, _llseek): writes
# of 65536 B at 0, 1024 B at 3 GiB, 4096 B at 64 KiB (pwrite64), 300 B at
# 3 GiB + 1024 (writev): no transition sequential, no delta or size in half
# of them -> unrecognized; no reads -> N/A; write-only -> 0.00/1.00.
"$REPLAY" stat "$DATA/s32_tt_T.txt" >"$tmp/s32.txt"
if ! head -2 "$tmp/s32.txt" | awk 'NR == 1 && !($1 == "trace" && $2 == "read" && $3 == "write" && $4 == "r/w") { exit 1 }
	NR == 2 && !($1 == "s32_tt_T.txt" && $2 == "N/A" && $3 == "unrecognized" && $4 == "0.00/1.00") { exit 1 }'; then
	echo "FAIL s32 text: $(head -2 "$tmp/s32.txt")"; fails=$((fails + 1))
fi
# the 64-bit offset past 2^32 survives: the dump shows the 1024-byte write at 3 GiB
"$REPLAY" dump "$DATA/s32_tt_T.txt" | awk '$4 == "write" && $6 == 3221225472 && $7 == 1024 { f = 1 } END { exit !f }' ||
	{ echo "FAIL s32 dump: no 1024-byte write at offset 3221225472"; fails=$((fails + 1)); }

# notes the info section holds once per rank (thread_of, launcher): every
# one in the JSON (an array), as in the text (a JSON object kept the last)
"$REPLAY" stat --json "$SRCDIR/tests/data/strace/sysbench_fileio.txt" >"$tmp/sb.json"
"$REPLAY" stat "$SRCDIR/tests/data/strace/sysbench_fileio.txt" | awk '$1 == "thread_of" { print $2, $3 }' >"$tmp/sb.text"
jq -r '.notes.thread_of[]' "$tmp/sb.json" >"$tmp/sb.jtext"
if [ "$(wc -l <"$tmp/sb.text")" -ne 4 ] || ! cmp -s "$tmp/sb.text" "$tmp/sb.jtext"; then
	echo "FAIL sysbench thread_of: text $(tr '\n' ';' <"$tmp/sb.text") json $(tr '\n' ';' <"$tmp/sb.jtext")"
	fails=$((fails + 1))
fi

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "stat_samples: all samples agree"
