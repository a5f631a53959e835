#!/bin/sh
# fortran.sh - native capture of a Fortran program (tests/native.cmake):
#   fortran.sh MPIEXEC MPIF90 BIN_DIR TRACE_DUMP SOURCE_DIR
# MPICH's Fortran bindings (libmpichfort) call the C MPI_Xyz through the
# dynamic symbol table, so the LD_PRELOAD wrappers capture Fortran calls with
# no Fortran code of their own.  tests/capture/all_calls.f90 built with
# MPICH's mpif90 must give, per MPI function, the records of the SMPI golden
# trace (all_calls.expected), except the polls (Test*, Iprobe) and Waitsome,
# whose number depends on timing: those must only be there on the same ranks.
# The golden records SMPI's MPI_Waitsome as the Waitany and Testsome SMPI
# runs it as (docs/trace.md): each such pair counts as one Waitsome here.
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
polls='^MPI_(Test|Testall|Testany|Testsome|Iprobe|Waitsome)$'
ops() { awk -v p="$polls" '$3 !~ p { print $1, $3 }' "$1" | sort | uniq -c; }
# a Waitany directly followed by a Testsome of the same rank: one Waitsome
merge_waitsome() {
  awk 'held != "" { if ($1 == hr && $3 == "MPI_Testsome") { print hr, hn, "MPI_Waitsome"; held = ""; next }
                    print held; held = "" }
       $3 == "MPI_Waitany" { held = $0; hr = $1; hn = $2; next }
       { print }
       END { if (held != "") print held }' "$1"
}
merge_waitsome "$src/tests/capture/all_calls.expected" >"$d/golden"
ops "$d/golden" >"$d/want"
ops "$d/dump.txt" >"$d/got"
diff "$d/want" "$d/got" || fail "records per rank and function differ from all_calls.expected"
polled() { awk -v p="$polls" '$3 ~ p { print $1, $3 }' "$1" | sort -u; }
polled "$d/golden" >"$d/want_polls"
polled "$d/dump.txt" >"$d/got_polls"
diff "$d/want_polls" "$d/got_polls" || fail "ranks and polling functions differ from all_calls.expected"
"$bin/llamp" build "$d/t" -o "$d/g.llg" >"$d/build.out" 2>&1 || { cat "$d/build.out"; fail "llamp build"; }
cat "$d/build.out"
grep -q "not modelled: none" "$d/build.out" || fail "a call is reported not modelled (MPI_Alltoallw is modelled)"
echo "PASS"
