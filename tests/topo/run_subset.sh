#!/bin/bash
# topo_subset: the routes of the pairs the messages use (a subset table, what
# the capture writes above `full_routes_hosts` hosts; docs/topology.md,
# "Large runs") give the same answers as every host pair's route.  A token
# ring (tests/topo/ring.c, stride 3: routes of every length) and a
# Cart_create/Comm_split program (fft --alltoallv) captured twice on a
# fat tree and a dragonfly, with the full table (default) and with
# LLAMP_FULL_ROUTES_HOSTS=0: equal graphs and equal T, lambda_L, lambda_G,
# parameters; `llamp analyze --routes` with either file equal along l_wire;
# the subset file says so and holds fewer routes; `llamp place` on it says
# which route is missing.
# usage: run_subset.sh BUILD_DIR SOURCE_DIR
set -u
B=$1/bin; S=$2
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$B/smpi_llamp-run" ] && [ -x "$B/llamp" ] || { echo "skip: the capture was not built"; exit 77; }
W=$(mktemp -d) || exit 1
[ -n "${KEEP:-}" ] && echo "work: $W"
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
cd "$W" || exit 1
SIM="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --log=root.thres:warning"
A=$S/apps
"$B/smpi_llamp-cc" -O1 "$S/tests/topo/ring.c" -o ring >cc.log 2>&1 || { cat cc.log; exit 1; }
"$B/smpi_llamp-cc" -O1 -I"$A/common" "$A/fft/fft.c" "$A/common/llamp_kernel.c" "$A/common/llamp_app.c" \
  -o fft -lm >>cc.log 2>&1 || { cat cc.log; exit 1; }
fail=0
num() { sed -n "s/^  \"$2\": \([-0-9.eE+]*\),*$/\1/p" "$1" | head -1; }
# case NAME TOPOLOGY PROGRAM ARGS...
case_() {
  local name=$1 topo=$2
  shift 2
  python3 "$S/tools/llamp-platform" -t "$topo" -o "p-$name.xml" || { echo "FAIL: $name: llamp-platform"; fail=1; return; }
  for mode in full subset; do
    local env=()
    [ $mode = subset ] && env=(env LLAMP_FULL_ROUTES_HOSTS=0)
    "${env[@]}" "$B/smpi_llamp-run" -np 16 -platform "p-$name.xml" $SIM -llamp-compute none -llamp-quiet \
      -llamp-out "$name-$mode" "$@" >"$name-$mode.log" 2>&1 ||
      { cat "$name-$mode.log"; echo "FAIL: $name $mode: capture"; fail=1; return; }
  done
  local f=$name-full s=$name-subset
  grep -qx subset "$s/routes.txt" || { echo "FAIL: $name: the subset routes.txt does not say 'subset'"; fail=1; }
  ! grep -qx subset "$f/routes.txt" || { echo "FAIL: $name: the full routes.txt says 'subset'"; fail=1; }
  local rf rs
  rf=$(grep -c '^route ' "$f/routes.txt"); rs=$(grep -c '^route ' "$s/routes.txt")
  [ "$rf" -eq 256 ] && [ "$rs" -lt "$rf" ] && [ "$rs" -ge 16 ] ||
    { echo "FAIL: $name: $rf routes in the full table (expected 256), $rs in the subset"; fail=1; }
  cmp -s "$f/graph.llg" "$s/graph.llg" || { echo "FAIL: $name: the graphs differ"; fail=1; }
  local k a b
  for k in runtime lambda_L lambda_G rho_L; do
    a=$(num "$f/report.json" $k); b=$(num "$s/report.json" $k)
    [ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: $name: $k full '$a' subset '$b'"; fail=1; }
  done
  # every topology parameter's lambda alike
  a=$(sed -n '/^  "parameters": {/,/^  }/p' "$f/report.json"); b=$(sed -n '/^  "parameters": {/,/^  }/p' "$s/report.json")
  [ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: $name: parameters differ"; fail=1; }
  for mode in full subset; do
    "$B/llamp" analyze "$f/graph.llg" --routes "$name-$mode/routes.txt" --wrt l_wire --sweep 0.5us:1.5us:0.25us \
      --tolerance none --format json >"an-$name-$mode.json" 2>"an-$name-$mode.err" ||
      { cat "an-$name-$mode.err"; echo "FAIL: $name: llamp analyze --routes ($mode)"; fail=1; }
  done
  cmp -s "an-$name-full.json" "an-$name-subset.json" ||
    { diff "an-$name-full.json" "an-$name-subset.json" | head -5; echo "FAIL: $name: analyze differs along l_wire"; fail=1; }
  echo "$name: $rf routes -> $rs, T $(num "$f/report.json" runtime) s, lambda_L $(num "$f/report.json" lambda_L): equal"
}
case_ ring-ft fattree:4,2 ./ring 20 1024 3
case_ ring-df dragonfly:2,2,4 ./ring 20 1024 3
case_ fft-ft fattree:4,2 ./fft --alltoallv --n 32 --iters 2
# llamp place needs every host pair: a subset table is refused by name
if "$B/llamp" place ring-ft-full/graph.llg --routes ring-ft-subset/routes.txt >place.log 2>&1; then
  echo "FAIL: llamp place accepted a subset routes table"; fail=1
elif ! grep -q "no route" place.log; then
  cat place.log; echo "FAIL: llamp place: no 'no route' message"; fail=1
fi
[ $fail = 0 ] && echo "PASS: topo_subset"
exit $fail
