#!/bin/bash
# bench_study.sh BUILD [N] [JOBS]: wall time of a variability study
# (smpi_llamp-study -n N -j JOBS) against the same N emulations run one after
# the other by hand, measured back to back in one run.  The case is the
# docs/studies.md example: apps/stencil3d on 16 ranks, example stochastic
# kernel models, compute from the models alone.
set -eu
build=$(cd "${1:?usage: bench_study.sh BUILD [N] [JOBS]}" && pwd)
n=${2:-32} jobs=${3:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/bench_study.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$build/bin/smpi_llamp-cc" -O2 -std=gnu11 -DLLAMP_SMPI=1 -I"$src/apps/common" -I"$src/smpi_llamp/include" \
  -I"$src/apps/stencil3d" "$src"/apps/stencil3d/*.c "$src/apps/common/llamp_app.c" \
  "$src/apps/common/llamp_kernel.c" -lm -o stencil3d
args=(-np 16 -llamp-compute none -llamp-kernels "$src/models/kernels_stencil3d.cfg" ./stencil3d --weak 16 --iters 20)
now() { date +%s.%N; }
t0=$(now)
for ((k = 0; k < n; k++)); do
  "$build/bin/smpi_llamp-run" -llamp-seed $((1000 + k)) -llamp-kernel-noise both -llamp-out "seq-$k" "${args[@]}" >/dev/null 2>&1
done
t1=$(now)
"$build/bin/smpi_llamp-study" -n "$n" -j "$jobs" --seed 1000 --out study "${args[@]}" >/dev/null 2>&1
t2=$(now)
# the study's samples are the hand-run emulations: same seeds, same T
for ((k = 0; k < n; k++)); do
  a=$(grep -m1 '"runtime"' "seq-$k/report.json")
  b=$(grep -m1 '"runtime"' "$(printf 'study/sample-%04d' $k)/out/report.json")
  [ "$a" = "$b" ] || { echo "sample $k differs: $a vs $b"; exit 1; }
done
awk -v n="$n" -v j="$jobs" -v s="$(echo "$t1 - $t0" | bc)" -v p="$(echo "$t2 - $t1" | bc)" -v c="$(nproc)" 'BEGIN {
  printf "%d emulations (stencil3d, 16 ranks): one after the other %.2f s, smpi_llamp-study -j %d %.2f s: %.2fx (%d cores; same T in every sample)\n", n, s, j, p, s / p, c }'
