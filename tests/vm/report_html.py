#!/usr/bin/env python3
# Checks of report.html for tests/vm/test_report_html.sh, python3's standard
# library only (no pip):
#   report_html.py png SHOT.png
#       the screenshot is not blank: prints "COLOURS INK%" (distinct colours,
#       share of pixels that are not the background); exit 1 when under 16
#       colours or 1% ink
#   report_html.py pdf PRINT.pdf
#       Chromium's --print-to-pdf of the page is a PDF with pages: prints
#       their number; exit 1 when not a PDF or no page
#   report_html.py probe DOM.html N
#       the probe's JSON (<pre id="probe"> in the DOM of report.html with
#       the test's probe script) shows N <svg>, each a box of non-zero size
#       with at least 10 marks (paths, rects, texts...), and no <img> that
#       did not load; prints what it saw, exit 1 otherwise
#   report_html.py verdict DOM.html EVIDENCE.tsv
#       the verdict numbers on the page (Chromium's --dump-dom of report.html)
#       are compare.csv's: EVIDENCE.tsv is `mmbench field --where
#       role=evidence compare.csv workload metric side verdict mean
#       abs_change p_adjusted exact` (read by column name with libcsv).
#       Checked: the "Verdict: evidence N better, N worse, N unchanged"
#       counts, and per workload and evidence metric the change, the verdict
#       and p(BH) of its headline row. Prints one line per disagreement,
#       then "checked N rows"; exit 1 on a disagreement or nothing checked.
import html
import html.parser
import json
import re
import struct
import sys
import zlib


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                sys.exit(f"{path}: colour type {ctype} depth {depth} not handled")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return [r[x:x + 3] for r in rows for x in range(0, stride, bpp)]


def png(path):
    px = png_pixels(path)
    counts = {}
    for p in px:
        counts[p] = counts.get(p, 0) + 1
    bg = max(counts, key=counts.get)
    ink = 100.0 * (len(px) - counts[bg]) / len(px)
    print(f"{len(counts)} {ink:.1f}")
    return 0 if len(counts) >= 16 and ink >= 1 else 1


def pdf(path):
    data = open(path, "rb").read()
    pages = len(re.findall(rb"/Type\s*/Page\b", data))
    print(pages)
    return 0 if data.startswith(b"%PDF-") and pages > 0 else 1


def probe(dom, n):
    m = re.search(r'<pre id="probe">(.*?)</pre>', open(dom, encoding="utf-8").read(), re.S)
    if not m:
        print("no probe output in the DOM (the page did not load?)")
        return 1
    p = json.loads(html.unescape(m.group(1)))
    small = [i for i, (w, h, marks) in enumerate(p["svgs"]) if w <= 0 or h <= 0 or marks < 10]
    boxes = sorted({f"{w}x{h}" for w, h, _ in p["svgs"]})
    print(f"{len(p['svgs'])} svg, boxes {' '.join(boxes)}, fewest marks "
          f"{min((m for _, _, m in p['svgs']), default=0)}; {p['imgs']} img, "
          f"{p['broken']} broken" + (f"; empty or no box: svg {small}" if small else ""))
    return 0 if len(p["svgs"]) == n and not small and not p["broken"] else 1


class Page(html.parser.HTMLParser):
    """The headline tables (after <h2>Verdict</h2>, each under its workload's
    <h3>) as rows of cell texts, and the verdict paragraph's text."""

    def __init__(self):
        super().__init__()
        self.h = None
        self.text = ""
        self.h2 = self.h3 = ""
        self.tables = []       # (workload, header, rows)
        self.row = self.cell = None
        self.verdict = ""
        self.in_verdict = False

    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "h3"):
            self.h, self.text = tag, ""
        elif tag == "table" and self.h2 == "Verdict":
            self.tables.append((self.h3, None, []))
        elif tag == "tr" and self.tables and self.h2 == "Verdict":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "p" and ("class", "verdict") in attrs:
            self.in_verdict = True

    def handle_endtag(self, tag):
        if tag == self.h:
            setattr(self, tag, self.text.strip())
            self.h = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            wl, head, rows = self.tables[-1]
            if head is None:
                self.tables[-1] = (wl, self.row, rows)
            else:
                rows.append(self.row)
            self.row = None
        elif tag == "p":
            self.in_verdict = False

    def handle_data(self, data):
        if self.h:
            self.text += data
        if self.cell is not None:
            self.cell += data
        if self.in_verdict:
            self.verdict += data


def expected(tsv):
    """Per (workload, metric) the NEW sides' (change, verdict, p(BH)) from
    compare.csv, and the evidence counts."""
    rows = [line.rstrip("\n").split("\t") for line in open(tsv) if line.strip()]
    base, want, counts = {}, {}, {"better": 0, "worse": 0, "same": 0}
    for wl, metric, side, verdict, mean, absch, padj, exact in rows:
        if side == "0":
            base[(wl, metric)] = base.get((wl, metric), []) + [float(mean)]
    for wl, metric, side, verdict, mean, absch, padj, exact in rows:
        if side == "0":
            continue
        if verdict in counts:
            counts[verdict] += 1
        b = base[(wl, metric)].pop(0)
        change = ("abs", float(absch)) if b == 0 else ("pct", 100 * (float(mean) - b) / abs(b))
        p = "exact" if exact == "1" else float(padj) if padj else None
        want.setdefault((wl, metric), []).append((change, verdict, p))
    return want, counts


VERDICT_WORDS = {"better": "better", "worse": "worse", "same": "same",
                 "emulated": "emulated", "one_run": "not judged", "info": "info",
                 "toofew": "n<3", "overflow": "overflow"}


def agree(page_row, head, exp):
    (kind, value), verdict, p = exp
    cell = dict(zip(head, page_row))
    m = re.fullmatch(r"([+-]?[0-9.]+)(%| abs| pts)?", cell.get("change", "").replace(",", ""))
    # "0": no change from a base of 0
    unit = m.group(2) if m and m.group(2) else "%" if kind == "pct" or value else ""
    if not m or (kind == "pct") != (unit == "%") or abs(float(m.group(1)) - value) > 0.0051:
        return f"change {cell.get('change')!r}, compare.csv says {kind} {value:.4f}"
    if not cell.get("verdict", "").startswith(VERDICT_WORDS.get(verdict, verdict)):
        return f"verdict {cell.get('verdict')!r}, compare.csv says {verdict}"
    shown = cell.get("p(BH)", "")
    if p == "exact" and cell.get("p") != "exact":
        return f"p {cell.get('p')!r}, compare.csv says exact"
    if isinstance(p, float) and (not shown or abs(float(shown) - p) > max(5e-5, p * 0.051)):
        return f"p(BH) {shown!r}, compare.csv says {p}"
    return None


def verdict(dom, tsv):
    page = Page()
    page.feed(open(dom, encoding="utf-8").read())
    want, counts = expected(tsv)
    bad, checked = [], 0
    m = re.search(r"evidence (\d+) better, (\d+) worse, (\d+) unchanged", page.verdict)
    if not m or tuple(map(int, m.groups())) != (counts["better"], counts["worse"], counts["same"]):
        bad.append(f"verdict line {page.verdict.strip()!r}, compare.csv's evidence: {counts}")
    for (wl, metric), exps in want.items():
        rows = [(r, head) for w, head, rs in page.tables if w == wl and head
                for r in rs if r and r[0] == metric]
        if len(rows) != len(exps):
            bad.append(f"{wl} {metric}: {len(rows)} headline rows on the page, "
                       f"{len(exps)} NEW sides' rows in compare.csv")
            continue
        for (r, head), exp in zip(rows, exps):
            why = agree(r, head, exp)
            checked += why is None
            if why:
                bad.append(f"{wl} {metric}: {why}")
    for b in bad:
        print(b)
    print(f"checked {checked} rows")
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "png":
        sys.exit(png(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "pdf":
        sys.exit(pdf(sys.argv[2]))
    if len(sys.argv) == 4 and sys.argv[1] == "probe":
        sys.exit(probe(sys.argv[2], int(sys.argv[3])))
    if len(sys.argv) == 4 and sys.argv[1] == "verdict":
        sys.exit(verdict(sys.argv[2], sys.argv[3]))
    sys.exit("usage: report_html.py png SHOT.png | pdf PRINT.pdf | probe DOM.html N | verdict DOM.html TSV")
