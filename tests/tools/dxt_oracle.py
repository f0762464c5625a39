#!/usr/bin/env python3
"""dxt_oracle.py - an independent reading of darshan-dxt-parser text, for the
tests of replay's DXT reader.  It shares no code with replay: it splits lines
with Python and trusts nothing but the text.

  dxt_oracle.py counts DUMP [posix|mpiio]
      JSON: per (file, rank) of the layer, the block header's write_count
      and read_count and the sum of the listed lengths; totals; Darshan's
      access-size buckets; ranks per host; the OST set of each Lustre file.
  dxt_oracle.py ops DUMP [posix|mpiio]
      JSON: per rank of the layer, its segments merged by start time (ties
      in the order the text lists them) as [kind, path, offset, length].

DUMP may be gzip-compressed.
"""
import gzip
import json
import sys

BOUNDS = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824]
LABELS = ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
          "10M_100M", "100M_1G", "1G_PLUS"]


def bucket(n):
    for i, b in enumerate(BOUNDS):
        if n <= b:
            return LABELS[i]
    return LABELS[-1]


def read(path, layer):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    want = {"posix": "DXT_POSIX", "mpiio": "DXT_MPIIO"}[layer]
    module = None
    blocks = []          # dicts
    cur = None
    pos = 0
    with opener(path, "rt") as f:
        for line in f:
            line = line.rstrip("\n")
            s = line.strip()
            if s.startswith("# ") and s.endswith(" module data"):
                module = s[2:-len(" module data")]
                cur = None
                continue
            if s.startswith("# DXT, file_id:"):
                name = s.split(", file_name: ", 1)[1]
                cur = {"module": module, "name": name, "segs": [], "osts": set(), "mdt": False}
                blocks.append(cur)
            elif s.startswith("# DXT, rank:"):
                r, h = s[len("# DXT, rank: "):].split(", hostname: ")
                cur["rank"] = int(r)
                cur["host"] = h
            elif s.startswith("# DXT, write_count:"):
                w, r = s[len("# DXT, write_count: "):].split(", read_count: ")
                cur["wc"], cur["rc"] = int(w), int(r)
            elif s.startswith("#") and "[Component" in s:
                cnt = int(s.split("stripe_count: ")[1].split(",")[0])
                if cnt == 0:
                    cur["mdt"] = True
                cur["osts"].update(int(x) for x in s.split("OSTs:")[1].split())
            elif s.startswith("# DXT, Lustre OST obdidx:"):
                cur["osts"].update(int(x) for x in s.split(":")[1].split())
            elif s.startswith("X_POSIX") or s.startswith("X_MPIIO"):
                t = s.split()
                # the two time fields are the first two tokens holding a '.'
                ti = [i for i, x in enumerate(t) if "." in x][:2]
                fixed = t[:ti[1] + 1]
                off = int(fixed[4]) if len(fixed) == 8 else -1
                ln = int(fixed[-3])
                start = round(float(fixed[-2]) * 10000)
                pos += 1
                cur["segs"].append((fixed[2], off, ln, start, pos))
    return [b for b in blocks if b["module"] == want], blocks


def counts(path, layer):
    blocks, every = read(path, layer)
    fr = []
    tot = {"reads": 0, "writes": 0, "bytes_read": 0, "bytes_written": 0}
    hist = {"read": dict.fromkeys(LABELS, 0), "write": dict.fromkeys(LABELS, 0)}
    hosts = {}
    osts = {}
    for b in blocks:
        w = [s for s in b["segs"] if s[0] == "write"]
        r = [s for s in b["segs"] if s[0] == "read"]
        assert len(w) == b["wc"] and len(r) == b["rc"], "header counts disagree in the fixture"
        e = {"path": b["name"], "rank": b["rank"], "writes": b["wc"], "reads": b["rc"],
             "bytes_written": sum(s[2] for s in w), "bytes_read": sum(s[2] for s in r)}
        fr.append(e)
        for k in tot:
            tot[k] += e[k]
        for s in b["segs"]:
            hist[s[0]][bucket(s[2])] += 1
        hosts.setdefault(b["host"], set()).add(b["rank"])
    # a file's Lustre layout, from any block that prints it (POSIX ones)
    names = {b["name"] for b in blocks}
    for b in every:
        if b["name"] in names and (b["osts"] or b["mdt"]):
            osts[b["name"]] = ",".join((["mdt"] if b["mdt"] else []) + [str(o) for o in sorted(b["osts"])])
    return {"file_ranks": fr, "totals": tot, "hist": hist,
            "hosts": {h: sorted(r) for h, r in hosts.items()}, "osts": osts}


def ops(path, layer):
    per = {}
    for b in read(path, layer)[0]:
        for s in b["segs"]:
            per.setdefault(b["rank"], []).append((s[3], s[4], s[0], b["name"], s[1], s[2]))
    return {str(r): [[k, p, o, n] for (_, _, k, p, o, n) in sorted(v, key=lambda x: (x[0], x[1]))]
            for r, v in sorted(per.items())}


if __name__ == "__main__":
    what, dump = sys.argv[1], sys.argv[2]
    layer = sys.argv[3] if len(sys.argv) > 3 else "posix"
    json.dump(counts(dump, layer) if what == "counts" else ops(dump, layer), sys.stdout)
