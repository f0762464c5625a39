#!/usr/bin/env python3
# Writes the hand-chosen result fixtures of tests/test_compare.c and the
# compare/plot e2e tests (shape of `replay run -o`).  The numbers are
# picked so the expected comparison is computable by hand:
#   hdd-seq: runs 1.9e9 2.0e9 2.2e9 -> median 2.0e9 (baseline)
#   ssd-seq: runs 0.9e9 1.0e9 1.1e9 -> 0.50 [0.45-0.55], outside the spread
#   hdd-par: runs 3.0e9 3.1e9 3.3e9 -> median 3.1e9
#   ssd-par: runs 2.9e9 3.0e9 3.2e9 -> 0.97 [0.94-1.03], within the spread
# write latency: value(p) = A + B*p; hdd A=100000 B=2000 (p50 200 us,
# p99 298 us), ssd = hdd / 4 (p50 50 us, p99 74.5 us).
# parallel read: rank 0 value(p) = 1000*p, rank 1 = 200000 + 1000*p, same N:
# pooled p50 = 99.5 us (rank 0's p99.5, the first percentile of its rank 100),
# pooled p99 = rank 1's op of rank 98, placed between its p95 and p99 (298.0 us).
import json, os
PCTS = [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99]
HERE = os.path.dirname(os.path.abspath(__file__))

def lat(a, b, n, mn, mx, scale=1.0):
    return {"min": int(mn * scale), "max": int(mx * scale), "mean": (a + 50 * b) * scale,
            "stddev": 29 * b * scale, "N": n,
            "percentile": {"%f" % p: int(round((a + b * p) * scale)) for p in PCTS}}

def cls(n, nbytes, latency, secs):
    return {"io_bytes": nbytes, "bw_bytes": int(nbytes / secs), "iops": n / secs,
            "total_ios": n, "short_ios": 0, "errors": 0, "lat_ns": latency}

def job(rank, cns, classes, tl):
    j = {"rank": rank, "pid": 1000 + rank, "copy": 0, "cpuset": str(rank % 2), "numa_node": 0,
         "completion_ns": int(cns), "io_ns": int(cns * 0.9), "flush_ns": int(cns * 0.1)}
    j.update(classes)
    j["timeline"] = {"interval_ns": 100000000, "bytes": tl}
    return j

def result(target, mode, procs, runs_c, dev_scale, trace):
    runs = []
    for c in runs_c:
        jobs = []
        for r in range(procs):
            jc = c if (mode == "parallel" or r == procs - 1) else c * (0.8 + 0.05 * r)
            classes = {"write": cls(400, 400 * 65536, lat(100000, 2000, 400, 60000, 400000, dev_scale), jc / 1e9),
                       "open": cls(2, 0, lat(10000, 100, 2, 9000, 30000, dev_scale), jc / 1e9)}
            if mode == "parallel":
                a = 0 if r == 0 else 200000
                classes["read"] = cls(100, 100 * 4096, lat(a, 1000, 100, a + 500, a + 100000, dev_scale), jc / 1e9)
            step = 65536 * 400 // 10
            tl = [min(step * (k + 1) * (1 + r) // 2, 65536 * 400) for k in range(int(jc / 1e8) + 1)]
            jobs.append(job(r, jc, classes, tl))
        runs.append({"completion_ns": int(c), "io_ns": int(c * 0.9), "flush_ns": int(c * 0.1),
                     "incomplete": False, "jobs": jobs})
    cs = sorted(runs_c)
    mean = sum(cs) / len(cs)
    return {"replay version": "0.1.0", "timestamp": 1763700000,
            "host": {"hostname": "fixture", "kernel": "6.1.0", "cpus": 2},
            "target": target,
            "options": {"mode": mode, "processes": procs, "engine": "sync", "depth": 1, "direct": False,
                        "repeats": len(runs_c), "trace": [trace], "format": "strace", "drop_caches": True},
            "runs": runs,
            "summary": {"completion_ns": {"min": cs[0], "median": cs[len(cs) // 2], "max": cs[-1], "mean": mean,
                                          "stddev": (sum((x - mean) ** 2 for x in cs) / len(cs)) ** 0.5},
                        "runs": len(cs)}}

HDD = {"dir": "/mnt/hdd/replay", "fstype": "ext4", "device": "/dev/sdb", "rotational": 1, "scheduler": "mq-deadline"}
SSD = {"dir": "/mnt/ssd/replay", "fstype": "xfs", "device": "/dev/nvme0n1", "rotational": 0, "scheduler": "none"}
T = "/data/traces/s3d.strace"

def dump(name, obj):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")

hs = result(HDD, "sequential", 3, [2.2e9, 1.9e9, 2.0e9], 1.0, T)
ss = result(SSD, "sequential", 3, [1.0e9, 0.9e9, 1.1e9], 0.25, T)
hp = result(HDD, "parallel", 2, [3.1e9, 3.3e9, 3.0e9], 1.0, T)
sp = result(SSD, "parallel", 2, [3.0e9, 2.9e9, 3.2e9], 0.25, T)
dump("hdd-seq.json", hs)
dump("ssd-seq.json", ss)
dump("hdd-par.json", hp)
dump("ssd-par.json", sp)
dump("hdd-all.json", [hs, hp])            # several configurations in one file
dump("ssd/s3d-sequential-3.json", ss)       # a directory of results
dump("ssd/s3d-parallel-2.json", sp)
# one incomplete run: only 2 of 3 runs count (0.9e9 and 1.1e9 -> median 1.0e9)
inc = result(SSD, "sequential", 3, [0.9e9, 0.1e9, 1.1e9], 0.25, T)
inc["runs"][1]["incomplete"] = True
dump("ssd-seq-incomplete.json", inc)
