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
  LLAMP_BANDWIDTH_TERM LLAMP_REDUCE_COST LLAMP_CLASSIFY

fail() {
  echo "FAIL: $*"
  exit 1
}
# expect FILE STRING: FILE contains STRING (fixed string)
expect() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1 lacks: $2"; }; }
cc_cap() { "$bin/smpi_llamp-cc" -O1 "$@" || fail "smpi_llamp-cc $*"; }
need_fortran() {
  command -v smpif90 >/dev/null 2>&1 || { echo "skip: smpif90 not found"; exit 77; }
  command -v gfortran >/dev/null 2>&1 || { echo "skip: gfortran not found"; exit 77; }
}

# json_num FILE KEY: the first number after "KEY": in FILE
json_num() { sed -n "s/.*\"$2\": \([-0-9.eE+]*\).*/\1/p" "$1" | head -1; }
# within A B REL: |A - B| <= REL * |B|
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && b != "" && d <= r * m) }'; }

case "$name" in

partial_testall)
  # SMPI's MPI_Testall completes (and frees) the requests it can even when
  # its flag is false: the record completes them there, or the DAG would
  # never wait for them (the Waitall after lists them as null)
  cc_cap "$here/partial_testall.c" -o partial
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out ./partial >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
  expect run.txt "testall flag 0, q[0] null"
  "$build/tests/capture_trace_dump" out >dump.txt || fail "trace_dump"
  expect dump.txt "MPI_Testall comm=0 reqs=0*(1/0),1"
  expect dump.txt "MPI_Waitall comm=0 completed reqs=null,1*(1/1)"
  ;;

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
  # the classification (docs/classify.md): on by default at the model's
  # point, at a preset on request, off on request, a bad anchor refused
  expect run.txt "class: "
  expect out/report.json '"classification": {'
  expect out/report.json '"anchor": {"L": 5e-07, "G": 5e-09}'
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out2 -llamp-o 0 -llamp-classify e10g ./paper >run2.txt 2>&1 ||
    { cat run2.txt; fail "smpi_llamp-run -llamp-classify e10g"; }
  expect out2/report.json '"anchor": {"L": 5e-06, "G": 8e-10}'
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out3 -llamp-classify off ./paper >run3.txt 2>&1 ||
    { cat run3.txt; fail "smpi_llamp-run -llamp-classify off"; }
  grep -q '"classification"' out3/report.json && fail "classification written with -llamp-classify off"
  if "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out4 -llamp-classify ib ./paper >run4.txt 2>&1; then
    fail "-llamp-classify ib accepted"
  fi
  expect run4.txt "classify 'ib' (expected auto, off, here, e1g, e10g, qdr or BW@L such as 10Gbps@5us)"
  ;;

all_calls)
  # Every modelled MPI function, checked record by record against the golden dump.
  cc_cap -Wall "$here/all_calls.c" -o all_calls
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out ./all_calls >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
  cat run.txt
  expect run.txt "all_calls: done"
  ! grep -q "not modelled" run.txt || fail "a call of all_calls.c is not modelled"
  expect out/report.json '"local_calls": [{"name": "MPI_Buffer_attach", "count": 4}'
  "$build/tests/capture_trace_dump" out >dump.txt || fail "trace_dump"
  if [ "${LLAMP_UPDATE_GOLDEN:-}" = 1 ]; then
    cp dump.txt "$here/all_calls.expected"
    echo "updated $here/all_calls.expected"
  fi
  diff -u "$here/all_calls.expected" dump.txt || fail "records differ from all_calls.expected"
  # the DAG of these traces (communicators, windows, wildcards, persistent
  # requests) read by one thread and by two: the same graph, byte for byte
  "$bin/llamp" build out --threads 1 -o t1.llg >b1.txt 2>&1 || { cat b1.txt; fail "llamp build --threads 1"; }
  "$bin/llamp" build out --threads 2 -o t2.llg >b2.txt 2>&1 || { cat b2.txt; fail "llamp build --threads 2"; }
  cmp t1.llg t2.llg || fail "llamp build: one thread and two give different graphs"
  sed 1d b1.txt >b1.rest
  sed 1d b2.txt >b2.rest
  diff -u b1.rest b2.rest || fail "llamp build: one thread and two give different counts"
  # the DAG built during the simulation (the default here) against the one
  # read back from the trace files: the same graph and the same report
  LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 4 $SIM -llamp-stream no -llamp-out files ./all_calls >files.txt 2>&1 ||
    { cat files.txt; fail "smpi_llamp-run -llamp-stream no"; }
  expect files.txt "the DAG from the files: not streamed"
  cmp out/graph.llg files/graph.llg || fail "the streamed DAG differs from the files' one"
  # (but for the wall times, the file names and the kernels' random seed)
  grep -Ev '_seconds"|"graph": \{"name"|"kernels": \{"seed"' out/report.json >r1
  grep -Ev '_seconds"|"graph": \{"name"|"kernels": \{"seed"' files/report.json >r2
  [ "$(wc -l <r1)" -gt 100 ] || fail "report.json too short: $(wc -l <r1) lines"
  diff -u r1 r2 || fail "the streamed DAG's report differs from the files' one"
  ;;

compute_accuracy)
  # Compute measured by the capture (the default: no --cfg of ours) on a
  # contention-free mesh, collectives as SimGrid's defaults run them: every simulated
  # second of compute is a calc vertex, so T(L0) equals SimGrid's time
  # within 0.1 % in the same run; the kernels' simulated time equals their
  # real CPU time in that run within 5 %; and the compute the DAG holds is
  # within 1.5x of what the kernels took natively (MPICH) in another run.
  cc_cap "$here/compute.c" -o compute
  python3 "$src/tools/llamp-platform" -n 4 -L 2us -G 0.1ns -o mesh4.xml || fail "llamp-platform"
  # each run is a measurement: more attempts when one misses (on a loaded
  # machine, e.g. beside ctest -j2, everything costs more)
  for attempt in 1 2 3; do
    "$bin/smpi_llamp-run" -np 4 -platform mesh4.xml --log=root.thres:warning -llamp-out out \
      -llamp-L 2us -llamp-G 0.1ns -llamp-o 0 ./compute 40000 100 >run.txt 2>&1 ||
      { cat run.txt; fail "smpi_llamp-run"; }
    grep -v '^compute \|^setup \|^end \|^kreal ' run.txt
    expect run.txt "smpi_llamp: compute: measured CPU time replayed 1:1 on hosts of 1 Gflop/s"
    expect out/report.json '"mode": "replay"'
    expect out/report.json '"suspicious": false'
    d=$(json_num out/report.json difference)
    sim=$(json_num out/report.json simulated_seconds)
    kern=$(awk '$1 == "compute" { s += $3 } END { printf "%.9g", s }' run.txt)
    setup=$(awk '$1 == "setup" { s += $3 } END { printf "%.9g", s }' run.txt)
    prog=$(awk -v k="$kern" -v s="$setup" 'BEGIN { printf "%.9g", k + s }')
    real=$(awk '$1 == "kreal" { s += $3 } END { printf "%.9g", s }' run.txt)
    echo "attempt $attempt: T(L0) against SimGrid $d (relative), kernels $kern s (real clock $real s) + set-up $setup s, DAG compute $sim s"
    # the program's clock reads the simulated time: kernels and set-up are
    # bursts the capture measured; the DAG also holds the code between the
    # calls (0.1-0.6 us a gap here, ~1 % of the compute) and after the loop.
    # The set-up is 0.3-0.6 ms a rank on a VM (SMPI's calloc writes the
    # array: first page touches), 5-13 % of the kernels: counted on both sides
    # the same kernels on the simulated and on the real clock: the capture
    # measured what ran (a speed drift of the VM, 1.9x between phases seen
    # here, changes both alike)
    if awk -v d="$d" 'BEGIN { exit !(d != "" && d <= 1e-3 && d >= -1e-3) }' && within "$prog" "$sim" 0.05 &&
       within "$kern" "$real" 0.05; then
      break
    fi
    [ $attempt = 3 ] && fail "T(L0) differs from SimGrid's time by $d (bound 1e-3), or the program's own $prog s (kernels and set-up) are not within 5 % of the DAG's $sim s, or its kernels' simulated $kern s are not within 5 % of their real CPU time $real s"
  done
  if command -v mpicc >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    # two ranks each way: more native processes than cores would inflate
    # their CPU time (shared caches), which SMPI's one thread never sees
    # (the kernels' time as the program reads it: the simulated clock under
    # SMPI, the thread CPU clock natively)
    mpicc -O1 "$here/compute.c" -o compute_native || fail "mpicc"
    ok=0 simmin= natmin= pin=
    command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null && pin="taskset -c 0"
    for attempt in 1 2 3; do # CPU time is robust to load, not immune: retries
      "$bin/smpi_llamp-run" -np 2 -platform mesh4.xml --log=root.thres:warning -llamp-out out2 \
        ./compute 40000 200 >run2.txt 2>&1 || { cat run2.txt; fail "smpi_llamp-run (2 ranks)"; }
      # kernels and set-up together: under SMPI the set-up's calloc writes
      # the array, natively the first kernel takes those first page touches
      sim=$(awk '$1 == "compute" || $1 == "setup" { s += $3 } END { printf "%.9g", s }' run2.txt)
      # both native ranks on one core, one kernel at a time as under SMPI's
      # one thread: two at once on the VM's two vCPUs measured 0.034 s
      # against 0.023 s in all three attempts of one run (host cores shared
      # with the vCPUs' siblings slow concurrent kernels), level alone
      $pin mpiexec -n 2 ./compute_native 40000 200 >native.txt 2>&1 || { cat native.txt; fail "mpiexec"; }
      nat=$(awk '$1 == "compute" || $1 == "setup" { s += $3 } END { printf "%.9g", s }' native.txt)
      echo "compute: native kernels and set-up $nat s, simulated $sim s (attempt $attempt)"
      # Two runs seconds apart on a shared VM: this machine ran the same
      # native kernels 1.9x apart between phases, and CI once measured the
      # simulated side 22 % below the native one in all three attempts.  The
      # exact check is the real clock's, above; this one catches compute the
      # simulation lost or scaled (SimGrid's 20 kflop/s default keeps 1e-5 of it).
      if awk -v a="$sim" -v b="$nat" 'BEGIN { exit !(a != "" && b > 0 && a / b <= 1.5 && b / a <= 1.5) }'; then
        ok=1; break
      fi
      # the least time of each side over the attempts (load only adds time)
      simmin=$(awk -v a="$simmin" -v b="$sim" 'BEGIN { print (a == "" || b < a) ? b : a }')
      natmin=$(awk -v a="$natmin" -v b="$nat" 'BEGIN { print (a == "" || b < a) ? b : a }')
      if [ $attempt = 3 ] && awk -v a="$simmin" -v b="$natmin" 'BEGIN { exit !(a / b <= 1.5 && b / a <= 1.5) }'; then ok=1; fi
    done
    [ $ok = 1 ] || fail "simulated compute $sim s (least $simmin s) is not within 1.5x of the native $nat s (least $natmin s)"
  else
    echo "note: no MPICH mpicc/mpiexec: the native comparison was skipped"
  fi
  ;;

compute_modes)
  # What smpi_llamp-run and the capture decide, printed and in report.json.
  cc_cap "$here/compute.c" -o compute
  q="--log=root.thres:warning"
  # a user host speed wins, and 20 kflop/s (SimGrid's default) keeps almost
  # nothing of the compute: warned
  "$bin/smpi_llamp-run" -np 2 $q -llamp-out user --cfg=smpi/host-speed:20kf ./compute 40000 20 >user.txt 2>&1 ||
    { cat user.txt; fail "smpi_llamp-run host-speed"; }
  expect user.txt "compute: measured CPU time x smpi/host-speed 20 kflop/s (your setting), replayed on hosts of 1 Gflop/s"
  expect user.txt "smpi_llamp: warning: the simulation kept"
  expect user/report.json '"mode": "host-speed"'
  expect user/report.json '"suspicious": true'
  # measured: this machine's rate (cached) against the hosts' 1 Gf
  "$bin/smpi_llamp-run" -np 2 $q -llamp-out meas -llamp-compute measured ./compute 40000 20 >meas.txt 2>&1 ||
    { cat meas.txt; fail "smpi_llamp-run measured"; }
  expect meas.txt "compute: measured at "
  expect meas.txt "(this machine, llamp_hostspeed), replayed on hosts of 1 Gflop/s"
  expect meas/report.json '"mode": "measured"'
  # none: nothing but smpi_execute* is simulated, and the warning says so
  "$bin/smpi_llamp-run" -np 2 $q -llamp-out none -llamp-compute none ./compute 40000 20 >none.txt 2>&1 ||
    { cat none.txt; fail "smpi_llamp-run none"; }
  expect none.txt "compute: none (-llamp-compute none)"
  expect none.txt "smpi_llamp: warning: the simulation kept"
  expect none/report.json '"mode": "none"'
  # hosts of two speeds: auto measures this machine and keeps their ratio
  cat >hetero.xml <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="fast" speed="2Gf"/>
    <host id="slow" speed="1Gf"/>
    <link id="l" bandwidth="10GBps" latency="2us"/>
    <route src="fast" dst="slow"><link_ctn id="l"/></route>
  </zone>
</platform>
XML
  "$bin/smpi_llamp-run" -np 2 $q -platform hetero.xml -llamp-out het ./compute 40000 20 >het.txt 2>&1 ||
    { cat het.txt; fail "smpi_llamp-run heterogeneous"; }
  expect het.txt "replayed on hosts of 1 Gflop/s to 2 Gflop/s"
  expect het/report.json '"mode": "measured"'
  # replayed 1:1, SMPI's smpi_execute(seconds) too (smpi/host-speed set to
  # the hosts' speed, not this machine's rate that smpi_llamp-run passes)
  cc_cap "$here/smpi_execute.c" -o smpi_execute
  "$bin/smpi_llamp-run" -np 2 $q -llamp-out exec ./smpi_execute >exec.txt 2>&1 ||
    { cat exec.txt; fail "smpi_llamp-run smpi_execute"; }
  cat exec.txt
  expect exec/report.json '"mode": "replay"'
  t=$(sed -n 's/^smpi_execute: 10 x 1 ms took \([0-9.]*\) s$/\1/p' exec.txt)
  within "$t" 0.010 0.02 || fail "10 x smpi_execute(1 ms) took ${t:-nothing} s of simulated time, not 10 ms"
  # a bad mode is refused before the run
  "$bin/smpi_llamp-run" -np 2 -llamp-compute fast ./compute >bad.txt 2>&1 && fail "accepted -llamp-compute fast"
  expect bad.txt "-llamp-compute 'fast' (expected auto, replay, measured or none)"
  ;;

stream_measured)
  # Compute measured (SimGrid's defaults, a bare smpi_llamp-run): the DAG is
  # still built during the simulation on the second core, and it is the one
  # `llamp build` reads from the same run's trace files (with the capture's
  # collectives and SimGrid's cpu-threshold as the minimum calc), byte for
  # byte; -llamp-stream no reads the files at MPI_Finalize instead.
  [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || { echo "skip: one CPU (the stream needs a second)"; exit 77; }
  cc_cap "$here/halo.c" -o halo
  q="--log=root.thres:warning"
  LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 9 $q -llamp-out out ./halo 3 3 300 1024 5 3 >run.txt 2>&1 ||
    { cat run.txt; fail "smpi_llamp-run"; }
  expect run.txt "compute: measured CPU time replayed 1:1"
  expect run.txt "timing: DAG: gather"
  grep -q "the DAG from the files" run.txt && { cat run.txt; fail "compute measured: the DAG was not streamed"; }
  spec=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["capture"]["collectives"]["spec"])' \
    out/report.json) || fail "report.json: no capture.collectives.spec"
  thr=$(json_num out/report.json cpu_threshold)
  mc=$(awk -v t="$thr" 'BEGIN { printf "%.9g", t * 1e6 }')
  [ "$mc" = 1 ] || fail "cpu_threshold '$thr' in report.json: SimGrid's default is 1 us"
  "$bin/llamp" build out -o files.llg --coll "$spec" --min-calc "$mc" >build.txt 2>&1 || { cat build.txt; fail "llamp build"; }
  cmp out/graph.llg files.llg || fail "the streamed DAG differs from the one of the trace files (--coll $spec --min-calc $mc)"
  calcs=$(sed -n 's/.*vertices (\([0-9]*\) calc.*/\1/p' build.txt)
  [ "${calcs:-0}" -gt 2000 ] || fail "the graph holds ${calcs:-no} calc vertices: compute not measured?"
  LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 9 $q -llamp-out nost -llamp-stream no ./halo 3 3 300 1024 5 3 >nost.txt 2>&1 ||
    { cat nost.txt; fail "smpi_llamp-run -llamp-stream no"; }
  expect nost.txt "the DAG from the files: not streamed"
  ;;

errhandler)
  # A failed call goes to the error handler SMPI's MPI_Xyz gives it to, as
  # without the capture (its wrappers call PMPI_Xyz, beneath that layer):
  # the program prints the same lines built with smpicc and smpi_llamp-cc,
  # and MPI_ERRORS_ARE_FATAL stops both runs.
  cc_cap -Wall "$here/errhandler.c" -o errhandler
  smpicc -O1 "$here/errhandler.c" -o errhandler_plain || fail "smpicc"
  for mode in fatal return custom; do
    smpirun -np 2 -platform "$platform" $SIM ./errhandler_plain $mode >plain_$mode.txt 2>plain_$mode.err
    prc=$?
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out_$mode ./errhandler $mode >cap_$mode.txt 2>cap_$mode.err
    crc=$?
    echo "$mode: plain smpirun exit $prc, smpi_llamp-run exit $crc"
    grep -E '^(fatal|send|comm_rank|handler|errhandler):' cap_$mode.txt >cap_$mode.lines
    grep -E '^(fatal|send|comm_rank|handler|errhandler):' plain_$mode.txt >plain_$mode.lines
    cat cap_$mode.lines
    diff plain_$mode.lines cap_$mode.lines || fail "$mode: the program's lines differ from plain smpirun's"
    case $mode in
    fatal)
      [ $prc -ne 0 ] && [ $crc -ne 0 ] || fail "fatal: a run went on (plain $prc, captured $crc)"
      expect cap_$mode.err "smpi_llamp: MPI_Send - returned MPI_ERR_RANK"
      expect cap_$mode.err "the error handler is MPI_ERRORS_ARE_FATAL: the run stops"
      grep -q "still running" cap_$mode.txt && fail "fatal: MPI_Send returned"
      ;;
    *)
      [ $prc -eq 0 ] && [ $crc -eq 0 ] || fail "$mode: exit codes plain $prc, captured $crc (expected 0)"
      expect cap_$mode.txt "errhandler: done"
      ;;
    esac
  done
  expect cap_custom.lines "handler: 1 call(s)"
  expect cap_return.err "smpi_llamp: MPI_Comm_rank - returned MPI_ERR_COMM instead of MPI_SUCCESS"
  # MPI_Abort (the usage error): SMPI ends the run with exit code 0, and
  # smpi_llamp-run says what happened, not that the program lacks the capture
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out_abort ./errhandler >abort.txt 2>&1 &&
    { cat abort.txt; fail "a run that called MPI_Abort exited 0"; }
  expect abort.txt "usage: errhandler fatal|return|custom"
  expect abort.txt "the program ended (MPI_Abort or exit) before every rank reached MPI_Finalize: no analysis"
  ;;

compute_threshold)
  # Bursts under smpi/cpu-threshold (1 us), compute replayed 1:1.  A loop
  # waiting on the clock (gettimeofday, then MPI_Wtime) spins until the
  # simulated clock moves: its short bursts are counted apart and noted, not
  # warned as compute lost, and the rest of the measured compute is what was
  # simulated.  Short bursts before MPI calls are compute SimGrid drops:
  # warned.  With the threshold at 0 nothing is dropped.
  cc_cap -Wall "$here/short_bursts.c" -o short_bursts
  q="--log=root.thres:warning"
  "$bin/smpi_llamp-run" -np 2 $q -llamp-out wait ./short_bursts wait 1e-3 >wait.txt 2>&1 ||
    { cat wait.txt; fail "smpi_llamp-run (wait)"; }
  cat wait.txt
  expect wait.txt "short_bursts: done"
  grep -q "was in bursts between MPI calls" wait.txt && fail "a wait on the clock was warned as compute lost"
  m=$(json_num wait/report.json measured_seconds) s=$(json_num wait/report.json simulated_seconds)
  cw=$(json_num wait/report.json clock_wait_seconds) cn=$(json_num wait/report.json clock_wait_bursts)
  echo "wait: measured $m s, simulated $s s, waiting on the clock $cw s in $cn bursts"
  [ "${cn:-0}" -ge 100 ] || fail "only ${cn:-0} bursts counted as waits on the clock"
  # noted over 10 % of the measured time (a loaded machine preempts turns
  # past 1 us, which then advance the clock: fewer turns, less waiting)
  if awk -v m="$m" -v c="$cw" 'BEGIN { exit !(c > 0.1 * m) }'; then
    expect wait.txt "between two reads of the clock: a loop waiting for time to pass"
  else
    grep -q "reads of the clock" wait.txt && fail "noted a wait on the clock under 10 % of the measured time"
  fi
  expect wait.txt "of it waiting on the clock)"
  within "$(awk -v m="$m" -v c="$cw" 'BEGIN { print m - c }')" "$s" 0.1 ||
    fail "measured compute without the waits ($m - $cw s) is not the simulated $s s"
  "$bin/smpi_llamp-run" -np 2 $q --cfg=smpi/cpu-threshold:0 -llamp-out wait0 ./short_bursts wait 1e-3 >wait0.txt 2>&1 ||
    { cat wait0.txt; fail "smpi_llamp-run (wait, threshold 0)"; }
  expect wait0/report.json '"clock_wait_seconds": 0, "clock_wait_bursts": 0'
  within "$(json_num wait0/report.json measured_seconds)" "$(json_num wait0/report.json simulated_seconds)" 0.01 ||
    fail "threshold 0: measured and simulated compute differ"
  "$bin/smpi_llamp-run" -np 2 $q -llamp-out calls ./short_bursts calls 20000 >calls.txt 2>&1 ||
    { cat calls.txt; fail "smpi_llamp-run (calls)"; }
  cat calls.txt
  expect calls.txt "was in bursts between MPI calls shorter than smpi/cpu-threshold (1 us)"
  expect calls/report.json '"clock_wait_seconds": 0, "clock_wait_bursts": 0'
  grep -q "reads of the clock" calls.txt && fail "short bursts before MPI calls taken for a wait on the clock"
  ;;

smpi_timer)
  # SMPI reads the thread CPU clock at both ends of every MPI call, a system
  # call each, for a compute timing the capture does itself: libsimgrid's
  # reads of that clock are answered by the anchored clock (llamp_cpuclock.h)
  # or from CLOCK_MONOTONIC (compute.c).  The simulation stays the same; the
  # system calls go; SMPI keeps its own clock on request
  # (LLAMP_SMPI_CPU_TIMER) or with smpi/display-timing.
  command -v strace >/dev/null 2>&1 || { echo "skip: strace not found (tools/install-deps.sh installs it)"; exit 77; }
  smpicc -O1 "$here/halo.c" -o halo_plain || fail "smpicc"
  cc_cap "$here/halo.c" -o halo_cap
  args="2 2 50 8192 20 5"
  q="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --log=root.thres:warning"
  # thread_reads LOG: the thread-CPU clock reads strace saw
  thread_reads() { grep -c "clock_gettime(CLOCK_THREAD_CPUTIME_ID" "$1"; }
  strace -f -qq -e trace=clock_gettime -o plain.strace smpirun -np 4 -platform "$platform" $q \
    ./halo_plain $args >plain.txt 2>&1 || { cat plain.txt; fail "smpirun"; }
  strace -f -qq -e trace=clock_gettime -o mono.strace "$bin/smpi_llamp-run" -np 4 -platform "$platform" $q \
    -llamp-out mono ./halo_cap $args >mono.txt 2>&1 || { cat mono.txt; fail "smpi_llamp-run"; }
  LLAMP_SMPI_CPU_TIMER=yes strace -f -qq -e trace=clock_gettime -o cpu.strace "$bin/smpi_llamp-run" -np 4 \
    -platform "$platform" $q -llamp-out cpu ./halo_cap $args >cpu.txt 2>&1 || { cat cpu.txt; fail "smpi_llamp-run (cpu)"; }
  records=$(json_num mono/report.json records)
  np=$(thread_reads plain.strace) nm=$(thread_reads mono.strace) nc=$(thread_reads cpu.strace)
  echo "$records records; thread-CPU clock system calls: plain $np, capture $nm, capture keeping SMPI's $nc"
  # SMPI: two per MPI call (each record is one call)
  [ "$np" -ge $((2 * records)) ] || fail "plain smpirun read the thread clock $np times for $records calls"
  [ "$nc" -ge $((2 * records)) ] || fail "LLAMP_SMPI_CPU_TIMER=yes: SMPI's reads not kept ($nc)"
  [ "$nm" -le $((np / 50)) ] || fail "the capture still made $nm thread-clock system calls (plain $np)"
  grep -qE '"smpi_timer": "(anchored|monotonic)"' mono/report.json || fail "SMPI's clock not redirected"
  expect cpu/report.json '"smpi_timer": "cpu"'
  # the same simulation: the program's clock, SimGrid's end, the DAG
  grep "simulated time" plain.txt >t_plain || fail "no simulated time from plain smpirun"
  grep "simulated time" mono.txt >t_mono
  grep "simulated time" cpu.txt >t_cpu
  diff t_plain t_mono || fail "the redirected clock changed the simulated time"
  diff t_plain t_cpu || fail "the capture changed the simulated time"
  [ "$(json_num mono/report.json simulated_time)" = "$(json_num cpu/report.json simulated_time)" ] ||
    fail "SimGrid's end differs with the redirected clock"
  cmp mono/graph.llg cpu/graph.llg || fail "the redirected clock changed the DAG"
  # smpi/display-timing asks for SMPI's benched time: its clock is kept
  "$bin/smpi_llamp-run" -np 4 -platform "$platform" $q --cfg=smpi/display-timing:yes -llamp-out disp \
    ./halo_cap $args >disp.txt 2>&1 || { cat disp.txt; fail "smpi_llamp-run (display-timing)"; }
  expect disp/report.json '"smpi_timer": "cpu"'
  # compute measured (SimGrid's default): SMPI's two reads per call go; the
  # capture's own two per call are system calls only after the OS switched
  # the thread out (llamp_cpuclock.h), or all of them where perf events are
  # not allowed (report.json says which); T still SimGrid's
  strace -f -qq -e trace=clock_gettime -o dflt.strace "$bin/smpi_llamp-run" -np 4 -platform "$platform" \
    --log=root.thres:warning -llamp-out dflt ./halo_cap $args >dflt.txt 2>&1 || { cat dflt.txt; fail "smpi_llamp-run (compute on)"; }
  nd=$(thread_reads dflt.strace) rd=$(json_num dflt/report.json records)
  echo "compute measured: $rd records, $nd thread-clock system calls"
  grep -qE '"smpi_timer": "(anchored|monotonic)"' dflt/report.json || fail "compute measured: SMPI's clock not redirected"
  [ "$nd" -le $((3 * rd)) ] || fail "compute measured: $nd thread-clock reads for $rd calls (SMPI's not redirected?)"
  # untraced (strace switches the thread out at every system call, so each
  # read there anchors): system calls only at the OS's switches
  "$bin/smpi_llamp-run" -np 4 -platform "$platform" --log=root.thres:warning -llamp-out dfl2 ./halo_cap $args \
    >dfl2.txt 2>&1 || { cat dfl2.txt; fail "smpi_llamp-run (compute on, untraced)"; }
  ns=$(json_num dfl2/report.json cpu_clock_syscalls) r2=$(json_num dfl2/report.json records)
  echo "compute measured, untraced: $r2 records, the capture's thread-clock system calls: $ns"
  if grep -q '"cpu_clock": "anchored"' dfl2/report.json; then
    [ "${ns:-99999999}" -le $((r2 / 4)) ] || fail "anchored clock: $ns system calls for $r2 calls"
  else
    expect dfl2/report.json '"cpu_clock": "syscall"'
  fi
  d=$(json_num dfl2/report.json difference)
  awk -v d="$d" 'BEGIN { exit !(d != "" && d < 1e-2 && d > -1e-2) }' || fail "compute measured, untraced: T differs from SimGrid by $d"
  # (cluster16's hosts share up-links: with measured compute the messages'
  # overlaps vary from run to run, and with them the contention the DAG
  # approximates, reported as a known cause: -0.19 % seen)
  d=$(json_num dflt/report.json difference)
  awk -v d="$d" 'BEGIN { exit !(d != "" && d < 1e-2 && d > -1e-2) }' || fail "compute measured: T differs from SimGrid by $d"
  ;;

noncommutative)
  # SimGrid's default reduce, allreduce and reduce_scatter switch algorithms
  # for a non-commutative operation or a derived datatype; the records say
  # which, and the DAG follows: T(L0) and T(L0 + 10 us) equal SimGrid's on
  # a contention-free mesh within 0.05 % (what is left is SMPI's 16-byte
  # envelope), SimGrid's slope over the 10 us equals lambda_L, and the report
  # is not approximate.  6 flagged calls per round and rank.
  cc_cap -Wall "$here/noncommutative.c" -o noncommutative
  for np in 4 7; do
    for dl in 0 10; do
      L=$((2 + dl))
      python3 "$src/tools/llamp-platform" -n $np -L ${L}us -G 0.1ns -o mesh.xml || fail "llamp-platform"
      "$bin/smpi_llamp-run" -np $np $SIM -platform mesh.xml -llamp-out out -llamp-L ${L}us -llamp-G 0.1ns \
        -llamp-o 0 ./noncommutative 10 >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
      expect run.txt "noncommutative: done"
      expect out/report.json '"approximate": false'
      expect out/report.json "\"special_reductions\": $((np * 60)), \"unfollowed_reductions\": 0"
      d=$(json_num out/report.json difference)
      sim=$(json_num out/report.json simulated_time)
      echo "np $np, L = $L us: T(L0) against SimGrid $d (relative), SimGrid $sim s"
      awk -v d="$d" 'BEGIN { exit !(d != "" && d <= 5e-4 && d >= -5e-4) }' ||
        { cat run.txt; fail "np $np L $L us: T(L0) differs from SimGrid's time by $d"; }
      if [ $dl = 0 ]; then
        sim0=$sim
        lam=$(json_num out/report.json lambda_L)
      else
        awk -v a="$sim0" -v b="$sim" -v l="$lam" 'BEGIN { s = (b - a) / 10e-6; print "SimGrid slope " s ", lambda_L " l; exit !(s - l < 0.01 && l - s < 0.01) }' ||
          fail "np $np: SimGrid's slope differs from lambda_L $lam"
      fi
    done
  done
  # SimGrid's binomial reduce treats a non-commutative operation apart: not
  # followed, counted, warned, named and approximate
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out --cfg=smpi/reduce:binomial ./noncommutative 1 >run.txt 2>&1 ||
    { cat run.txt; fail "smpi_llamp-run (binomial reduce)"; }
  cat run.txt
  expect run.txt "smpi_llamp: warning: 4 reduction calls with a non-commutative operation"
  expect out/report.json '"approximate": true'
  expect out/report.json '"unfollowed_reductions": 4'
  ;;

count_only)
  # Calls the capture does not model (MPI_Rget_accumulate) are counted: listed in
  # report.json with their counts, and the report is approximate; the RMA
  # calls of the same program are modelled (docs/trace.md) and not listed.
  cc_cap -Wall "$here/rma_count.c" -o rma_count
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out ./rma_count >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
  cat run.txt
  expect run.txt "rma_count: done"
  expect run.txt "smpi_llamp: not modelled: MPI_Rget_accumulate x 4"
  expect out/report.json '"approximate": true'
  expect out/report.json '{"name": "MPI_Rget_accumulate", "count": 4}'
  ! grep -q '"name": "MPI_\(Put\|Get\|Accumulate\|Win_\(fence\|free\|create\|lock\|unlock\|flush\|post\|start\|complete\|wait\)\)"' out/report.json || fail "RMA calls listed as unmodelled"
  # local-only calls are counted apart and do not make it approximate
  expect out/report.json '"local_calls": [{"name": "MPI_Comm_rank", "count": 4}'
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
  # huge cpu-threshold no measured burst is charged, so runs are comparable
  # even when the machine is loaded (failed once with 1 s under 6 concurrent builds)
  bench="--cfg=smpi/simulate-computation:yes --cfg=smpi/cpu-threshold:1e6"
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
  LLAMP_TIMING=1 "$bin/smpi_llamp-run" -np 16 $SIM -llamp-out spill -llamp-spill 4KiB ./halo 4 4 20 1024 5 2 \
    >spill.txt 2>&1 || { cat spill.txt; fail "run with spill"; }
  cat spill.txt
  # streamed while the writers spilled (they keep what they release until
  # the stream's thread has read it)
  expect spill.txt "timing: DAG: finish"
  # and without the stream: the files read back
  "$bin/smpi_llamp-run" -np 16 $SIM -llamp-out files -llamp-stream no -llamp-spill 4KiB ./halo 4 4 20 1024 5 2 \
    >files.txt 2>&1 || { cat files.txt; fail "run with spill, no stream"; }
  cmp mem/graph.llg files/graph.llg || fail "the trace files give another graph"
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
  # one built by an older smpi_llamp-cc (its marker without this runtime's
  # interface): SMPI failed at load with "undefined symbol: llamp_cap_..."
  printf 'const char old_marker[] __attribute__((used)) = "smpi_llamp-capture-linked";\n' >old_marker.c
  smpicc -O1 "$here/paper_example.c" old_marker.c -o older || fail "smpicc"
  check "./older was built by another version of smpi_llamp-cc, whose capture does not match this runtime: rebuild it" \
    "$bin/smpi_llamp-run" -np 2 ./older
  # no such program (SMPI aborted, which read as an interrupted simulation)
  check "'./missing' is not a file: give the program's path" "$bin/smpi_llamp-run" -np 2 ./missing
  # bad settings: model file, environment, options
  printf 'loggps = { L = "2us"; Q = 1; };\n' >bad.cfg
  check "bad.cfg:1: loggps.Q: unknown setting (valid: L, o, g, G, S, bandwidth_term, rendezvous, nic, contention)" \
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o2 -llamp-config bad.cfg ./paper
  printf 'loggps = { L = "2 parsecs"; };\n' >bad2.cfg
  check "bad2.cfg:1: loggps.L: latency '2 parsecs'" \
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o3 -llamp-config bad2.cfg ./paper
  printf 'loggps = { L = ; };\n' >bad3.cfg
  check "bad3.cfg:1: syntax error" "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o4 -llamp-config bad3.cfg ./paper
  check "model file 'nosuch.cfg' is not readable" "$bin/smpi_llamp-run" -np 2 -llamp-config nosuch.cfg ./paper
  check "LLAMP_RANGE: range '5us:1us'" "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o5 -llamp-range 5us:1us ./paper
  check "unknown option '-llamp-bogus'" "$bin/smpi_llamp-run" -llamp-bogus ./paper
  check "LLAMP_TOLERANCE: tolerance 'nothing' (expected up to 16 positive percentages, e.g. 1,2,5, or none)" \
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o8 -llamp-tolerance nothing ./paper
  # none: no tolerance search, as llamp analyze --tolerance none
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o8 -llamp-tolerance none ./paper >o8.txt 2>&1 ||
    { cat o8.txt; fail "-llamp-tolerance none"; }
  expect o8.txt "predicted runtime"
  grep -q "latency tolerance" o8.txt && { cat o8.txt; fail "-llamp-tolerance none: tolerances reported"; }
  expect o8/report.json '"tolerance": []'
  echo "ok: -llamp-tolerance none"
  check "unknown allreduce algorithm" "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o6 -llamp-coll allreduce=nonsense ./paper
  check "no program to run" "$bin/smpi_llamp-run" -np 2
  # a program that fails after MPI_Finalize (a validation, PRK's rank-count
  # checks): its exit code, and a warning that the report is of that run
  printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 3; }\n' >fails.c
  cc_cap fails.c -o fails
  check "warning: the program exited with code 3 after the analysis: o7/report.json describes the run as emulated" \
    "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o7 ./fails
  # an earlier run's report is not left beside a run without analysis
  [ -f o7/report.json ] || fail "o7/report.json missing"
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out o7 -llamp-no-analysis ./paper >o7.txt 2>&1 || { cat o7.txt; fail "no-analysis run"; }
  [ ! -f o7/report.json ] && [ ! -f o7/graph.llg ] && [ ! -f o7/sweep.csv ] || fail "an earlier run's report.json, graph.llg or sweep.csv was left in o7"
  echo "ok: the earlier run's outputs are gone"
  # --help works and exits 0
  "$bin/smpi_llamp-run" -llamp-help >help.txt || fail "-llamp-help"
  expect help.txt "-llamp-out DIR"
  ;;

fortran_all_calls)
  # all_calls.c in Fortran, call for call: the Fortran bindings must give the
  # C program's trace record for record, and the same report.
  need_fortran
  "$bin/smpi_llamp-f90" -O1 "$here/all_calls.f90" -o all_calls || fail "smpi_llamp-f90"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out ./all_calls >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
  cat run.txt
  expect run.txt "all_calls: done (provided 0)"
  ! grep -q "not modelled" run.txt || fail "a call of all_calls.f90 is not modelled"
  # (the Sendrecv on MPI_COMM_SELF is SMPI's local copy: no message)
  expect run.txt "4 ranks, 738 events, 355 messages"
  expect out/report.json '"local_calls": [{"name": "MPI_Buffer_attach", "count": 4}, {"name": "MPI_Buffer_detach", "count": 4}, {"name": "MPI_Comm_group", "count": 4}, {"name": "MPI_Comm_rank", "count": 8}'
  "$build/tests/capture_trace_dump" out >dump.txt || fail "trace_dump"
  diff -u "$here/all_calls.expected" dump.txt || fail "the Fortran trace differs from all_calls.expected (C)"
  ;;

fortran_unchanged_time)
  # A Fortran ring (IN_PLACE, BOTTOM, STATUSES_IGNORE, struct type) built
  # with plain smpif90 and with smpi_llamp-f90: same checksum, same
  # MPI_Wtime, same final simulated time (dlopen and mmap privatization,
  # libgfortran privatized or not); smpi_llamp-ff builds fixed-form F77.
  need_fortran
  smpif90 -O1 "$here/fring.f90" -o fring_plain || fail "smpif90"
  "$bin/smpi_llamp-f90" -O1 "$here/fring.f90" -o fring_cap || fail "smpi_llamp-f90"
  run() { # OUTFILE PROGRAM ARGS...: the program's lines and SimGrid's final time
    o=$1
    shift
    smpirun -platform "$platform" --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 \
      --cfg=smpi/display-timing:yes "$@" >"$o.raw" 2>&1 || { cat "$o.raw"; fail "smpirun $*"; }
    grep -E 'fring:|Simulated time' "$o.raw" | sed 's/^\[[0-9.]*\] //' | sort >"$o"
  }
  export LLAMP_QUIET=1
  run plain -np 8 ./fring_plain 6 200
  # through smpi_llamp-run, i.e. with a private libgfortran per rank (whose
  # command line the capture sets up: plain SMPI leaves it empty)
  # (SimGrid's list of applied settings shown: smpi_llamp-run hides it)
  "$bin/smpi_llamp-run" -np 8 --cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:yes \
    --log=xbt_cfg.thres:info -llamp-out out_run ./fring_cap 6 200 >cap_run.raw 2>&1 ||
    { cat cap_run.raw; fail "smpi_llamp-run"; }
  grep -E 'fring:|Simulated time' cap_run.raw | sed 's/^\[[0-9.]*\] //' | sort >cap_run
  expect cap_run.raw "Set 'smpi/privatize-libs' to 'libgfortran.so.5'"
  LLAMP_OUT=out run cap -np 8 ./fring_cap 6 200
  LLAMP_OUT=out_mmap run cap_mmap -np 8 --cfg=smpi/privatization:mmap ./fring_cap 6 200
  cat plain
  expect plain "fring: checksum           76.0 simulated time"
  expect plain "Simulated time:"
  diff plain cap_run || fail "smpi_llamp-run (private libgfortran) changed the run"
  diff plain cap || fail "the capture changed the simulated time (Fortran)"
  diff plain cap_mmap || fail "the capture changed the simulated time (Fortran, mmap privatization)"
  cmp out/graph.llg out_mmap/graph.llg || fail "mmap privatization captured another graph"
  # and what was captured: 6 shifts of Irecv+Isend+Waitall, Allreduce, the
  # MPI_BOTTOM Send/Recv (rank 0 -> 1), Bcast, Barrier per rank
  "$build/tests/capture_trace_dump" out >dump.txt || fail "trace_dump"
  [ "$(grep -c ' MPI_Isend comm=0 peer=[0-9] tag=[1-6] bytes=1600 req=' dump.txt)" = 48 ] || fail "Isend records"
  [ "$(grep -c ' MPI_Waitall comm=0 completed reqs=' dump.txt)" = 48 ] || fail "Waitall records"
  expect dump.txt "0  19 MPI_Allreduce comm=0 tag=8 bytes=8"
  expect dump.txt "0  20 MPI_Send comm=0 peer=1 tag=99 bytes=16"
  expect dump.txt "1  20 MPI_Recv comm=0 peer=0 tag=99 bytes=16 status=0/99"
  expect dump.txt "7  20 MPI_Bcast comm=0 peer=7 tag=8 bytes=8"
  # fixed-form Fortran 77 with include 'mpif.h'
  unset LLAMP_QUIET
  "$bin/smpi_llamp-ff" -O1 "$here/ring77.f" -o ring77 || fail "smpi_llamp-ff"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out o77 ./ring77 >r77.txt 2>&1 || { cat r77.txt; fail "ring77"; }
  cat r77.txt
  expect r77.txt "ring77: done, sum 6"
  expect r77.txt "4 ranks, 36 records"
  ;;

fortran_io)
  # Each rank OPENs unit 10 on its own file: libgfortran's unit table must
  # be per rank, which smpi_llamp-run arranges for programs that need
  # libgfortran (smpi/privatize-libs).  With the user's own (empty) setting
  # it is not added, and the ranks mix their files up.
  need_fortran
  "$bin/smpi_llamp-f90" "$here/units.f90" -o units || fail "smpi_llamp-f90"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-quiet -llamp-out out ./units >run.txt 2>&1 || { cat run.txt; fail "run"; }
  cat run.txt
  for r in 0 1 2 3; do
    [ "$(tr -d ' ' <"unit-$r.txt")" = "$r" ] || fail "unit-$r.txt: $(cat "unit-$r.txt")"
  done
  expect run.txt "units: all ranks read their own file"
  rm -f unit-*.txt
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-quiet -llamp-out out2 --cfg=smpi/privatize-libs: ./units \
    >run2.txt 2>&1 && fail "shared libgfortran units went unnoticed"
  grep -q "units: all ranks read their own file" run2.txt && fail "shared libgfortran units went unnoticed"
  echo "without privatize-libs (expected to fail):"
  grep -E 'Fortran runtime error|read' run2.txt | head -3
  ;;

fortran_mixed)
  # Mixed programs: a Fortran main calling C (MPI_Comm_f2c), a C main
  # calling Fortran; both languages' calls are in the trace.
  need_fortran
  "$bin/smpi_llamp-f90" -O1 -c "$here/mixed_main.f90" -o mixed_main.o || fail "smpi_llamp-f90 -c"
  "$bin/smpi_llamp-cc" -O1 -c "$here/mixed_c.c" -o mixed_c.o || fail "smpi_llamp-cc -c"
  "$bin/smpi_llamp-f90" mixed_main.o mixed_c.o -o mixed || fail "smpi_llamp-f90 (link)"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out o1 ./mixed >r1.txt 2>&1 || { cat r1.txt; fail "mixed"; }
  cat r1.txt
  expect r1.txt "mixed: done, sum    6.0"
  expect r1.txt "4 ranks, 36 records"
  "$build/tests/capture_trace_dump" o1 >d1.txt || fail "trace_dump"
  [ "$(grep -c 'MPI_Sendrecv comm=0 peer=[0-9] tag=1 bytes=128' d1.txt)" = 12 ] || fail "Fortran Sendrecv"
  [ "$(grep -c 'MPI_Sendrecv comm=0 peer=[0-9] tag=2 bytes=128' d1.txt)" = 12 ] || fail "C Sendrecv"
  expect d1.txt "3   7 MPI_Allreduce comm=0 tag=8 bytes=8"
  "$bin/smpi_llamp-f90" -O1 -c "$here/mixed_sub.f90" -o mixed_sub.o || fail "smpi_llamp-f90 -c"
  "$bin/smpi_llamp-cc" -O1 "$here/mixed_cmain.c" mixed_sub.o -lgfortran -o cmain || fail "smpi_llamp-cc (link)"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out o2 ./cmain >r2.txt 2>&1 || { cat r2.txt; fail "cmain"; }
  cat r2.txt
  expect r2.txt "mixed_cmain: done"
  "$build/tests/capture_trace_dump" o2 >d2.txt || fail "trace_dump"
  [ "$(grep -c 'MPI_Sendrecv comm=0 peer=[0-9] tag=3 bytes=32' d2.txt)" = 8 ] || fail "Fortran Sendrecv"
  [ "$(grep -c 'MPI_Barrier comm=0' d2.txt)" = 4 ] || fail "C Barrier"
  ;;

fortran_concurrent)
  # Runs side by side on one machine (ctest -j, two users): SMPI copies each
  # rank's libgfortran under a fixed name (0000000tran.so.5 for rank 0) into
  # its tmpdir and deletes it once loaded; with one /tmp for both runs one
  # loaded the other's half-deleted copy ("dlopen failed").  Each run has its
  # own directory under -tmpdir / TMPDIR, removed at the end.
  need_fortran
  "$bin/smpi_llamp-ff" -O1 "$here/ring77.f" -o ring77 || fail "smpi_llamp-ff"
  mkdir -p tmpbase
  pids=""
  for k in 1 2 3 4; do
    TMPDIR="$PWD/tmpbase" "$bin/smpi_llamp-run" -np 4 $SIM -llamp-quiet -llamp-out "c$k" ./ring77 \
      >"c$k.txt" 2>&1 &
    pids="$pids $!"
  done
  k=0
  for p in $pids; do
    k=$((k + 1))
    wait "$p" || { cat "c$k.txt"; fail "concurrent run $k"; }
    expect "c$k.txt" "ring77: done, sum 6"
    cmp c1/graph.llg "c$k/graph.llg" || fail "concurrent run $k captured another graph"
  done
  [ -z "$(ls tmpbase)" ] || fail "temporary directories left behind: $(ls tmpbase)"
  # -tmpdir DIR (smpirun 3.32's own option would take DIR for the program)
  mkdir -p tmp2
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-quiet -tmpdir "$PWD/tmp2" -llamp-out c5 ./ring77 >c5.txt 2>&1 ||
    { cat c5.txt; fail "-tmpdir DIR"; }
  cmp c1/graph.llg c5/graph.llg || fail "-tmpdir run captured another graph"
  [ -z "$(ls tmp2)" ] || fail "-tmpdir: left behind: $(ls tmp2)"
  "$bin/smpi_llamp-run" -np 4 $SIM -llamp-quiet -tmpdir "$PWD/no/such/dir" -llamp-out c6 ./ring77 >c6.txt 2>&1 &&
    fail "a missing -tmpdir was accepted"
  expect c6.txt "cannot create a temporary directory in '$PWD/no/such/dir'"
  ;;

kernels_seed)
  # Kernel models (docs/models.md): the same -llamp-seed gives the same
  # simulated time and the same report.json bit for bit (but for the fields
  # that measure this machine: measured_seconds, build_seconds,
  # analysis_seconds); another seed gives another time.  The macro-form
  # region is skipped (its statement never runs), BLAS calls are interposed,
  # ddot still returns its value, and report.json records the seed and the
  # models' source.
  command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openblas 2>/dev/null || [ -f /usr/include/x86_64-linux-gnu/cblas.h ] || [ -f /usr/include/cblas.h ] ||
    { echo "skip: no cblas.h"; exit 77; }
  cc_cap "$here/kernels.c" -o kernels -lopenblas
  run() { # DIR SEED [options]: one run in DIR/
    d=$1
    seed=$2
    shift 2
    mkdir -p "$d"
    (cd "$d" && "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out out -llamp-seed "$seed" \
      -llamp-kernels "$here/kernels.cfg" "$@" ../kernels 64 20 >run.txt 2>&1) || { cat "$d/run.txt"; fail "smpi_llamp-run seed $seed"; }
    sed -E 's/"(measured_seconds|build_seconds|analysis_seconds)": [-0-9.eE+]*/"\1": X/g' "$d/out/report.json" >"$d/report.masked"
  }
  run a 42
  run b 42
  run c 43
  cat a/run.txt
  expect a/run.txt "smpi_llamp: seed 42"
  expect a/run.txt "smpi_llamp: kernel models from $here/kernels.cfg: 5 models; noise both; BLAS calls with a model: skip"
  expect a/out/report.json '"kernels": {"seed": 42, "source": "'"$here"'/kernels.cfg", "noise": "both"'
  expect a/out/report.json '{"name": "work", "calls": 80, '
  expect a/out/report.json '{"name": "dgemm", "calls": 80, '
  for r in 0 1 2 3; do
    expect a/run.txt "calls $r 0"          # the macro form skipped its statement
    expect a/run.txt "dot $r 14.606173"    # ddot ran (its time replaced)
  done
  ta=$(json_num a/out/report.json simulated_time)
  tb=$(json_num b/out/report.json simulated_time)
  tc=$(json_num c/out/report.json simulated_time)
  echo "simulated time: seed 42 $ta, again $tb, seed 43 $tc"
  [ "$ta" = "$tb" ] || fail "seed 42 twice: simulated times $ta and $tb differ"
  grep '^end ' a/run.txt >a/end.txt
  grep '^end ' b/run.txt >b/end.txt
  cmp a/end.txt b/end.txt || fail "seed 42 twice: the ranks' MPI_Wtime differ"
  cmp a/report.masked b/report.masked || { diff a/report.masked b/report.masked; fail "seed 42 twice: report.json differs"; }
  [ "$ta" != "$tc" ] || fail "seeds 42 and 43 gave the same simulated time $ta"
  cmp -s a/report.masked c/report.masked && fail "seeds 42 and 43 gave the same report.json"
  # noise none: every call takes mu exactly.  work: ranks 0..3 on n0, n1,
  # n10, n11 (SimGrid's host order), m = 64, n = 64 + rank, 20 iterations:
  # 20 x sum(2e-9 x 64 x (64 + r) + 5e-6) = 1.07072 ms
  run d 42 -llamp-kernel-noise none
  w=$(sed -n 's/.*{"name": "work", "calls": 80, "seconds": \([-0-9.eE+]*\)}.*/\1/p' d/out/report.json)
  within "$w" 0.00107072 1e-9 || fail "noise none: work took $w s, expected 1.07072 ms"
  # the rank on n3 (np 16: rank 3) draws from n3's own model: 4e-9 x 64 x 67 + 5e-6
  ;;

kernels_compute_accuracy)
  # Kernel models with the capture's measured compute (the default mode):
  # modelled regions and BLAS calls are charged once, as gaps between
  # records, so T(L0) equals SimGrid's time as in compute_accuracy.
  [ -f /usr/include/x86_64-linux-gnu/cblas.h ] || [ -f /usr/include/cblas.h ] || { echo "skip: no cblas.h"; exit 77; }
  cc_cap "$here/kernels.c" -o kernels -lopenblas
  python3 "$src/tools/llamp-platform" -n 4 -L 2us -G 0.1ns -o mesh4.xml || fail "llamp-platform"
  for blas in skip time; do
    "$bin/smpi_llamp-run" -np 4 -platform mesh4.xml --log=root.thres:warning -llamp-out out \
      -llamp-L 2us -llamp-G 0.1ns -llamp-o 0 -llamp-seed 7 -llamp-kernel-blas $blas \
      -llamp-kernels "$here/kernels.cfg" ./kernels 64 40 >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
    grep -v '^calls \|^dot \|^end ' run.txt
    expect run.txt "smpi_llamp: compute: measured CPU time replayed 1:1"
    expect out/report.json '"suspicious": false'
    d=$(json_num out/report.json difference)
    echo "blas $blas: T(L0) against SimGrid: $d (relative)"
    awk -v d="$d" 'BEGIN { exit !(d != "" && d <= 1e-3 && d >= -1e-3) }' ||
      fail "blas $blas: T(L0) differs from SimGrid's time by $d (bound 1e-3)"
    # the modelled seconds are in the DAG's compute
    k=$(python3 -c 'import json,sys; print("%.9g" % sum(c["seconds"] for c in json.load(open(sys.argv[1]))["capture"]["kernels"]["calls"]))' out/report.json)
    sim=$(json_num out/report.json simulated_seconds)
    echo "blas $blas: modelled $k s of the DAG's $sim s of compute"
    awk -v k="$k" -v s="$sim" 'BEGIN { exit !(k > 0 && s >= k) }' || fail "modelled $k s exceed the DAG's compute $sim s"
  done
  ;;

kernels_errors)
  # A bad kernel model file stops the run at MPI_Init with file:line: key:
  # expected; bad options stop smpi_llamp-run.
  cc_cap "$here/paper_example.c" -o paper
  printf 'kernels = {\n  models = ( { name = "dgemm"; mu = [1e-10, 2e-6]; } );\n};\n' >bad.cfg
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out -llamp-kernels bad.cfg ./paper >run.txt 2>&1 &&
    fail "a bad model file was accepted"
  expect run.txt "smpi_llamp: bad.cfg:2: kernels.models.[0].mu: expected 5 numbers, got 2"
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-seed x12 ./paper >run.txt 2>&1 && fail "-llamp-seed x12 accepted"
  expect run.txt "-llamp-seed 'x12' (expected an integer >= 0)"
  "$bin/smpi_llamp-run" -np 2 $SIM -llamp-kernel-noise daily ./paper >run.txt 2>&1 && fail "-llamp-kernel-noise daily accepted"
  expect run.txt "expected both, spatial, temporal or none"
  LLAMP_KERNEL_CV=-1 "$bin/smpi_llamp-run" -np 2 $SIM -llamp-out out -llamp-kernels "$here/kernels.cfg" ./paper >run.txt 2>&1 &&
    fail "LLAMP_KERNEL_CV=-1 accepted"
  expect run.txt "LLAMP_KERNEL_CV '-1' (-llamp-kernel-cv): expected a coefficient of variation >= 0"
  ;;

*)
  fail "unknown test $name"
  ;;
esac
echo "PASS: $name"
