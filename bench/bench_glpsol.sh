#!/bin/sh
# llamp's engine vs GLPK's simplex on the same exported LLAMP LP.
#   bench/bench_glpsol.sh [BUILD_DIR] [halo3d parameters]
# Default: a 3-D halo of 66,560 events (4x4x4 ranks, 80 iterations); glpsol
# needs minutes on it.  Prints T and lambda_L from both and the speed ratio.
set -eu
build=${1:-build}
params=${2:-"px=4 py=4 pz=4 iters=80"}
work=${TMPDIR:-/tmp}/llamp-bench-glpsol
mkdir -p "$work"
"$build/bin/llamp" generate halo3d $params -o "$work/g.goal"
"$build/bin/llamp" export-lp "$work/g.goal" -o "$work/g.lp" --o 0
t0=$(date +%s.%N)
glpsol --lp "$work/g.lp" -o "$work/g.sol" >"$work/glpsol.log"
t1=$(date +%s.%N)
glpk_s=$(echo "$t1 - $t0" | bc -l)
glpk_T=$(sed -n 's/^Objective: *obj = \([0-9.e+-]*\).*/\1/p' "$work/g.sol")
glpk_lambda=$(awk '$2 == "l" && $3 == "NL" {print $6}' "$work/g.sol")
BENCH_EVAL_ONLY=1 BENCH_O=0 "$build/bin/bench_engine" "$work/g.goal" >"$work/engine.txt"
eng_s=$(sed -n 's/^eval_seconds //p' "$work/engine.txt")
eng_T=$(sed -n 's/^T_seconds //p' "$work/engine.txt")
eng_lambda=$(sed -n 's/^lambda_L //p' "$work/engine.txt")
echo "graph: halo3d $params ($(grep -c ': \(send\|recv\|calc\)' "$work/g.goal") events)"
printf "glpsol:  T = %s us, lambda_L = %s, %.2f s\n" "$glpk_T" "$glpk_lambda" "$glpk_s"
printf "engine:  T = %.6f us, lambda_L = %s, %.6f s (one evaluation, best of 20)\n" \
  "$(echo "$eng_T * 1000000" | bc -l)" "$eng_lambda" "$eng_s"
printf "speedup: %.0f x (target >= 1000)\n" "$(echo "$glpk_s / $eng_s" | bc -l)"
