#!/bin/sh
# Capture overhead on a 2-D halo exchange (tests/capture/halo.c) under SMPI:
# wall time of plain smpirun (program built with smpicc) against
# smpi_llamp-run with the analysis off (capture and trace files only) and on
# (plus DAG build, engine and report files).  Prints the best of REPS runs
# and the ratios; never run by ctest.
#   bench/bench_capture.sh [BUILD_DIR] [PX PY ITERS BYTES COMPUTE_US] [REPS]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) # absolute: the bench works in a temporary directory
px=${2:-4} py=${3:-4} iters=${4:-1000} bytes=${5:-8192} compute=${6:-20} reps=${7:-3}
bin=$build/bin
work=$(mktemp -d /tmp/bench_capture.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
smpicc -O2 "$here/tests/capture/halo.c" -o halo_plain
"$bin/smpi_llamp-cc" -O2 "$here/tests/capture/halo.c" -o halo_cap
np=$((px * py))
best() { # best wall time of REPS runs of the command
  b=""
  for _ in $(seq "$reps"); do
    t0=$(date +%s.%N)
    "$@" >run.log 2>&1 || { cat run.log; exit 1; }
    t1=$(date +%s.%N)
    b=$(echo "$t0 $t1 ${b:-1e9}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
  done
  echo "$b"
}
sim="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --log=root.thres:warning"
plain=$(best smpirun -np $np -platform "$here/platforms/cluster16.xml" $sim ./halo_plain $px $py $iters $bytes $compute)
noan=$(best "$bin/smpi_llamp-run" -np $np $sim -llamp-out out -llamp-no-analysis ./halo_cap $px $py $iters $bytes $compute)
full=$(best "$bin/smpi_llamp-run" -np $np $sim -llamp-out out ./halo_cap $px $py $iters $bytes $compute)
records=$(grep -o '"records": [0-9]*' out/report.json | awk '{print $2}')
trace_bytes=$(cat out/trace/rank-*.llt | wc -c)
echo "halo ${px}x${py}, $iters iterations, $bytes B faces, ${compute} us compute, best of $reps"
echo "records: $records ($(echo "$records $np $iters" | awk '{printf "%.1f per rank and iteration", $1/$2/$3}')), trace files: $trace_bytes B"
awk -v p="$plain" -v n="$noan" -v f="$full" -v r="$records" 'BEGIN {
  printf "plain smpirun                 %8.3f s\n", p
  printf "capture, no analysis          %8.3f s   x%.2f   (+%.2f us per record)\n", n, n / p, (n - p) / r * 1e6
  printf "capture + analysis            %8.3f s   x%.2f\n", f, f / p
}'
