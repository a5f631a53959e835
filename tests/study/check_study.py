#!/usr/bin/env python3
"""Check a study's files against the samples' own reports: per-sample rows
equal the report values, and the summary's n/mean/median/sd/min/max equal a
direct computation; the bootstrap interval holds the mean."""
import csv, json, statistics, sys

out, n_expected = sys.argv[1], int(sys.argv[2])
fake = "--fake" in sys.argv  # the stand-in runner's reports: rank shares known
st = json.load(open(out + "/study.json"))
rows = list(csv.DictReader(open(out + "/study.csv")))
assert st["samples_planned"] == n_expected, st["samples_planned"]
assert st["samples_done"] == n_expected, st["samples_done"]
assert len(rows) == n_expected
for k, r in enumerate(rows):
    rep = json.load(open("%s/sample-%04d/out/report.json" % (out, k)))
    assert int(r["seed"]) == st["base_seed"] + k
    assert abs(float(r["runtime"]) - rep["runtime"]) <= 1e-12 * rep["runtime"], (k, r["runtime"])
    assert abs(float(r["simulated_time"]) - rep["capture"]["simulated_time"]) <= 1e-12
    d2 = rep["tolerance"][1]["delta_L"]
    assert (r["tolerance_2pc"] == "null") == (d2 is None), (k, r["tolerance_2pc"], d2)
for q in ["runtime", "simulated_time", "lambda_L", "tolerance_1pc", "tolerance_2pc"]:
    vals = [float(r[q]) for r in rows if r[q] not in ("null", "")]
    s = st["summary"][q]
    assert s["n"] == len(vals), (q, s["n"], len(vals))
    for key, want in [("mean", statistics.mean(vals)), ("median", statistics.median(vals)),
                      ("sd", statistics.stdev(vals)), ("min", min(vals)), ("max", max(vals))]:
        assert abs(s[key] - want) <= 1e-9 * abs(want) + 1e-18, (q, key, s[key], want)
    assert s["ci95_lo"] <= s["mean"] <= s["ci95_hi"], (q, s)
    assert s["ci95_lo"] >= s["min"] and s["ci95_hi"] <= s["max"], (q, s)
print("study OK: %d samples" % n_expected)
# ranks that matter: the mean share of the critical path per rank
shares = st["critical_path_share_by_rank"]
assert abs(sum(shares) - 1) <= 1e-9, sum(shares)
if not fake:
    sys.exit(0)
for r in range(4):
    want = statistics.mean((0.5 if (st["base_seed"] + k) % 3 == r else 0) + 0.125 for k in range(n_expected))
    assert abs(shares[r] - want) <= 1e-9, (r, shares[r], want)
print("rank shares OK: %s" % shares)
