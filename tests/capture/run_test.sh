#!/bin/sh
# End-to-end tests of the SMPI capture layer (registered by tests/capture.cmake).
#   run_test.sh NAME BUILD_DIR SOURCE_DIR
# Each test builds its program with smpi_llamp-cc (and plain smpicc where it
# compares), runs it with smpirun / smpi_llamp-run on the bundled platform and
# checks the outputs.  Exit 77 (skipped) when SimGrid or the capture build is
# missing.  Set LLAMP_UPDATE_GOLDEN=1 to rewrite all_calls.expected.
set -u
name=$1
build=$2
src=$3
bin=$build/bin
here=$src/tests/capture
platform=$src/platforms/cluster16.xml
work=$build/tests/capture-work/$name
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
# keep the simulation deterministic and quiet
SIM="--cfg=smpi/simulate-computation:no --log=root.thres:warning"
unset LLAMP_OUT LLAMP_CONFIG LLAMP_L LLAMP_O LLAMP_GAP LLAMP_G LLAMP_S LLAMP_COLL LLAMP_RANGE \
  LLAMP_TOLERANCE LLAMP_SWEEP_POINTS LLAMP_GOAL LLAMP_ANALYZE LLAMP_SPILL LLAMP_QUIET \
  LLAMP_BANDWIDTH_TERM LLAMP_REDUCE_COST

fail() {
  echo "FAIL: $*"
  exit 1
}
# expect FILE STRING: FILE contains STRING (fixed string)
expect() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1 lacks: $2"; }; }
cc_cap() { "$bin/smpi_llamp-cc" -O1 "$@" || fail "smpi_llamp-cc $*"; }

case "$name" in

paper_example)
  # The paper's running example: T(L) = max(L + 1.115 us, 1.5 us) at o = 0,
  # G = 5 ns/B; its only critical latency is 0.385 us.
  cc_cap "$here/paper_example.c" -o paper
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out -llamp-o 0 -llamp-G 5ns -llamp-L 0.5us \
    -llamp-range 0.2us:0.5us -llamp-goal ./paper >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
  cat run.txt
  expect run.txt "predicted runtime   T   = 1.615 us"
  expect run.txt "latency sensitivity λ_L = 1 "
  expect run.txt "critical latencies in [200 ns, 500 ns]: 1: 385 ns (λ_L 0 -> 1)"
  expect out/report.json '"runtime": 1.615e-06'
  expect out/report.json '"lambda_L": 1,'
  expect out/report.json '{"L": 3.85e-07, "lambda_before": 0, "lambda_after": 1, "runtime": 1.5e-06}'
  expect out/report.json '"records": 6,'
  expect out/sweep.csv "L,runtime,lambda_L"
  [ -s out/graph.goal ] || fail "no graph.goal"
  # re-analysis of the saved graph: both branches of the max
  "$bin/llamp" analyze out/graph.llg --o 0 --G 5ns --L 0.3us >a1.txt || fail "llamp analyze"
  expect a1.txt "predicted runtime   T   = 1.5 us"
  "$bin/llamp" analyze out/graph.llg --o 0 --G 5ns --L 1us >a2.txt || fail "llamp analyze"
  expect a2.txt "predicted runtime   T   = 2.115 us"
  "$bin/llamp" analyze out/graph.goal --o 0 --G 5ns --L 1us >a3.txt || fail "llamp analyze GOAL"
  expect a3.txt "predicted runtime   T   = 2.115 us"
  ;;

all_calls)
  # Every modelled MPI function, checked record by record against the golden dump.
  cc_cap -Wall "$here/all_calls.c" -o all_calls
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out ./all_calls >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
  cat run.txt
  expect run.txt "all_calls: done"
  expect run.txt "smpi_llamp: not modelled: MPI_Alltoallw x 4"
  expect out/report.json '"local_calls": [{"name": "MPI_Buffer_attach", "count": 4}'
  "$build/tests/capture_trace_dump" out >dump.txt || fail "trace_dump"
  if [ "${LLAMP_UPDATE_GOLDEN:-}" = 1 ]; then
    cp dump.txt "$here/all_calls.expected"
    echo "updated $here/all_calls.expected"
  fi
  diff -u "$here/all_calls.expected" dump.txt || fail "records differ from all_calls.expected"
  ;;

unchanged_time)
  # The capture must not change the simulated run: same MPI_Wtime at the end
  # and same final simulated time, built with plain smpicc and with the
  # capture (dlopen privatization, and mmap), on a 16-rank halo and the
  # paper example.
  smpicc -O1 "$here/halo.c" -o halo_plain || fail "smpicc"
  cc_cap "$here/halo.c" -o halo_cap
  smpicc -O1 "$here/paper_example.c" -o paper_plain || fail "smpicc"
  cc_cap "$here/paper_example.c" -o paper_cap
  run() { # OUTFILE PROGRAM ARGS...: the program's lines and SimGrid's final time
    o=$1
    shift
    smpirun -platform "$platform" --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 \
      --cfg=smpi/display-timing:yes "$@" >"$o.raw" 2>&1 || { cat "$o.raw"; fail "smpirun $*"; }
    grep -E 'simulated|Simulated time' "$o.raw" | sed 's/^\[[0-9.]*\] //' | sort >"$o"
  }
  export LLAMP_QUIET=1
  run h_plain -np 16 ./halo_plain 4 4 50 8192 20 3
  LLAMP_OUT=out_dlopen run h_cap -np 16 ./halo_cap 4 4 50 8192 20 3
  LLAMP_OUT=out_mmap run h_mmap -np 16 --cfg=smpi/privatization:mmap ./halo_cap 4 4 50 8192 20 3
  run p_plain -np 2 ./paper_plain
  LLAMP_OUT=out_paper run p_cap -np 2 ./paper_cap
  # simulate-computation on (the wrappers then drive SMPI's timer): with a
  # 1 s cpu-threshold no measured burst is charged, so runs are comparable
  bench="--cfg=smpi/simulate-computation:yes --cfg=smpi/cpu-threshold:1"
  run b_plain -np 16 $bench ./halo_plain 4 4 50 8192 20 3
  LLAMP_OUT=out_bench run b_cap -np 16 $bench ./halo_cap 4 4 50 8192 20 3
  diff b_plain b_cap || fail "the capture changed the simulated time (simulate-computation on)"
  cmp out_dlopen/graph.llg out_bench/graph.llg || fail "simulate-computation on captured another graph"
  # and the capture did run, alike under both privatization modes
  cmp out_dlopen/graph.llg out_mmap/graph.llg || fail "mmap privatization captured another graph"
  expect out_paper/report.json '"records": 6,'
  for f in h_plain h_cap p_plain; do cat $f; done
  expect h_plain "halo: simulated time"
  expect h_plain "Simulated time:"
  diff h_plain h_cap || fail "the capture changed the simulated time (halo)"
  diff h_plain h_mmap || fail "the capture changed the simulated time (halo, mmap privatization)"
  diff p_plain p_cap || fail "the capture changed the simulated time (paper example)"
  ;;

spill)
  # A tiny spill threshold gives the same graph as the in-memory trace.
  cc_cap "$here/halo.c" -o halo
  "$bin/smpi_llamp-run" -np 16 $SIM -llamp-out mem ./halo 4 4 20 1024 5 2 >mem.txt 2>&1 || { cat mem.txt; fail "run"; }
  "$bin/smpi_llamp-run" -np 16 $SIM -llamp-out spill -llamp-spill 4KiB ./halo 4 4 20 1024 5 2 >spill.txt 2>&1 ||
    { cat spill.txt; fail "run with spill"; }
  cat spill.txt
  grep -E '^(predicted|latency|critical)' mem.txt >m
  grep -E '^(predicted|latency|critical)' spill.txt >s
  [ -s m ] || fail "no report"
  diff m s || fail "spilled trace gives another result"
  cmp mem/graph.llg spill/graph.llg || fail "spilled trace gives another graph"
  ;;

cxx)
  # smpi_llamp-cxx builds C++ programs the same way.
  "$bin/smpi_llamp-cxx" -O1 "$here/ring.cpp" -o ring || fail "smpi_llamp-cxx"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out -llamp-coll allreduce=rabenseifner ./ring >run.txt 2>&1 ||
    { cat run.txt; fail "run"; }
  cat run.txt
  expect run.txt "ring: done"
  expect run.txt "4 ranks, 20 records"
  expect out/report.json '"allreduce": {"algorithm": "rabenseifner", "simgrid": "rab_rdb", "source": "-llamp-coll (--cfg=smpi/allreduce:rab_rdb)", "modelled": true' 
  ;;

errors)
  # One clear line and a non-zero exit for each misuse.
  cc_cap "$here/paper_example.c" -o paper
  smpicc -O1 "$here/paper_example.c" -o plain || fail "smpicc"
  check() { # EXPECTED-TEXT COMMAND...: fails with a line containing the text
    want=$1
    shift
    "$@" >out.txt 2>&1
    rc=$?
    [ $rc -ne 0 ] || { cat out.txt; fail "succeeded: $*"; }
    grep -qF -- "$want" out.txt || { cat out.txt; fail "'$*' did not say: $want"; }
    echo "ok (exit $rc): $(grep -F -- "$want" out.txt | head -1)"
  }
  # privatization that shares the program's globals between ranks
  check "SMPI privatization is 'no'" env LLAMP_OUT=o1 smpirun -np 2 -platform "$platform" $SIM \
    --cfg=smpi/privatization:no ./paper
  check "-no-privatize is incompatible with the capture" "$bin/smpi_llamp-run" -np 2 -no-privatize ./paper
  check "is incompatible with the capture" "$bin/smpi_llamp-run" -np 2 --cfg=smpi/privatization:no ./paper
  # unwritable output directory (under a regular file: fails even for root)
  : >afile
  check "cannot create the output directory 'afile/out'" "$bin/smpi_llamp-run" -np 2 -llamp-out afile/out ./paper
  check "smpi_llamp: cannot create the output directory 'afile/out'" env LLAMP_OUT=afile/out \
    smpirun -np 2 -platform "$platform" $SIM ./paper
  # a program built without the capture library
  check "./plain was not linked with the capture library" "$bin/smpi_llamp-run" -np 2 ./plain
  # bad settings: model file, environment, options
  printf 'loggps = { L = "2us"; Q = 1; };\n' >bad.cfg
  check "bad.cfg:1: loggps.Q: unknown setting (valid: L, o, g, G, S, bandwidth_term, rendezvous)" \
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o2 -llamp-config bad.cfg ./paper
  printf 'loggps = { L = "2 parsecs"; };\n' >bad2.cfg
  check "bad2.cfg:1: loggps.L: latency '2 parsecs'" \
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o3 -llamp-config bad2.cfg ./paper
  printf 'loggps = { L = ; };\n' >bad3.cfg
  check "bad3.cfg:1: syntax error" "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o4 -llamp-config bad3.cfg ./paper
  check "model file 'nosuch.cfg' is not readable" "$bin/smpi_llamp-run" -np 2 -llamp-config nosuch.cfg ./paper
  check "LLAMP_RANGE: range '5us:1us'" "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o5 -llamp-range 5us:1us ./paper
  check "unknown option '-llamp-bogus'" "$bin/smpi_llamp-run" -llamp-bogus ./paper
  check "unknown allreduce algorithm" "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o6 -llamp-coll allreduce=nonsense ./paper
  check "no program to run" "$bin/smpi_llamp-run" -np 2
  # --help works and exits 0
  "$bin/smpi_llamp-run" -llamp-help >help.txt || fail "-llamp-help"
  expect help.txt "-llamp-out DIR"
  ;;

*)
  fail "unknown test $name"
  ;;
esac
echo "PASS: $name"
