#!/usr/bin/env bash
# -n above the ranks but not a multiple of them: the last copy of the file
# set runs only the first ranks, so what the others write there before
# those read it must be prepared in that copy.  Rank 0 reads the block rank
# 1 wrote into their shared file (as an MPI-IO program reading its
# neighbour's block does).  With -n 3, copy 1 holds rank 0 alone; before,
# its read found an empty file ("0 bytes where the trace moved 4096") and
# the run failed, while -n 2 and -n 4 passed.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-partial-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$tmp/t.txt" <<'EOF'
101 10:00:00.000001 openat(AT_FDCWD, "/p/shared.dat", O_RDWR|O_CREAT, 0644) = 3 <0.000010>
102 10:00:00.000002 openat(AT_FDCWD, "/p/shared.dat", O_RDWR|O_CREAT, 0644) = 3 <0.000010>
101 10:00:00.000010 pwrite64(3, "a"..., 4096, 0) = 4096 <0.000005>
102 10:00:00.000011 pwrite64(3, "b"..., 4096, 4096) = 4096 <0.000005>
102 10:00:00.000020 close(3) = 0 <0.000002>
101 10:00:00.000030 pread64(3, "b"..., 4096, 4096) = 4096 <0.000005>
101 10:00:00.000040 close(3) = 0 <0.000002>
EOF
for n in 2 3 4 5; do
	mkdir "$tmp/t$n"
	"$REPLAY" run -n "$n" --no-drop-caches --quiet -o "$tmp/r$n.json" "$tmp/t.txt" "$tmp/t$n" \
		> "$tmp/out$n" 2>&1 || fail "-n $n: $(grep -m2 -E 'failed|mismatch' "$tmp/out$n")"
	# every process read its 4096 bytes
	jq -e "[.runs[0].jobs[] | select(.rank == 0) | .read.done_bytes] | length == $(( (n + 1) / 2 )) and all(. == 4096)" \
		"$tmp/r$n.json" > /dev/null || fail "-n $n: reads: $(jq -c '[.runs[0].jobs[] | {rank, copy, r: .read.done_bytes}]' "$tmp/r$n.json")"
	[ -z "$(ls -A "$tmp/t$n")" ] || fail "-n $n: files left: $(find "$tmp/t$n")"
done
# the plan says what the partial copy prepares
"$REPLAY" run --dry-run -n 3 "$tmp/t.txt" "$tmp/t3" | grep -q \
	"^  copy 1 replays the first 1 of the 2 ranks only: it prepares 1 more file (8.0 KiB) the others would have written" \
	|| fail "--dry-run: $("$REPLAY" run --dry-run -n 3 "$tmp/t.txt" "$tmp/t3" | head -4)"
echo "ok: -n 3 and 5 on 2 ranks: the partial copy's reads find the other rank's data"

# Traced barriers in a partial copy: the bundled LANL run (32 ranks, MPI
# barriers) with -n 33.  Copy 1 holds rank 0 alone; its barriers waited for
# the 32 ranks of a whole copy and the run hung until killed.  Now it meets
# them alone, as often as copy 0's rank 0 meets the others.
mkdir "$tmp/b33"
timeout 120 "$REPLAY" run -n 33 --no-drop-caches --quiet -o "$tmp/b33.json" \
	"$SRCDIR/traces/lanl-64k" "$tmp/b33" > "$tmp/b33.out" 2>&1 ||
	fail "-n 33 with barriers: exit $? (124: hung) $(tail -2 "$tmp/b33.out")"
b0=$(jq '.runs[0].jobs[] | select(.copy == 0 and .rank == 0) | .barrier_waits' "$tmp/b33.json")
b1=$(jq '.runs[0].jobs[] | select(.copy == 1 and .rank == 0) | .barrier_waits' "$tmp/b33.json")
[ "$b0" -gt 0 ] && [ "$b1" = "$b0" ] || fail "-n 33: barrier waits copy 0 rank 0 $b0, copy 1 rank 0 $b1"
echo "ok: -n 33 on 32 ranks with barriers: the partial copy's rank 0 passed its $b1 barriers"

# A real capture: the child process makes a directory and a file in it, the
# parent reads the file back.  With -n 3 the partial copy holds the parent
# alone: the file is prepared there, and so must its directory be, which
# only the child's mkdir made (before: "cannot prepare '.../d/data': No such
# file or directory" and no run at all; found on a capture of git clone).
command -v strace >/dev/null || { echo "SKIP: strace not installed (the rest passed)"; exit 0; }
mkdir "$tmp/w"
( cd "$tmp/w" && strace -f -tt -T -y -o "$tmp/cap.txt" /usr/bin/python3 -I -S -c '
import os
pid = os.fork()
if pid == 0:
    os.mkdir("d")
    with open("d/data", "wb") as f:
        f.write(b"x" * 12288)
    os._exit(0)
os.waitpid(pid, 0)
with open("d/data", "rb") as f:
    assert len(f.read()) == 12288
' )
# independent count: the bytes the parent (the first pid) read from d/data
first=$(awk 'NR == 1 { print $1 }' "$tmp/cap.txt")
want=$(awk -v p="$first" '$1 == p && /^[0-9]+ +[0-9:.]+ read\([0-9]+<[^>]*\/d\/data>/ { sub(/.*= /, ""); s += $1 } END { print s + 0 }' "$tmp/cap.txt")
[ "$want" = 12288 ] || fail "capture: the parent read $want bytes of d/data, not 12288"
for n in 2 3; do
	mkdir "$tmp/c$n"
	"$REPLAY" run -n "$n" --no-drop-caches --quiet -o "$tmp/c$n.json" "$tmp/cap.txt" "$tmp/c$n" \
		> "$tmp/cout$n" 2>&1 || fail "capture -n $n: $(head -3 "$tmp/cout$n")"
	got=$(jq "[.runs[0].jobs[] | select(.rank == 0) | .read.done_bytes] | add" "$tmp/c$n.json")
	copies=$(( (n + 1) / 2 ))
	[ "$got" -ge $((copies * want)) ] || fail "capture -n $n: rank 0's processes read $got bytes, want >= $copies x $want"
	[ -z "$(ls -A "$tmp/c$n")" ] || fail "capture -n $n: files left: $(find "$tmp/c$n")"
done
echo "ok: capture (fork, mkdir in the child): -n 3's partial copy makes the child's directory for the file it prepares"
