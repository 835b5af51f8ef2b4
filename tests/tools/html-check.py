#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Check report --format=html's page: well-formed enough for html.parser,
self-contained (no src, no href, no url(...), no <script>, <link> or
<iframe>), with the plot (#plot, a polyline per event shown), the timeline
(#timeline), the table (#records) and the summary.
Usage: html-check.py FILE [--expect KEY=N]... (KEY: series, rows, lost,
slices, threads); prints "series=N rows=N lost=N slices=N threads=N"."""
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.errs, self.ids, self.n = [], set(), {}
        self.stack = []

    def count(self, k):
        self.n[k] = self.n.get(k, 0) + 1

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "iframe", "img", "object", "embed"):
            self.errs.append("<%s>: not self-contained" % tag)
        for k, v in attrs:
            if k in ("src", "href") or (v and "url(" in v):
                self.errs.append("%s=%r: fetches" % (k, v))
        if "id" in a:
            self.ids.add(a["id"])
        cls = a.get("class", "")
        if tag == "polyline" and cls == "series":
            self.count("series")
        elif tag == "line" and cls == "lost":
            self.count("lost")
        elif tag == "rect" and cls == "slice":
            self.count("slices")
        elif tag == "g" and cls == "thread":
            self.count("threads")
        elif tag == "tr" and self.stack and "records" in self.stack:
            self.count("rows")
        if tag in ("table", "svg"):
            self.stack.append(a.get("id", ""))

    def handle_endtag(self, tag):
        if tag in ("table", "svg") and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if "http://" in data or "https://" in data:
            pass  # text may name a URL; only attributes fetch


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    p = Page()
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    p.feed(text)
    p.close()
    for want in ("plot", "timeline", "records", "summary"):
        if want not in p.ids:
            p.errs.append("no #%s" % want)
    if "<style>" not in text:
        p.errs.append("no inline style")
    rows = p.n.get("rows", 0) - 1  # the header row
    p.n["rows"] = max(rows, 0)
    print(" ".join("%s=%d" % (k, p.n.get(k, 0)) for k in ("series", "rows", "lost", "slices", "threads")))
    for e in p.errs[:10]:
        print("html-check: %s" % e)
    bad = bool(p.errs)
    args = sys.argv[2:]
    for i, a in enumerate(args):
        if a == "--expect" and i + 1 < len(args):
            k, v = args[i + 1].split("=")
            if p.n.get(k, 0) != int(v):
                print("html-check: %s is %d, not %s" % (k, p.n.get(k, 0), v))
                bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
