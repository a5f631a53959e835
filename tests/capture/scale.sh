#!/bin/sh
# Scale of a capture (registered by tests/faults.cmake, label slow;
# docs/hardening.md, "Scale"):  scale.sh BUILD_DIR SOURCE_DIR [RANKS...]
# stencil3d (4x4x4 points per rank, 10 iterations, one residual allreduce)
# captured at each rank count (default 256 1024 4096) on a LogGP platform of
# as many hosts, and a two-rank blocking ping-pong of 1 M round trips (2 M
# records per rank, spilled).  Prints wall time and peak memory of each run
# and the capture's own analysis time; checks the answers, not the times:
# every run ends with its report, T(L0) is within 10 % of SimGrid's time
# (the platform's shared host links queue concurrent messages, which the DAG
# approximates), the trace per rank does not grow with the ranks (at most 2x
# the smallest run's) and above 1024 hosts routes.txt holds only the pairs
# the messages use (at most 64 routes per rank).
set -u
build=$1
src=$2
shift 2
ranks=${*:-256 1024 4096}
bin=$build/bin
work=$build/tests/capture-work/scale
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time not found"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
unset LLAMP_OUT LLAMP_CONFIG LLAMP_SPILL LLAMP_QUIET
fail() {
  echo "FAIL: $*"
  exit 1
}
expect() { grep -qF -- "$2" "$1" || { echo "--- $1:"; tail -20 "$1"; fail "$1 lacks: $2"; }; }
json_num() { sed -n "s/.*\"$2\": \([-0-9.eE+]*\).*/\1/p" "$1" | head -1; }

a=$src/apps
"$bin/smpi_llamp-cc" -O2 -I"$a/common" "$a/stencil3d/stencil3d.c" "$a/common/llamp_kernel.c" \
  "$a/common/llamp_app.c" -o stencil3d -lm || fail "smpi_llamp-cc stencil3d"
"$bin/smpi_llamp-cc" -O2 -I"$a/common" "$a/pingpong/pingpong.c" "$a/common/llamp_kernel.c" \
  "$a/common/llamp_app.c" -o pingpong -lm || fail "smpi_llamp-cc pingpong"

echo "ranks records vertices messages wall_s maxrss_MB analysis_s T/SimGrid-1 trace_B/rank routes"
first_per_rank=
for n in $ranks; do
  python3 "$src/tools/llamp-platform" -n "$n" -o "p$n.xml" || fail "llamp-platform"
  /usr/bin/time -f "%e %M" -o "time$n.txt" "$bin/smpi_llamp-run" -np "$n" -platform "p$n.xml" \
    -llamp-out "o$n" -llamp-compute none ./stencil3d --weak 4 --iters 10 --serial-max 0 >"run$n.txt" 2>&1 ||
    { tail -20 "run$n.txt"; fail "stencil3d at $n ranks"; }
  expect "run$n.txt" "smpi_llamp: wrote o$n/graph.llg"
  line=$(sed -n "s/^smpi_llamp: $n ranks, \([0-9]*\) records -> \([0-9]*\) vertices, \([0-9]*\) messages (\([0-9.]*\) s)/\1 \2 \3 \4/p" "run$n.txt")
  [ -n "$line" ] || fail "no summary line at $n ranks"
  set -- $line
  d=$(json_num "o$n/report.json" difference)
  awk -v d="$d" 'BEGIN { exit !(d != "" && d <= 0.1 && d >= -0.1) }' || fail "$n ranks: T(L0) differs from SimGrid's time by $d"
  read -r wall rss <"time$n.txt"
  # nothing quadratic in the ranks on disk: the trace per rank stays flat
  # (communicator members as runs), the routes grow with the pairs used
  per_rank=$(( $(cat o$n/trace/rank-*.llt | wc -c) / n ))
  routes=$(grep -c '^route ' "o$n/routes.txt")
  [ -n "$first_per_rank" ] || first_per_rank=$per_rank
  [ "$per_rank" -le $((2 * first_per_rank)) ] ||
    fail "$n ranks: $per_rank trace bytes per rank, over twice the $first_per_rank of the smallest run"
  if [ "$n" -gt 1024 ]; then
    grep -qx subset "o$n/routes.txt" || fail "$n ranks: routes.txt holds every host pair"
    [ "$routes" -le $((64 * n)) ] || fail "$n ranks: $routes routes (over 64 per rank)"
  fi
  echo "$n $1 $2 $3 $wall $((rss / 1024)) $4 $d $per_rank $routes"
done

# many records per rank: 1 M blocking round trips of 8 bytes
/usr/bin/time -f "%e %M" -o timepp.txt "$bin/smpi_llamp-run" -np 2 --cfg=smpi/simulate-computation:no \
  -llamp-out opp -llamp-compute none ./pingpong --sizes 8 --reps 1000000 --warmup 0 --mode blocking >runpp.txt 2>&1 ||
  { tail -20 runpp.txt; fail "pingpong"; }
expect runpp.txt "smpi_llamp: wrote opp/graph.llg"
line=$(sed -n "s/^smpi_llamp: 2 ranks, \([0-9]*\) records -> \([0-9]*\) vertices, \([0-9]*\) messages (\([0-9.]*\) s)/\1 \2 \3 \4/p" runpp.txt)
[ -n "$line" ] || fail "no summary line (pingpong)"
set -- $line
[ "$3" -ge 2000000 ] || fail "pingpong: $3 messages, expected 2 M or more"
ls -l opp/trace
read -r wall rss <timepp.txt
echo "pingpong 2 ranks: $1 records, $2 vertices, $3 messages, wall $wall s, maxrss $((rss / 1024)) MB, analysis $4 s"
echo "PASS: scale"
