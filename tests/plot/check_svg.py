#!/usr/bin/env python3
"""Check a picture written by `llamp plot`: valid SVG (or PNG) with the
expected panels, series (name, style, number of points), bands and markers.

usage: check_svg.py FILE [--panels N] [--series NAME:STYLE:POINTS ...]
                         [--bands N] [--markers N] [--band LABEL:LO:HI]
                         [--rects NAME:N] [--png]
"""
import argparse
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("check_svg: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--panels", type=int)
    ap.add_argument("--series", action="append", default=[])
    ap.add_argument("--bands", type=int)
    ap.add_argument("--markers", type=int)
    ap.add_argument("--band", action="append", default=[])
    ap.add_argument("--rects", action="append", default=[])
    ap.add_argument("--png", action="store_true")
    a = ap.parse_args()
    data = open(a.file, "rb").read()
    if a.png:
        if not data.startswith(b"\x89PNG\r\n\x1a\n") or len(data) < 1000:
            fail("%s: not a PNG image" % a.file)
        return
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        fail("%s: invalid XML: %s" % (a.file, e))
    if root.tag != NS + "svg":
        fail("%s: root element is %s, expected svg" % (a.file, root.tag))
    groups = list(root.iter(NS + "g"))
    panels = [g for g in groups if g.get("class") == "panel"]
    series = [g for g in groups if g.get("class") == "series"]
    bands = [g for g in groups if g.get("class") == "band"]
    markers = [g for g in groups if g.get("class") == "marker"]
    if a.panels is not None and len(panels) != a.panels:
        fail("%d panels, expected %d" % (len(panels), a.panels))
    if a.bands is not None and len(bands) != a.bands:
        fail("%d bands, expected %d" % (len(bands), a.bands))
    if a.markers is not None and len(markers) != a.markers:
        fail("%d markers, expected %d" % (len(markers), a.markers))
    by_name = {s.get("data-name"): s for s in series}
    for spec in a.series:
        name, style, points = spec.rsplit(":", 2)
        s = by_name.get(name)
        if s is None:
            fail("no series '%s' (have %s)" % (name, sorted(by_name)))
        if s.get("data-style") != style:
            fail("series '%s' is %s, expected %s" % (name, s.get("data-style"), style))
        if int(s.get("data-points")) != int(points):
            fail("series '%s' has %s points, expected %s" % (name, s.get("data-points"), points))
        # the drawing holds the points too: a path's vertices, or one shape each
        path = s.find(NS + "path")
        if path is not None:
            n = sum(path.get("d").count(c) for c in "ML")
            if n != int(points):
                fail("series '%s' draws %d points, expected %s" % (name, n, points))
    for spec in a.rects:
        name, n = spec.rsplit(":", 1)
        s = by_name.get(name)
        k = len(s.findall(NS + "rect")) + len(s.findall(NS + "circle")) if s is not None else -1
        if k != int(n):
            fail("series '%s' has %d shapes, expected %s" % (name, k, n))
    for spec in a.band:
        label, lo, hi = spec.rsplit(":", 2)
        hits = [b for b in bands if b.get("data-label") == label]
        if not hits:
            fail("no band '%s'" % label)
        blo, bhi = float(hits[0].get("data-lo")), float(hits[0].get("data-hi"))
        if abs(blo - float(lo)) > 1e-9 * max(1, abs(blo)) or abs(bhi - float(hi)) > 1e-6 * max(1, abs(bhi)):
            fail("band '%s' spans %r..%r, expected %s..%s" % (label, blo, bhi, lo, hi))


main()
