#!/bin/bash
# place_ring: rank placement end to end on 64 ranks (docs/topology.md, "Rank
# placement").  A token ring that visits the ranks with stride 23
# (tests/topo/ring.c), captured once; 64 ranks on 16 hosts x 4 places of a
# generated fat tree (fattree:4,2) and dragonfly (dragonfly:4,2,2), where
# block and round-robin both put every hop between far hosts.  For each
# platform: `llamp place` from block, round-robin and random starts must
# find a mapping whose T is at least 20 % below both block and round-robin,
# and SimGrid, run with the hostfiles it writes, must agree with the DAG
# within 0.5 % for block, round-robin and the placement (so the gain is
# SimGrid's too).  `llamp analyze --routes --hostfile` must give the same T
# for the placement's hostfile.
# usage: run_place.sh BUILD_DIR SOURCE_DIR
set -u
B=$1/bin; S=$2
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$B/smpi_llamp-run" ] && [ -x "$B/llamp-routes" ] || { echo "skip: the capture was not built"; exit 77; }
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
SIM="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=surf/precision:1e-12 --log=root.thres:warning"
MODEL="--o 0 --S 65535 --rendezvous direct"
ARGS="20 1024 23"
"$B/smpi_llamp-cc" -O1 "$S/tests/topo/ring.c" -o ring_cap >cc.log 2>&1 || { cat cc.log; exit 1; }
smpicc -O1 "$S/tests/topo/ring.c" -o ring_plain >>cc.log 2>&1 || { cat cc.log; exit 1; }
python3 "$S/tools/llamp-platform" -t fattree:4,2 -o fattree.xml || exit 1
python3 "$S/tools/llamp-platform" -t dragonfly:4,2,2 -o dragonfly.xml || exit 1
"$B/smpi_llamp-run" -np 64 -platform fattree.xml $SIM -llamp-compute none -llamp-quiet \
  -llamp-out cap ./ring_cap $ARGS >cap.log 2>&1 || { cat cap.log; echo "FAIL: capture"; exit 1; }
fail=0
sim() { # sim PLATFORM HOSTFILE: SimGrid's runtime
  smpirun -np 64 -platform "$1" -hostfile "$2" $SIM ./ring_plain $ARGS 2>/dev/null |
    awk '$1 == "end" { if ($3 > m) m = $3 } END { printf "%.15g", m }'
}
num() { awk -v k="\"$2\": " '{ i = index($0, k); if (i) { s = substr($0, i + length(k)); sub(/[,}].*/, "", s); print s; exit } }' "$1"; }
for plat in fattree dragonfly; do
  "$B/llamp-routes" $plat.xml -n 16 -o $plat.routes || { echo "FAIL: $plat: llamp-routes"; fail=1; continue; }
  # the hosts in SimGrid's order (llamp-routes -n 16 took the first 16)
  awk '/^host /{ print $3 }' $plat.routes >hosts.txt
  [ "$(wc -l <hosts.txt)" = 16 ] || { echo "FAIL: $plat: expected 16 hosts in the routes file"; fail=1; continue; }
  awk '{ for (k = 0; k < 4; k++) print }' hosts.txt >block.hosts
  for k in 0 1 2 3; do cat hosts.txt; done >rr.hosts
  "$B/llamp" place cap/graph.llg --routes $plat.routes $MODEL --start block,round-robin,random \
    --seed 1 -o best.hosts --format json >place.json 2>place.err || { cat place.err; echo "FAIL: $plat: place"; fail=1; continue; }
  Tb=$(awk '/"start": "block"/' place.json | num /dev/stdin T_start)
  Tr=$(awk '/"start": "round-robin"/' place.json | num /dev/stdin T_start)
  To=$(awk '/"best"/' place.json | num /dev/stdin T)
  Ta=$("$B/llamp" analyze cap/graph.llg --routes $plat.routes --hostfile best.hosts $MODEL --tolerance none \
    --format json | num /dev/stdin runtime)
  Sb=$(sim $plat.xml block.hosts); Sr=$(sim $plat.xml rr.hosts); So=$(sim $plat.xml best.hosts)
  printf '%-9s block DAG %-10.6g SimGrid %-10.6g | round-robin DAG %-10.6g SimGrid %-10.6g | placed DAG %-10.6g SimGrid %-10.6g (analyze %.6g)\n' \
    $plat "$Tb" "$Sb" "$Tr" "$Sr" "$To" "$So" "$Ta"
  [ "$(wc -l <best.hosts)" = 64 ] || { echo "FAIL: $plat: the hostfile has $(wc -l <best.hosts) lines"; fail=1; }
  [ "$(sort best.hosts | uniq -c | awk '$1 > 4' | wc -l)" = 0 ] || { echo "FAIL: $plat: a host has more than 4 ranks"; fail=1; }
  awk -v o="$To" -v b="$Tb" -v r="$Tr" 'BEGIN { exit !(o > 0 && o <= 0.8 * b && o <= 0.8 * r) }' ||
    { echo "FAIL: $plat: placed T $To not 20 % below block $Tb and round-robin $Tr"; fail=1; }
  awk -v a="$Ta" -v o="$To" 'BEGIN { d = a - o; if (d < 0) d = -d; exit !(d <= 1e-9 * o) }' ||
    { echo "FAIL: $plat: llamp analyze gives $Ta for the placement, llamp place $To"; fail=1; }
  for pair in "block $Tb $Sb" "round-robin $Tr $Sr" "placed $To $So"; do
    set -- $pair
    awk -v t="$2" -v s="$3" 'BEGIN { e = (s > 0) ? 100 * (t - s) / s : 999; exit !(e <= 0.5 && e >= -0.5) }' ||
      { echo "FAIL: $plat $1: DAG $2 vs SimGrid $3 beyond 0.5 %"; fail=1; }
  done
done
[ $fail = 0 ] && echo "place_ring: ok"
exit $fail
