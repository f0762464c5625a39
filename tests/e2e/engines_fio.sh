#!/usr/bin/env bash
# engines_fio: `replay convert --to fio-iolog` writes logs that real fio
# replays (read_iolog, replay_no_stall=1) doing the very bytes the trace did,
# on the same files beneath the target that `replay run` uses.
set -euo pipefail
: "${REPLAY:?REPLAY must point to the binary}"
command -v fio >/dev/null || { echo "SKIP: fio is not installed (scripts/setup)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-fio.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# Two ranks: N-to-1 strided 64 KiB writes + a 1000-byte tail, fdatasync,
# reads back; a metadata op (unlink of another file) fio cannot express.
awk 'function ts(t) { return sprintf("10:00:%02d.%06d", int(t / 1e6), t % 1e6) }
BEGIN {
	for (r = 0; r < 2; r++) {
		pid = 700 + r; t = r
		printf "%d  %s openat(AT_FDCWD, \"/shared/n1.dat\", O_RDWR|O_CREAT, 0644) = 5 <0.000020>\n", pid, ts(t++)
		for (i = 0; i < 20; i++)
			printf "%d  %s pwrite64(5, \"xx\"..., 65536, %d) = 65536 <0.000050>\n", pid, ts(t += 90), (i * 2 + r) * 65536
		printf "%d  %s pwrite64(5, \"xx\"..., 1000, %d) = 1000 <0.000050>\n", pid, ts(t += 90), 40 * 65536 + r * 1000
		printf "%d  %s fdatasync(5) = 0 <0.000500>\n", pid, ts(t += 90)
		for (i = 0; i < 10; i++)
			printf "%d  %s pread64(5, \"xx\"..., 65536, %d) = 65536 <0.000050>\n", pid, ts(t += 90), (i * 2 + r) * 65536
		printf "%d  %s close(5) = 0 <0.000005>\n", pid, ts(t += 90)
	}
}' > trace.txt
want_w=$(awk '$1 == 700 && /pwrite64/ { s += $(NF - 1) } END { print s }' trace.txt)
want_r=$(awk '$1 == 700 && /pread64/ { s += $(NF - 1) } END { print s }' trace.txt)
nwrites=$(awk '$1 == 700 && /pwrite64/' trace.txt | wc -l)

mkdir tgt
"$REPLAY" convert --to fio-iolog --target "$tmp/tgt" -o logs trace.txt
[ -f logs/rank-0.iolog ] && [ -f logs/rank-1.iolog ] && [ ! -e logs/rank-2.iolog ]
[ "$(head -1 logs/rank-0.iolog)" = "fio version 2 iolog" ]
# the mapping rule of replay run: /shared/n1.dat -> TARGET/shared/n1.dat
grep -qx "$tmp/tgt/shared/n1.dat open" logs/rank-0.iolog
[ "$(grep -c ' write ' logs/rank-0.iolog)" -eq "$nwrites" ]
grep -qx "$tmp/tgt/shared/n1.dat datasync 0 0" logs/rank-0.iolog
[ "$(awk '$2 == "write" { s += $4 } END { print s }' logs/rank-1.iolog)" -eq "$want_w" ]

# fio replays both ranks at once, as replay's parallel mode
mkdir -p tgt/shared
fio --output-format=json --output=fio.json --ioengine=psync --replay_no_stall=1 \
	--name=r0 --read_iolog=logs/rank-0.iolog --name=r1 --read_iolog=logs/rank-1.iolog >/dev/null
py() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
for j in 0 1; do
	[ "$(py fio.json "d['jobs'][$j]['error']")" -eq 0 ]
	[ "$(py fio.json "d['jobs'][$j]['write']['io_bytes']")" -eq "$want_w" ]
	[ "$(py fio.json "d['jobs'][$j]['read']['io_bytes']")" -eq "$want_r" ]
	[ "$(py fio.json "d['jobs'][$j]['write']['total_ios']")" -eq "$nwrites" ]
done
# both ranks' writes landed in the one shared file: 40 objects + 2 tails
[ "$(stat -c %s tgt/shared/n1.dat)" -eq $((40 * 65536 + 2000)) ]

# replay on the same target, after fio: the same bytes per job
rm -rf tgt/shared
"$REPLAY" run --no-drop-caches --quiet -o replay.json trace.txt tgt
for j in 0 1; do
	[ "$(py replay.json "d['runs'][0]['jobs'][$j]['write']['io_bytes']")" -eq "$(py fio.json "d['jobs'][$j]['write']['io_bytes']")" ]
	[ "$(py replay.json "d['runs'][0]['jobs'][$j]['read']['io_bytes']")" -eq "$(py fio.json "d['jobs'][$j]['read']['io_bytes']")" ]
done

# a traced path that would land outside the target is refused, by name
printf '900  10:00:00.000001 openat(AT_FDCWD, "../../etc/x", O_RDONLY) = 3 <0.000010>\n900  10:00:00.000100 read(3, "xx"..., 10) = 10 <0.000010>\n' > bad.txt
if "$REPLAY" convert --to fio-iolog --target "$tmp/tgt" -o badlogs bad.txt 2> bad.err; then
	echo "FAIL: a path above the target was exported"; exit 1
fi
grep -q "'../../etc/x'" bad.err
echo "engines_fio: ok (fio and replay: $want_w bytes written, $want_r read per rank)"
