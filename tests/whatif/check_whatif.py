#!/usr/bin/env python3
"""Checks of a what-if study's outputs (tests/whatif/run_whatif.sh).

usage: check_whatif.py DIR CHECK...  with CHECK one of
  rows=N                 N variants in whatif.csv, whatif.json and the plot
  ran=I,J..|none         exactly these variants ran in SimGrid
  diff<=PCT:I,J..        |SimGrid - predicted| / SimGrid <= PCT % for these rows
  value=I:COL:V[:TOL]    column COL of row I equals V (relative TOL, default 1e-9)
  same=I:COL1:COL2       two columns of row I agree to 1e-9 (relative)
  why=I:TEXT|none        row I's why contains TEXT (none: every why is empty)
  name=I:TEXT            row I is the variant named TEXT
  own=I,J..[:TOL]        predicted equals the run's own DAG (own_T) to TOL (default 1e-9)
  capture                row 0 is the capture: its simulated and own_T are report.json's
"""
import csv
import json
import re
import sys


def fail(msg):
    print(f"check_whatif: {msg}")
    sys.exit(1)


def num(row, col):
    try:
        return float(row[col])
    except (KeyError, ValueError):
        fail(f"row {row['variant']}: column {col} = '{row.get(col)}' is not a number")


def close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b)) + 1e-18


d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/whatif.csv")))
js = json.load(open(f"{d}/whatif.json"))
try:
    svg = open(f"{d}/whatif.svg").read()
except OSError:
    svg = None  # --plot elsewhere
for chk in sys.argv[2:]:
    k, _, v = chk.partition("=")
    idx = lambda s: [int(x) for x in s.split(",")]
    if k == "rows":
        n = int(v)
        if len(rows) != n or len(js["variants"]) != n:
            fail(f"{len(rows)} CSV rows, {len(js['variants'])} JSON variants, expected {n}")
        for name in ("SimGrid", "predicted (LLAMP)") if svg is not None else ():
            if not re.search(f'data-name="{re.escape(name)}" data-style="segments" data-points="{n}"', svg):
                fail(f"whatif.svg: no series '{name}' of {n} bars")
    elif k == "ran":
        want = set() if v == "none" else set(idx(v))
        got = {i for i, r in enumerate(rows) if r["simulated"] != ""}
        jgot = {i for i, x in enumerate(js["variants"]) if x["ran"]}
        if got != want or jgot != want:
            fail(f"ran {sorted(got)} (JSON {sorted(jgot)}), expected {sorted(want)}")
    elif k.startswith("diff<"):
        pct, _, which = chk[len("diff<="):].partition(":")
        for i in idx(which):
            s, p = num(rows[i], "simulated"), num(rows[i], "predicted")
            e = 100 * (p - s) / s
            if not close(e, num(rows[i], "diff_percent"), 1e-6):
                fail(f"row {i}: diff_percent {rows[i]['diff_percent']} is not (predicted - simulated) / simulated = {e}")
            if abs(e) > float(pct):
                fail(f"row {i} ({rows[i]['variant']}): SimGrid {s} predicted {p}: {e:+.4f} % (bound {pct} %)")
            print(f"  {rows[i]['variant']:32s} SimGrid {s:.9g}  predicted {p:.9g}  {e:+.4f} %")
    elif k == "value":
        parts = v.split(":")
        i, col, want = int(parts[0]), parts[1], float(parts[2])
        tol = float(parts[3]) if len(parts) > 3 else 1e-9
        if not close(num(rows[i], col), want, tol):
            fail(f"row {i} ({rows[i]['variant']}): {col} = {rows[i][col]}, expected {want}")
    elif k == "same":
        i, c1, c2 = v.split(":")
        if not close(num(rows[int(i)], c1), num(rows[int(i)], c2), 1e-9):
            fail(f"row {i}: {c1} = {rows[int(i)][c1]} but {c2} = {rows[int(i)][c2]}")
    elif k == "why":
        if v == "none":
            for r in rows:
                if r["why"]:
                    fail(f"{r['variant']}: unexpected why: {r['why']}")
        else:
            i, _, text = v.partition(":")
            if text not in rows[int(i)]["why"]:
                fail(f"row {i}: why '{rows[int(i)]['why']}' lacks '{text}'")
            if js["variants"][int(i)]["why"] != rows[int(i)]["why"]:
                fail(f"row {i}: JSON and CSV why differ")
    elif k == "name":
        i, _, text = v.partition(":")
        if rows[int(i)]["variant"] != text:
            fail(f"row {i} is '{rows[int(i)]['variant']}', expected '{text}'")
    elif k == "own":
        v, _, tol = v.partition(":")
        for i in idx(v):
            if not close(num(rows[i], "predicted"), num(rows[i], "own_T"), float(tol) if tol else 1e-9):
                fail(f"row {i}: predicted {rows[i]['predicted']} from the base capture, own DAG {rows[i]['own_T']}")
    elif k == "capture":
        rep = json.load(open(f"{d}/v0/run/report.json"))
        if not close(num(rows[0], "simulated"), rep["capture"]["simulated_time"], 1e-9) or \
           not close(num(rows[0], "own_T"), rep["runtime"], 1e-9) or \
           not close(num(rows[0], "predicted"), rep["runtime"], 1e-9) or \
           not js["base"]["reanalysis_matches_capture"]:
            fail("row 0 is not the capture's report (simulated, T, re-analysis)")
    else:
        fail(f"unknown check '{chk}'")
print("check_whatif: ok")
