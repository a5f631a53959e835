#!/bin/sh
# validate.sh MPIEXEC BIN MODEL: llamp-validate end to end on pingpong_mpi
# (2 ranks, a 3-point grid, 2 rounds): the table, the CSV, the runs (every
# dL twice), the plot; and its errors.  Nothing about timing is asserted.
mpiexec=$1 bin=$2 model=$3
[ -x "$mpiexec" ] && [ -x "$bin/llamp-validate" ] && [ -x "$bin/pingpong_mpi" ] || exit 77
fail() { echo "FAIL: $*"; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$bin/llamp-validate" -o "$t/v" -n 2 --grid 0,5,50 --model "$model" \
  "$mpiexec" -n 2 "$bin/pingpong_mpi" --sizes 8,16K --reps 20 >"$t/out" 2>&1 || { cat "$t/out"; fail "llamp-validate failed"; }
cat "$t/out"
grep -q "^| 50 | " "$t/v/validate.txt" || fail "no row for dL = 50 us"
grep -q "RRMSE" "$t/v/validate.txt" || fail "no RRMSE line"
[ "$(wc -l <"$t/v/validate.csv")" -eq 4 ] || fail "validate.csv: expected 3 rows"
[ "$(grep -c '^[12],5e-05,' "$t/v/runs.csv")" -eq 2 ] || fail "runs.csv: expected 2 runs at 50 us"
grep -q "<svg" "$t/v/validate.svg" || fail "no plot"
# predictions grow with dL (pingpong is latency-bound)
awk -F, 'NR > 1 { if (NR > 2 && $2 <= p) exit 1; p = $2 }' "$t/v/validate.csv" || fail "predictions do not grow with dL"
"$bin/llamp-validate" --grid 5 true 2>"$t/e"; [ $? -eq 1 ] && grep -q "at least two values" "$t/e" || fail "grid error"
"$bin/llamp-validate" --grid 0,x true 2>"$t/e"; [ $? -eq 1 ] && grep -q "'x' (expected a delay" "$t/e" || fail "grid value"
"$bin/llamp-validate" -n 0 true 2>"$t/e"; [ $? -eq 1 ] && grep -q "expected a positive integer" "$t/e" || fail "reps"
echo "validate: PASS"
