#!/bin/sh
# llamp vs LogGOPSim on the same GOAL graph: an 11-point L sweep.
#   LOGGOPSIM_BIN=/path/with/txt2bin+LogGOPSim bench/bench_loggopsim.sh [BUILD_DIR] [GRAPH.goal]
# LogGOPSim is not part of this project: build it yourself (-O3) from
# spcl/LogGOPSim and point LOGGOPSIM_BIN at the directory holding txt2bin and
# LogGOPSim.  With o = 0 and G = 0 both tools compute the same T (checked).
# Prints the ratios; asserts nothing.
set -eu
build=${1:-build}
llamp="$build/bin/llamp"
bin=${LOGGOPSIM_BIN:?set LOGGOPSIM_BIN to the directory with txt2bin and LogGOPSim}
work=${TMPDIR:-/tmp}/llamp-bench-lgs
mkdir -p "$work"
goal=${2:-$work/halo3d-8.6M.goal}
if [ ! -f "$goal" ]; then
  "$llamp" generate halo3d px=8 py=8 pz=8 iters=1300 bytes=8KiB compute=10us -o "$goal"
fi
now() { date +%s.%N; }
# LogGOPSim: txt2bin once, then one run per L value (ns integers)
t0=$(now); "$bin/txt2bin" -i "$goal" -o "$work/g.bin" >/dev/null; t1=$(now)
lgs_parse=$(echo "$t1 - $t0" | bc -l)
lgs_runs=0; lgs_T=""
for L in 0 1000 2000 3000 4000 5000 6000 7000 8000 9000 10000; do
  t0=$(now)
  out=$("$bin/LogGOPSim" -f "$work/g.bin" -L $L -o 0 -g 0 -G 0 -S 2000000000 -b)
  t1=$(now)
  lgs_runs=$(echo "$lgs_runs + $t1 - $t0" | bc -l)
  T=$(echo "$out" | sed -n 's/.*Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p')
  [ -n "$T" ] || { echo "LogGOPSim produced no result for L=$L" >&2; exit 1; }
  lgs_T="$lgs_T $T"
done
# llamp: one process, stage times from --timing (reading = GOAL parse + build)
"$llamp" analyze "$goal" --o 0 --G 0 --S 2GB --sweep 0:10us:1us --tolerance 1 --format csv --timing \
  >"$work/sweep.csv" 2>"$work/timing.txt"
# one whole process on the binary graph, as a user runs it (end to end: read,
# engine, sweep, report; no tolerances)
"$llamp" convert "$goal" "$work/g.llg" >/dev/null
# the sweep stage on the binary graph too, as LogGOPSim runs on its own
# binary format (on the graph built from GOAL text the same stage is slower:
# its arrays are fresh heap pages, the .llg's are the page cache's)
"$llamp" analyze "$work/g.llg" --o 0 --G 0 --S 2GB --sweep 0:10us:1us --tolerance 1 --format csv --timing \
  >"$work/sweep_llg.csv" 2>"$work/timing_llg.txt"
cmp -s "$work/sweep.csv" "$work/sweep_llg.csv" || { echo "the .llg's sweep differs from the GOAL file's" >&2; exit 1; }
t0=$(now)
"$llamp" analyze "$work/g.llg" --o 0 --G 0 --S 2GB --sweep 0:10us:1us --tolerance none --format csv >/dev/null
t1=$(now)
llamp_whole=$(echo "$t1 - $t0" | bc -l)
llamp_parse=$(sed -n 's/.*reading .* \([0-9.]*\) s$/\1/p' "$work/timing.txt")
llamp_sweep_goal=$(sed -n 's/.*sweeping .* \([0-9.]*\) s$/\1/p' "$work/timing.txt")
llamp_sweep=$(sed -n 's/.*sweeping .* \([0-9.]*\) s$/\1/p' "$work/timing_llg.txt")
# same answers? (LogGOPSim in integer ns)
i=0; agree=yes
for T in $lgs_T; do
  i=$((i + 1))
  ours=$(sed -n "$((i + 1))p" "$work/sweep.csv" | cut -d, -f2)
  d=$(echo "x = $ours * 1000000000 - $T; if (x < 0) x = -x; x > 0.5" | bc -l)
  [ "$d" = 0 ] || { agree=no; echo "L point $i: llamp $ours s, LogGOPSim $T ns" >&2; }
done
echo "graph: $goal ($(du -h "$goal" | cut -f1))"
printf "LogGOPSim: txt2bin %.2f s, 11 runs %.2f s\n" "$lgs_parse" "$lgs_runs"
printf "llamp:     GOAL read %.2f s, 11-point sweep %.3f s on the .llg (%.3f s on the graph read from GOAL)\n" \
  "$llamp_parse" "$llamp_sweep" "$llamp_sweep_goal"
printf "speedup excluding text parsing (sweep stage): %.0f x (target >= 300)\n" "$(echo "$lgs_runs / $llamp_sweep" | bc -l)"
printf "speedup including text parsing: %.1f x (target >= 10)\n" \
  "$(echo "($lgs_parse + $lgs_runs) / ($llamp_parse + $llamp_sweep_goal)" | bc -l)"
printf "one whole llamp analyze --sweep process on the .llg: %.2f s; 11 LogGOPSim runs / that: %.1f x (target >= 30)\n" \
  "$llamp_whole" "$(echo "$lgs_runs / $llamp_whole" | bc -l)"
echo "same runtimes at all 11 points: $agree"
