#!/usr/bin/env python3
"""direct_falloc_check.py - read two strace -f -y captures (a traced program's
and the replayer's, both made at test time) on their own, not with replay's
parser, and compare what tests/e2e/direct_falloc.sh checks:

  reads FILE    every read/pread64 on a descriptor whose -y path ends in
                /FILE: the byte count asked and the result, in order
                (replay issues pread64 at explicit offsets, dd reads)
  falloc        every fallocate: file name, the set of mode names, offset,
                length and result, as a multiset (the replay runs the traced
                processes at once, ordered only where it matters: what the
                order does shows in the files' sizes, which the test checks)

Usage: direct_falloc_check.py reads FILE WANT.strace GOT.strace
       direct_falloc_check.py falloc WANT.strace GOT.strace
Exit status 0 when equal, 1 (with both lists) when not, 2 when the traced
program's capture holds none of them (nothing to compare).
"""
import re
import sys

# PID [time] name(args) = result [<dur>]; -y paths as 3</a/b/c>
LINE = re.compile(r'^(\d+)\s+(?:[\d:.]+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+|\?)')
UNFINISHED = re.compile(r'^(\d+)\s+(?:[\d:.]+\s+)?(\w+)\((.*)<unfinished \.\.\.>$')
RESUMED = re.compile(r'^(\d+)\s+(?:[\d:.]+\s+)?<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+|\?)')


def split_top(s):
    """Split a call's arguments at top-level commas (quotes and brackets
    respected)."""
    out, cur, depth, q, esc = [], [], 0, False, False
    for c in s:
        if q:
            cur.append(c)
            if esc:
                esc = False
            elif c == '\\':
                esc = True
            elif c == '"':
                q = False
            continue
        if c == '"':
            q = True
        elif c in '([{<':
            depth += 1
        elif c in ')]}>':
            depth -= 1
        elif c == ',' and depth == 0:
            out.append(''.join(cur).strip())
            cur = []
            continue
        cur.append(c)
    if cur:
        out.append(''.join(cur).strip())
    return out


def fd_path(arg):
    m = re.match(r'\s*-?\d+<(.*)>\s*$', arg)
    return m.group(1) if m else None


def calls(path):
    """(name, args, result) of every complete call, resumed ones joined."""
    pending = {}
    with open(path, errors='replace') as f:
        for raw in f:
            line = raw.rstrip('\n')
            m = UNFINISHED.match(line)
            if m:
                pending[(m.group(1), m.group(2))] = m.group(3)
                continue
            m = RESUMED.match(line)
            if m:
                head = pending.pop((m.group(1), m.group(2)), None)
                if head is None:
                    continue
                yield m.group(2), split_top(head + m.group(3)), m.group(4)
                continue
            m = LINE.match(line)
            if m:
                yield m.group(2), split_top(m.group(3)), m.group(4)


def fields(s):
    """{key: value} of a struct strace prints: {a=1, b=2</p>}"""
    s = s.strip()
    if not (s.startswith('{') and s.endswith('}')):
        return {}
    return dict(kv.split('=', 1) for kv in split_top(s[1:-1]) if '=' in kv)


def reads(path, name):
    """(bytes asked, bytes got) of each read of the file: read, pread64,
    and libaio's IOCB_CMD_PREAD iocbs (io_submit), their results from
    io_getevents' events (matched by aio_data)"""
    out, byid = [], {}
    for call, a, ret in calls(path):
        if call in ('read', 'pread64') and len(a) >= 3:
            p = fd_path(a[0])
            if p is not None and p.endswith('/' + name):
                out.append([int(a[2]), int(ret) if ret != '?' else None])
        elif call == 'io_submit' and len(a) >= 3:
            arr = a[2].strip()
            for cb in split_top(arr[1:-1]) if arr.startswith('[') else []:
                f = fields(cb)
                p = fd_path(f.get('aio_fildes', ''))
                if f.get('aio_lio_opcode') != 'IOCB_CMD_PREAD' or p is None or \
                        not p.endswith('/' + name):
                    continue
                out.append([int(f.get('aio_nbytes', '0')), None])
                byid[f.get('aio_data', '')] = out[-1]
        elif call == 'io_getevents' and len(a) >= 4:
            arr = a[3].strip()
            for ev in split_top(arr[1:-1]) if arr.startswith('[') else []:
                f = fields(ev)
                r = byid.pop(f.get('data', ''), None)
                if r is not None and 'res' in f:
                    r[1] = int(f['res'])
    return [tuple(r) for r in out]


def fallocs(path):
    out = []
    for call, a, ret in calls(path):
        if call != 'fallocate' or len(a) < 4:
            continue
        p = fd_path(a[0])
        if p is None:
            continue
        mode = a[1].split('/*')[0].strip()
        names = frozenset(x.strip() for x in mode.split('|') if x.strip() not in ('', '0'))
        out.append((p.rsplit('/', 1)[-1], tuple(sorted(names)), int(a[2]), int(a[3]),
                    int(ret) if ret != '?' else None))
    return out


def main(argv):
    # the replay skips the calls the trace shows failing
    if len(argv) == 5 and argv[1] == 'reads':
        want = [r for r in reads(argv[3], argv[2]) if r[1] is None or r[1] >= 0]
        got = reads(argv[4], argv[2])
    elif len(argv) == 4 and argv[1] == 'falloc':
        want = [f for f in fallocs(argv[2]) if f[4] is None or f[4] >= 0]
        got = sorted(fallocs(argv[3]))
        want = sorted(want)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    if not want:
        print('nothing traced to compare')
        return 2
    if want != got:
        print('traced:   %r' % (want,))
        print('replayed: %r' % (got,))
        return 1
    print('ok %d calls' % len(want))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
