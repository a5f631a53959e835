#!/bin/bash
# The NIC rule against SimGrid (docs/model.md, "The NIC rule"):
#   nic.sh BUILD_DIR SOURCE_DIR
# tests/consistency/halo2d.c (4x4 ranks, 1 KiB, 40 iterations, compute off)
# on a <cluster> platform, where a host's four messages share its private
# link, and on a full mesh, where they do not.  Asserted: on the cluster the
# capture turns the rule on by itself and T(L0) is within 0.5 % of
# SimGrid's time (-9.2 % without it, which must stay below -5 %: the case
# still tests something); on the mesh the rule stays off and T(L0) is within
# 0.5 %.  Then issue 9's cases, the incast and the overlap ones (below),
# each within 0.5 %.  Exit 77 when SimGrid or the capture build is missing.
set -u
build=$1
src=$2
bin=$build/bin
work=$build/tests/consistency-work/nic
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
unset LLAMP_NIC LLAMP_OUT LLAMP_CONFIG LLAMP_L LLAMP_G
# the rule is what this test is about (the capture's default is the observed
# contention model, checked once below)
export LLAMP_CONTENTION=rule
fail() { echo "FAIL: $*"; exit 1; }
"$bin/smpi_llamp-cc" -O1 "$src/tests/consistency/halo2d.c" -o halo || fail "smpi_llamp-cc"
python3 "$src/tools/llamp-platform" -n 16 -t cluster > cluster.xml || fail "llamp-platform"
python3 "$src/tools/llamp-platform" -n 16 -t mesh > mesh.xml || fail "llamp-platform"
SIM="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --log=root.thres:warning"
# run NAME PLATFORM [OPTIONS]: prints the relative difference in %
run() {
  local name=$1 plat=$2
  shift 2
  "$bin/smpi_llamp-run" -np 16 -platform "$plat" $SIM "$@" -llamp-out "out-$name" ./halo 4 4 40 1024 1 \
    > "$name.txt" 2>&1 || { cat "$name.txt"; fail "smpi_llamp-run ($name)"; }
  sed -n "s/.*at the model's parameters: \([-+0-9.]*\) %.*/\1/p" "$name.txt" | tail -1
}
# run_np NAME NP PLATFORM [OPTIONS] PROGRAM ARGS: the same for any program
run_np() {
  local name=$1 np=$2 plat=$3
  shift 3
  "$bin/smpi_llamp-run" -np "$np" -platform "$plat" $SIM -llamp-out "out-$name" "$@" \
    > "$name.txt" 2>&1 || { cat "$name.txt"; fail "smpi_llamp-run ($name)"; }
  sed -n "s/.*at the model's parameters: \([-+0-9.]*\) %.*/\1/p" "$name.txt" | tail -1
}
within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && (a < 0 ? -a : a) <= b) }'; }
d=$(run cluster_auto cluster.xml)
grep -q "NIC rule on: link" cluster_auto.txt || { cat cluster_auto.txt; fail "the rule is not on by itself on the cluster"; }
grep -q '"nic": true' out-cluster_auto/report.json || fail "report.json params.nic is not true"
echo "cluster, NIC rule (auto): T(L0) vs SimGrid $d %"
within "$d" 0.5 || fail "cluster with the NIC rule: $d % (expected within 0.5 %)"
d=$(run cluster_observed cluster.xml -llamp-contention observed)
grep -q "contention as SimGrid ran it" cluster_observed.txt || fail "the observed contention model did not run"
grep -q "NIC rule on" cluster_observed.txt && fail "the NIC rule is on with observed contention"
echo "cluster, observed contention: $d %"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["capture"]["simulated_vs_predicted"]["difference"]; sys.exit(abs(d) > 1e-9)' \
  out-cluster_observed/report.json || fail "observed contention: T(L0) not SimGrid's time ($d %)"
d=$(run cluster_off cluster.xml -llamp-nic no)
echo "cluster, -llamp-nic no: $d %"
awk -v a="$d" 'BEGIN { exit !(a != "" && a < -5) }' || fail "cluster without the rule: $d % (expected below -5 %)"
d=$(run mesh_auto mesh.xml)
grep -q "NIC rule on" mesh_auto.txt && fail "the rule is on on a full mesh"
echo "mesh (auto: off): $d %"
within "$d" 0.5 || fail "mesh: $d % (expected within 0.5 %)"
# Issue 9's cases (docs/model.md, "The NIC rule"): a 1-D halo whose two
# sends per host share its link (-0.85 % with the FIFO rule alone, the
# bursts' fair sharing: -0.24 %), the ring collectives on 16 hosts, and
# recursive doubling's allgather, whose growing messages once made the
# receive chain charge the wrong size (+14.9 %)
"$bin/smpi_llamp-cc" -O1 "$src/tests/consistency/halo1d.c" -o halo1d || fail "smpi_llamp-cc halo1d"
"$bin/smpi_llamp-cc" -O1 "$src/tests/consistency/coll.c" -o coll || fail "smpi_llamp-cc coll"
python3 "$src/tools/llamp-platform" -n 8 -t cluster > cluster8.xml || fail "llamp-platform"
d=$(run_np halo1d 8 cluster8.xml ./halo1d 40 1024)
echo "1-D halo, 8 ranks, cluster: $d %"
within "$d" 0.5 || fail "1-D halo: $d % (expected within 0.5 %)"
for c in "allgather ring" "reduce_scatter ring" "allreduce lr" "allgather recursive_doubling"; do
  set -- $c
  d=$(run_np "$1-$2" 16 cluster.xml -llamp-coll "$1=$2" ./coll "$1" 8192 10 1)
  echo "$1 $2, 16 ranks, 8 KiB, cluster: $d %"
  within "$d" 0.5 || fail "$1 $2: $d % (expected within 0.5 %)"
done
# Incast (docs/model.md, "The NIC rule"): four senders into one host.  Four
# 800 KB rendezvous transfers share its link; the receive chain once charged
# a rendezvous receive g alone after the one before, so the DAG ran them side
# by side: -74 % against SimGrid, back to back or one round at a time.  The
# same with an eager size and a barrier each round (no sender bursts), and
# back to back: each sender's 20 messages are a burst to one host, whose end
# charges the whole burst on the receiver's chain (-14.6 % before).
"$bin/smpi_llamp-cc" -O1 "$src/tests/consistency/incast.c" -o incast || fail "smpi_llamp-cc incast"
for c in "100000 0" "100000 1" "10000 0" "1000 1" "1000 0"; do
  set -- $c
  d=$(run_np "incast-$1-$2" 5 cluster8.xml ./incast "$1" 20 "$2")
  echo "incast, 4 senders, $1 doubles, barrier $2, cluster: $d %"
  within "$d" 0.5 || fail "incast $1 doubles, barrier $2: $d % (expected within 0.5 %)"
done
# ... and an allgather of 800 KB blocks (SimGrid's default: linear,
# nonblocking), where every host's link is busy both ways: the chain charges
# the previous read only where the sender's own chain did not bind, since
# SimGrid shares both links at once and two chains would add
d=$(run_np allgather-800k 8 cluster8.xml ./coll allgather 800000 10 1)
echo "allgather (default), 8 ranks, 800 KB, cluster: $d %"
within "$d" 0.5 || fail "allgather 800 KB: $d % (expected within 0.5 %)"
# Overlap (docs/model.md, "The NIC rule"): Isends, then compute, then
# Waitall.  SMPI's eager sends are detached: the rank computes while its NIC
# sends.  The rule once made the rank wait for its NIC (LogGOPSim's order):
# +12.3 %, +31.5 % and +10.4 % on the three eager cases, +9.0 % and +21.0 %
# on the two rendezvous ones (128 KiB and 1 MiB, whose reads wait instead).
"$bin/smpi_llamp-cc" -O1 "$src/tests/consistency/overlap.c" -o overlap || fail "smpi_llamp-cc overlap"
for c in "4 8192 50 20" "6 8192 50 5" "6 1024 50 5" "4 131072 20 20" "2 1048576 10 500"; do
  set -- $c
  d=$(run_np "overlap-$1-$2-$4" 16 cluster.xml ./overlap "$1" "$2" "$3" "$4")
  echo "overlap, 16 ranks, $1 neighbours, $2 B, $4 us of compute, cluster: $d %"
  within "$d" 0.5 || fail "overlap $c: $d % (expected within 0.5 %)"
done
echo "ok"
