#!/bin/sh
# The critical-latency search where T bends at hundreds to thousands of
# latencies: generated random graphs (8 ranks, 480 k events) under two
# parameter sets, each analysed twice in one run, interleaved:
#   cut      the default: a part of the range that keeps over 64 lines a
#            vertex is cut in two (engine.c: envelope_parts)
#   no cut   LLAMP_ENVELOPE_PART_AVG=1e18: the two first parts only, at
#            points placed where T bends
# Both reports must be the same byte for byte.  Optionally a third llamp
# binary (e.g. one built before a change) runs the same analyses too.  Each
# run also prints the lines its pruned passes kept in all
# (LLAMP_DEBUG_ENVELOPE): the pass's work grows with them, and unlike the
# wall time they do not change from run to run.
#   bench/bench_critical.sh BUILD_DIR [OLD_LLAMP]
build=$(cd "${1:?usage: $0 BUILD_DIR [OLD_LLAMP]}" && pwd) # absolute: the bench works in a temporary directory
old=${2:-}
case $old in "" | /*) ;; *) old=$PWD/$old ;; esac
llamp=$build/bin/llamp
[ -x "$llamp" ] || { echo "no $llamp" >&2; exit 2; }
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
"$llamp" generate random ranks=8 ops=60000 seed=4 -o g.llg >/dev/null || exit 1
wall() { # seconds of one run; its report into $1, its envelope's debug lines into $1.err
  out=$1
  shift
  t0=$(date +%s.%N)
  LLAMP_DEBUG_ENVELOPE=1 "$@" --range 0:20us --tolerance none --format json -o "$out" 2>"$out.err" || return 1
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'
}
kept() { # M lines the pruned passes of the run that wrote report $1 kept
  grep -o "kept [0-9]*" "$1.err" | awk '{ s += $2 } END { printf "%.0f M", s / 1e6 }'
}
fail=0
echo "random ranks=8 ops=60000 seed=4 (480 k events), critical latencies in [0, 20 us]"
for params in "--o 0" "--L 2us --o 0 --G 0.1ns --S 64KiB --nic"; do
  # shellcheck disable=SC2086 # params are llamp's options
  tc=$(wall cut.json "$llamp" analyze g.llg $params) || exit 1
  # shellcheck disable=SC2086
  tn=$(LLAMP_ENVELOPE_PART_AVG=1e18 wall nocut.json "$llamp" analyze g.llg $params) || exit 1
  n=$(grep -o '"lambda_before"' cut.json | wc -l)
  same=same
  cmp -s cut.json nocut.json || { same=DIFFER; fail=1; }
  line=$(printf "  %-44s %5d critical latencies  cut %7.2f s (%s lines)  no cut %7.2f s (%s)  x%.2f  %s" "$params" "$n" \
    "$tc" "$(kept cut.json)" "$tn" "$(kept nocut.json)" "$(echo "$tn $tc" | awk '{ print $1 / $2 }')" "$same")
  if [ -n "$old" ]; then
    # shellcheck disable=SC2086
    to=$(wall old.json "$old" analyze g.llg $params) || exit 1
    so=same
    cmp -s cut.json old.json || { so=DIFFER; fail=1; }
    line="$line  old $(printf %.2f "$to") s ($(kept old.json))  x$(echo "$to $tc" | awk '{ printf "%.2f", $1 / $2 }')  $so"
  fi
  echo "$line"
done
exit $fail
