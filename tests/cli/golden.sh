#!/bin/sh
# Golden CLI test: run the command in CASE.cmd (with $LLAMP and $DATA set),
# compare its stdout, stderr and exit status with CASE.out.
# LLAMP_UPDATE_GOLDEN=1 rewrites CASE.out when a change is intended.
set -u
LLAMP=$1; case_file=$2; data_dir=$3
expected="${case_file%.cmd}.out"
actual=$(mktemp)
# run in a scratch directory where the data directory is ./data, so printed
# paths do not depend on where the tree is checked out
work=$(mktemp -d)
trap 'rm -rf "$actual" "$work"' EXIT
ln -s "$data_dir" "$work/data"
DATA=data
export LLAMP DATA
cd "$work"
cmd=$(grep -v '^#' "$case_file")
( eval "$cmd" ) >"$actual.stdout" 2>"$actual.stderr"
status=$?
{
  cat "$actual.stdout"
  sed 's/^/stderr: /' "$actual.stderr"
  echo "exit: $status"
} >"$actual"
rm -f "$actual.stdout" "$actual.stderr"
if [ "${LLAMP_UPDATE_GOLDEN:-0}" = 1 ]; then
  cp "$actual" "$expected"
  echo "updated $expected"
  exit 0
fi
if ! diff -u "$expected" "$actual"; then
  echo "golden mismatch for $case_file (LLAMP_UPDATE_GOLDEN=1 to accept)" >&2
  exit 1
fi
