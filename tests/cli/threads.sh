#!/bin/sh
# The engine's plan in two halves (llamp_par.h) gives the same report as in
# one: LLAMP_THREADS=1 against LLAMP_THREADS=2 (two halves on any graph), on
# graphs with the NIC rule's runs and chains, gap chains and rendezvous.
#   threads.sh LLAMP
set -eu
llamp=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$llamp" generate halo2d px=4 py=4 iters=40 bytes=8KiB compute=10us -o halo.llg >/dev/null
"$llamp" generate random ranks=16 ops=400 seed=11 -o random.llg >/dev/null
for g in halo random; do
  for opts in "--nic --o 0 --S 64KiB" "--nic --o 1us --g 1us --S 4KiB" "--o 1us --g 2us --S 1KiB"; do
    # shellcheck disable=SC2086
    LLAMP_THREADS=1 "$llamp" analyze $g.llg $opts --range 0:5us --classify here --format json >one.json
    # shellcheck disable=SC2086
    LLAMP_THREADS=2 "$llamp" analyze $g.llg $opts --range 0:5us --classify here --format json >two.json
    cmp one.json two.json || { echo "FAIL: $g $opts: two halves differ from one" >&2; diff one.json two.json | head >&2; exit 1; }
    grep -q '"runtime": [0-9]' one.json || { echo "FAIL: $g $opts: no runtime" >&2; exit 1; }
  done
done
echo "ok: one and two halves agree on 6 graph and option sets"
