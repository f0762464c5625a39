#!/usr/bin/env python3
"""dxt_gen.py - write a large darshan-dxt-parser dump in the shape of the
real mpi_io_test_with_dxt / ior_hdf5_example fixtures (tests/data/dxt):
every rank writes then reads its stripes of one shared Lustre file (3.5.0
layout: component lines, " [OST]" tokens, three trailing blanks) and
touches a private file; 32 ranks per node.  Deterministic.

  dxt_gen.py RANKS SEGMENTS_PER_RANK > dump.txt
"""
import sys

ranks, per = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout
w = out.write
w("# darshan log version: 3.41\n# compression method: ZLIB\n# exe: ./gen-mpi-io-test\n"
  "# uid: 1000\n# jobid: 4242\n# start_time: 1700000000\n"
  "# start_time_asci: Tue Nov 14 22:13:20 2023\n# end_time: 1700000100\n"
  "# end_time_asci: Tue Nov 14 22:15:00 2023\n"
  f"# nprocs: {ranks}\n# run time: 100.5000\n# metadata: lib_ver = 3.5.0\n\n"
  "# log file regions\n# -------------------------------------------------------\n"
  "# header: 1328 bytes (uncompressed)\n# DXT_POSIX module: 1 bytes (compressed), ver=1\n\n"
  "# mounted file systems (mount point and fs type)\n"
  "# -------------------------------------------------------\n"
  "# mount entry:\t/scratch\tlustre\n# mount entry:\t/\text4\n\n"
  "# ***************************************************\n# DXT_POSIX module data\n"
  "# ***************************************************\n")
shared_n = per - 2          # segments on the shared file; 2 on the private one
nw = shared_n // 2
nr = shared_n - nw
size = 1 << 20
osts = [3, 7, 11, 15]
hdr = ("# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)")
for r in range(ranks):
    host = f"nid{r // 32:05d}"
    # shared file: writes at t, reads later; listed writes first
    w(f"\n# DXT, file_id: 1234567890123, file_name: /scratch/gen/shared.dat\n"
      f"# DXT, rank: {r}, hostname: {host}\n# DXT, write_count: {nw}, read_count: {nr}\n"
      "# DXT, mnt_pt: /scratch, fs_type: lustre\n# DXT, Lustre stripe components:\n"
      f"#\t[Component 1] stripe_ext: 0 - EOF, stripe_size: {size}, stripe_count: 4, OSTs: 3 7 11 15\n"
      f"{hdr}   [OST]\n")
    t = 0.001 * (r % 7)
    lines = []
    for i in range(nw):
        off = (i * ranks + r) * size
        lines.append(("write", i, off, t + 0.002 * i))
    for i in range(nr):
        off = (i * ranks + r) * size
        # reads interleave with the later writes: start before the last write
        lines.append(("read", i, off, t + 0.002 * i + 0.001))
    for kind, i, off, st in lines:
        ost = osts[(off // size) % 4]
        w(f"{'X_POSIX':>8}{r:8d}{kind:>7}{i:9d}{off:16d}{size:16d}{st:12.4f}{st + 0.0007:12.4f}  "
          f" [{ost}]   \n")
    # private file, two small writes
    w(f"\n# DXT, file_id: {9000000 + r}, file_name: /scratch/gen/rank{r}.log\n"
      f"# DXT, rank: {r}, hostname: {host}\n# DXT, write_count: 2, read_count: 0\n"
      "# DXT, mnt_pt: /scratch, fs_type: lustre\n# DXT, Lustre stripe components:\n"
      "#\t[Component 1] stripe_ext: 0 - EOF, stripe_size: 1048576, stripe_count: 1, OSTs: 5\n"
      f"{hdr}   [OST]\n")
    for i in range(2):
        st = t + 0.5 + i * 0.0001
        w(f"{'X_POSIX':>8}{r:8d}{'write':>7}{i:9d}{i * 100:16d}{100:16d}{st:12.4f}{st:12.4f}   [5]   \n")
