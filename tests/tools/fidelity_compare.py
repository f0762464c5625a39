#!/usr/bin/env python3
"""fidelity_compare.py - is a replay op for op equal to its trace?

  fidelity_compare.py TRACE.json REPLAY.json RESULT.json [--nodata]
                      [--sizes SIZES --target TARGET --root ROOT]

TRACE.json:  strace_oracle.py of the captured program (--root ROOT)
REPLAY.json: strace_oracle.py of `strace -f -y replay run ...` (--root ROOT
             --strip TARGET)
RESULT.json: replay's result; its jobs name the worker pid and the traced
             rank ("pid N") it replayed.
--nodata:    the engine's data ops are invisible to strace (io_uring):
             compare only that no visible op contradicts the trace.
--sizes:     lines "SIZE PATH" of the files the traced program left
             (find ROOT -type f -printf '%s %p\\n'); each one the trace
             opened must exist under TARGET with that size.  Syncs a worker
             issues after its last traced op are the end-of-run flush.

Per traced pid, the sequence of (kind, path, offset, length) must be equal;
a traced O_APPEND write (offset null) matches any offset.  Prints a summary
line per rank; exit 1 on the first difference, with context.
"""
import json
import os
import sys


def jobs_of(result):
    runs = result.get('runs') or []
    if runs and runs[0].get('jobs'):
        return runs[0]['jobs']
    return result.get('jobs', [])


def traced_pid(job):
    name = job.get('rank_name') or job.get('jobname') or ''
    parts = name.split()
    if len(parts) == 2 and parts[0] == 'pid' and parts[1].isdigit():
        return parts[1]
    return None


def same(e, g):
    if e[0] != g[0] or e[1] != g[1] or e[3] != g[3]:
        return False
    return e[2] is None or e[2] == g[2]


def fmt(o):
    return '%s %s off=%s len=%s' % (o[0], o[1], o[2], o[3])


def main(argv):
    args = argv[1:]
    nodata = '--nodata' in args
    opts = {}
    pos = []
    i = 0
    while i < len(args):
        if args[i] in ('--sizes', '--target', '--root'):
            opts[args[i]] = args[i + 1]; i += 2
        elif args[i] == '--nodata':
            i += 1
        else:
            pos.append(args[i]); i += 1
    tdoc = json.load(open(pos[0]))
    trace = tdoc['pids']
    touched = set(tdoc.get('touched', []))
    replay = json.load(open(pos[1]))['pids']
    result = json.load(open(pos[2]))
    workers = {}
    for j in jobs_of(result):
        if j.get('copy', 0) != 0:
            continue
        tp = traced_pid(j)
        if tp is not None:
            workers[tp] = str(j['pid'])
    bad = 0
    for tp, want in sorted(trace.items()):
        if tp not in workers:
            print('FAIL pid %s: %d traced ops on the files, no worker replayed it' % (tp, len(want)))
            bad += 1
            continue
        got = replay.get(workers[tp], [])
        # the end-of-run flush: syncs after the last traced op
        while len(got) > len(want) and got[-1][0] in ('fsync', 'fdatasync'):
            got = got[:-1]
        if nodata:
            want = [o for o in want if o[0] not in ('read', 'write', 'fsync', 'fdatasync')]
            got = [o for o in got if o[0] not in ('read', 'write', 'fsync', 'fdatasync')]
        n = min(len(want), len(got))
        k = next((x for x in range(n) if not same(want[x], got[x])), n)
        if k < n or len(want) != len(got):
            print('FAIL pid %s (worker %s): op %d of %d traced / %d replayed differs'
                  % (tp, workers[tp], k, len(want), len(got)))
            for x in range(max(0, k - 2), min(k + 3, max(len(want), len(got)))):
                w = fmt(want[x]) if x < len(want) else '-'
                g = fmt(got[x]) if x < len(got) else '-'
                print('  %s %4d traced:   %s' % ('>' if x == k else ' ', x, w))
                print('  %s %4d replayed: %s' % ('>' if x == k else ' ', x, g))
            bad += 1
            continue
        kinds = {}
        for o in want:
            kinds[o[0]] = kinds.get(o[0], 0) + 1
        print('ok pid %s: %d ops equal (%s)' % (tp, len(want),
              ', '.join('%s %d' % kv for kv in sorted(kinds.items()))))
    for wp in replay:
        if wp not in workers.values():
            continue
    if '--sizes' in opts:
        tgt, root = opts['--target'], opts['--root']
        nsizes = 0
        for line in open(opts['--sizes']):
            size, path = line.rstrip('\n').split(' ', 1)
            if path not in touched:
                continue    # never opened by the traced program
            nsizes += 1
            rel = os.path.relpath(path, '/')
            p = os.path.join(tgt, rel)
            try:
                got = os.stat(p).st_size
            except OSError as e:
                print('FAIL final size: %s: %s' % (path, e.strerror))
                bad += 1
                continue
            if got != int(size):
                print('FAIL final size: %s: %d replayed, %s traced' % (path, got, size))
                bad += 1
        if not bad:
            print('ok final sizes: %d files equal' % nsizes)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
