#!/bin/sh
# run.sh MPIEXEC BIN CHECK NP CASE DL_US [llamp-inject options...]
# One semantics case of inject_check under llamp-inject; 77 = skipped.
mpiexec=$1 bin=$2 check=$3 np=$4 case=$5 dl=$6
shift 6
[ -x "$mpiexec" ] || exit 77
[ -x "$bin/llamp-inject" ] && [ -x "$check" ] || exit 77
out=$("$bin/llamp-inject" "$@" "$mpiexec" -n "$np" "$check" "$case" "$dl" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^$case: PASS" || exit 1
