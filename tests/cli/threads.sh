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
# a graph whose critical latencies take the last pruning step, in two parts
# (engine.c: envelope_parts; test_engine_random checks its breakpoints
# against Eisner-Severance): one core or two, the same report
"$llamp" generate random ranks=16 ops=4000 seed=3 -o parts.llg >/dev/null
LLAMP_DEBUG_ENVELOPE=1 LLAMP_THREADS=1 "$llamp" analyze parts.llg --range 0:20us --format json >one.json 2>one.err
LLAMP_DEBUG_ENVELOPE=1 LLAMP_THREADS=2 "$llamp" analyze parts.llg --range 0:20us --format json >two.json 2>two.err
grep -q "2 parts cut at" one.err || { echo "FAIL: the random graph did not take the two parts" >&2; cat one.err >&2; exit 1; }
cmp one.json two.json || { echo "FAIL: parts: two halves differ from one" >&2; diff one.json two.json | head >&2; exit 1; }
# again with parts cut until each keeps under half a line a vertex: rounds
# of 2-10 parts spread over the cores differently, the same report
export LLAMP_ENVELOPE_PART_AVG=0.5
LLAMP_DEBUG_ENVELOPE=1 LLAMP_THREADS=1 "$llamp" analyze parts.llg --range 0:20us --format json >cut1.json 2>cut1.err
LLAMP_DEBUG_ENVELOPE=1 LLAMP_THREADS=2 "$llamp" analyze parts.llg --range 0:20us --format json >cut2.json 2>cut2.err
unset LLAMP_ENVELOPE_PART_AVG
grep -q "round 3 part .*over budget, cut" cut1.err || { echo "FAIL: no part was cut in round 3" >&2; cat cut1.err >&2; exit 1; }
# a cut where the kept envelopes' breakpoints halve (the pass counted them)
grep -q "cut: .*(breakpoints)" cut1.err || { echo "FAIL: no part was cut at its breakpoints" >&2; cat cut1.err >&2; exit 1; }
cmp cut1.json cut2.json || { echo "FAIL: cut parts: two halves differ from one" >&2; diff cut1.json cut2.json | head >&2; exit 1; }
cmp one.json cut1.json || { echo "FAIL: cut parts: not the report of two parts" >&2; diff one.json cut1.json | head >&2; exit 1; }
echo "ok: one and two halves agree on 8 graph and option sets"
