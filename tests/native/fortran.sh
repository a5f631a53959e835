#!/bin/sh
# fortran.sh - native capture of a Fortran program (tests/native.cmake):
#   fortran.sh MPIEXEC MPIF90 BIN_DIR TRACE_DUMP SOURCE_DIR
# MPICH's Fortran bindings (libmpichfort) call the C MPI_Xyz through the
# dynamic symbol table, so the LD_PRELOAD wrappers capture Fortran calls with
# no Fortran code of their own.  tests/capture/all_calls.f90 built with
# MPICH's mpif90 must give, per MPI function, the records of the SMPI golden
# trace (all_calls.expected), except the Test* polls and Waitsome, whose
# number depends on timing.
set -u
mpiexec=$1 mpif90=$2 bin=$3 dump=$4 src=$5
if [ -z "$mpiexec" ] || [ ! -x "$mpiexec" ] || [ -z "$mpif90" ] || [ ! -x "$bin/llamp-trace" ] || [ ! -x "$dump" ]; then
  echo "SKIP: no mpiexec, mpif90 or native build"
  exit 77
fi
d=$(mktemp -d "${TMPDIR:-/tmp}/llamp-native-f.XXXXXX")
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$mpif90" -O1 "$src/tests/capture/all_calls.f90" -o "$d/all_calls" || fail "mpif90"
"$bin/llamp-trace" -o "$d/t" "$mpiexec" -n 4 "$d/all_calls" >"$d/run.out" 2>&1
rc=$?
cat "$d/run.out"
[ $rc -eq 0 ] || fail "llamp-trace exited $rc"
grep -q "all_calls: done" "$d/run.out" || fail "the program did not finish"
mkdir -p "$d/dump/trace" && cp "$d"/t/rank-*.llt "$d/dump/trace/" || fail "no traces"
"$dump" "$d/dump" >"$d/dump.txt" || fail "trace_dump"
ops() { awk '$3 !~ /^MPI_(Test|Testall|Testany|Testsome|Waitsome)$/ { print $1, $3 }' "$1" | sort | uniq -c; }
ops "$src/tests/capture/all_calls.expected" >"$d/want"
ops "$d/dump.txt" >"$d/got"
diff "$d/want" "$d/got" || fail "records per rank and function differ from all_calls.expected"
"$bin/llamp" build "$d/t" -o "$d/g.llg" >"$d/build.out" 2>&1 || { cat "$d/build.out"; fail "llamp build"; }
cat "$d/build.out"
grep -q "not modelled: MPI_Alltoallw x 4" "$d/build.out" || fail "Alltoallw not reported"
echo "PASS"
