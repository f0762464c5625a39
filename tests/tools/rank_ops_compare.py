#!/usr/bin/env python3
"""rank_ops_compare.py - did two replays of one trace do the same per rank?

  rank_ops_compare.py A.oracle.json A.result.json B.oracle.json B.result.json

*.oracle.json: strace_oracle.py of `strace -f -y` of each replay (--strip
the target); *.result.json: the replays' results, whose jobs name the worker
pid and the traced rank.  For every traced rank (rank_name, copy), the data
ops its worker issued (kind, path, offset, length, in order) must be equal
in A and B, and so must the bytes the result counts for it.  Prints one
line per rank; exit 1 at any difference.
"""
import json
import sys


def jobs(result):
    out = {}
    for j in result['runs'][0]['jobs']:
        key = (j['rank_name'], j.get('copy', 0))
        b = sum(j.get(c, {}).get('done_bytes', 0) for c in ('read', 'write'))
        out[key] = (str(j['pid']), b)
    return out


def main(a_ops, a_res, b_ops, b_res):
    ao, bo = json.load(open(a_ops))['pids'], json.load(open(b_ops))['pids']
    aj, bj = jobs(json.load(open(a_res))), jobs(json.load(open(b_res)))
    bad = 0
    if set(aj) != set(bj):
        print('FAIL ranks differ: %s vs %s' % (sorted(aj), sorted(bj)))
        return 1
    for key in sorted(aj):
        (pa, ba), (pb, bb) = aj[key], bj[key]
        oa, ob = ao.get(pa, []), bo.get(pb, [])
        # the end-of-run flush: syncs after the last op
        while oa and oa[-1][0] in ('fsync', 'fdatasync'):
            oa = oa[:-1]
        while ob and ob[-1][0] in ('fsync', 'fdatasync'):
            ob = ob[:-1]
        if oa != ob:
            k = next((i for i in range(min(len(oa), len(ob))) if oa[i] != ob[i]),
                     min(len(oa), len(ob)))
            print('FAIL %s copy %d: op %d of %d / %d differs: %s vs %s' % (
                key[0], key[1], k, len(oa), len(ob),
                oa[k] if k < len(oa) else '-', ob[k] if k < len(ob) else '-'))
            bad += 1
        elif ba != bb:
            print('FAIL %s copy %d: %d bytes vs %d' % (key[0], key[1], ba, bb))
            bad += 1
        elif not oa and ba:
            print('FAIL %s copy %d: %d bytes but no data op seen under strace' % (key[0], key[1], ba))
            bad += 1
        else:
            print('ok %s copy %d: %d ops, %d bytes' % (key[0], key[1], len(oa), ba))
    return 1 if bad else 0


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
