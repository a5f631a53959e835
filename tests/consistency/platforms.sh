#!/bin/bash
# The DAG against SimGrid on platforms without a <config> block, SMPI's
# defaults (docs/model.md, "What SimGrid charges a message" and
# "Contention"; registered by tests/consistency.cmake):
#   platforms.sh BUILD_DIR SOURCE_DIR
# Platforms: tests/data/platforms/full_shared.xml (Full routing, shared
# links of 60 us to 10 ms, TCP-gamma binding on one route, a fatpipe
# loopback) and backbone_shared.xml (a cluster of shared host links and a
# narrower backbone).  Asserted, |(T(L0) - SimGrid) / SimGrid| < 1e-9:
#   * without concurrent transfers (tests/consistency/chain.c on 2 and 3
#     ranks, 100 B .. 100 kB, and 2 ranks of one host) with either
#     contention model: each route's own lat-factor, TCP-gamma, cross-traffic,
#     async-small-thresh 0 (transfers start at their match), detached sends;
#   * with shared links (halo2d 2x4, allreduce, alltoall and MPI_Comm_split
#     on 8 ranks, chain on 4 ranks) with the observed model, the default; the rule's T(L0) is
#     printed, not asserted;
#   * ranks sharing hosts on one shared bus (bus_shared_hosts.xml);
#   * MPI_Probe, and MPI_Ssend / MPI_Issend below and above S (either
#     model), tests/consistency/modes.c, at async-small-thresh 0 and 64 KiB;
#   * MPI_Waitsome on receives and an MPI_Ibarrier (modes.c);
#   * under models/calibrated-vm-netns.cfg (SMPI os, or, ois and factors of a
#     real calibration) the same chains.
# Exit 77 when SimGrid or the capture build is missing.
set -u
build=$1
src=$2
bin=$build/bin
here=$src/tests/consistency
plat=$src/tests/data/platforms
work=$build/tests/consistency-work/platforms
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
unset LLAMP_NIC LLAMP_OUT LLAMP_CONFIG LLAMP_L LLAMP_G LLAMP_S LLAMP_CONTENTION LLAMP_COLL LLAMP_SMPI_NET
SIM=(--cfg=smpi/simulate-computation:no --log=root.thres:critical)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for p in chain halo2d coll modes; do
  "$bin/smpi_llamp-cc" -O1 "$here/$p.c" -o "$p" >"cc-$p.log" 2>&1 || { cat "cc-$p.log"; echo "FAIL: smpi_llamp-cc $p"; exit 1; }
done
# run NAME NP PLATFORM CONTENTION BOUND [HOSTFILE] -- PROGRAM ARGS: the relative difference
run() {
  local name=$1 np=$2 pf=$3 model=$4 bound=$5 hf=()
  shift 5
  if [ "$1" != -- ]; then hf=(-hostfile "$1"); shift; fi
  shift
  "$bin/smpi_llamp-run" -np "$np" -platform "$pf" "${hf[@]}" "${SIM[@]}" "${CFGARGS[@]}" -llamp-contention "$model" \
    -llamp-tolerance none -llamp-classify off -llamp-out "out-$name" "$@" >"$name.log" 2>&1 ||
    { tail -5 "$name.log"; fail "$name: smpi_llamp-run"; return; }
  local d
  d=$(python3 -c 'import json, sys; print("%.3g" % json.load(open(sys.argv[1]))["capture"]["simulated_vs_predicted"]["difference"])' \
    "out-$name/report.json") || { fail "$name: report.json"; return; }
  # every call modelled: an unmodelled call's time is compute, exact at L0 by construction
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["capture"]; sys.exit(bool(c["not_modelled"]) or c["unknown_requests"] > 0)' \
    "out-$name/report.json" || fail "$name: calls not modelled (report.json capture.not_modelled)"
  printf '%-40s %-9s %s\n' "$name" "$model" "$d"
  [ "$bound" = - ] && return
  awk -v d="$d" -v b="$bound" 'BEGIN { exit !(d <= b && -d <= b) }' || fail "$name ($model): T(L0) differs by $d (bound $bound)"
}
CFGARGS=()
F=$plat/full_shared.xml
B=$plat/backbone_shared.xml
printf 'a\na\n' >same-host.txt
printf 'c\nd\n' >gamma.txt
for model in observed rule; do
  for b in 100 20000 100000; do
    run "chain2-$b" 2 "$F" $model 1e-9 -- ./chain 5 "$b" 10
    run "chain3-$b" 3 "$F" $model 1e-9 -- ./chain 5 "$b" 10
  done
  run "chain-gamma-1MB" 2 "$F" $model 1e-9 gamma.txt -- ./chain 3 1000000 10
  run "chain-same-host" 2 "$F" $model 1e-9 same-host.txt -- ./chain 5 20000 10
done
run chain4-20000 4 "$F" observed 1e-9 -- ./chain 5 20000 10
# a calibrated model (llamp-calibrate network on this machine: SMPI os, or,
# ois, lat-factor and bw-factor of ~200 sections, eager below 15650 B),
# whose file sets neither loggps.o nor the rendezvous: SMPI's own protocol
# and CPU costs all the same (o = 0, direct), eager and rendezvous
CFGARGS=(-llamp-config "$src/models/calibrated-vm-netns.cfg")
for b in 100 3000 20000; do
  run "calibrated-chain2-$b" 2 "$F" rule 1e-9 -- ./chain 5 "$b" 10
done
run calibrated-chain4-20000 4 "$F" observed 1e-9 -- ./chain 5 20000 10
# SMPI's MPI_Probe (a loop of sleeping iprobes that ends when the message is
# posted) and synchronous sends (never detached: at their match, the sender
# waiting; -83 % below S before), with SMPI's eager threshold 0 and 64 KiB
for cfg in 0 65536; do
  CFGARGS=(--cfg=smpi/async-small-thresh:$cfg)
  run "probe-$cfg-100" 4 "$F" observed 1e-9 -- ./modes probe 100 4
  run "probe-$cfg-100000" 4 "$F" observed 1e-9 -- ./modes probe 100000 4
  for model in observed rule; do
    run "ssend-$cfg-100" 2 "$F" $model 1e-9 -- ./modes ssend 100 4
    run "ssend-$cfg-100000" 2 "$F" $model 1e-9 -- ./modes ssend 100000 4
  done
done
# SMPI's MPI_Waitsome: a Waitany, then a sleeping MPI_Test of every other
# request (the call polls after its first completion; -99 % before)
run waitsome-100 5 "$F" observed 1e-9 -- ./modes waitsome 100 3
run waitsome-100000 5 "$F" observed 1e-9 -- ./modes waitsome 100000 3
CFGARGS=()
# 8 ranks round-robin on tests/data/platforms/bus_shared_hosts.xml's three
# hosts: ranks of one host send alike to ranks of another, paired by the
# observed DAG's own starts (the rule's were +33 % on the allreduce)
U=$plat/bus_shared_hosts.xml
run shared-hosts-halo2d 8 "$U" observed 1e-9 -- ./halo2d 2 4 10 4096 5
run shared-hosts-allreduce 8 "$U" observed 1e-9 -- ./coll allreduce 8000 5 3
run shared-hosts-alltoall 8 "$U" observed 1e-9 -- ./coll alltoall 4096 5 3
run halo2d-2x4 8 "$B" observed 1e-9 -- ./halo2d 2 4 10 4096 5
run halo2d-2x4 8 "$B" rule - -- ./halo2d 2 4 10 4096 5
run allreduce-8 8 "$B" observed 1e-9 -- ./coll allreduce 8000 10 3
run alltoall-8 8 "$B" observed 1e-9 -- ./coll alltoall 4096 5 3
run alltoall-8 8 "$B" rule - -- ./coll alltoall 4096 5 3
# SMPI's Comm::split: a gather posting every receive at once, then the
# group handles (a serial gather was +75 % on 4 ranks of a fat tree)
run split-8 8 "$B" observed 1e-9 -- ./coll split 8 4 3
# a nonblocking collective on one rank: SMPI returns MPI_REQUEST_NULL (the
# capture failed on MPICH's nonblocking2/3 at 1 rank before)
run ibcast-1 1 "$B" observed 1e-9 -- ./coll ibcast 800 3 3
run iallreduce-1 1 "$B" observed 1e-9 -- ./coll iallreduce 800 3 3
# MPI_(I)Alltoallw: SMPI's linear ialltoallw whatever smpi/alltoallv selects
CFGARGS=(--cfg=smpi/alltoallv:pair)
run alltoallw-6 6 "$B" observed 1e-9 -- ./coll alltoallw 4096 3 5
run ialltoallw-6 6 "$B" observed 1e-9 -- ./coll ialltoallw 4096 3 5
CFGARGS=()
# in place, and a zero-size type against zero receive counts (SMPI's
# ialltoallv then sends nothing: +5 % with the messages; MPI_Ialltoallv
# returns MPI_ERR_TRUNCATE there)
for v in alltoallv_inplace ialltoallv_inplace alltoallv_zerotype; do
  run "$v-6" 6 "$B" observed 1e-9 -- ./coll $v 4096 3 5
done
run split-8 8 "$B" rule - -- ./coll split 8 4 3
# Latency offsets on any platform (smpi_llamp-latency): SimGrid with every
# message's latency dL longer against the one capture's T(L0 + dL); exact
# without shared links (chain, 3 ranks, the TCP-gamma route too), printed
# with them (halo2d on the backbone: frozen contention)
lat() { # NAME BOUND -- smpi_llamp-run arguments
  local name=$1 bound=$2
  shift 3
  "$bin/smpi_llamp-latency" --deltas 1,10,100us --out "lat-$name" "${SIM[@]}" "$@" >"lat-$name.log" 2>&1 ||
    { cat "lat-$name.log"; fail "$name: smpi_llamp-latency"; return; }
  sed 's/^/  /' "lat-$name/latency.tsv"
  python3 - "lat-$name" "$bound" <<'EOF2' || fail "$name: T(L0 + dL) beyond $bound of SimGrid's (lat-$name/latency.tsv)"
import json, sys
d, bound = sys.argv[1], sys.argv[2]
cap = json.load(open(d + "/capture/report.json"))
worst = 0
for k, off in enumerate(cap["latency_offsets"]):
    s = json.load(open("%s/dL-%d/report.json" % (d, k)))["capture"]["simulated_time"]
    worst = max(worst, abs(off["runtime"] - s) / s)
sys.exit(bound != "-" and worst > float(bound))
EOF2
}
lat chain3-20000 1e-9 -- -np 3 -platform "$F" ./chain 5 20000 10
lat chain-gamma 1e-9 -- -np 2 -platform "$F" -hostfile gamma.txt ./chain 3 1000000 10
lat halo2d-2x4 - -- -np 8 -platform "$B" ./halo2d 2 4 10 4096 5
[ $failures = 0 ] && echo "PASS: consistency_platforms"
exit $((failures > 0))
