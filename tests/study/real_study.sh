#!/bin/bash
# A real study under SimGrid: apps/stencil3d on 8 ranks with the example
# stochastic kernel models (models/kernels_stencil3d.cfg, a generated
# cluster), compute from the models alone.  Checks: every sample done and
# its numbers equal to its report, the samples differ (the seeds vary the
# cluster), and the same seed gives a byte-identical study.json with another
# job count.  usage: real_study.sh BUILD_BIN SOURCE_DIR
set -u
bin=$1 src=$2
command -v smpirun >/dev/null || { echo "skip: smpirun not found"; exit 77; }
die() { echo "real_study: $*" >&2; exit 1; }
"$bin/smpi_llamp-cc" -O2 -std=gnu11 -DLLAMP_SMPI=1 -I"$src/apps/common" -I"$src/smpi_llamp/include" \
  -I"$src/apps/stencil3d" "$src"/apps/stencil3d/*.c "$src/apps/common/llamp_app.c" \
  "$src/apps/common/llamp_kernel.c" -lm -o stencil3d > cc.log 2>&1 || { cat cc.log; die "smpi_llamp-cc"; }
run() { # OUT JOBS
  rm -rf "$1"
  "$bin/smpi_llamp-study" -n 5 -j "$2" --seed 77 --out "$1" -np 8 -llamp-compute none \
    -llamp-kernels "$src/models/kernels_stencil3d.cfg" ./stencil3d --weak 8 --iters 5 > "$1.txt" 2>&1 ||
    { cat "$1.txt"; for l in "$1"/sample-*/run.log; do tail -5 "$l"; done; die "study $1"; }
}
run real_a 2
run real_b 1
python3 "$src/tests/study/check_study.py" real_a 5 || die "study files"
cmp real_a/study.json real_b/study.json || die "the same seed gave another study.json"
python3 - <<'PY' || die "the samples do not vary"
import json
s = json.load(open("real_a/study.json"))
T = [x["runtime"] for x in s["samples"]]
assert len(set(T)) == len(T), T
assert s["summary"]["runtime"]["sd"] > 0
print("5 samples, T from %.6g to %.6g s" % (min(T), max(T)))
PY
grep -q "ranks that matter most" real_a.txt || die "no ranks in the summary"
grep -q "note:.*timed this machine" real_a.txt && die "compute none still reported as measured"
# Node eviction (seed 004 §5.3): 6 ranks on the 16 hosts of cluster16, the 2
# slowest hosts of each sample's generated cluster replaced by the fastest spare ones.
rm -rf ev
"$bin/smpi_llamp-study" -n 3 -j 2 --seed 91 --out ev --evict 2 -np 6 -platform "$src/platforms/cluster16.xml" \
  -llamp-compute none -llamp-kernels "$src/models/kernels_stencil3d.cfg" ./stencil3d --weak 6 --iters 5 > ev.txt 2>&1 ||
  { cat ev.txt; die "eviction study"; }
grep -q "evicting slowest hosts" ev.txt || die "no eviction line"
python3 - <<'PY' || die "eviction"
import json
st = json.load(open("ev/study.json"))
assert st["eviction"]["samples_done"] == 3, st["eviction"]
for k in range(3):
    rep = json.load(open("ev/sample-%04d/out/report.json" % k))["capture"]["kernels"]
    scale = {h["host"]: h["scale"] for h in rep["host_scale"]}
    used = rep["rank_hosts"]
    slowest = sorted(set(used), key=lambda h: -scale[h])[:2]
    spare = sorted((h for h in scale if h not in used), key=lambda h: scale[h])[:2]
    ev = open("ev/evict-2/sample-%04d/evicted" % k).read().split()
    hf = open("ev/evict-2/sample-%04d/hostfile" % k).read().split()
    assert sorted(ev) == sorted(slowest), (k, ev, slowest)
    assert not set(ev) & set(hf) and set(spare) <= set(hf) and len(hf) == 6, (k, hf)
    rep2 = json.load(open("ev/evict-2/sample-%04d/out/report.json" % k))["capture"]["kernels"]
    assert rep2["rank_hosts"] == hf, (rep2["rank_hosts"], hf)
print("eviction OK")
PY
# 14 ranks leave 2 spare hosts: evicting 3 is refused in one line
"$bin/smpi_llamp-study" -n 1 --seed 5 --out ev3 --evict 3 -np 14 -platform "$src/platforms/cluster16.xml" \
  -llamp-compute none -llamp-kernels "$src/models/kernels_stencil3d.cfg" ./stencil3d --weak 14 --iters 2 > ev3.txt 2>&1 &&
  die "evicting 3 of 2 spare hosts was accepted"
grep -q "the platform has 16 hosts for 14 ranks: evicting 3 needs 3 spare hosts" ev3.txt || { cat ev3.txt; die "message"; }
echo "real study OK"
