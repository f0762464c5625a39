#!/usr/bin/env python3
"""Independent reading of an strace -f -tt -T capture: per pid, the time
in syscalls (the <dur> fields), the gaps between the end of one call and
the start of the next (think time), and the start of the last call, in ns.
Prints one JSON object {pid: {"in_ops", "think", "span", "last_start"}}.
Not the project's parser: used by the e2e tests to check it."""
import json
import re
import sys

LINE = re.compile(r'^(\d+)\s+(\d\d):(\d\d):(\d\d)\.(\d{6})\s+(.*)$')
DUR = re.compile(r'<(\d+)\.(\d{6})>\s*$')


def ns(h, m, s, us):
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 10**9 + int(us) * 1000


def main(path):
    open_call = {}          # pid -> start of an unfinished call
    per = {}
    for raw in open(path, encoding='utf-8', errors='replace'):
        m = LINE.match(raw.rstrip('\n'))
        if not m:
            continue
        pid, rest = m.group(1), m.group(6)
        t = ns(*m.group(2, 3, 4, 5))
        if rest.startswith('+++') or rest.startswith('---'):
            continue
        if rest.endswith('<unfinished ...>'):
            open_call[pid] = t
            continue
        start = open_call.pop(pid, None) if rest.startswith('<...') else t
        d = DUR.search(rest)
        if start is None or not d:
            continue
        dur = int(d.group(1)) * 10**9 + int(d.group(2)) * 1000
        p = per.setdefault(pid, {'first': start, 'end': None, 'in_ops': 0, 'think': 0,
                                 'last_start': start})
        if p['end'] is not None and start > p['end']:
            p['think'] += start - p['end']
        p['in_ops'] += dur
        p['end'] = max(p['end'] or 0, start + dur)
        p['last_start'] = start
    out = {pid: {'in_ops': p['in_ops'], 'think': p['think'],
                 'span': p['end'] - p['first'], 'last_start': p['last_start'] - p['first']}
           for pid, p in per.items()}
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1])
