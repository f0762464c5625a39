#!/usr/bin/env python3
"""html_check.py - independent checks of the HTML page of `replay compare --html`.

  html_check.py static PAGE            self-contained: no script, no style sheet,
                                       image, frame or font to fetch, no URL
  html_check.py console LOG            chromium's log has no console message
  html_check.py png SHOT.png MIN_PCT   at least MIN_PCT % of the pixels are not
                                       white (the page rendered something)
  html_check.py numbers PAGE A.json B.json...  the workload and completion
                                       cells agree with the result files, read
                                       here with the json module
Exit 0 when the check holds, 1 with the reason otherwise.
"""
import html.parser
import json
import re
import struct
import sys
import zlib


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = {}
        self.bad = []
        self.cells = []       # rows of text cells, per table
        self.tables = []
        self.h2 = []
        self._row = None
        self._cell = None
        self._h2 = None

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag in ("script", "link", "img", "iframe", "object", "embed", "image", "use", "base"):
            self.bad.append("<%s>" % tag)
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "srcset", "action", "data") or k.startswith("on"):
                self.bad.append('%s="%s"' % (k, v))
            if v and re.search(r"url\(|https?:|//", v):
                self.bad.append('%s="%s"' % (k, v))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "br" and self._cell is not None:
            self._cell += "\n"
        elif tag == "h2":
            self._h2 = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self.tables:
            self.tables[-1].append(self._row)
            self._row = None
        elif tag == "h2":
            self.h2.append(self._h2)
            self._h2 = None

    def handle_data(self, d):
        if self._cell is not None:
            self._cell += d
        if self._h2 is not None:
            self._h2 += d
        if re.search(r"https?://", d):
            self.bad.append("URL in text: " + d.strip()[:60])


def parse(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if re.search(r"@import|url\(|https?://", text):
        fail("%s refers to something outside the page" % path)
    p.feed(text)
    return p


def check_static(path):
    p = parse(path)
    if p.bad:
        fail("%s is not self-contained: %s" % (path, ", ".join(p.bad[:5])))
    if p.tags.get("svg", 0) < 2 or p.tags.get("table", 0) < 3:
        fail("%s: expected SVG figures and tables, found %d svg, %d table"
             % (path, p.tags.get("svg", 0), p.tags.get("table", 0)))
    print("ok static: %d svg, %d tables, %d polylines, nothing to fetch"
          % (p.tags["svg"], p.tags["table"], p.tags.get("polyline", 0)))


def check_console(log):
    with open(log, errors="replace") as f:
        msgs = [l for l in f if ":CONSOLE" in l or "Uncaught" in l]
    if msgs:
        fail("console messages: " + msgs[0].strip()[:200])
    print("ok console: no message")


def png_pixels(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
    if depth != 8 or ctype not in (2, 6):
        fail("unexpected PNG layout (depth %d, color type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def check_png(path, min_pct):
    w, h, bpp, rows = png_pixels(path)
    ink = 0
    for line in rows:
        for x in range(0, w * bpp, bpp):
            if line[x] < 200 or line[x + 1] < 200 or line[x + 2] < 200:
                ink += 1
    pct = 100.0 * ink / (w * h)
    if pct < min_pct:
        fail("%s: %.2f %% of the pixels are not white (blank page?)" % (path, pct))
    print("ok screenshot: %dx%d, %.1f %% of the pixels drawn" % (w, h, pct))


def fmt_ns(ns):
    if ns < 1e3:
        return "%.0f ns" % ns
    if ns < 1e6:
        return "%.1f \u00b5s" % (ns / 1e3)
    if ns < 1e9:
        return "%.2f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def check_numbers(page, results):
    p = parse(page)
    tables = {h: t for h, t in zip(p.h2, p.tables)}
    work = tables.get("Workload")
    comp = tables.get("Completion time")
    if not work or not comp:
        fail("missing the Workload or Completion time table (h2: %s)" % p.h2)
    head = work[0]
    seen = 0
    for k, path in enumerate(results):
        with open(path) as f:
            r = json.load(f)
        runs = [x for x in r["runs"] if not x.get("incomplete")]
        procs = str(r["options"]["processes"])
        if k == 0:
            row = [x for x in work[1:] if x[head.index("processes")] == procs]
            if len(row) != 1:
                fail("no single workload row for %s processes" % procs)
            row = row[0]
            for cls in ("read", "write", "sync", "open", "close", "meta"):
                want = sum(j.get(cls, {}).get("total_ios", 0) for j in runs[0]["jobs"])
                got = int(row[head.index(cls)])
                if got != want:
                    fail("workload %s ops: page %d, result %d" % (cls, got, want))
            wb = sum(j["write"]["io_bytes"] for j in runs[0]["jobs"])
            if row[head.index("written")] != "%.2f MiB" % (wb / 1048576.0):
                fail("written: page %s, result %d bytes" % (row[head.index("written")], wb))
            if row[head.index("format")] != r["options"]["format"]:
                fail("format: page %s, result %s" % (row[head.index("format")], r["options"]["format"]))
        med = median([x["completion_ns"] for x in runs])
        cells = [row[3 + k] for row in comp[1:] if row[2] == procs]
        if not cells or not cells[0].startswith(fmt_ns(med)):
            fail("completion of %s: page %r, median of the runs %s" % (path, cells, fmt_ns(med)))
        seen += 1
    print("ok numbers: workload ops/bytes and %d completion medians agree with the results" % seen)


def main(argv):
    if len(argv) >= 3 and argv[1] == "static":
        check_static(argv[2])
    elif len(argv) >= 3 and argv[1] == "console":
        check_console(argv[2])
    elif len(argv) >= 4 and argv[1] == "png":
        check_png(argv[2], float(argv[3]))
    elif len(argv) >= 4 and argv[1] == "numbers":
        check_numbers(argv[2], argv[3:])
    else:
        print(__doc__)
        sys.exit(2)


main(sys.argv)
