#!/bin/bash
# The validation table (docs/validation.md): llamp-validate on every proxy
# app at 2 ranks with one LogGP calibration of this session; prints each
# app's table and a summary (RRMSE predicted and anchored, noise).  Never
# run by ctest.
#   bench/bench_validate.sh [BUILD_DIR] [REPS] [OUT_DIR]     (defaults: build 5 /tmp/llamp-validate)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) # absolute: the bench works in a temporary directory
reps=${2:-5}
out=${3:-/tmp/llamp-validate}
bin=$build/bin
mpiexec=${MPIEXEC:-mpiexec}
np=${NP:-2}
export OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
"$mpiexec" -n 2 -bind-to core "$bin/calib_loggp_mpi" -o "$out/native.cfg" >/dev/null 2>&1 || { echo "calib_loggp failed" >&2; exit 1; }
grep -E '^ *(L|o|g|G|S) *=' "$out/native.cfg" >&2
apps=(
  "latency_example|--iters 1000"
  "pingpong|--sizes 0:64K --reps 50"
  "stencil3d|--weak 32 --iters 100"
  "cg|--weak 32"
  "lu|--n 512 --nb 64"
  "fft|--n 64 --iters 4"
  "sweep|--weak 32,32,64"
  "hydro3d|--weak 12 --iters 50"
  "md|--weak 5 --steps 50"
  "heat2d|--weak 256,256 --iters 100"
  "wavefront|--n 64,64,32 --iters 5"
)
for entry in "${apps[@]}"; do
  app=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $app "* ]] && continue
  echo "== $app ${args[*]} (load $(cut -d' ' -f1 /proc/loadavg))"
  "$bin/llamp-validate" -o "$out/$app" -n "$reps" --model "$out/native.cfg" \
    "$mpiexec" -n "$np" -bind-to core "$bin/${app}_mpi" "${args[@]}" 2>&1 | grep -v "^llamp-validate: round"
done
echo
echo "| app | RRMSE predicted | RRMSE anchored | noise probe spread | runs kept |"
echo "|---|--:|--:|--:|--:|"
for entry in "${apps[@]}"; do
  app=${entry%%|*}
  f=$out/$app/validate.txt
  [ -f "$f" ] || continue
  rr=$(sed -n 's/.*RRMSE \([0-9.]*\) % (predicted).*RRMSE \([0-9.]*\) %.*/\1 % | \2 %/p' "$f")
  pr=$(sed -n 's/.*(max - min over the runs: \([0-9.]*\) %.*/\1 %/p' "$f")
  kept=$(awk -F, 'NR > 1 { k += $7; t += $7 + $8 } END { print k "/" t }' "$out/$app/validate.csv")
  echo "| $app | $rr | $pr | $kept |"
done
