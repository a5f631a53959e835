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
echo "real study OK"
