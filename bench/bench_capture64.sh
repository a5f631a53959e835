#!/bin/sh
# Capture overhead at 64 ranks (issue 3 target: <= 15 % over plain smpirun):
# the 2-D halo of tests/capture/halo.c on 8 x 8 ranks (1000 iterations of
# 4 Irecv + 4 Isend + Waitall on 8 KiB faces, 20 us of injected compute, an
# Allreduce every 10) on a generated 64-host flat cluster
# (tools/llamp-platform -t cluster), simulate-computation off.  Wall time of
# plain smpirun (built with smpicc) against smpi_llamp-run without the
# analysis (capture and trace files only) and with it (plus DAG construction,
# engine and report; the DAG built during the simulation, as by default, and
# from the trace files at the last MPI_Finalize, -llamp-stream no); best of
# REPS runs of each, interleaved.  Prints the
# ratios; then the same with SimGrid's default settings (compute measured
# and simulated).  Never run by ctest.
# SMPI reads the thread CPU clock at both ends of every MPI call, a system
# call each (1.5 us on our VM); the capture answers those reads without one
# (docs/capture.md, "SMPI's clock reads"), which makes it faster than plain
# smpirun.  So the capture's own cost is also measured like
# for like: plain smpirun with the same reads answered from CLOCK_MONOTONIC
# (an LD_PRELOAD shim built here), and the capture keeping SMPI's clock
# (-llamp-smpi-cpu-timer yes) against plain smpirun.
#   bench/bench_capture64.sh [BUILD_DIR] [ITERS] [REPS]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) # absolute: the bench works in a temporary directory
iters=${2:-1000}
reps=${3:-3}
bin=$build/bin
work=$(mktemp -d /tmp/bench_capture64.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
smpicc -O2 "$here/tests/capture/halo.c" -o halo_plain
"$bin/smpi_llamp-cc" -O2 "$here/tests/capture/halo.c" -o halo_cap
python3 "$here/tools/llamp-platform" -n 64 -t cluster -L 2us -G 0.1ns -o p64.xml
# plain smpirun without its thread-clock system calls: what the capture does
# to libsimgrid, done to the whole process
cat >noclock.c <<'EOF2'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec *ts) {
  static int (*real)(clockid_t, struct timespec *);
  if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  return real(id == CLOCK_THREAD_CPUTIME_ID ? CLOCK_MONOTONIC : id, ts);
}
EOF2
cc -O2 -shared -fPIC noclock.c -o noclock.so -ldl
sim="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --log=root.thres:warning"
args="8 8 $iters 8192 20 10"
wall_log() { # wall time of one run of the command, its output into the file $1 (1 when it fails)
  log=$1
  shift
  t0=$(date +%s.%N)
  "$@" >"$log" 2>&1 || return 1
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
wall() { wall_log run.log "$@" || { cat run.log; exit 1; }; }
min() { echo "$1 $2" | awk '{ print ($1 < $2 ? $1 : $2) }'; }
# shellcheck source=bench/bench_lib.sh
. "$here/bench/bench_lib.sh" # median of the runs (a list of times)
plain=1e9 noan=1e9 full=1e9 files=1e9 plains="" noans="" fulls="" filess="" rnoan="" rfull="" builds=""
nplain=1e9 cpuf=1e9 nplains="" cpufs="" rnfull="" rcpuf=""
for _ in $(seq "$reps"); do
  # shellcheck disable=SC2086
  t=$(wall smpirun -np 64 -platform p64.xml $sim ./halo_plain $args)
  plain=$(min "$plain" "$t") plains="$plains $t" tp=$t
  # shellcheck disable=SC2086
  t=$(wall "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out out -llamp-no-analysis ./halo_cap $args)
  noan=$(min "$noan" "$t") noans="$noans $t"
  rnoan="$rnoan $(echo "$t $tp" | awk '{ printf "%.4f", $1 / $2 }')"
  # shellcheck disable=SC2086
  t=$(wall "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out out ./halo_cap $args)
  full=$(min "$full" "$t") fulls="$fulls $t" tf=$t
  # the DAG's time at the last MPI_Finalize in each run (this VM's noise
  # doubles it now and then: the best and the median of all runs)
  builds="$builds $(grep -o '"build_seconds": [0-9.]*' out/report.json | awk '{print $2}')"
  rfull="$rfull $(echo "$t $tp" | awk '{ printf "%.4f", $1 / $2 }')"
  # the same with the DAG built from the trace files at the last
  # MPI_Finalize instead of during the simulation (-llamp-stream no)
  # shellcheck disable=SC2086
  t=$(wall "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out fout -llamp-stream no ./halo_cap $args)
  files=$(min "$files" "$t") filess="$filess $t"
  # like for like: plain smpirun without its clock system calls, then the
  # capture + analysis against it; the capture keeping SMPI's clock against
  # the plain run
  # shellcheck disable=SC2086
  t=$(wall env LD_PRELOAD="$work/noclock.so" smpirun -np 64 -platform p64.xml $sim ./halo_plain $args)
  nplain=$(min "$nplain" "$t") nplains="$nplains $t" tn=$t
  rnfull="$rnfull $(echo "$tf $tn" | awk '{ printf "%.4f", $1 / $2 }')"
  # shellcheck disable=SC2086
  t=$(wall "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out cout -llamp-smpi-cpu-timer yes ./halo_cap $args)
  cpuf=$(min "$cpuf" "$t") cpufs="$cpufs $t"
  rcpuf="$rcpuf $(echo "$t $tp" | awk '{ printf "%.4f", $1 / $2 }')"
done
mplain=$(median "$plains") mnoan=$(median "$noans") mfull=$(median "$fulls") mfiles=$(median "$filess")
# each run against the plain run just before it (the host's load changes
# over minutes: neighbours share it), the median of those ratios
prnoan=$(median "$rnoan") prfull=$(median "$rfull")
mnplain=$(median "$nplains") mcpuf=$(median "$cpufs") prnfull=$(median "$rnfull") prcpuf=$(median "$rcpuf")
bbest=$(echo "$builds" | tr ' ' '\n' | grep . | sort -n | head -1) bmed=$(median "$builds")
cp run.log full.log
# where the analysis at MPI_Finalize goes (LLAMP_TIMING: one more run)
# shellcheck disable=SC2086
LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out out ./halo_cap $args \
  >timing.log 2>&1 || { cat timing.log; exit 1; }
records=$(grep -o '"records": [0-9]*' out/report.json | awk '{print $2}')
build_s=$(grep -o '"build_seconds": [0-9.]*' out/report.json | awk '{print $2}')
analysis_s=$(grep -o '"analysis_seconds": [0-9.]*' out/report.json | awk '{print $2}')
cmp out/graph.llg fout/graph.llg || { echo "the streamed DAG differs from the files' one"; exit 1; }
# shellcheck disable=SC2086
LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out fout -llamp-stream no ./halo_cap $args \
  >ftiming.log 2>&1 || { cat ftiming.log; exit 1; }
fbuild_s=$(grep -o '"build_seconds": [0-9.]*' fout/report.json | awk '{print $2}')
trace_bytes=$(cat out/trace/rank-*.llt | wc -c)
echo "halo 8x8 (64 ranks), $iters iterations, 8 KiB faces, 20 us compute, allreduce every 10; best of $reps"
echo "records: $records ($(echo "$records $iters" | awk '{printf "%.1f per rank and iteration", $1/64/$2}')), trace files: $trace_bytes B"
grep -E '^smpi_llamp: 64 ranks' full.log || true
awk -v p="$plain" -v n="$noan" -v f="$full" -v r="$records" -v b="$build_s" -v a="$analysis_s" \
  -v mp="$mplain" -v mn="$mnoan" -v mf="$mfull" -v fl="$files" -v mfl="$mfiles" -v fb="$fbuild_s" \
  -v prn="$prnoan" -v prf="$prfull" -v bb="$bbest" -v bm="$bmed" -v nb="$reps" 'BEGIN {
  printf "plain smpirun                 %8.3f s                                         (median %.3f s)\n", p, mp
  printf "capture, no analysis          %8.3f s   x%.3f  (%+.1f %%, %+.2f us per record) (median x%.3f)\n", n, n / p, (n / p - 1) * 100, (n - p) / r * 1e6, mn / mp
  printf "capture + analysis            %8.3f s   x%.3f  (%+.1f %%; DAG at the last MPI_Finalize %.3f s = %.1f M records/s, engine and report %.2f s) (median x%.3f)\n", f, f / p, (f / p - 1) * 100, b, r / b / 1e6, a, mf / mp
  printf "  the DAG from the files      %8.3f s   x%.3f  (DAG %.3f s = %.1f M records/s; -llamp-stream no) (median x%.3f)\n", fl, fl / p, fb, r / fb / 1e6, mfl / mp
  printf "paired (each run against the plain run before it, median): capture x%.3f, capture + analysis x%.3f\n", prn, prf
  # a best that beats the capture alone, or a median that disagrees, is the
  # machine, not the code: no verdict then
  # the best, the medians and the paired median must agree
  if (f < n || (f / p <= 1.15) != (mf / mp <= 1.15) || (f / p <= 1.15) != (prf <= 1.15))
    printf "target <= 15 %%: not decided (noise: %s); rerun with more REPS\n", (f < n ? "capture + analysis ran faster than the capture alone" : "the best, the median and the paired median disagree")
  else
    printf "target <= 15 %%: %s\n", (f / p <= 1.15 ? "met" : "NOT met")
  printf "DAG at the last MPI_Finalize over the %d capture + analysis runs: best %.3f s = %.1f M records/s, median %.3f s = %.1f M records/s\n", nb, bb, r / bb / 1e6, bm, r / bm / 1e6
  printf "target >= 20 M records/s: %s\n", (r / bm >= 20e6 ? "met (median)" : r / bb >= 20e6 ? "not decided (the best meets it, the median does not)" : "NOT met")
}'
# the capture's own cost, like for like (SMPI's clock reads the same on both sides)
awk -v p="$plain" -v mp="$mplain" -v f="$full" -v mf="$mfull" -v q="$nplain" -v mq="$mnplain" -v prq="$prnfull" \
  -v n="$noan" -v mn="$mnoan" -v r="$records" \
  -v c="$cpuf" -v mc="$mcpuf" -v prc="$prcpuf" 'BEGIN {
  printf "like for like, SMPI\x27s thread-clock reads alike on both sides:\n"
  printf "  plain smpirun, those reads from CLOCK_MONOTONIC (LD_PRELOAD) %8.3f s (median %.3f s); plain smpirun against it x%.3f\n", q, mq, p / q
  printf "  capture, no analysis, against it                            x%.3f (median x%.3f; %+.2f us per record)\n", n / q, mn / mq, (n - q) / r * 1e6
  printf "  capture + analysis against it                               x%.3f (median x%.3f, paired x%.3f): %s\n", f / q, mf / mq, prq, v(f / q, mf / mq, prq)
  printf "  capture + analysis keeping SMPI\x27s clock (-llamp-smpi-cpu-timer yes) %8.3f s, against plain smpirun x%.3f (median x%.3f, paired x%.3f): %s\n", c, c / p, mc / mp, prc, v(c / p, mc / mp, prc)
}
function v(b, m, pr) { # the verdict on <= 1.15 when the best, the median and the paired median agree
  if ((b <= 1.15) != (m <= 1.15) || (b <= 1.15) != (pr <= 1.15)) return "<= 1.15 not decided (noise)"
  return b <= 1.15 ? "<= 1.15 met" : "<= 1.15 NOT met"
}'
# Same-time pairs: the plain run and the capture without analysis (one
# thread each) run at the same time, each pinned to its own core, the cores
# swapped at every pair, so both see the host's load of the same moment.  On
# this VM two identical runs one after the other differ by 5-10 %, more than
# the capture's own cost.  Printed beside the figures above, not instead of
# them: the pair shares the last-level cache and the memory bandwidth, and
# the analysis (two threads) cannot be measured this way.
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
  same=""
  for i in $(seq "$reps"); do
    ca=$((i % 2)) cb=$((1 - i % 2))
    # shellcheck disable=SC2086
    (wall_log same_plain.log taskset -c "$ca" smpirun -np 64 -platform p64.xml $sim ./halo_plain $args >same_plain.t) &
    # shellcheck disable=SC2086
    (wall_log same_cap.log taskset -c "$cb" "$bin/smpi_llamp-run" -np 64 -platform p64.xml $sim -llamp-out sout \
      -llamp-no-analysis ./halo_cap $args >same_cap.t) &
    wait
    tp=$(cat same_plain.t) tc=$(cat same_cap.t)
    if [ -z "$tp" ] || [ -z "$tc" ]; then
      cat same_plain.log same_cap.log
      exit 1
    fi
    same="$same $(echo "$tc $tp" | awk '{ printf "%.4f", $1 / $2 }')"
  done
  echo "capture, no analysis, same-time pairs on two cores: median x$(median "$same") (each pair:$same)"
fi
echo "the analysis at the last MPI_Finalize, by stage (LLAMP_TIMING, a separate run):"
sed -n 's/^smpi_llamp: timing: /  /p' timing.log
echo "the same, the DAG from the files:"
sed -n 's/^smpi_llamp: timing: /  /p' ftiming.log
# The same with SimGrid's defaults (compute measured and simulated), as a
# user runs it: the capture then reads the thread's CPU clock at each
# wrapper's entry and exit, beside SMPI's own two reads per call (a system
# call each on a VM), and the DAG's compute values all differ.
# Plain smpirun with these defaults is not the same simulation: SMPI scales
# the measured CPU time by smpi/host-speed (default 20 kflop/s) onto the
# platform's 1 Gflop/s hosts, so the program's own compute all but vanishes,
# while the capture replays it 1:1 (docs/capture.md).  The like-for-like
# plain run sets smpi/host-speed to the hosts' speed; both are printed.  (200
# iterations, counted with uprobes: SMPI's defaults 7 k simulation steps,
# its 1:1 replay 73-146 k, the capture 28-57 k.)
dflt="--log=root.thres:warning"
same_speed="--cfg=smpi/host-speed:1Gf"
dplain=1e9 dplain11=1e9 dfull=1e9
for _ in $(seq "$reps"); do
  # shellcheck disable=SC2086
  dplain=$(min "$dplain" "$(wall smpirun -np 64 -platform p64.xml $dflt ./halo_plain $args)")
  # shellcheck disable=SC2086
  dplain11=$(min "$dplain11" "$(wall smpirun -np 64 -platform p64.xml $dflt $same_speed ./halo_plain $args)")
  # shellcheck disable=SC2086
  dfull=$(min "$dfull" "$(wall "$bin/smpi_llamp-run" -np 64 -platform p64.xml $dflt -llamp-out dout \
    ./halo_cap $args)")
done
# shellcheck disable=SC2086
LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 64 -platform p64.xml $dflt -llamp-out dout ./halo_cap $args \
  >dtiming.log 2>&1 || { cat dtiming.log; exit 1; }
awk -v p="$dplain" -v q="$dplain11" -v f="$dfull" 'BEGIN {
  printf "SimGrid defaults (compute simulated): capture + analysis %.3f s\n", f
  printf "  against plain smpirun replaying compute 1:1 as the capture does (smpi/host-speed = the hosts\x27 1 Gf) %.3f s   x%.3f\n", q, f / q
  printf "  against plain smpirun with SMPI\x27s default host speed (compute scaled to ~0: another simulation) %.3f s   x%.3f\n", p, f / p
}'
echo "  its analysis at the last MPI_Finalize:"
sed -n 's/^smpi_llamp: timing: /    /p' dtiming.log
