#!/bin/sh
# Speed never changes an answer: two bench_sched binaries (e.g. a copy of the
# one built before a change, and the current one) build the graph of the
# same traces, and the graph files (llamp_graph_write_binary) and the sched
# stats must be the same byte for byte.  Traces: the 2-D halo and CG-like
# ones of the benchmark, odd rank counts, 1-D rings, gaps, every allreduce
# algorithm family, one rank.  NEW builds each with one thread and with two
# (threads=; an OLD without that argument ignores it).
#   bench/bench_sched_same.sh OLD_BENCH_SCHED NEW_BENCH_SCHED
old=$1 new=$2
[ -x "$old" ] && [ -x "$new" ] || { echo "usage: $0 OLD_BENCH_SCHED NEW_BENCH_SCHED" >&2; exit 2; }
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fail=0
while read -r line; do
  [ -n "$line" ] || continue
  for threads in 1 2; do
    args="$line threads=$threads"
    # shellcheck disable=SC2086 # args are bench_sched's key=value words
    if ! "$old" $args reps=1 out="$dir/old.llg" >/dev/null || ! "$new" $args reps=1 out="$dir/new.llg" >/dev/null; then
      echo "FAILED  $args"
      fail=1
    elif cmp -s "$dir/old.llg" "$dir/new.llg" && cmp -s "$dir/old.llg.stats" "$dir/new.llg.stats"; then
      echo "same    $(wc -c <"$dir/new.llg") B  $args"
    else
      echo "DIFFER  $args"
      fail=1
    fi
  done
done <<'LIST'
records=10000000 ranks=64
records=10000000 ranks=8 gap=0 allreduce=2 nb=2
records=1000000 ranks=7 nb=2
records=1000000 ranks=7 nb=2 allreduce=2
records=1000000 ranks=7 nb=4 allreduce=3 gap=1e-6
records=1000000 ranks=12 nb=4 allreduce=1 colls=allreduce=ring
records=1000000 ranks=13 nb=2 allreduce=2 colls=allreduce=linear_reduce_bcast
records=1000000 ranks=16 nb=4 allreduce=2 colls=allreduce=rabenseifner
records=1000000 ranks=6 nb=2 allreduce=2 colls=allreduce=ompi
records=300000 ranks=1 nb=2 allreduce=1
LIST
exit $fail
