#!/bin/sh
# errors.sh MPIEXEC BIN CHECK: llamp-inject's own errors (exit 1, one line)
# and a bad value, which every rank reports at MPI_Init before the run aborts.
mpiexec=$1 bin=$2 check=$3
[ -x "$mpiexec" ] && [ -x "$bin/llamp-inject" ] && [ -x "$check" ] || exit 77
fail() { echo "FAIL: $*"; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$bin/llamp-inject" --bogus true 2>"$t/e"; [ $? -eq 1 ] && grep -q "unknown option '--bogus'" "$t/e" || fail "bad option"
"$bin/llamp-inject" -dL 2>"$t/e"; [ $? -eq 1 ] && grep -q -- "-dL needs a value" "$t/e" || fail "missing value"
"$bin/llamp-inject" --matrix /nonexistent true 2>"$t/e"; [ $? -eq 1 ] && grep -q "cannot read" "$t/e" || fail "matrix file"
"$bin/llamp-inject" 2>"$t/e"; [ $? -eq 1 ] && grep -q "no command" "$t/e" || fail "no command"
"$bin/llamp-inject" --help | grep -q "^usage: llamp-inject" || fail "--help"
"$bin/llamp-inject" -dL 1us sh -c 'exit 3'; [ $? -eq 3 ] || fail "exit status not passed through"
check_bad() { # VAR=value, expected text
  env "$1" "$bin/llamp-inject" "$mpiexec" -n 2 "$check" pingpong 0 >"$t/o" 2>&1 && fail "$1 accepted"
  grep -q "$2" "$t/o" || { cat "$t/o"; fail "$1: no '$2'"; }
}
check_bad LLAMP_INJECT_DL=abc "LLAMP_INJECT_DL: 'abc' (expected a delay"
check_bad LLAMP_INJECT_RANKS=0,7 "LLAMP_INJECT_RANKS: rank 7 outside 0..1"
check_bad LLAMP_INJECT_RENDEZVOUS=eager "LLAMP_INJECT_RENDEZVOUS: 'eager' (expected rdma or direct)"
check_bad LLAMP_INJECT_COLL=allreduce=nope "LLAMP_INJECT_COLL: unknown allreduce algorithm"
printf '0 1us\n1us\n' >"$t/m"
check_bad LLAMP_INJECT_MATRIX="$t/m" "$t/m:2: 1 values (expected 2, the world size)"
printf 'dl = 5us\nfoo = 1\n' >"$t/c"
check_bad LLAMP_INJECT_CONFIG="$t/c" "$t/c:2: unknown key 'foo'"
echo "errors: PASS"
