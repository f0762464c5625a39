#!/usr/bin/env python3
"""darshan_log_write.py - write a binary Darshan log holding what a
darshan-dxt-parser text dump shows, for the tests of replay's own reader of
binary logs (src/trace/darshan_log.c).  An independent writer: it shares no
code with replay, and lays the log out from the format's facts (Darshan's
darshan-log-format.h, darshan-dxt-log-format.h, darshan-lustre-log-format.h).

    darshan_log_write.py DUMP OUT [--comp zlib|bzip2|none] [--big-endian]
                         [--version 3.10|3.20|3.21|3.41]
                         [--truncate N] [--corrupt-module NAME]

DUMP is darshan-dxt-parser text (plain or .gz); the log written holds its
job header (version, uid, jobid, times, nprocs, metadata, command line,
mount table), its record names, its DXT_POSIX and DXT_MPIIO records (at the
module versions the dump names: segment size follows), the incomplete
flags its warnings show, and a LUSTRE module made from its stripe
components (version 1 or 2 as the dump says).  Other modules (POSIX,
STDIO, ...) are not written: their data is not in a DXT dump.  Each rank's
records of a module are a compressed stream of their own, as the Darshan
runtime writes them.  --version overrides the format version (the module
ids and header layout follow it); --truncate cuts the file to N bytes;
--corrupt-module flips bytes in the middle of that module's region.
"""
import argparse
import bz2
import gzip
import re
import struct
import sys
import zlib

MODS = ["NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q",
        "LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP",
        "DFS", "DAOS"]
MAGIC = 6567223


def log_id(today, minor):
    """The id a log of this format version gives today's module id."""
    for i in range(64):
        t = i
        if minor < 20 and t >= 4:
            t += 1
        if minor < 41 and t >= 6:
            t += 1
        if t == today:
            return i
    raise ValueError("module %d has no id in format 3.%d" % (today, minor))


def parse_dump(path):
    op = gzip.open if path.endswith(".gz") else open
    d = {"meta": [], "mounts": [], "vers": {}, "partial": set(), "records": {},
         "names": {}, "lustre": {}, "exe": None}
    mod = None
    blk = None
    with op(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"# darshan log version: (\S+)", line)
            if m:
                d["version"] = m.group(1)
                continue
            for key in ("uid", "jobid", "start_time", "end_time", "nprocs"):
                if line.startswith("# %s: " % key):
                    d[key] = int(line.split(": ", 1)[1])
            if line.startswith("# exe: "):
                d["exe"] = line[len("# exe: "):]
            elif line.startswith("# run time: "):
                d["run"] = float(line.split(": ", 1)[1])
            elif line.startswith("# metadata: "):
                k, v = line[len("# metadata: "):].split(" = ", 1)
                d["meta"].append((k, v))
            elif line.startswith("# mount entry:\t"):
                _, mp, ty = line.split("\t")
                d["mounts"].append((ty, mp))
            elif re.match(r"# (\S+) module: \d+ bytes \(compressed\), ver=(\d+)", line):
                m = re.match(r"# (\S+) module: \d+ bytes \(compressed\), ver=(\d+)", line)
                if m.group(1) in MODS:
                    d["vers"][MODS.index(m.group(1))] = int(m.group(2))
            elif re.match(r"# (DXT_POSIX|DXT_MPIIO) module data", line):
                mod = MODS.index(line.split()[1])
                d["records"].setdefault(mod, [])
            elif line.startswith("# *WARNING*: The ") and "incomplete" in line:
                d["partial"].add(MODS.index(line.split()[3]))
            elif line.startswith("# DXT, file_id: "):
                m = re.match(r"# DXT, file_id: (\d+), file_name: (.*)$", line)
                blk = {"id": int(m.group(1)), "segs": []}
                d["names"].setdefault(blk["id"], m.group(2))
                d["records"][mod].append(blk)
            elif line.startswith("# DXT, rank: "):
                m = re.match(r"# DXT, rank: (-?\d+), hostname: (.*)$", line)
                blk["rank"], blk["host"] = int(m.group(1)), m.group(2)
            elif line.startswith("# DXT, write_count: "):
                m = re.match(r"# DXT, write_count: (\d+), read_count: (\d+)", line)
                blk["nw"], blk["nr"] = int(m.group(1)), int(m.group(2))
            elif line == "# DXT, Lustre stripe components:":
                # a file's layout: from the first block that shows it
                blk["lcollect"] = blk["id"] not in d["lustre"]
                if blk["lcollect"]:
                    d["lustre"][blk["id"]] = {"rank": blk["rank"], "comps": []}
            elif line.startswith("#\t[Component "):
                m = re.match(r"#\t\[Component \d+\] stripe_ext: (\d+) - (EOF|\d+), "
                             r"stripe_size: (-?\d+), stripe_count: (\d+), OSTs:(.*)$", line)
                if blk.get("lcollect"):
                    d["lustre"][blk["id"]]["comps"].append(
                        (int(m.group(3)), int(m.group(4)), int(m.group(1)),
                         -1 if m.group(2) == "EOF" else int(m.group(2)),
                         [int(x) for x in m.group(5).split()]))
            elif re.match(r"^\s+X_(POSIX|MPIIO)\s", line):
                f = line.split()
                blk["segs"].append((int(f[4]), int(f[5]), float(f[6]), float(f[7])))
    if d["exe"] is None:
        raise SystemExit("%s: no '# exe:' line" % path)
    return d


def compress(kind, data):
    if kind == "zlib":
        return zlib.compress(data)
    if kind == "bzip2":
        return bz2.compress(data)
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("out")
    ap.add_argument("--comp", default="zlib", choices=["zlib", "bzip2", "none"])
    ap.add_argument("--big-endian", action="store_true")
    ap.add_argument("--version")
    ap.add_argument("--truncate", type=int)
    ap.add_argument("--corrupt-module")
    a = ap.parse_args()
    d = parse_dump(a.dump)
    ver = a.version or d["version"]
    minor = int(ver.split(".")[1])
    E = ">" if a.big_endian else "<"
    comp = {"zlib": 0, "bzip2": 1, "none": 2}[a.comp]

    # job region: the fixed fields, metadata, command line and mount table
    meta = "".join("%s=%s\n" % kv for kv in d["meta"]).encode()[:1023]
    start, end = d["start_time"], d["end_time"]
    if minor >= 41:
        diff = d.get("run", end - start) - (end - start)
        sns, ens = (0, round(diff * 1e9)) if diff >= 0 else (round(-diff * 1e9), 0)
        fixed = struct.pack(E + "7q", d["uid"], start, sns, end, ens, d["nprocs"], d["jobid"])
    else:
        fixed = struct.pack(E + "5q", d["uid"], start, end, d["nprocs"], d["jobid"])
    trail = d["exe"] + "".join("\n%s\t%s" % m for m in d["mounts"])
    job = fixed + meta.ljust(1024, b"\0") + trail.encode("utf-8", "surrogateescape")
    job = job.ljust(4096, b"\0")

    # names: two streams, to show a region may hold several
    recs = [struct.pack(E + "Q", i) + n.encode("utf-8", "surrogateescape") + b"\0"
            for i, n in d["names"].items()]
    half = len(recs) // 2
    names = [b"".join(recs[:half]), b"".join(recs[half:])]

    mods = {}          # today's id -> list of (rank, bytes) in order
    vers = dict(d["vers"])
    for mid, blocks in d["records"].items():
        v = vers.get(mid, 1)
        thread = (mid == 10 and v >= 2) or (mid == 11 and v >= 3)
        out = []
        for b in blocks:
            host = b["host"].encode()[:63].ljust(64, b"\0")
            parts = [struct.pack(E + "Qqq64sqq", b["id"], b["rank"], -1, host, b["nw"], b["nr"])]
            seg = struct.Struct(E + ("qqddQ" if thread else "qqdd"))
            for (off, ln, s, e) in b["segs"]:
                parts.append(seg.pack(off, ln, s, e, 0) if thread else seg.pack(off, ln, s, e))
            out.append((b["rank"], b"".join(parts)))
        mods[mid] = out
    if d["lustre"]:
        v = vers.get(8, 2)
        out = []
        for fid, L in d["lustre"].items():
            osts = [o for c in L["comps"] for o in c[4]]
            if v == 1:
                size, count = L["comps"][0][0], L["comps"][0][1]
                r = struct.pack(E + "Qq5q", fid, L["rank"], 0, 0, 0, size, count)
                r += b"".join(struct.pack(E + "q", o) for o in osts)
            else:
                # one unused component after the real ones (stripe size -1),
                # as the runtime leaves room for more
                comps = L["comps"] + [(-1, 0, 0, 0, [])]
                r = struct.pack(E + "Qqqq", fid, L["rank"], len(comps), len(osts))
                for (size, count, es, ee, _) in comps:
                    r += struct.pack(E + "7q16s", size, count, -1, -1, es, ee, -1, b"pool")
                r += b"".join(struct.pack(E + "q", o) for o in osts)
            out.append((L["rank"], r))
        mods[8] = out
        vers[8] = v

    nmods = 64 if minor >= 41 else 16
    hsize = 1328 if minor >= 41 else 360
    regions = [b"".join(compress(a.comp, s) for s in [job]),
               b"".join(compress(a.comp, s) for s in names if s)]
    order = sorted(mods)
    for mid in order:
        streams, cur, last = [], [], None
        for rank, r in mods[mid]:
            if last is not None and rank != last:
                streams.append(b"".join(cur))
                cur = []
            cur.append(r)
            last = rank
        streams.append(b"".join(cur))
        regions.append(b"".join(compress(a.comp, s) for s in streams if s))
    off = hsize
    maps = []
    for reg in regions:
        maps.append((off, len(reg)))
        off += len(reg)
    modmap = [(0, 0)] * nmods
    modver = [0] * nmods
    partial = 0
    for k, mid in enumerate(order):
        modmap[log_id(mid, minor)] = maps[2 + k]
    for mid, v in vers.items():
        if mid in mods:
            modver[log_id(mid, minor)] = v
    for mid in d["partial"]:
        partial |= 1 << log_id(mid, minor)
    head = ver.encode().ljust(8, b"\0") + struct.pack(E + "q", MAGIC) + bytes([comp])
    if minor >= 41:
        head += b"\0" * 7 + struct.pack(E + "Q", partial)
    else:
        head += b"\0" * 3 + struct.pack(E + "I", partial)
    head += struct.pack(E + "QQ", *maps[1])
    for m in modmap:
        head += struct.pack(E + "QQ", *m)
    head += struct.pack(E + "%dI" % nmods, *modver)
    assert len(head) == hsize, len(head)
    data = bytearray(head + b"".join(regions))
    if a.corrupt_module:
        mid = MODS.index(a.corrupt_module)
        o, n = modmap[log_id(mid, minor)]
        for i in range(o + n // 3, o + n // 3 + 16):
            data[i] ^= 0x5a
    if a.truncate is not None:
        data = data[:a.truncate]
    with open(a.out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    sys.exit(main())
