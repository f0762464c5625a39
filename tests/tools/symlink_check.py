#!/usr/bin/env python3
"""symlink_check.py - what a replay did with the symbolic links of a capture,
read from strace output only (not replay's parser, not its JSON).

  symlink_check.py CAPTURE REPLAY_PREFIX TARGET ALLOWED CWD NCOPIES

CAPTURE: the strace -f -y capture of the program (one file).
REPLAY_PREFIX: the strace -ff -y output of the replay (PREFIX.PID files).
TARGET: the replay's target (a real path); ALLOWED: the one other
directory the replay may create files in (its TMPDIR: the .ops it writes);
CWD: the replay's cwd (for calls without a dirfd); NCOPIES: copies of the
file set (copy k > 0 under TARGET/.replay-copy-k).

Checks, and exits 1 naming the first that fails:
 1. every successful symlink/symlinkat of the capture was made by the
    replay, in every copy, at TARGET[/.replay-copy-k]/<traced link path>;
 2. with content: a relative one that stays beneath / as it was; any other
    pointing (lexically) at the traced path it named, in the same copy;
 3. every link the replay made points inside its copy;
 4. each lstat-like probe and unlink the capture made of a link after
    making it (git's probe) succeeded in the replay, after the link;
 5. nothing was created, removed or renamed outside TARGET and ALLOWED.
Prints one summary line.
"""
import glob
import os
import re
import sys

LINE = re.compile(r'^(\d+)\s+(?:\d\d:\d\d:\d\d\.\d+\s+)?(.*)$')
CALL = re.compile(r'^([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)')


def logical_lines(text, pid_prefix):
    """(pid, call text) with <unfinished ...> / resumed pieces joined."""
    pending = {}
    for raw in text.splitlines():
        if pid_prefix is None:
            m = LINE.match(raw)
            if not m:
                continue
            pid, rest = m.group(1), m.group(2)
        else:
            pid = pid_prefix
            rest = re.sub(r'^\d\d:\d\d:\d\d\.\d+\s+', '', raw)
        if rest.endswith('<unfinished ...>'):
            pending[pid] = rest[:-len('<unfinished ...>')].rstrip()
            continue
        m = re.match(r'^<\.\.\. [a-z0-9_]+ resumed>\s?(.*)$', rest)
        if m:
            rest = pending.pop(pid, '') + m.group(1)
        yield pid, rest


def split_args(s):
    """Top-level comma-separated arguments (quotes, braces, <...> kept)."""
    out, depth, cur, q, i = [], 0, [], False, 0
    while i < len(s):
        c = s[i]
        if q:
            cur.append(c)
            if c == '\\':
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                q = False
        elif c == '"':
            q = True
            cur.append(c)
        elif c in '{[(<':
            depth += 1
            cur.append(c)
        elif c in '}])>':
            depth -= 1
            cur.append(c)
        elif c == ',' and depth == 0:
            out.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append(''.join(cur).strip())
    return out


def unq(a):
    """A quoted strace string (the escapes our test paths can hold)."""
    a = a.strip()
    if a.endswith('...'):
        a = a[:-3]
    if not (a.startswith('"') and a.endswith('"')):
        return None
    return bytes(a[1:-1], 'utf-8').decode('unicode_escape')


def deco(a):
    """The -y path of a descriptor argument: '5</x/y>' -> '/x/y'."""
    m = re.match(r'^(?:AT_FDCWD|-?\d+)<(.*)>$', a.strip())
    return m.group(1) if m else None


def calls(text, pid_prefix=None):
    for pid, rest in logical_lines(text, pid_prefix):
        m = CALL.match(rest)
        if not m:
            continue
        yield pid, m.group(1), split_args(m.group(2)), m.group(3)


def ok(ret):
    return ret != '?' and not ret.startswith('-')


def where(dirarg, name, cwd):
    if name is None:
        return None
    if name.startswith('/'):
        return os.path.normpath(name)
    d = deco(dirarg) if dirarg is not None else cwd
    if d is None:
        d = cwd
    return os.path.normpath(os.path.join(d, name))


def climbs(link, content):
    """Does the relative content of a link at (absolute) link climb above /?"""
    lvl = os.path.dirname(link).rstrip('/').count('/')
    for c in content.split('/'):
        if c == '..':
            lvl -= 1
            if lvl < 0:
                return True
        elif c not in ('', '.'):
            lvl += 1
    return False


def main():
    cap, prefix, target, allowed, cwd, ncopies = sys.argv[1:7]
    ncopies = int(ncopies)
    target = os.path.normpath(target)
    allowed = os.path.normpath(allowed)
    roots = [target] + [os.path.join(target, '.replay-copy-%d' % k) for k in range(1, ncopies)]

    # the capture: successful links (path, content, order), probes after them
    made, probes, cwd_of = [], [], {}
    with open(cap, errors='replace') as f:
        ctext = f.read()
    for pid, name, a, ret in calls(ctext):
        for x in a:         # a process's cwd, as -y shows AT_FDCWD
            if x.startswith('AT_FDCWD<'):
                cwd_of[pid] = deco(x)
        if name in ('symlink', 'symlinkat') and ok(ret):
            content = unq(a[0])
            link = where(a[1] if name == 'symlinkat' else None,
                         unq(a[2] if name == 'symlinkat' else a[1]), cwd_of.get(pid, '/'))
            if content is not None and link is not None:
                made.append((link, content))
        elif made and ok(ret) and name in ('lstat', 'newfstatat', 'statx', 'unlink', 'unlinkat'):
            if name in ('lstat', 'unlink'):
                p = where(None, unq(a[0]), cwd_of.get(pid, '/'))
            else:
                p = where(a[0], unq(a[1]), cwd_of.get(pid, '/'))
            nofollow = name in ('lstat', 'unlink', 'unlinkat') or 'AT_SYMLINK_NOFOLLOW' in ','.join(a)
            if p and nofollow and any(p == l for l, _ in made):
                probes.append((p, 'unlink' if name.startswith('unlink') else 'lstat'))
    if not made:
        sys.exit('FAIL: the capture has no successful symlink: not what this test is about')

    # the replay: links made, probes done, everything created or removed
    rmade, rstat, runlink, outside = [], set(), set(), []
    seq = 0
    for fn in sorted(glob.glob(prefix + '.*')):
        with open(fn, errors='replace') as f:
            text = f.read()
        pid = fn.rsplit('.', 1)[1]
        for _, name, a, ret in calls(text, pid):
            seq += 1
            touched = []
            if name == 'symlinkat':
                p = where(a[1], unq(a[2]), cwd)
                touched.append(p)
                if ok(ret):
                    rmade.append((p, unq(a[0]), fn, seq))
            elif name in ('openat', 'openat2', 'open', 'creat'):
                flags = ','.join(a[2:]) if name != 'open' else ','.join(a[1:])
                p = where(a[0] if name in ('openat', 'openat2') else None,
                          unq(a[1] if name in ('openat', 'openat2') else a[0]), cwd)
                if name == 'creat' or 'O_CREAT' in flags or 'O_TMPFILE' in flags:
                    touched.append(p)
                if name != 'open' and ok(ret) and 'O_PATH' in flags and 'O_NOFOLLOW' in flags:
                    rstat.add((p, fn, seq))
            elif name in ('mkdirat', 'unlinkat'):
                p = where(a[0], unq(a[1]), cwd)
                touched.append(p)
                if name == 'unlinkat' and ok(ret):
                    runlink.add((p, fn, seq))
            elif name in ('mkdir', 'unlink', 'rmdir', 'symlink', 'truncate'):
                touched.append(where(None, unq(a[-1] if name == 'symlink' else a[0]), cwd))
            elif name in ('renameat', 'renameat2', 'linkat'):
                touched += [where(a[0], unq(a[1]), cwd), where(a[2], unq(a[3]), cwd)]
            elif name in ('rename', 'link'):
                touched += [where(None, unq(a[0]), cwd), where(None, unq(a[1]), cwd)]
            for p in touched:
                if p is None or not any(p == r or p.startswith(r + '/') for r in (target, allowed)):
                    outside.append('%s: %s(%s) = %s' % (fn, name, ', '.join(a)[:160], ret))

    if outside:
        sys.exit('FAIL: the replay touched paths outside the target: ' + '; '.join(outside[:5]))
    nchecked = 0
    for link, content in made:
        for root in roots:
            want = os.path.normpath(root + link)
            got = [r for r in rmade if r[0] == want]
            if not got:
                sys.exit('FAIL: no symlinkat of %s (traced %s -> %s)' % (want, link, content))
            lexical = os.path.normpath(os.path.join(os.path.dirname(link), content))
            for _, c, _, _ in got:
                if not content.startswith('/') and c == content:
                    continue        # relative, kept
                dest = os.path.normpath(os.path.join(os.path.dirname(want), c))
                if c.startswith('/') or dest != os.path.normpath(root + lexical):
                    sys.exit('FAIL: %s -> %s made with %r (leads to %s, want %s)' %
                             (want, content, c, dest, os.path.normpath(root + lexical)))
                if not content.startswith('/') and not climbs(link, content):
                    sys.exit('FAIL: %s: relative content %r rewritten as %r' % (want, content, c))
            nchecked += 1
    for p, c, _, _ in rmade:
        root = max((r for r in roots if p.startswith(r + '/')), key=len)
        dest = os.path.normpath(os.path.join(os.path.dirname(p), c))
        if not dest.startswith(root + '/') and dest != root:
            sys.exit('FAIL: the replay made %s -> %s, which leads out of its copy %s' % (p, c, root))
    nprobes = 0
    for p, kind in probes:
        for root in roots:
            want = os.path.normpath(root + p)
            pool = runlink if kind == 'unlink' else rstat
            # in the process that made the link, after it
            if not any(q == want and fq == fm and s > sm
                       for q, fq, s in pool for m, _, fm, sm in rmade if m == want):
                sys.exit('FAIL: the traced %s of the link %s did not succeed in the replay (%s)' %
                         (kind, p, want))
            nprobes += 1
    print('ok: %d traced links made in %d cop%s (%d checks), %d probes of them succeeded, '
          'nothing touched outside the target' %
          (len(made), ncopies, 'y' if ncopies == 1 else 'ies', nchecked, nprobes))


if __name__ == '__main__':
    main()
