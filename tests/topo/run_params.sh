#!/bin/bash
# topo_params: the DAG's prediction along a topology parameter against
# SimGrid on the changed platform (docs/topology.md).  One capture of a
# contention-free token ring (tests/topo/ring.c, 16 ranks, stride 3 so that
# routes of every length are taken) per platform; then, from that capture
# alone, T along l_wire (SimGrid's own FAT_TREE and DRAGONFLY clusters with
# every link's latency raised by dl) and along d_switch (generated fattree
# and dragonfly whose switch-adjacent links carry the switch latency),
# against SimGrid runs of the plain program on each changed platform.
# Bound: 0.5 % (what is left is SMPI's 16-byte envelope, 17 B x G per message).
# usage: run_params.sh BUILD_DIR SOURCE_DIR
set -u
B=$1/bin; S=$2
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$B/smpi_llamp-run" ] && [ -x "$B/llamp-routes" ] || { echo "skip: the capture was not built"; exit 77; }
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
SIM="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=surf/precision:1e-12 --log=root.thres:warning"
"$B/smpi_llamp-cc" -O1 "$S/tests/topo/ring.c" -o ring_cap >cc.log 2>&1 || { cat cc.log; exit 1; }
smpicc -O1 "$S/tests/topo/ring.c" -o ring_plain >>cc.log 2>&1 || { cat cc.log; exit 1; }
fail=0
# case NAME PARAM TOPOLOGY HOSTS: PARAM l_wire varies --wire from 0.5 us, d_switch --switch from 0
case_() {
  local name=$1 param=$2 topo=$3 hosts=$4 base plat opt
  if [ "$param" = l_wire ]; then base=0.5; opt=--wire; else base=0; opt=--switch; fi
  plat() { # plat VALUE_US
    if [ "$param" = l_wire ]; then python3 "$S/tools/llamp-platform" -t "$topo" -n "$hosts" --wire "$1us" -o "p-$name-$1.xml"
    else python3 "$S/tools/llamp-platform" -t "$topo" --wire 0.5us --switch "$1us" -o "p-$name-$1.xml"; fi
  }
  plat $base || { echo "FAIL: $name: llamp-platform"; fail=1; return; }
  "$B/smpi_llamp-run" -np 16 -platform "p-$name-$base.xml" $SIM -llamp-compute none -llamp-quiet \
    -llamp-out "cap-$name" ./ring_cap 20 1024 3 >"cap-$name.log" 2>&1 ||
    { cat "cap-$name.log"; echo "FAIL: $name: capture"; fail=1; return; }
  local pred
  pred=$("$B/llamp" analyze "cap-$name/graph.llg" --routes "cap-$name/routes.txt" --o 0 --S 65535 \
    --rendezvous direct --wrt "$param" --sweep "${base}us:$(awk -v b=$base 'BEGIN{print b + 1}')us:0.25us" \
    --tolerance none --format json | awk -F'"runtime": ' -v p="\"$param\": " 'index($0, "{" p) { split($2, a, ","); print a[1] }')
  local i=0 dl
  for dl in 0 0.25 0.5 0.75 1; do
    i=$((i + 1))
    local v T sim err
    v=$(awk -v b=$base -v d=$dl 'BEGIN{print b + d}')
    T=$(echo "$pred" | sed -n "${i}p")
    plat "$v" || { fail=1; continue; }
    sim=$(smpirun -np 16 -platform "p-$name-$v.xml" $SIM ./ring_plain 20 1024 3 2>/dev/null |
      awk '$1 == "end" { if ($3 > m) m = $3 } END { printf "%.15g", m }')
    err=$(awk -v t="$T" -v s="$sim" 'BEGIN { printf "%.4f", ((s > 0 && t > 0) ? 100 * (t - s) / s : 999) }')
    printf '%-14s %-8s +%-5s us  SimGrid %-12s DAG %-12s %+.4f %%\n' "$name" "$param" "$dl" "$sim" "$T" "$err"
    awk -v e="$err" 'BEGIN { exit !(e <= 0.5 && e >= -0.5) }' || { echo "FAIL: $name $param +$dl us: $err %"; fail=1; }
  done
}
case_ fattree l_wire "simgrid:FAT_TREE:2;4,4;1,2;1,2" 16
case_ dragonfly l_wire "simgrid:DRAGONFLY:3,4;4,3;5,1;2" 120
case_ gen-fattree d_switch fattree:4,2 16
case_ gen-dragonfly d_switch dragonfly:4,2,2 16
[ $fail = 0 ] && echo "topo_params: ok"
exit $fail
