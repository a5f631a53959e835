#!/bin/bash
# Per proxy application: the captured DAG against SimGrid, and the capture's
# cost (bench/RESULTS.md, "Issue 7").  For each app (table below):
#   * build it with smpi_llamp-cc (capture) and plain smpicc;
#   * capture ONE run on a tools/llamp-platform mesh of latency L0 = 2 us
#     (contention-free, SMPI factors 1, o = 0), compute from kernel models
#     (simulate-computation off: deterministic), collective algorithms the
#     same on both sides (consistency_coll_cases);
#   * run the plain program at L0 + dL, dL in 1, 10, 100 us, and compare
#     SimGrid's time (SimGrid's "Simulated time") with the DAG's T(L0 + dL);
#   * SimGrid's slope (T(L0+100us) - T(L0)) / 100 us against lambda_L(L0);
#   * wall time of plain smpirun against smpi_llamp-run (capture + analysis),
#     best of REPS, and the ratio;
#   * with compute measured (smpi_llamp-run's default, real kernels): the
#     DAG's T(L0) against SimGrid's time of the same run.
# Never run by ctest.  usage: bench/bench_apps.sh [BUILD_DIR] [REPS] [APP...]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
reps=${2:-3}
shift 2 2>/dev/null || shift $#
bin=$build/bin
work=$(mktemp -d /tmp/bench_apps.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
common=$here/apps/common
models=$common/kernel_model_example.txt
# name  ranks  source files (apps/...)  arguments
apps=(
  "stencil3d 8 stencil3d/stencil3d.c --weak 16 --iters 100"
  "cg 8 cg/cg.c --weak 16 --iters 100 --fixed"
  "sweep 8 sweep/sweep.c"
  "fft 8 fft/fft.c"
  "lu 8 lu/lu.c,lu/lu_bcast.c --n 256 --nb 32"
  "pingpong 2 pingpong/pingpong.c"
  "latency_example 2 latency_example/latency_example.c --iters 20"
  "hydro3d 8 hydro3d/hydro3d.c --weak 12 --iters 100 --serial-max 0"
  "cg_any 8 cg/cg.c --weak 16 --iters 100 --fixed --any-source"
  "fft_v 12 fft/fft.c --n 32 --iters 4 --alltoallv"
  "md 8 md/md.c --weak 5 --steps 50"
)
want=" $* "
cfg=$("$build/tests/consistency_coll_cases" scan=direct,exscan=direct) || { echo "consistency_coll_cases missing"; exit 1; }
sim="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=surf/precision:1e-12 --log=root.thres:warning $cfg"
plat() { [ -f "mesh-$1-$2.xml" ] || python3 "$here/tools/llamp-platform" -n "$1" -L "$2us" -G 0.1ns -o "mesh-$1-$2.xml"; echo "mesh-$1-$2.xml"; }
simtime() { sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$1" | tail -1; }
best() { # best wall time of REPS runs
  local b=1e9 t0 t1
  for _ in $(seq "$reps"); do
    t0=$(date +%s.%N); "$@" >best.log 2>&1 || { tail -5 best.log; return 1; }; t1=$(date +%s.%N)
    b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (d < b ? d : b) }')
  done
  echo "$b"
}
printf '| app | ranks | T error at L0, +1, +10, +100 us (%%) | SimGrid slope | lambda_L | plain s | capture s | x | compute on: T vs SimGrid |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for line in "${apps[@]}"; do
  read -r name np srcs args <<<"$line"
  [ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
  files=""
  for f in ${srcs//,/ }; do files="$files $here/apps/$f"; done
  extra="" appsim=""
  # lu polls the next panel with MPI_Test: SMPI sleeps smpi/test (100 us,
  # growing) in each, and the number of polls follows L (docs/apps.md)
  [ "$name" = lu ] && extra="-lopenblas" appsim="--cfg=smpi/test:0"
  "$bin/smpi_llamp-cc" -O2 -I"$common" $files "$common/llamp_kernel.c" "$common/llamp_app.c" -o "${name}_cap" -lm $extra >cc.log 2>&1 &&
    smpicc -O2 -I"$common" $files "$common/llamp_kernel.c" "$common/llamp_app.c" -o "${name}_plain" -lm $extra >>cc.log 2>&1 ||
    { cat cc.log; echo "| $name | build failed |"; continue; }
  export LLAMP_KERNEL_MODEL=$models
  "$bin/smpi_llamp-run" -np "$np" -platform "$(plat "$np" 2)" $sim $appsim --cfg=smpi/display-timing:yes \
    -llamp-out "out-$name" -llamp-L 2us -llamp-G 0.1ns -llamp-o 0 -llamp-S 65535 \
    -llamp-coll scan=direct,exscan=direct -llamp-quiet "./${name}_cap" $args >cap.log 2>&1 ||
    { tail -5 cap.log; echo "| $name | capture failed |"; continue; }
  lam=$(sed -n 's/^  "lambda_L": \([0-9.e+-]*\),/\1/p' "out-$name/report.json")
  errs="" s0="" s100=""
  for dl in 0 1 10 100; do
    L=$(awk -v d="$dl" 'BEGIN { print 2 + d }')
    smpirun -np "$np" -platform "$(plat "$np" "$L")" $sim $appsim --cfg=smpi/display-timing:yes --log=smpi_utils.thres:info "./${name}_plain" $args >plain.log 2>&1
    s=$(simtime plain.log)
    t=$("$bin/llamp" analyze "out-$name/graph.llg" --L "${L}us" --o 0 --G 0.1ns --S 65535 --rendezvous direct --format json |
      sed -n 's/^  "runtime": \([0-9.e+-]*\),/\1/p')
    [ "$dl" = 0 ] && s0=$s
    [ "$dl" = 100 ] && s100=$s
    errs="$errs$(awk -v s="$s" -v t="$t" 'BEGIN { printf "%+.3f ", (t - s) / s * 100 }')"
  done
  slope=$(awk -v a="$s0" -v b="$s100" 'BEGIN { printf "%.2f", (b - a) / 100e-6 }')
  p=$(best smpirun -np "$np" -platform "$(plat "$np" 2)" $sim $appsim "./${name}_plain" $args)
  c=$(best "$bin/smpi_llamp-run" -np "$np" -platform "$(plat "$np" 2)" $sim $appsim -llamp-out "o2-$name" \
    -llamp-coll scan=direct,exscan=direct -llamp-quiet "./${name}_cap" $args)
  unset LLAMP_KERNEL_MODEL
  # compute measured (the default): one run, T against its own simulated time
  "$bin/smpi_llamp-run" -np "$np" -platform "$(plat "$np" 2)" --cfg=smpi/wtime:0 --log=root.thres:warning $cfg $appsim \
    -llamp-out "on-$name" -llamp-L 2us -llamp-G 0.1ns -llamp-o 0 -llamp-S 65535 \
    -llamp-coll scan=direct,exscan=direct -llamp-quiet "./${name}_cap" $args >on.log 2>&1
  d=$(sed -n 's/.*"difference": \([0-9.e+-]*\).*/\1/p' "on-$name/report.json" | head -1)
  on=$(awk -v d="$d" 'BEGIN { if (d == "") print "n/a"; else printf "%+.3f %%", d * 100 }')
  printf '| %s | %s | %s| %s | %s | %.2f | %.2f | %.2f | %s |\n' "$name" "$np" "$errs" "$slope" "$lam" "$p" "$c" \
    "$(awk -v p="$p" -v c="$c" 'BEGIN { print c / p }')" "$on"
done
