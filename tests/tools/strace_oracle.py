#!/usr/bin/env python3
"""strace_oracle.py - an independent reading of strace -y output.

Written for the fidelity tests, separately from replay's own parser (it
shares no code with src/trace/strace.c): it reads strace output made with
-y (fd path decorations), -f (pid prefix, or "[pid N]") or -ff (one file per
pid, FILE.PID), and prints, per pid, the data operations on files beneath
ROOT, in order, as JSON:

  {"pids": {"1234": [["write", "/r/a", 0, 4096], ["fsync", "/r/a", null, null],
                     ...]}, "unsupported": {...}}

kinds: read, write (offset, length moved), fsync, fdatasync, ftruncate
(length = new size); copy_file_range, splice and sendfile are a read from
their source and a write to their destination (the read alone when they
moved nothing).  The offset of a read/write without one comes from a
model of open file descriptions: fd tables per process (threads share one,
fork copies it), dup shares a description, lseek sets the position, a
transfer moves it by what it returned.  A write on an O_APPEND description
lands at the end of the file, which a trace does not show: its offset is
null.  Failed calls and zero-length transfers are left out.  libaio
io_submit iocbs (as strace decodes them) count as reads/writes at their
aio_offset.

Usage: strace_oracle.py [--root DIR] [--strip PREFIX] TRACE [TRACE...]
  --strip PREFIX   remove PREFIX from every path first (a replay target)
"""
import json
import os
import re
import sys

PREFIX_F = re.compile(r'^(\d+)\s+')
PREFIX_BR = re.compile(r'^\[pid\s+(\d+)\]\s+')
TIME = re.compile(r'^(\d+:\d+:\d+(?:\.\d+)?|\d+\.\d+)\s+')
CALL = re.compile(r'^([a-z_][a-z0-9_]*)\((.*)$', re.S)
IPNUM = re.compile(r'^\[[ 0-9a-f?]+\]\s+')      # -i address, -n number
RESUMED = re.compile(r'^<\.\.\. ([a-z_][a-z0-9_]*) resumed>\s?(.*)$', re.S)
RESULT = re.compile(r'\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)(<[^>]*>)?(.*)$')
DECOR = re.compile(r'^(-?\d+)<(.*)>$', re.S)
O_APPEND = 'O_APPEND'


def split_args(s):
    """Split a call's argument text on top-level commas (quotes and
    brackets respected).  s ends before the closing ')'."""
    out, depth, cur, q, esc = [], 0, [], False, False
    for ch in s:
        if q:
            cur.append(ch)
            if esc:
                esc = False
            elif ch == '\\':
                esc = True
            elif ch == '"':
                q = False
            continue
        if ch == '"':
            q = True
        elif ch in '([{<':
            depth += 1
        elif ch in ')]}>':
            depth -= 1
        elif ch == ',' and depth == 0:
            out.append(''.join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if ''.join(cur).strip():
        out.append(''.join(cur).strip())
    return out


def split_result(body):
    """body = text after 'name(' ; returns (argtext, result or None, retdecor)."""
    # the last ') = ' outside quotes is the end of the arguments
    q, esc, depth, last = False, False, 0, None
    for i, ch in enumerate(body):
        if q:
            if esc:
                esc = False
            elif ch == '\\':
                esc = True
            elif ch == '"':
                q = False
            continue
        if ch == '"':
            q = True
        elif ch == ')' and body[i:i + 2] == ') ' and re.match(r'\)\s+=\s', body[i:]):
            last = i
    if last is None:
        return None
    m = RESULT.match(body[last:])
    if not m:
        return None
    r = m.group(1)
    if r == '?':
        ret = None
    elif r.startswith('0x'):
        ret = int(r, 16)
    else:
        ret = int(r, 10)   # umask prints 022: decimal digits are enough here
    dec = m.group(2)[1:-1] if m.group(2) else None
    return body[:last], ret, dec


def fdpath(arg):
    m = DECOR.match(arg.strip())
    if not m:
        return None, None
    return int(m.group(1)), m.group(2)


def num(arg):
    arg = arg.strip()
    m = re.match(r'^-?(0x[0-9a-fA-F]+|\d+)', arg)
    return int(m.group(0), 0) if m else None


class Desc:
    def __init__(self, path, append):
        self.path, self.pos, self.append = path, 0, append


class Oracle:
    def __init__(self, root, strip):
        self.root, self.strip = root, strip
        self.tables = {}      # pid -> fd table (dict fd -> Desc), shared by threads
        self.ops = {}         # pid -> list
        self.unsupported = {}
        self.pending = {}     # pid -> (name, text)
        self.touched = set()  # files beneath ROOT opened or transferred to

    def table(self, pid):
        if pid not in self.tables:
            self.tables[pid] = {}
        return self.tables[pid]

    def mapped(self, path):
        if path is None:
            return None
        if self.strip:
            if not path.startswith(self.strip + '/'):
                return None
            path = path[len(self.strip):]
        if self.root and not (path == self.root or path.startswith(self.root + '/')):
            return None
        return path

    def emit(self, pid, kind, path, off, ln):
        p = self.mapped(path)
        if p is None:
            return
        if kind in ('read', 'write') and not ln:
            return
        self.touched.add(p)
        self.ops.setdefault(pid, []).append([kind, p, off, ln])

    def desc(self, pid, arg):
        fd, path = fdpath(arg)
        if fd is None:
            return None, None
        d = self.table(pid).get(fd)
        if d is None or d.path != path:
            # opened before tracing (or missed): the decoration names it
            d = Desc(path, False)
            self.table(pid)[fd] = d
        return fd, d

    def call(self, pid, name, args, ret, retdec):
        a = split_args(args)
        t = self.table(pid)
        if name in ('clone', 'clone3', 'fork', 'vfork'):
            if ret is None or ret <= 0:
                return
            shared = 'CLONE_FILES' in args
            self.tables[ret] = t if shared else dict(t)
            return
        if ret is None or ret < 0:
            return
        if name in ('open', 'openat', 'creat', 'openat2'):
            path = retdec
            if self.mapped(path) is not None:
                self.touched.add(self.mapped(path))
            flags = a[2] if name in ('openat', 'openat2') else (a[1] if len(a) > 1 else '')
            t[ret] = Desc(path, O_APPEND in flags)
        elif name == 'close':
            fd, _ = fdpath(a[0])
            t.pop(fd if fd is not None else num(a[0]), None)
        elif name in ('dup', 'dup2', 'dup3') or (name == 'fcntl' and 'F_DUPFD' in a[1]):
            fd, d = self.desc(pid, a[0])
            if d is not None:
                t[ret] = d
        elif name in ('lseek', '_llseek'):
            fd, d = self.desc(pid, a[0])
            if d is not None:
                if name == 'lseek':
                    d.pos = ret
                else:
                    m = re.search(r'\[(\d+)\]', args)
                    if m:
                        d.pos = int(m.group(1))
        elif name in ('read', 'readv', 'write', 'writev'):
            fd, d = self.desc(pid, a[0])
            if d is None:
                return
            kind = 'read' if name.startswith('read') else 'write'
            off = None if (kind == 'write' and d.append) else d.pos
            self.emit(pid, kind, d.path, off, ret)
            d.pos += ret
        elif name in ('pread64', 'pwrite64', 'preadv', 'pwritev', 'preadv2', 'pwritev2'):
            fd, d = self.desc(pid, a[0])
            if d is None:
                return
            kind = 'read' if name.startswith('pread') else 'write'
            off = num(a[3] if name in ('preadv', 'pwritev', 'preadv2', 'pwritev2') else a[3])
            self.emit(pid, kind, d.path, off, ret)
        elif name in ('fsync', 'fdatasync'):
            fd, d = self.desc(pid, a[0])
            if d is not None:
                self.emit(pid, name, d.path, None, None)
        elif name == 'ftruncate':
            fd, d = self.desc(pid, a[0])
            if d is not None:
                self.emit(pid, 'ftruncate', d.path, None, num(a[1]))
        elif name == 'io_submit':
            arr = a[2].strip() if len(a) > 2 else ''
            cbs = split_args(arr[1:-1]) if arr.startswith('[') and arr.endswith(']') else []
            for cb in cbs:
                cb = cb.strip()
                if not (cb.startswith('{') and cb.endswith('}')):
                    continue
                f = dict(kv.split('=', 1) for kv in split_args(cb[1:-1]) if '=' in kv)
                op = f.get('aio_lio_opcode', '')
                kind = {'IOCB_CMD_PREAD': 'read', 'IOCB_CMD_PWRITE': 'write',
                        'IOCB_CMD_FSYNC': 'fsync', 'IOCB_CMD_FDSYNC': 'fdatasync'}.get(op)
                fd, path = fdpath(f.get('aio_fildes', ''))
                if kind is None or path is None:
                    self.unsupported[op] = self.unsupported.get(op, 0) + 1
                    continue
                if kind in ('read', 'write'):
                    self.emit(pid, kind, path, num(f.get('aio_offset', '0')), num(f.get('aio_nbytes', '0')))
                else:
                    self.emit(pid, kind, path, None, None)
        elif name in ('copy_file_range', 'splice', 'sendfile', 'sendfile64'):
            # the bytes moved: read from the source, written to the
            # destination, each at its [offset] or at its position (moved)
            if name.startswith('sendfile'):
                ends = [(a[1], a[2]), (a[0], 'NULL')]
            else:
                ends = [(a[0], a[1]), (a[2], a[3])]
            for kind, (fa, oa) in zip(('read', 'write'), ends):
                if kind == 'write' and ret == 0:
                    break   # the source's end: nothing was written
                fd, d = self.desc(pid, fa)
                if d is None:
                    continue
                m = re.match(r'\s*\[(\d+)\]', oa)
                if m:
                    self.emit(pid, kind, d.path, int(m.group(1)), ret)
                else:
                    off = None if (kind == 'write' and d.append) else d.pos
                    self.emit(pid, kind, d.path, off, ret)
                    d.pos += ret
        elif name == 'mmap':
            _, path = fdpath(a[4] if len(a) > 4 else '')
            if self.mapped(path) is not None:
                self.unsupported[name] = self.unsupported.get(name, 0) + 1

    def line(self, pid, text):
        m = RESUMED.match(text)
        if m:
            name = m.group(1)
            p = self.pending.pop(pid, None)
            if p is None or p[0] != name:
                return
            text = p[1] + m.group(2)
        if text.endswith('<unfinished ...>'):
            m = CALL.match(text)
            if m:
                self.pending[pid] = (m.group(1), text[:-len('<unfinished ...>')].rstrip())
            return
        m = CALL.match(text)
        if not m:
            return
        name = m.group(1)
        r = split_result(m.group(2))
        if r is None:
            return
        args, ret, dec = r
        self.call(pid, name, args, ret, dec)

    def feed(self, path, ffpid=None):
        cont = None     # pid of the call the previous line left unfinished
        with open(path, errors='replace') as f:
            for raw in f:
                s = raw.rstrip('\n')
                pid = ffpid
                prefixed = False
                if pid is None:
                    m = PREFIX_F.match(s) or PREFIX_BR.match(s)
                    if m:
                        pid = int(m.group(1))
                        s = s[m.end():]
                        prefixed = True
                    else:
                        pid = 0
                m = TIME.match(s)
                if m:
                    s = s[m.end():]
                    prefixed = True
                for _ in range(2):
                    m = IPNUM.match(s)
                    if m:
                        s = s[m.end():]
                s = re.sub(r'\s*<\d+\.\d+>$', '', s)
                if cont is not None and not prefixed and not CALL.match(s):
                    # strace -z/-Z: the rest of the unfinished call, bare
                    p = self.pending.get(cont)
                    if p is not None:
                        s = '<... %s resumed>%s' % (p[0], s)
                        pid = cont
                cont = pid if s.endswith('<unfinished ...>') else None
                self.line(pid, s)


def main(argv):
    root = strip = None
    files = []
    i = 1
    while i < len(argv):
        if argv[i] == '--root':
            root = os.path.normpath(argv[i + 1]); i += 2
        elif argv[i] == '--strip':
            strip = os.path.normpath(argv[i + 1]); i += 2
        else:
            files.append(argv[i]); i += 1
    o = Oracle(root, strip)
    for f in files:
        m = re.search(r'\.(\d+)$', f)
        o.feed(f, int(m.group(1)) if m and len(files) > 1 else None)
    json.dump({'pids': {str(k): v for k, v in o.ops.items() if v},
               'touched': sorted(o.touched),
               'unsupported': o.unsupported}, sys.stdout, indent=None)
    print()


if __name__ == '__main__':
    main(sys.argv)
