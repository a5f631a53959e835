#!/bin/sh
# run_native.sh - one native-capture test (tests/native.cmake, docs/native.md):
#
#   run_native.sh MPIEXEC BIN_DIR NP APP [application arguments]
#
# 1. llamp-trace -o TMP MPIEXEC -n NP -bind-to core BIN_DIR/APP_mpi ARGS
#    exits 0 and the application prints "verification: PASSED";
# 2. every rank-R.clock has |offset| <= uncertainty: all ranks run on this
#    machine and read one CLOCK_MONOTONIC, so the true offset is 0 and the
#    NTP bound must hold (a property of the estimator, not a timing);
# 3. llamp build TMP exits 0 with NP ranks, no MPI function left unmodelled
#    and no completion of an unknown request;
# 4. llamp analyze TMP/graph.llg (reading it back runs the graph checker)
#    prints a predicted runtime.
# Exit 77 (skipped) when mpiexec or the native build is missing.
set -u
mpiexec=$1 bin=$2 np=$3 app=$4
shift 4
if [ -z "$mpiexec" ] || [ ! -x "$mpiexec" ]; then echo "SKIP: no mpiexec"; exit 77; fi
for f in llamp-trace llamp "${app}_mpi"; do
  if [ ! -x "$bin/$f" ]; then echo "SKIP: $bin/$f not built (no MPICH?)"; exit 77; fi
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/llamp-native.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OPENBLAS_NUM_THREADS=1

"$bin/llamp-trace" -o "$dir/trace" "$mpiexec" -n "$np" -bind-to core "$bin/${app}_mpi" "$@" >"$dir/app.out" 2>&1
rc=$?
cat "$dir/app.out"
[ $rc -eq 0 ] || fail "llamp-trace ... ${app}_mpi exited $rc"
grep -q "verification: PASSED" "$dir/app.out" || fail "no 'verification: PASSED'"
n=$(ls "$dir/trace" | grep -c '^rank-[0-9]*\.llt$')
[ "$n" -eq "$np" ] || fail "$n trace files for $np ranks"

for c in "$dir"/trace/rank-*.clock; do
  awk -v f="$c" '$1 == "offset" { o = $2 + 0 } $1 == "uncertainty" { u = $2 + 0 }
      END { if (o < 0) o = -o; if (u < 0 || o > u + 1e-12) { printf "FAIL: %s: |offset| %g > uncertainty %g\n", f, o, u; exit 1 } }' "$c" || exit 1
done

"$bin/llamp" build "$dir/trace" -o "$dir/g.llg" >"$dir/build.out" 2>&1
rc=$?
cat "$dir/build.out"
[ $rc -eq 0 ] || fail "llamp build exited $rc"
grep -q ": $np ranks, " "$dir/build.out" || fail "llamp build: not $np ranks"
grep -q "not modelled: none" "$dir/build.out" || fail "llamp build: unmodelled MPI functions"
if grep -q "unknown requests" "$dir/build.out"; then fail "llamp build: completions of unknown requests"; fi
grep -q "^measured: MPI_Init..MPI_Finalize" "$dir/build.out" || fail "llamp build: no measured time"

"$bin/llamp" analyze "$dir/g.llg" --L 0.1us --o 0.3us --G 0.12ns --S 8KiB >"$dir/an.out" 2>&1
rc=$?
cat "$dir/an.out"
[ $rc -eq 0 ] || fail "llamp analyze exited $rc"
grep -q "predicted runtime" "$dir/an.out" || fail "llamp analyze: no prediction"
echo "PASS"
