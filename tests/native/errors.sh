#!/bin/sh
# errors.sh - the native tools' error paths (tests/native.cmake):
#   errors.sh MPIEXEC BIN_DIR REQS_BINARY
# each failure is one line on stderr and exit status 1 (or the command's).
set -u
mpiexec=$1 bin=$2 reqs=$3
if [ -z "$mpiexec" ] || [ ! -x "$mpiexec" ] || [ ! -x "$bin/llamp-trace" ]; then echo "SKIP"; exit 77; fi
d=$(mktemp -d "${TMPDIR:-/tmp}/llamp-native-err.XXXXXX")
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# expect RC TEXT command...: exit status RC and TEXT in the output
expect() {
  want=$1 text=$2
  shift 2
  "$@" >"$d/out" 2>&1
  rc=$?
  cat "$d/out"
  [ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want"
  [ -z "$text" ] || grep -q -- "$text" "$d/out" || fail "'$*': no '$text' in the output"
}
expect 1 "no command to run" "$bin/llamp-trace" -o "$d/x"
expect 1 "unknown option" "$bin/llamp-trace" --bogus true
expect 1 "no rank wrote a trace" "$bin/llamp-trace" -o "$d/none" true
expect 3 "" "$bin/llamp-trace" -o "$d/none" sh -c 'exit 3'
mkdir -p "$d/empty"
expect 1 "no rank-R.llt here" "$bin/llamp" build "$d/empty"
expect 1 "cannot open the trace directory" "$bin/llamp" build "$d/does-not-exist"
# two runs, then one directory mixing them
expect 0 "2 rank trace" "$bin/llamp-trace" -o "$d/a" "$mpiexec" -n 2 "$reqs"
expect 0 "2 rank trace" "$bin/llamp-trace" -o "$d/b" "$mpiexec" -n 2 "$reqs"
expect 0 "messages" "$bin/llamp" build "$d/a"
grep -q "unknown requests" "$d/out" && fail "reqs: completions of unknown requests"
# 10 point-to-point messages + 2 of the final 2-rank barrier (dissemination)
grep -q "^trace: .* 12 messages" "$d/out" || fail "reqs: expected 10 + 2 messages"
mkdir "$d/keep" && cp "$d/a/rank-1.llt" "$d/a/rank-1.clock" "$d/keep/"
cp "$d/b/rank-1.llt" "$d/b/rank-1.clock" "$d/a/"
expect 1 "mixes traces of two runs" "$bin/llamp" build "$d/a"
cp "$d/keep/rank-1.clock" "$d/a/"
rm "$d/a/rank-1.llt"
expect 1 "rank-1.llt: missing" "$bin/llamp" build "$d/a"
# a rank killed by a signal (docs/hardening.md): the run fails, llamp-trace
# says so, and llamp build lists every missing rank
mpicc -O1 "$(dirname "$0")/../capture/faults.c" -o "$d/faults" || fail "mpicc faults.c"
expect 9 "llamp-trace: '$mpiexec' failed (exit status 9): 0 rank trace(s) in $d/killed" \
  "$bin/llamp-trace" -o "$d/killed" "$mpiexec" -n 4 "$d/faults" kill 20 2
"$bin/llamp-trace" -o "$d/half" "$mpiexec" -n 2 "$d/faults" slow 2 >/dev/null 2>&1 || fail "faults, 2 ranks"
rm "$d/half/rank-1.llt"
expect 1 "rank-1.llt: missing: the rank never reached MPI_Finalize and spilled nothing" "$bin/llamp" build "$d/half"
expect 1 "1 of 2 ranks have no usable trace (1 missing, 0 unreadable or incomplete): no DAG of a partial run" "$bin/llamp" build "$d/half"
head -c 100 "$d/keep/rank-1.llt" >"$d/a/rank-1.llt"
expect 1 "rank-1.llt: truncated" "$bin/llamp" build "$d/a"
echo PASS
