# engines_common.bash - sourced by engines_libaio.sh and engines_uring.sh:
# an async engine end to end on real files, buffered and O_DIRECT with odd
# traced sizes.  Expected numbers come from the trace (awk), never from
# replay itself.
: "${REPLAY:?REPLAY must point to the binary}"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-eng.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# Two processes: 48 pwrite64 of 10444 bytes each (odd: unaligned for any
# O_DIRECT alignment), fsync, 48 pread64 back, close.
awk 'function ts(t) { return sprintf("10:00:%02d.%06d", int(t / 1e6), t % 1e6) }
BEGIN {
	for (r = 0; r < 2; r++) {
		pid = 500 + r; t = r
		printf "%d  %s openat(AT_FDCWD, \"/d/f%d\", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000020>\n", pid, ts(t++), r
		for (i = 0; i < 48; i++)
			printf "%d  %s pwrite64(3, \"xx\"..., 10444, %d) = 10444 <0.000050>\n", pid, ts(t += 90), i * 10444
		printf "%d  %s fsync(3) = 0 <0.000500>\n", pid, ts(t += 90)
		for (i = 0; i < 48; i++)
			printf "%d  %s pread64(3, \"xx\"..., 10444, %d) = 10444 <0.000050>\n", pid, ts(t += 90), i * 10444
		printf "%d  %s close(3) = 0 <0.000005>\n", pid, ts(t += 90)
	}
}' > trace.txt

per_rank_w=$(awk '$1 == 500 && /pwrite64/ { s += $(NF - 1) } END { print s }' trace.txt)
per_rank_r=$(awk '$1 == 500 && /pread64/ { s += $(NF - 1) } END { print s }' trace.txt)
nw=$(awk '$1 == 500 && /pwrite64/' trace.txt | wc -l)
[ "$per_rank_w" -eq $((48 * 10444)) ] && [ "$per_rank_r" -eq "$per_rank_w" ]

jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# Expected --direct numbers for alignment A, from the trace alone.
extra_for() {
	awk -v A="$1" '$1 == 500 && (/pwrite64/ || /pread64/) {
		n = $(NF - 1); off = $(NF - 3) + 0
		s = off - off % A; e = off + n; if (e % A) e += A - e % A
		if (s != off || e != off + n) { c++; x += (e - s) - n }
	} END { print c + 0, x + 0 }' trace.txt
}

check_run() { # ENGINE JSON DIRECT
	local eng=$1 js=$2 direct=$3 j
	[ "$(jq_ "$js" 'len(d["runs"][0]["jobs"])')" -eq 2 ]
	for j in 0 1; do
		[ "$(jq_ "$js" "d['runs'][0]['jobs'][$j]['write']['io_bytes']")" -eq "$per_rank_w" ]
		[ "$(jq_ "$js" "d['runs'][0]['jobs'][$j]['read']['io_bytes']")" -eq "$per_rank_r" ]
		[ "$(jq_ "$js" "d['runs'][0]['jobs'][$j]['write']['total_ios']")" -eq "$nw" ]
		[ "$(jq_ "$js" "d['runs'][0]['jobs'][$j]['read'].get('errors', 0)")" -eq 0 ]
		[ "$(jq_ "$js" "d['runs'][0]['jobs'][$j]['write'].get('errors', 0)")" -eq 0 ]
		if [ "$direct" = 1 ]; then
			got="$(jq_ "$js" "d['runs'][0]['jobs'][$j]['rounded_ops']") $(jq_ "$js" "d['runs'][0]['jobs'][$j]['rounded_extra_bytes']")"
			# the alignment is the file system's: 512 or 4096 on usual devices
			if [ "$got" != "$(extra_for 512)" ] && [ "$got" != "$(extra_for 4096)" ]; then
				echo "FAIL: $eng --direct job $j rounded (ops bytes) = $got, expected '$(extra_for 512)' (512) or '$(extra_for 4096)' (4096)"
				exit 1
			fi
		else
			[ "$(jq_ "$js" "d['runs'][0]['jobs'][$j]['rounded_ops']")" -eq 0 ]
			# -q 4 --overlap over independent writes: real overlap, capped at 4
			mi=$(jq_ "$js" "d['runs'][0]['jobs'][$j]['max_inflight']")
			[ "$mi" -gt 1 ] && [ "$mi" -le 4 ] || { echo "FAIL: $eng max_inflight $mi, expected 2..4"; exit 1; }
		fi
	done
	echo "ok: $eng direct=$direct: 2 jobs x $per_rank_w bytes written and read"
}

run_engine() { # ENGINE
	local eng=$1
	mkdir -p "t-$eng" "t-$eng-d"
	# buffered, depth 4, run-ahead allowed: more than one op in flight
	"$REPLAY" run -e "$eng" -q 4 --overlap --no-drop-caches --keep -o "$eng.json" \
		trace.txt "t-$eng" 2> "$eng.err"
	check_run "$eng" "$eng.json" 0
	[ "$(stat -c %s "t-$eng/d/f0")" -eq "$per_rank_w" ]
	# O_DIRECT with odd sizes: rounded, never EINVAL
	if "$REPLAY" run -e "$eng" -q 4 --direct --no-drop-caches --quiet --keep -o "$eng-d.json" \
		trace.txt "t-$eng-d" 2> "$eng-d.err"; then
		check_run "$eng" "$eng-d.json" 1
		# rounded writes write more than traced: the file ends on a block boundary
		sz=$(stat -c %s "t-$eng-d/d/f0")
		[ "$sz" -eq $(( (per_rank_w + 511) / 512 * 512 )) ] || [ "$sz" -eq $(( (per_rank_w + 4095) / 4096 * 4096 )) ]
	elif grep -qi "O_DIRECT\|Invalid argument" "$eng-d.err" && [ "$(stat -f -c %T .)" = tmpfs ]; then
		echo "note: $TMPDIR is tmpfs: O_DIRECT part not run"
	else
		cat "$eng-d.err"; exit 1
	fi
}

