#!/usr/bin/env bash
# fio_json.sh - the result JSON reads as fio 3.33's: fio's own script
# (fio_jsonplus_clat2csv, Debian's fio package) converts and validates the
# json+ bins; jq filters written for fio give the trace's numbers, counted
# here from the trace text by awk; `--output-format json` without -o puts
# only the JSON on stdout; disk_util names the target's disk (read from
# sysfs here); --status-interval prints progress lines while the run is
# still going (a batch log), between start and end lines.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

# Two processes writing, reading back and syncing their own files.
python3 - "$tmp/trace.txt" <<'PY'
import sys
out = []
for pid in (5001, 5002):
    t = 0.0
    def line(s):
        global t
        t += 0.0001
        out.append("%d 10:00:%09.6f %s" % (pid, t, s))
    line('openat(AT_FDCWD, "/data/f%d", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>' % pid)
    for i in range(40):
        n = 4096 * (1 + i % 4)
        line('pwrite64(3, "x"..., %d, %d) = %d <0.000020>' % (n, i * 16384, n))
    line('fsync(3) = 0 <0.000300>')
    for i in range(40):
        n = 4096 * (1 + i % 3)
        line('pread64(3, "x"..., %d, %d) = %d <0.000010>' % (n, i * 16384, n))
    line('close(3) = 0 <0.000005>')
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
wbytes=$(awk '/pwrite64/ { sub(/.*= /, ""); sum += $1 } END { print sum }' "$tmp/trace.txt")
rbytes=$(awk '/pread64/ { sub(/.*= /, ""); sum += $1 } END { print sum }' "$tmp/trace.txt")
nwrites=$(grep -c pwrite64 "$tmp/trace.txt")

mkdir "$tmp/t"
"$REPLAY" run -n 2 -r 3 --no-drop-caches --output-format json+ -o "$tmp/r.json" "$tmp/trace.txt" "$tmp/t" \
	>"$tmp/out" 2>"$tmp/err" || fail "replay run: $(cat "$tmp/err")"
grep -q "^replay: start .*Z: parallel, 2 processes, 3 runs" "$tmp/err" || fail "no start line: $(cat "$tmp/err")"
grep -q "^replay: end .*Z: exit status 0" "$tmp/err" || fail "no end line"
grep -q "completion" "$tmp/out" || fail "-o with json+: the summary still goes to stdout"

# fio's own script
if command -v fio_jsonplus_clat2csv >/dev/null; then
	(cd "$tmp" && fio_jsonplus_clat2csv r.json csv >/dev/null && fio_jsonplus_clat2csv r.json csv --validate) \
		>"$tmp/v" 2>&1 || fail "fio_jsonplus_clat2csv: $(cat "$tmp/v")"
	grep -c validated "$tmp/v" | grep -qx 2 || fail "not both jobs validated: $(cat "$tmp/v")"
	# column 14 = write_clat_ns_count (nsec, then 3 columns per ddir/lat)
	csvw=$(awk -F', ' 'NR > 1 && $14 != "" { s += $14 } END { print s }' "$tmp/csv_job0" "$tmp/csv_job1")
	[ "$csvw" = "$nwrites" ] || fail "fio's CSV counts $csvw write latencies, the trace has $nwrites writes"
	echo "ok fio_jsonplus_clat2csv: 2 jobs converted and validated, $csvw write latencies"
else
	echo "note: fio_jsonplus_clat2csv not installed (Debian package fio): not run"
fi

# jq filters written for fio
[ "$(jq '.jobs | length' "$tmp/r.json")" = 2 ] || fail "jobs: $(jq '.jobs | length' "$tmp/r.json")"
[ "$(jq '[.jobs[].write.io_bytes] | add' "$tmp/r.json")" = "$wbytes" ] || fail "write io_bytes != $wbytes"
[ "$(jq '[.jobs[].read.io_bytes] | add' "$tmp/r.json")" = "$rbytes" ] || fail "read io_bytes != $rbytes"
[ "$(jq '[.jobs[].write.total_ios] | add' "$tmp/r.json")" = "$nwrites" ] || fail "write total_ios"
[ "$(jq -r '[.jobs[].jobname] | join(",")' "$tmp/r.json")" = "rank-0,rank-1" ] || fail "jobnames"
[ "$(jq '[.jobs[].sync.total_ios] | add' "$tmp/r.json")" = 2 ] || fail "sync total_ios"
jq -e '.jobs[].write.bw | numbers' "$tmp/r.json" >/dev/null || fail ".jobs[].write.bw"
jq -e '.jobs[0].write.clat_ns.percentile["99.000000"] > 0' "$tmp/r.json" >/dev/null || fail "p99"
jq -e '.jobs[] | (.write.clat_ns.bins | add) == .write.clat_ns.N' "$tmp/r.json" >/dev/null ||
	fail "the bins do not add up to N"
# fio's sample statistics, as fio writes them for a job it took no sample
# of (fio-plot reads iops_stddev: a KeyError on replay's JSON, audit FJ)
jq -e 'all(.jobs[] | .read, .write, .trim; .bw_samples == 0 and .iops_samples == 0 and
	.bw_min == 0 and .bw_max == 0 and .bw_agg == 0 and .bw_mean == 0 and .bw_dev == 0 and
	.iops_min == 0 and .iops_max == 0 and .iops_mean == 0 and .iops_stddev == 0)' "$tmp/r.json" >/dev/null ||
	fail "sample statistics: $(jq -c '.jobs[0].write | {bw_mean, iops_stddev, bw_samples}' "$tmp/r.json")"
# "fio version" parses as fio's: scripts pick clat or clat_ns by it
python3 - "$tmp/r.json" <<'PY' || fail "fio version: $(jq '."fio version"' "$tmp/r.json")"
import json, sys
v = json.load(open(sys.argv[1]))["fio version"]
major, minor = v.split("-", 2)[1].split(".", 2)[:2]
assert (int(major), int(minor)) == (3, 33), v
PY
# bw (KiB/s) from bytes and the headline run's I/O time, recomputed here
python3 - "$tmp/r.json" <<'PY' || fail "bw/iops/headline"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
done = sorted(r["completion_ns"] for r in runs if not r["incomplete"])
med = done[(len(done) - 1) // 2]
h = d["headline_run"]
assert runs[h]["completion_ns"] == med, "headline is not the median run"
for i, job in enumerate(d["jobs"]):
    io_ns = runs[h]["jobs"][i]["io_ns"]
    # fio's ms: microseconds rounded up (a job with I/O is never 0 ms)
    ms = (io_ns // 1000 + 999) // 1000
    assert job["write"]["runtime"] == ms > 0
    assert job["job_runtime"] == ms
    # bw and iops from that runtime, as fio's stat.c computes them
    bwb = 1000 * job["write"]["io_bytes"] // ms
    assert job["write"]["bw_bytes"] == bwb, (job["write"]["bw_bytes"], bwb)
    assert job["write"]["bw"] == bwb // 1024
    iops = 1000.0 * job["write"]["total_ios"] / ms
    assert abs(job["write"]["iops"] - iops) <= 1e-9 * iops, (job["write"]["iops"], iops)
assert all("fio_jobs" not in r for r in runs)
assert d["fio version"] == "fio-3.33"
assert d["replay version"] and not d["replay version"].startswith("fio")
assert d["global options"]["numjobs"] == "2"
# fio's eta, elapsed (right after error) and latency target keys (after
# latency_ms, the last ones), as fio writes them for a job without a
# latency target; elapsed: the headline run's makespan in whole seconds,
# its ms rounded up as fio's
el = (runs[h]["completion_ns"] // 1000000 + 999) // 1000
for job in d["jobs"]:
    k = list(job)
    e = k.index("error")
    assert k[e + 1:e + 3] == ["eta", "elapsed"], k
    assert k[-5:] == ["latency_ms", "latency_depth", "latency_target", "latency_percentile",
                      "latency_window"], k
    assert job["eta"] == 0 and job["elapsed"] == el >= 1, (job["eta"], job["elapsed"], el)
    assert job["latency_depth"] == d["options"]["depth"] == 1
    assert job["latency_target"] == 0 and job["latency_window"] == 0
    assert job["latency_percentile"] == 100.0 and isinstance(job["latency_percentile"], float)
print("ok bw, iops, runtime, elapsed of %d jobs from the headline run %d (median of %d)" % (len(d["jobs"]), h, len(done)))
PY

# disk_util: the disk under the target, found here through sysfs
disk=$(python3 - "$tmp/t" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
if os.major(st.st_dev) == 0:
    print(""); sys.exit()
p = os.path.realpath("/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev)))
if os.path.exists(p + "/partition"):
    p = os.path.dirname(p)
print(os.path.basename(p))
PY
)
if [ -n "$disk" ]; then
	[ "$(jq -r '.disk_util[0].name' "$tmp/r.json")" = "$disk" ] || fail "disk_util names $(jq -c .disk_util "$tmp/r.json"), not $disk"
	jq -e '.disk_util[0].util >= 0 and .disk_util[0].util <= 100' "$tmp/r.json" >/dev/null || fail "util"
else
	[ "$(jq -c '.disk_util' "$tmp/r.json")" = "[]" ] || fail "disk_util on a target without a disk"
fi

# --output-format json without -o: stdout is the JSON and nothing else
rm -rf "$tmp/t"; mkdir "$tmp/t"
"$REPLAY" run -n 2 --no-drop-caches --output-format json "$tmp/trace.txt" "$tmp/t" >"$tmp/stdout.json" 2>/dev/null ||
	fail "json to stdout"
jq -e '.jobs[1].read.io_bytes > 0 and (.jobs[0].write.clat_ns | has("bins") | not)' "$tmp/stdout.json" >/dev/null ||
	fail "stdout is not the JSON (or json has bins)"
if "$REPLAY" run --output-format xml "$tmp/trace.txt" "$tmp/t" 2>"$tmp/err"; then fail "--output-format xml accepted"; fi
grep -q "expected normal, json or json+" "$tmp/err" || fail "unclear error: $(cat "$tmp/err")"

# global options.direct: "1" when all of the run's reads and writes
# bypassed the page cache: a dd oflag=direct trace replayed without
# --direct (the trace's own O_DIRECT open); "0" once dd clears O_DIRECT
# (F_SETFL) for its last, partial block, unless --direct
dd_trace() {
	python3 - "$1" "$2" <<'PY'
import sys
l = ['28833 21:34:18.047351 openat(AT_FDCWD</w>, "/data/f", O_WRONLY|O_CREAT|O_TRUNC|O_DIRECT, 0666) = 1</data/f> <0.000020>']
for i in range(3):
    l.append('28833 21:34:18.0475%02d write(1</data/f>, "x"..., 65536) = 65536 <0.000209>' % (43 + i))
if sys.argv[2] == "partial":
    l.append('28833 21:34:18.048435 fcntl(1</data/f>, F_GETFL) = 0xc001 (flags O_WRONLY|O_DIRECT|O_LARGEFILE) <0.000020>')
    l.append('28833 21:34:18.048478 fcntl(1</data/f>, F_SETFL, O_WRONLY|O_LARGEFILE) = 0 <0.000007>')
    l.append('28833 21:34:18.048573 write(1</data/f>, "9"..., 3392) = 3392 <0.000011>')
l.append('28833 21:34:18.049666 close(1</data/f>) = 0 <0.000010>')
open(sys.argv[1], "w").write("\n".join(l) + "\n")
PY
}
dd_trace "$tmp/dd.txt" whole
dd_trace "$tmp/ddp.txt" partial
direct_of() {     # trace, then replay options: "global direct,options.direct,buffered ops"
	local t=$1
	shift
	rm -rf "$tmp/t"; mkdir "$tmp/t"
	"$REPLAY" run --no-drop-caches --quiet "$@" -o "$tmp/d.json" "$t" "$tmp/t" >/dev/null 2>"$tmp/err" || return 1
	jq -r '[."global options".direct, .options.direct, ([.runs[].jobs[].buffered_ops] | add)] | join(",")' "$tmp/d.json"
}
if got=$(direct_of "$tmp/dd.txt"); then
	[ "$got" = "1,false,0" ] || fail "dd oflag=direct trace without --direct: direct,options.direct,buffered_ops = $got"
	got=$(direct_of "$tmp/dd.txt" --timing think)   # not the runner's short way for plain writes
	[ "$got" = "1,false,0" ] || fail "dd oflag=direct trace, --timing think: $got"
	got=$(direct_of "$tmp/ddp.txt")
	[ "$got" = "0,false,1" ] || fail "dd trace with a buffered last block: $got"
	got=$(direct_of "$tmp/ddp.txt" --timing think)
	[ "$got" = "0,false,1" ] || fail "dd trace with a buffered last block, --timing think: $got"
	got=$(direct_of "$tmp/ddp.txt" --direct)
	[ "$got" = "1,true,0" ] || fail "dd trace with a buffered last block, --direct: $got"
	got=$(direct_of "$tmp/trace.txt")
	[ "$got" = "0,false,160" ] || fail "buffered trace: $got"
	echo "ok global options.direct: 1 for a dd oflag=direct trace, 0 once a write is buffered, 1 with --direct"
elif grep -q "refuses O_DIRECT" "$tmp/err"; then
	echo "note: the file system under $tmp refuses O_DIRECT: global direct not checked"
else
	fail "dd oflag=direct trace: $(cat "$tmp/err")"
fi

# a batch log: progress lines appear while the run goes on (3 s of traced time)
python3 - "$tmp/slow.txt" <<'PY'
import sys
l = ['4242 10:00:00.000000 openat(AT_FDCWD, "/data/out.dat", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000020>']
for i in range(30):
    l.append('4242 10:00:%09.6f pwrite64(3, "abc"..., 65536, %d) = 65536 <0.000050>' % (0.1 * (i + 1), i * 65536))
l.append('4242 10:00:03.200000 close(3) = 0 <0.000005>')
open(sys.argv[1], "w").write("\n".join(l) + "\n")
PY
rm -rf "$tmp/t"; mkdir "$tmp/t"
"$REPLAY" run --timing trace --status-interval 0.5 --no-drop-caches -o "$tmp/slow.json" "$tmp/slow.txt" "$tmp/t" \
	>"$tmp/log" 2>&1 &
pid=$!
seen=0
for _ in $(seq 60); do
	sleep 0.1
	kill -0 "$pid" 2>/dev/null || break
	if grep -q "^replay: status .*Z: ops [0-9]*/32 " "$tmp/log"; then seen=1; break; fi
done
[ "$seen" = 1 ] && kill -0 "$pid" 2>/dev/null || fail "no status line while the run was going: $(cat "$tmp/log")"
wait "$pid" || fail "the timed run failed: $(cat "$tmp/log")"
pid=
n=$(grep -c "^replay: status" "$tmp/log")
[ "$n" -ge 4 ] || fail "$n status lines in 3.2 s at 0.5 s"
# that 3.2 s run's timestamp, timestamp_ms and time are one instant (fio
# reads its clock once), time_utc too: when the results were complete;
# the start, 3 s before, is start_utc
ts=$(jq .timestamp "$tmp/slow.json")
jq -e '(.timestamp_ms / 1000 | floor) == .timestamp' "$tmp/slow.json" >/dev/null ||
	fail "timestamp_ms $(jq .timestamp_ms "$tmp/slow.json") is not in the second of timestamp $ts"
[ "$(jq -r .time "$tmp/slow.json")" = "$(LC_ALL=C date -d "@$ts" '+%a %b %e %H:%M:%S %Y')" ] ||
	fail "time $(jq .time "$tmp/slow.json") is not timestamp $ts"
[ "$(jq -r .time_utc "$tmp/slow.json")" = "$(date -u -d "@$ts" '+%Y-%m-%dT%H:%M:%SZ')" ] ||
	fail "time_utc $(jq .time_utc "$tmp/slow.json") is not timestamp $ts"
start=$(date -u -d "$(jq -r .start_utc "$tmp/slow.json")" +%s)
[ $((ts - start)) -ge 3 ] || fail "start_utc $(jq .start_utc "$tmp/slow.json") is not 3 s before timestamp $ts"
[ "$(stat -c %Y "$tmp/slow.json")" -ge "$ts" ] || fail "timestamp $ts after the file was written"
echo "ok fio JSON: jq filters, disk_util ${disk:-(none)}, JSON on stdout, $n status lines in a batch-style log, timestamp/timestamp_ms/time one instant"
