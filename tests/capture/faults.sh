#!/bin/sh
# Faults of a capture run (registered by tests/faults.cmake; docs/hardening.md):
#   faults.sh BUILD_DIR SOURCE_DIR
# - a rank killed by a signal: smpi_llamp-run names the signal, and
#   `llamp build` lists every rank's incomplete trace and refuses;
# - two runs with one -llamp-out: the second refuses and names the first
#   (through smpi_llamp-run, and through a plain smpirun), the first ends well;
# - SIGINT, to smpirun alone and to the whole process group (Ctrl-C): the
#   run says it was interrupted, `llamp build` says what is missing.
# Exit 77 (skipped) without SimGrid or the capture build.
set -u
build=$1
src=$2
bin=$build/bin
work=$build/tests/capture-work/faults
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
unset LLAMP_OUT LLAMP_CONFIG LLAMP_SPILL LLAMP_QUIET LLAMP_OUT_LOCKED
SIM="--cfg=smpi/simulate-computation:no --log=root.thres:warning"
fail() {
  echo "FAIL: $*"
  exit 1
}
expect() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1 lacks: $2"; }; }
# run with SIGINT at its default (a background job of a script ignores it)
sigdfl() { exec python3 -c 'import signal, os, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
# wait_for FILE: until FILE is non-empty (at most 30 s)
wait_for() {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  [ -s "$1" ] || fail "$1 never appeared"
}

trap 'rm -f "$work/hold-1" "$work/hold-2"' EXIT # a failed step must not leave a run waiting
"$bin/smpi_llamp-cc" -O1 "$src/tests/capture/faults.c" -o faults || fail "smpi_llamp-cc"

# 1. rank 2 of 4 kills itself (SIGKILL) half-way; small spills put some of
# every rank's records on file
"$bin/smpi_llamp-run" -np 4 $SIM -llamp-out killed -llamp-spill 1KiB ./faults kill 200 2 >k.txt 2>&1
rc=$?
cat k.txt
[ $rc = 137 ] || fail "killed run: exit $rc, expected 137"
expect k.txt "rank 2: SIGKILL at iteration 100"
expect k.txt "smpi_llamp-run: the simulation died of signal SIGKILL before every rank reached MPI_Finalize: no analysis"
[ ! -e killed/report.json ] || fail "a report after a killed run"
"$bin/llamp" build killed -o k.llg >b.txt 2>&1 && fail "llamp build accepted the traces of a killed run"
cat b.txt
for r in 0 1 2 3; do
  expect b.txt "killed/trace/rank-$r.llt: incomplete trace: rank $r of 4 stopped before MPI_Finalize"
done
expect b.txt "4 of 4 (or more) ranks have no usable trace (0 missing, 4 unreadable or incomplete): no DAG of a partial run"
[ ! -e k.llg ] || fail "llamp build wrote a graph"

# 2. two runs into one directory: the first holds it until hold-1 goes
touch hold-1
"$bin/smpi_llamp-run" -np 4 $SIM -llamp-out shared ./faults hold 30 hold-1 >first.txt 2>&1 &
first=$!
wait_for shared/.llamp-lock
pid=$(cat shared/.llamp-lock)
"$bin/smpi_llamp-run" -np 4 $SIM -llamp-out shared ./faults slow 2 >second.txt 2>&1 && fail "the second run started"
cat second.txt
expect second.txt "smpi_llamp-run: 'shared' is in use by another run (pid $pid): wait for it to end, or choose another -llamp-out DIR"
# a plain smpirun of a captured program takes the same lock
LLAMP_OUT=shared smpirun -np 4 -platform "$src/platforms/cluster16.xml" $SIM ./faults slow 2 >third.txt 2>&1 &&
  fail "a plain smpirun started in a directory in use"
cat third.txt
expect third.txt "smpi_llamp: 'shared' is in use by another run (pid $pid)"
rm hold-1
wait $first || { cat first.txt; fail "the first run failed"; }
expect first.txt "faults: done"
expect shared/report.json '"records": 248,'
# once it is over, the directory is free again
"$bin/smpi_llamp-run" -np 4 $SIM -llamp-out shared -llamp-quiet ./faults slow 1 >fourth.txt 2>&1 ||
  { cat fourth.txt; fail "a run after the first"; }

# 3. SIGINT once the ranks have spilled: to smpirun alone, then to the
# process group (Ctrl-C)
for target in smpirun group; do
  rm -rf int
  touch hold-2
  sigdfl "$bin/smpi_llamp-run" -np 4 $SIM -llamp-out int -llamp-spill 200 ./faults hold 30 hold-2 >int.txt 2>&1 &
  job=$!
  wait_for int/.llamp-lock
  wait_for int/trace/rank-3.llt
  if [ $target = smpirun ]; then
    kill -INT "$(pgrep -f "smpirun.*faults hold 30 hold-2" | head -n 1)"
  else
    env kill -INT -- -$job # procps kill: a process group
  fi
  wait $job
  rc=$?
  rm -f hold-2
  cat int.txt
  [ $rc = 130 ] || fail "SIGINT to $target: exit $rc, expected 130"
  expect int.txt "smpi_llamp-run: the simulation was interrupted (SIGINT) before every rank reached MPI_Finalize: no analysis. The traces in int/trace are incomplete: 'llamp build int' lists what each rank is missing"
  "$bin/llamp" build int -o int.llg >ib.txt 2>&1 && fail "llamp build accepted an interrupted run"
  cat ib.txt
  # ranks 1-3 finished (MPI_Finalize does not wait for rank 0, which held)
  expect ib.txt "int/trace/rank-0.llt: incomplete trace: rank 0 of 4 stopped before MPI_Finalize"
  expect ib.txt "int/trace: 1 of 4 ranks have no usable trace (0 missing, 1 unreadable or incomplete): no DAG of a partial run"
done
echo "PASS: faults"
