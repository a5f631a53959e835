#!/bin/bash
# Consistency of the captured DAG with SimGrid (docs/consistency.md),
# registered by tests/consistency.cmake:
#   run.sh SUITE BUILD_DIR SOURCE_DIR
# SUITE: p2p    halos (Isend/Irecv/Waitall), blocking chains, communicator
#               creation
#        coll   every collective algorithm with an SMPI equivalent, 8 and 7 ranks,
#               passed to SimGrid explicitly (--cfg=smpi/<coll>:<algo>)
#        defaults  every collective, blocking and nonblocking, with no
#               collective setting at all (SimGrid's default selector: the
#               DAG must follow it), 8 and 7 ranks, and the 100 x 1-double
#               MPI_Allreduce regression (800.96 us in SimGrid)
#        ranks  a chain on 1, 2, 3, 7, 64 and 256 ranks (T(L0) only)
#        diff   the documented differences, each asserting its measured bound
#        apps   the proxy applications hydro3d, cg --any-source, fft --alltoallv, md
#               (apps/), compute off and by kernel models, with SimGrid's slope
#        fortran  the Fortran wavefront proxy app (apps/wavefront), captured
#               through the Fortran bindings
#        fortran_compute  the same with computation simulated (measured
#               bursts): 1 % plus the measured run-to-run noise
#        rma    one-sided communication (tests/consistency/rma.c): fence epochs
#               with Put and Get, a Put + fence halo, post/start/complete/wait,
#               exact; Accumulate, passive target and the rest with the measured
#               effect of SMPI's window mutexes (docs/consistency.md)
#        slow   larger runs (64-rank halo, collectives on 16 and 12 ranks,
#               other L0)
#
# For every case: build the program (tests/consistency/NAME.c) with
# smpi_llamp-cc and with plain smpicc, capture ONE run on a platform whose
# end-to-end latency is L0 (tools/llamp-platform: contention-free, SMPI
# factors 1, o = 0), then run the plain program on platforms with latency
# L0 + dL for dL in 0 and DELTAS and compare each simulated time (the largest
# "end RANK TIME" line the program prints) with the DAG's T(L0 + dL),
# evaluated from that one capture (llamp analyze --sweep).  Two predictions:
#   raw       the DAG's L = the platform's latency, (s-1) G: the error that
#             matters (bound 1 % unless docs/consistency.md documents another)
#   envelope  L + 16 G with the bandwidth term s G, i.e. the 16-byte envelope
#             SMPI adds to every message modelled: SimGrid charges
#             L + (s + 16) G exactly, so this must agree to 1e-5 relative
#             wherever the structures are exact
# Results: BUILD_DIR/tests/consistency-work/SUITE/results.tsv (results.md:
# one row per case) and a table on stdout.  Exit 77 when SimGrid or the
# capture build is missing.
# Environment: CONSISTENCY_L0 (us, default 2), CONSISTENCY_DELTAS (whole us,
# default "1 10 100"), CONSISTENCY_KEEP=1 keeps the traces.
set -u
suite=$1
build=$2
src=$3
bin=$build/bin
here=$src/tests/consistency
work=$build/tests/consistency-work/$suite
L0=${CONSISTENCY_L0:-2}
DELTAS=${CONSISTENCY_DELTAS:-"1 10 100"}
G=0.1 # ns per byte of every generated platform (10 GB/s)
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
command -v smpirun >/dev/null 2>&1 || { echo "skip: smpirun not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 (tools/llamp-platform) not found"; exit 77; }
[ -x "$bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
cases=$build/tests/consistency_coll_cases
[ -x "$cases" ] || { echo "skip: consistency_coll_cases was not built"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
unset LLAMP_OUT LLAMP_CONFIG LLAMP_L LLAMP_O LLAMP_GAP LLAMP_G LLAMP_S LLAMP_COLL LLAMP_RANGE \
  LLAMP_TOLERANCE LLAMP_SWEEP_POINTS LLAMP_GOAL LLAMP_ANALYZE LLAMP_SPILL LLAMP_QUIET \
  LLAMP_BANDWIDTH_TERM LLAMP_REDUCE_COST LLAMP_KERNEL_MODEL LLAMP_KERNEL_PROFILE
# the proxy applications print their "end RANK TIME" lines (apps/common/llamp_app.h)
export LLAMP_APP_END_TIMES=1
# deterministic runs; SimGrid rounds event times to surf/precision (1 ns by
# default: errors of ~1e-5), which a platform's <config> block cannot change
SIM="--cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=surf/precision:1e-12 --log=root.thres:warning"
# SimGrid cannot be told to run the default scan/exscan: always direct
BASE_COLL="scan=direct,exscan=direct"
results=$work/results.tsv
printf 'case\tsimgrid_slope_1us\tsimgrid_slope_100us\tlambda_L\n' >"$work/slopes.tsv"
printf 'case\tranks\tdL_us\tsim_s\tT_raw_s\terr_raw_pct\tT_env_s\terr_env_rel\traw_bound_pct\tenv_bound_rel\n' >"$results"
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
die() {
  echo "FAIL: $*"
  exit 1
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.10g", a + b }'; }

# plat NP LAT_US TOPOLOGY LOOPBACK: a generated platform (cached)
plat() {
  local f="$work/plat-$3-$4-$1-$2.xml"
  [ -f "$f" ] || python3 "$src/tools/llamp-platform" -n "$1" -L "$2us" -G "${G}ns" -t "$3" -l "$4" -o "$f" ||
    die "llamp-platform -n $1 -L $2us -t $3 -l $4"
  echo "$f"
}

# prog NAME: tests/consistency/NAME.c, or for app-APP the proxy application
# apps/APP (with apps/common), with the capture (NAME_cap) and plain
# (NAME_plain); both with the same flags; a Fortran proxy app apps/NAME/NAME.F90
# with smpi_llamp-f90 and smpif90 (from a copy: smpif90 writes next to its source)
prog() {
  [ -x "$work/$1_cap" ] && return 0
  if [ ! -f "$here/$1.c" ] && [ -f "$src/apps/$1/$1.F90" ]; then
    command -v smpif90 >/dev/null 2>&1 && command -v gfortran >/dev/null 2>&1 ||
      { echo "skip: smpif90 or gfortran not found"; exit 77; }
    cp "$src/apps/$1/$1.F90" "$work/$1.F90" || die "copy $1.F90"
    (cd "$work" && "$bin/smpi_llamp-f90" -O2 -DLLAMP_SMPI=1 "$1.F90" -o "$1_cap") >"$work/cc-$1.log" 2>&1 ||
      { cat "$work/cc-$1.log"; die "smpi_llamp-f90 $1.F90"; }
    (cd "$work" && smpif90 -O2 -DLLAMP_SMPI=1 "$1.F90" -o "$1_plain") >>"$work/cc-$1.log" 2>&1 ||
      { cat "$work/cc-$1.log"; die "smpif90 $1.F90"; }
    return 0
  fi
  local args
  case "$1" in
    app-*)
      local a=${1#app-}
      args=(-O2 -std=gnu11 -DLLAMP_SMPI=1 -I"$src/apps/common" -I"$src/smpi_llamp/include" -I"$src/apps/$a" "$src/apps/$a"/*.c
        "$src/apps/common/llamp_app.c" "$src/apps/common/llamp_kernel.c" -lm) ;;
    *) args=(-O1 "$here/$1.c") ;;
  esac
  "$bin/smpi_llamp-cc" "${args[@]}" -o "$work/$1_cap" >"$work/cc-$1.log" 2>&1 ||
    { cat "$work/cc-$1.log"; die "smpi_llamp-cc $1"; }
  smpicc "${args[@]}" -o "$work/$1_plain" >>"$work/cc-$1.log" 2>&1 ||
    { cat "$work/cc-$1.log"; die "smpicc $1"; }
}

# endtime FILE: the largest "end RANK TIME" of a run
endtime() { awk '$1 == "end" && NF == 3 { if ($3 > m) m = $3; n++ } END { if (n) printf "%.15g\n", m }' "$1"; }

# sweep GRAPH L_US TERM S HI_US: T at L, L+1us, ..., L+HI us, one per line
sweep() {
  "$bin/llamp" analyze "$1" --o 0 --G "${G}ns" --S "$4" --bandwidth-term "$3" --format json \
    --sweep "$2us:$(add "$2" "$5")us:1us" | awk -F'"runtime": ' '/^ *\{"L": / { split($2, a, ","); print a[1] }'
}

# within ERR BOUND: BOUND is "B" (|ERR| <= B), "LO:HI" (LO <= ERR <= HI) or "none"
within() {
  awk -v e="$1" -v b="$2" 'BEGIN {
    if (b == "none") exit 0
    if (index(b, ":")) { split(b, r, ":"); exit !(e >= r[1] + 0 && e <= r[2] + 0) }
    exit !(e <= b + 0 && -e <= b + 0) }'
}

# check NAME NP [KEY=VALUE...] [SMPIRUN-OPTION...] -- PROGRAM ARGS...
#   coll=SPEC    the DAG's collective selection (added to BASE_COLL); smpirun
#                gets llamp_coll_selection_smpi_cfg's options for it, then the
#                SMPIRUN-OPTIONs (which win); coll=none: no collective
#                setting at all, neither -llamp-coll nor --cfg (SimGrid's
#                default selector)
#   approx=1     the report may be approximate (an SMPI algorithm whose
#                messages differ from ours in general, e.g. rdb off powers of two)
#   sim0=T:TOL   the simulated time at L0 must be T +- TOL seconds
#   raw=BOUND    raw error in % (default 1)
#   env=BOUND    envelope-corrected relative error (default 1e-5; "none")
#   deltas=LIST  dL values in us (default DELTAS; "" = T(L0) only)
#   topo=KIND    mesh (default up to 64 ranks) or cluster (tools/llamp-platform)
#   loop=KIND    messages to oneself: free (default: a copy, as on a real
#                network, whose latency dL does not change) or network
#                (tools/llamp-platform -l: a loopback of latency L0 + dL)
#   S=BYTES      the DAG's rendezvous threshold (default 65535, SMPI's eager limit)
#   self=N:B     the DAG charges N messages of B bytes that SimGrid does not:
#                the envelope check subtracts N (L + (B + 16) G) from the DAG's T
#                (N < 0: SimGrid charges them and the DAG does not)
#   model=FILE   LLAMP_KERNEL_MODEL for the proxy applications (compute by
#                deterministic kernel models, smpi_execute_benched)
#   slope=PCT    with dL = 1 among the deltas: SimGrid's slope
#                (T(L0 + 1us) - T(L0)) / 1us must be within PCT % of the DAG's
#                lambda_L at L0 (report.json, the right derivative; default
#                $SLOPE, unset: no check); the slope over 100 us is listed
#                too (slopes.tsv)
#   burst=N:B    bursts (docs/consistency.md): SimGrid may be up to
#                A = N (B + 16) G slower than the DAG, never faster; replaces
#                the bounds by raw in [-100 A/T - 0.1, 0.1] %, envelope in
#                [-A/T - 1e-5, 1e-5]
check() {
  local name=$1 np=$2
  shift 2
  local spec="" rawb=1 envb=1e-5 deltas=$DELTAS topo="" loop=free S=65535 self=0:0 burst="" extra=()
  local model="" slopeb=${SLOPE:-} at0="" at1="" at100=""
  local nocoll=0 approx=0 sim0=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case "$1" in
      coll=none) nocoll=1 ;;
      coll=*) spec=${1#coll=} ;;
      approx=*) approx=${1#approx=} ;;
      sim0=*) sim0=${1#sim0=} ;;
      raw=*) rawb=${1#raw=} ;;
      env=*) envb=${1#env=} ;;
      deltas=*) deltas=${1#deltas=} ;;
      topo=*) topo=${1#topo=} ;;
      loop=*) loop=${1#loop=} ;;
      S=*) S=${1#S=} ;;
      self=*) self=${1#self=} ;;
      burst=*) burst=${1#burst=} ;;
      model=*) model=${1#model=} ;;
      slope=*) slopeb=${1#slope=} ;;
      *) extra+=("$1") ;;
    esac
    shift
  done
  shift
  [ -n "$topo" ] || { [ "$np" -le 64 ] && topo=mesh || topo=cluster; }
  local p=$1
  shift
  prog "$p"
  local full="$BASE_COLL${spec:+,$spec}" cfg collopt=()
  if [ "$nocoll" = 1 ]; then
    cfg=""
  else
    cfg=$("$cases" "$full") || die "$name: collective selection $full"
    collopt=(-llamp-coll "$full")
  fi
  local d="$work/$name"
  mkdir -p "$d"
  if [ -n "$model" ]; then export LLAMP_KERNEL_MODEL=$model; else unset LLAMP_KERNEL_MODEL; fi
  # the one capture, at L0
  # shellcheck disable=SC2086
  "$bin/smpi_llamp-run" -np "$np" -platform "$(plat "$np" "$L0" "$topo" "$loop")" $SIM $cfg "${extra[@]}" \
    -llamp-out "$d/out" -llamp-L "${L0}us" -llamp-G "${G}ns" -llamp-o 0 -llamp-S "$S" \
    "${collopt[@]}" -llamp-quiet "./${p}_cap" "$@" >"$d/capture.log" 2>&1 ||
    { tail -20 "$d/capture.log"; fail "$name: capture run"; return; }
  [ -s "$d/out/graph.llg" ] || { fail "$name: no graph"; return; }
  if [ "$approx" != 1 ]; then
    grep -q '"approximate": false' "$d/out/report.json" || { fail "$name: the DAG is approximate"; return; }
    # (compute is off on purpose here: that warning does not count)
    ! grep 'smpi_llamp: warning' "$d/capture.log" | grep -qv 'the simulation kept' ||
      { fail "$name: $(grep -m1 'smpi_llamp: warning' "$d/capture.log")"; return; }
  fi
  local simcap hi raw env
  simcap=$(endtime "$d/capture.log")
  hi=$(echo "0 $deltas" | tr ' ' '\n' | sort -g | tail -1)
  raw=$(sweep "$d/out/graph.llg" "$L0" s-1 "$S" "$hi")
  env=$(sweep "$d/out/graph.llg" "$(add "$L0" "$(add 0 "$(awk -v g=$G 'BEGIN { print 16 * g / 1000 }')")")" s "$S" "$hi")
  local dl
  for dl in 0 $deltas; do
    local sim tr te er ee
    if [ "$dl" = 0 ]; then
      # the plain program at L0: the capture must not have changed the run
      # shellcheck disable=SC2086
      smpirun -np "$np" -platform "$(plat "$np" "$L0" "$topo" "$loop")" $SIM $cfg "${extra[@]}" "./${p}_plain" "$@" \
        >"$d/plain-0.log" 2>&1 || { tail -20 "$d/plain-0.log"; fail "$name: smpirun at L0"; return; }
      sim=$(endtime "$d/plain-0.log")
      [ "$sim" = "$simcap" ] || fail "$name: the capture changed the simulated time ($simcap vs $sim)"
      if [ -n "$sim0" ]; then
        within "$(awk -v s="$sim" -v t="${sim0%:*}" 'BEGIN { printf "%.6g", s - t }')" "${sim0#*:}" ||
          fail "$name: SimGrid simulated $sim s at L0, expected ${sim0%:*} +- ${sim0#*:}"
      fi
    else
      # shellcheck disable=SC2086
      smpirun -np "$np" -platform "$(plat "$np" "$(add "$L0" "$dl")" "$topo" "$loop")" $SIM $cfg "${extra[@]}" \
        "./${p}_plain" "$@" >"$d/plain-$dl.log" 2>&1 ||
        { tail -20 "$d/plain-$dl.log"; fail "$name: smpirun at L0 + ${dl}us"; return; }
      sim=$(endtime "$d/plain-$dl.log")
    fi
    [ -n "$sim" ] || { fail "$name: no end times at L0 + ${dl}us"; return; }
    [ "$dl" = 0 ] && at0=$sim
    [ "$dl" = 1 ] && at1=$sim
    [ "$dl" = 100 ] && at100=$sim
    local row=$((${dl%.*} + 1))
    tr=$(echo "$raw" | sed -n "${row}p")
    te=$(echo "$env" | sed -n "${row}p" | awk -v n="${self%:*}" -v b="${self#*:}" -v l="$(add "$L0" "$dl")" \
      -v g="$G" '{ printf "%.12g\n", $1 - n * (l * 1e-6 + (b + 16) * g * 1e-9) }')
    if [ -z "$tr" ] || [ -z "$te" ]; then
      fail "$name: no DAG prediction at L0 + ${dl}us"
      return
    fi
    if [ -n "$burst" ]; then
      local a
      a=$(awk -v n="${burst%:*}" -v b="${burst#*:}" -v g="$G" 'BEGIN { printf "%.10g", n * (b + 16) * g * 1e-9 }')
      rawb=$(awk -v a="$a" -v s="$sim" 'BEGIN { printf "%.6g:0.1", -100 * a / s - 0.1 }')
      envb=$(awk -v a="$a" -v s="$sim" 'BEGIN { printf "%.6g:1e-5", -a / s - 1e-5 }')
    fi
    er=$(awk -v s="$sim" -v t="$tr" 'BEGIN { printf "%.6g", (t - s) / s * 100 }')
    ee=$(awk -v s="$sim" -v t="$te" 'BEGIN { printf "%.3g", (t - s) / s }')
    printf '%s\t%d\t%s\t%.12g\t%.12g\t%s\t%.12g\t%s\t%s\t%s\n' "$name" "$np" "$dl" "$sim" "$tr" "$er" \
      "$te" "$ee" "$rawb" "$envb" >>"$results"
    within "$er" "$rawb" || fail "$name L0+${dl}us: simulated $sim s, DAG $tr s: raw error $er % (bound $rawb)"
    within "$ee" "$envb" || fail "$name L0+${dl}us: simulated $sim s, DAG $te s: envelope error $ee (bound $envb)"
  done
  if [ -n "$at1" ] && [ -n "$slopeb" ]; then
    # SimGrid's slope at L0 against the DAG's lambda_L (its right derivative
    # there; the critical path may change further on, so the secant over
    # 100 us is only listed)
    local lam sl sl100=""
    lam=$(sed -n 's/^  "lambda_L": \([0-9.e+-]*\),/\1/p' "$d/out/report.json")
    sl=$(awk -v a="$at0" -v b="$at1" 'BEGIN { printf "%.6g", (b - a) / 1e-6 }')
    [ -n "$at100" ] && sl100=$(awk -v a="$at0" -v b="$at100" 'BEGIN { printf "%.6g", (b - a) / 100e-6 }')
    printf '%s\t%s\t%s\t%s\n' "$name" "$sl" "$sl100" "$lam" >>"$work/slopes.tsv"
    awk -v s="$sl" -v l="$lam" -v b="$slopeb" 'BEGIN { d = s - l; if (d < 0) d = -d; exit !(l > 0 && d <= b / 100 * l) }' ||
      fail "$name: SimGrid's slope $sl at L0, the DAG's lambda_L $lam (bound $slopeb %)"
  fi
  unset LLAMP_KERNEL_MODEL
  [ "${CONSISTENCY_KEEP:-0}" = 1 ] || rm -rf "$d/out/trace"
}

# check_compute NAME NP COLL-SPEC PROGRAM ARGS...: with computation simulated
# (measured bursts, smpi/host-speed:1Gf on 1 Gf hosts), so no two runs are
# alike.  One capture at L0: the DAG's T(L0) must be within 1 % of that
# run's own simulated time (no noise: the same run).  Then REPS plain runs
# at every L0 + dL: T(L0 + dL) must be within 1 % plus the run-to-run noise
# of their median, the noise being the largest spread (max - min) / median
# of the runs at one latency (the capture run counted at L0: the DAG's
# computation is that run's).
check_compute() {
  local name=$1 np=$2 spec=$3 p=$4 reps=3
  shift 4
  prog "$p"
  local full="$BASE_COLL,$spec" cfg d="$work/$name"
  cfg=$("$cases" "$full") || die "$name: collective selection $full"
  mkdir -p "$d"
  # cpu-threshold 10 us: at SMPI's default (1 us) every captured call
  # charges a stray burst inside the call (the thread-CPU-clock readings of
  # the wrapper's timer restart cost ~1 us on these VMs), which the DAG does
  # not see (docs/consistency.md, "Computation simulated")
  local csim="--cfg=smpi/simulate-computation:yes --cfg=smpi/cpu-threshold:1e-5 --cfg=smpi/host-speed:1Gf"
  csim="$csim --cfg=smpi/wtime:0 --cfg=surf/precision:1e-12 --log=root.thres:warning"
  # shellcheck disable=SC2086
  "$bin/smpi_llamp-run" -np "$np" -platform "$(plat "$np" "$L0" mesh network)" $csim $cfg \
    -llamp-out "$d/out" -llamp-L "${L0}us" -llamp-G "${G}ns" -llamp-o 0 -llamp-S 65535 \
    -llamp-coll "$full" -llamp-quiet "./${p}_cap" "$@" >"$d/capture.log" 2>&1 ||
    { tail -20 "$d/capture.log"; fail "$name: capture run"; return; }
  grep -q '"approximate": false' "$d/out/report.json" || { fail "$name: the DAG is approximate"; return; }
  local hi raw dl simcap noise=0
  hi=$(echo "0 $DELTAS" | tr ' ' '\n' | sort -g | tail -1)
  raw=$(sweep "$d/out/graph.llg" "$L0" s-1 65535 "$hi")
  simcap=$(endtime "$d/capture.log")
  local t0 e0
  t0=$(echo "$raw" | sed -n 1p)
  e0=$(awk -v s="$simcap" -v t="$t0" 'BEGIN { printf "%.6g", (t - s) / s * 100 }')
  printf '%s\t%d\t%s\t%.12g\t%.12g\t%s\t%s\t%s\t%s\t%s\n' "$name-own-run" "$np" 0 "$simcap" "$t0" "$e0" \
    "" "" 2 none >>"$results"
  # measured +0.87 ... +1.0 % (the DAG longer than its own run: not
  # explained yet, see docs/consistency.md): bound 2 %
  within "$e0" 2 || fail "$name: the capture run simulated $simcap s, its DAG says $t0 s: error $e0 % (bound 2 %)"
  # the plain runs, then the noise, then the errors
  for dl in 0 $DELTAS; do
    local i sims=""
    [ "$dl" = 0 ] && sims=$simcap
    for i in $(seq "$reps"); do
      # shellcheck disable=SC2086
      smpirun -np "$np" -platform "$(plat "$np" "$(add "$L0" "$dl")" mesh network)" $csim $cfg "./${p}_plain" "$@" \
        >"$d/plain-$dl-$i.log" 2>&1 || { tail -20 "$d/plain-$dl-$i.log"; fail "$name: smpirun at L0 + ${dl}us"; return; }
      sims="$sims $(endtime "$d/plain-$dl-$i.log")"
    done
    echo "$dl $sims" >>"$d/sims.txt"
    noise=$(echo $sims | tr ' ' '\n' | sort -g | awk -v n="$noise" '{ v[NR] = $1 }
      END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; s = (v[NR] - v[1]) / m * 100
            printf "%.6g", (s > n ? s : n) }')
  done
  while read -r dl sims; do
    local med tr er bound
    med=$(echo $sims | tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    tr=$(echo "$raw" | sed -n "$((${dl%.*} + 1))p")
    [ -n "$tr" ] || { fail "$name: no DAG prediction at L0 + ${dl}us"; return; }
    er=$(awk -v s="$med" -v t="$tr" 'BEGIN { printf "%.6g", (t - s) / s * 100 }')
    bound=$(awk -v n="$noise" 'BEGIN { printf "%.6g", 1 + n }')
    printf '%s\t%d\t%s\t%.12g\t%.12g\t%s\t%s\t%s\t%s\t%s\n' "$name" "$np" "$dl" "$med" "$tr" "$er" \
      "" "" "$bound" none >>"$results"
    within "$er" "$bound" || fail "$name L0+${dl}us: simulated $med s (median of $sims), DAG $tr s: error $er % (bound 1 % + noise $noise %)"
  done <"$d/sims.txt"
  echo "$name: run-to-run noise $noise % (largest spread at one latency)"
}

is_pow2() { [ $(($1 & ($1 - 1))) -eq 0 ]; }

# every collective algorithm with an SMPI equivalent (consistency_coll_cases
# lists the registry's), on NP ranks; blocks of 128 NP bytes (messages of
# 1 KiB or less per rank: eager), root 1, 10 calls
coll_suite() {
  local np=$1 bytes=$((128 * $1))
  "$cases" >"$work/algos.txt" || die "consistency_coll_cases"
  local kind name _note
  while read -r kind name _note; do
    local spec="$kind=$name" opts=()
    case "$kind=$name" in
      allgather=recursive_doubling | allgatherv=recursive_doubling)
        # rdb / mpich_rdb do not fold: other messages off powers of two (diff suite)
        is_pow2 "$np" || continue ;;
      alltoall=pairwise | alltoallv=pairwise)
        # the registry names ring (exact off powers of two); for powers of two pair is
        is_pow2 "$np" && opts+=("--cfg=smpi/$kind:pair") ;;
      reduce_scatter=* | reduce_scatter_block=*)
        # one SMPI setting for both
        spec="reduce_scatter=$name,reduce_scatter_block=$name" ;;
    esac
    # a rank's back-to-back messages to one peer share the pair's link in
    # SimGrid (docs/consistency.md, "Bursts"): measured at most 1.15 (p-2)
    # blocks per ring (a late rank sends its p-1 blocks at once, and the
    # delay cascades), allowed 2 (p-2); Rabenseifner: at most one block per
    # call, allowed two whole vectors (10 calls)
    case "$kind=$name" in
      allreduce=lr) opts+=("burst=$((10 * 2 * 2 * (np - 2))):$((bytes / np))") ;;
      allgather=ring | allgatherv=ring | reduce_scatter=ring | reduce_scatter_block=ring)
        opts+=("burst=$((10 * 2 * (np - 2))):$((bytes + 16))") ;;
      allreduce=rabenseifner) opts+=("burst=20:$bytes") ;;
    esac
    # SMPI algorithms whose messages differ from ours on some sizes: the
    # capture says the report is approximate (the times are still checked)
    [ "$_note" = exact ] || opts+=(approx=1)
    check "$kind-$name-p$np" "$np" coll="$spec" "${opts[@]}" -- coll "$kind" "$bytes" 10 3 1
  done <"$work/algos.txt"
}

# every collective, blocking and nonblocking, with no collective setting at
# all: SimGrid's default selector and its fixed nonblocking algorithms, which
# the capture must read and follow (blocks of 128 NP bytes, root 1, 10 calls)
defaults_suite() {
  local np=$1 bytes=$((128 * $1)) kind
  for kind in barrier bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv \
    alltoall alltoallv reduce_scatter reduce_scatter_block scan exscan; do
    check "default-$kind-p$np" "$np" coll=none raw=0.1 -- coll "$kind" "$bytes" 10 3 1
    check "default-i$kind-p$np" "$np" coll=none raw=0.1 -- coll "i$kind" "$bytes" 10 3 1
  done
}

case "$suite" in
p2p)
  check halo-8B 16 -- halo2d 4 4 50 8 5 0.5
  check halo-4KiB 16 -- halo2d 4 4 50 4096 5 0.5
  check chain-8B 8 -- chain 20 8 2
  check chain-4KiB 8 -- chain 20 4096 2
  check chain-4KiB-p7 7 -- chain 20 4096 2
  # what SMPI communicates to make communicators (split, cart, dup, create);
  # each MPI_Cart_sub leaves 2 ns (20 B at 10 GB/s) unexplained, and the whole
  # program up to 8 ns at L0: env 5e-5
  check comm-p8 8 env=5e-5 -- comm 2 5
  check comm-p7 7 env=5e-5 -- comm 2 5
  ;;
coll)
  coll_suite 8
  coll_suite 7
  ;;
defaults)
  # the regression: 100 x MPI_Allreduce(1 double, MPI_MIN), 8 ranks, no
  # compute, no collective setting: SimGrid runs its default reduce + bcast
  # (800.96 us at L = 2 us), which a DAG of recursive doubling put at 600 us
  check allreduce-min-default-p8 8 coll=none raw=0.1 sim0=800.96e-6:0.01e-6 -- coll allreduce_min 8 100 0
  defaults_suite 8
  defaults_suite 7
  ;;
ranks)
  # T(L0) within 1 % of the simulated time (exact with the envelope) on any
  # number of ranks; above 64 ranks the platform is a flat cluster
  for np in 1 2 3 7 64 256; do
    check "chain-p$np" "$np" deltas="" -- chain 3 8 2
  done
  check halo-p64 64 deltas="" -- halo2d 8 8 5 8 5 0.5
  check allreduce-p256 256 coll=allreduce=recursive_doubling deltas="" -- coll allreduce 64 3 3 0
  ;;
diff)
  # Each documented difference (docs/consistency.md) with its measured bounds.
  # SimGrid's defaults that tools/llamp-platform changes: crosstraffic (5 %
  # of every flow on the reverse path) ...
  check crosstraffic-halo-4KiB 16 raw=-0.2:-0.005 env=-0.002:-0.00005 --cfg=network/crosstraffic:1 -- \
    halo2d 4 4 50 4096 5 0.5
  # ... and eager messages that wait for the receive (smpi/async-small-thresh:0)
  check no-async-halo-8B 16 raw=-4:-0.2 env=-0.04:-0.002 --cfg=smpi/async-small-thresh:0 -- \
    halo2d 4 4 50 8 5 0.5
  # a <cluster>: one private link per host, shared by the 4 sends of a halo
  check cluster-halo-4KiB 16 topo=cluster raw=-12:-1 env=-0.12:-0.01 -- halo2d 4 4 50 4096 5 0.5
  # messages to oneself (MPI_Send/MPI_Recv) never cross the network: the DAG
  # charges no L and no G for them (a copy: 0 without routes), as SMPI does
  # with a free loopback (the default here) ...
  check self-p1 1 -- chain 20 8 2 1
  # ... while a loopback of the network's latency (-l network) costs
  # L0 + dL + (s + 16) G in SimGrid: the DAG analysed without the routes is
  # low by exactly that per self-message (with the capture's routes it is
  # exact at L0: report.json, checked below); SMPI's collectives copy anyway
  check self-p1-network 1 loop=network raw=-99:-40 self=-20:8 -- chain 20 8 2 1
  awk '/^  "runtime": / { t = $2 + 0 } END { exit !(t > 8.2e-5 && t < 8.21e-5) }' "$work/self-p1-network/out/report.json" ||
    fail "self-p1-network: the capture's T(L0) (routes: the loopback's 2 us per message) is not SimGrid's 82.05 us"
  check alltoall-bruck-p8-network 8 loop=network coll=alltoall=bruck -- coll alltoall 1024 10 3 1
  # rendezvous (>= 64 KiB): the DAG's RDMA-read protocol costs 3 L where
  # SMPI moves the data once both sides are posted (L + (s + 16) G) ...
  check rendezvous-128KiB 8 raw=20:180 env=0.2:1.8 -- chain 20 131072 2
  # ... and with every message eager in the DAG only the blocking of the
  # rendezvous sender is missing
  check rendezvous-128KiB-eager 8 S=1000000000 raw=-1:0 env=-0.01:0 -- chain 20 131072 2
  # SMPI algorithms with other message structures than the DAG's: rdb does
  # not fold (7 ranks; the capture says the report is approximate)
  check allgather-rdb-p7 7 coll=allgather=recursive_doubling approx=1 raw=5:30 env=0.05:0.3 -- \
    coll allgather 896 10 3 1
  # -llamp-coll asks for the pairwise exchange, which smpi_llamp-run
  # translates to SMPI's ring; on 8 ranks that pairs r+i / r-i where pairwise
  # pairs r^i: the capture follows SimGrid (ring) and warns
  check alltoall-ring-p8 8 coll=alltoall=pairwise approx=1 -- coll alltoall 1024 10 3 1
  grep -q '"alltoall": {"algorithm": "ring", "simgrid": "ring"' "$work/alltoall-ring-p8/out/report.json" ||
    fail "alltoall-ring-p8: the DAG does not follow SimGrid's ring"
  ;;
apps)
  # the proxy applications (apps/, docs/apps.md) at their default collective
  # algorithms, compute off; each case again with compute from deterministic
  # kernel models (every kernel 0.5 us + 1 ns per element)
  printf '* 5e-7 1e-9\n' >"$work/kernels.model"
  SLOPE=0.5
  km=model=$work/kernels.model
  # hydro3d: LULESH's pattern.  With compute off, the rank without upper
  # neighbours sends its monotonic-Q faces (3456 B) right behind its sync
  # messages to the same peers: SimGrid shares the pair's link and delays
  # each cycle's critical sync message by (3456 + 16) G (docs/consistency.md,
  # "Bursts": 100 x 347.2 ns = 34.72 us, the whole difference)
  check hydro3d-p8 8 burst=100:3456 -- app-hydro3d --weak 12 --iters 100 --serial-max 0
  check hydro3d-p8-model 8 "$km" raw=0.1 -- app-hydro3d --weak 12 --iters 100
  check hydro3d-p7-model 7 "$km" raw=0.1 -- app-hydro3d --weak 6 --iters 30
  check hydro3d-p12-model 12 "$km" raw=0.1 -- app-hydro3d --weak 6 --iters 30 --send-wait all
  # Small messages behind others to the same peer (the next exchange's
  # counts or halos, with no compute in between) share its link for a few
  # ns each (Bursts): up to 1e-4 with the envelope modelled; md's 2-wide
  # periodic grids send each Sendrecv_replace count right behind the data to
  # the same neighbour (442 such sends: at most 442 x (4 + 16) G = 0.88 us)
  # cg: halo receives from MPI_ANY_SOURCE, two dot-product Allreduces
  check cg-any-p8 8 raw=0.1 env=-1e-4:1e-5 -- app-cg --weak 8 --iters 40 --fixed --any-source
  check cg-any-p7-model 7 "$km" raw=0.1 -- app-cg --weak 8 --iters 40 --fixed --any-source
  # fft: Alltoallv with uneven blocks in Comm_split row and column communicators
  check fft-v-p12 12 raw=0.1 env=-1e-4:1e-5 -- app-fft --n 16 --iters 2 --alltoallv
  check fft-v-p6-model 6 "$km" raw=0.1 env=-1e-4:1e-5 -- app-fft --n 16,16,8 --iters 2 --alltoallv
  # md: Cart_create / Cart_shift, Sendrecv(_replace), MINLOC, final Reduce
  check md-p8 8 burst=442:4 -- app-md --weak 4 --steps 20 --thermo 5
  check md-p12-model 12 "$km" raw=0.1 env=-3e-4:1e-5 -- app-md --weak 4 --steps 20 --thermo 5
  # md on 2 ranks: dims 2x1x1, the y and z exchanges go to oneself (a copy
  # in SMPI's Sendrecv); the DAG charges them no L, so lambda_L (checked
  # against SimGrid's slope: 173, exact) counts only the x exchanges' messages;
  # the counts behind the data share the link (Bursts, as md-p8)
  check md-p2 2 slope=0.5 burst=442:4 -- app-md --weak 4 --steps 20 --thermo 5
  # the earlier proxy apps, with kernel models (lu, which needs OpenBLAS and
  # polls with MPI_Test, is in bench/bench_apps.sh)
  check stencil3d-p8-model 8 "$km" raw=0.1 env=-1e-4:1e-5 -- app-stencil3d --weak 8 --iters 20
  check sweep-p8-model 8 "$km" raw=0.1 env=-1e-4:1e-5 -- app-sweep --weak 6,6,16 --iters 2
  check fft-p8-model 8 "$km" raw=0.1 env=-2e-4:1e-5 -- app-fft --n 16 --iters 2
  ;;
fortran)
  # The Fortran wavefront (apps/wavefront, NAS LU SSOR style) captured
  # through the Fortran bindings: pipelined blocking chains, a halo
  # exchange, and Allreduce, Reduce, Bcast, Barrier with aligned algorithms
  # (--block-us: a modelled cost per block, so compute is on the path)
  wcoll="allreduce=recursive_doubling,reduce=binomial,bcast=binomial,barrier=dissemination"
  # Within the 0.1 % the issue asks.  The envelope-corrected error (-1.6e-4
  # at most, measured) is not 0: at the end rank 1 sends its Reduce and its
  # Allreduce message to rank 0 back to back, and SimGrid shares the link
  # between them ("Bursts" in docs/consistency.md).
  check wavefront-p16 16 coll="$wcoll" raw=0.1 env=-3e-4:1e-5 -- wavefront --n 32,32,16 --kb 2 --iters 3 \
    --block-us 2 --serial-max 0 --print-end
  check wavefront-p12 12 coll="$wcoll" raw=0.1 env=-3e-4:1e-5 -- wavefront --n 24,24,12 --grid 4x3 --kb 3 \
    --sweeps 2 --iters 2 --block-us 0.5 --serial-max 0 --print-end
  # Without computation between blocks the corner rank sends all its blocks
  # east and south at once: bursts to one peer, which SimGrid serializes on
  # the link (measured: 5.8 us at every dL, -7.8 % at L0, -0.18 % at +100 us)
  check wavefront-8KiB-p8-burst 8 coll="$wcoll" raw=-9:-0.1 env=-0.09:-0.001 -- wavefront --n 256,256,8 \
    --grid 4x2 --kb 4 --iters 2 --serial-max 0 --print-end
  ;;
fortran_compute)
  # the Fortran wavefront with computation simulated (measured bursts):
  # within 1 % plus the run-to-run noise (slow: noise-bound, not deterministic)
  wcoll="allreduce=recursive_doubling,reduce=binomial,bcast=binomial,barrier=dissemination"
  check_compute wavefront-compute-p16 16 "$wcoll" wavefront --n 128,128,32 --kb 8 --iters 3 --serial-max 0 \
    --print-end
  ;;
rma)
  # one-sided communication as SMPI 3.32 runs it (docs/trace.md, "One-sided
  # communication"), SimGrid's default collectives (its fence and Win_free
  # barriers, the Win_create allgather): exact, with SimGrid's slope
  SLOPE=0.5
  for np in 4 7; do
    check "rma-fence-p$np" "$np" coll=none raw=0.1 -- rma fence 10 64 3
    # (Win_complete's 0-byte message leaves right behind the Put to the same
    # target: 16 G per epoch, a burst, docs/consistency.md)
    check "rma-pscw-p$np" "$np" coll=none raw=0.1 env=-2e-4:1e-5 -- rma pscw 10 64 3
  done
  check rma-fence-4KiB-p7 7 coll=none raw=0.1 -- rma fence 10 4096 3
  check rma-halo-p8 8 coll=none raw=0.1 -- rma halo 10 1024 3
  check rma-halo-p7 7 coll=none raw=0.1 -- rma halo 10 1024 3
  # SMPI's window mutexes (held by a flush while it waits for a message; a
  # Put, Get or Accumulate takes the target's) make ranks wait for each
  # other without a message: the DAG has no edge for that (measured bounds)
  SLOPE=""
  check rma-fenceacc-p4 4 coll=none approx=1 raw=-15:-0.05 env=none -- rma fenceacc 10 64 3
  check rma-fenceacc-p7 7 coll=none approx=1 raw=-26:-10 env=none -- rma fenceacc 10 64 3
  check rma-lock-p4 4 coll=none approx=1 raw=-29:-2 env=none -- rma lock 10 64 3
  check rma-misc-p4 4 coll=none approx=1 raw=-18:-1 env=none -- rma misc 10 64 3
  ;;
slow)
  check halo-8B-p64 64 -- halo2d 8 8 200 8 5 0.5
  check halo-4KiB-p64 64 -- halo2d 8 8 200 4096 5 0.5
  check chain-p64 64 -- chain 10 1024 2
  for l0 in 0.5 10; do
    CONSISTENCY_L0=$l0 L0=$l0 check "halo-4KiB-L0-$l0" 16 -- halo2d 4 4 50 4096 5 0.5
  done
  coll_suite 16
  coll_suite 12
  defaults_suite 12
  defaults_suite 5
  ;;
*)
  die "unknown suite $suite"
  ;;
esac

# the table
awk -F'\t' 'NR == 1 { printf "%-42s %5s %6s %15s %15s %10s %10s\n", "case", "ranks", "dL/us", "simulated/s",
                      "DAG T/s", "raw err%", "env err"; next }
            { printf "%-42s %5s %6s %15.10g %15.10g %10.4f %10.2g\n", $1, $2, $3, $4, $5, $6, $8 }' "$results"
# the same as a markdown table, one row per case (docs/consistency.md)
awk -F'\t' 'function abs(x) { return x < 0 ? -x : x }
  NR == 1 { next }
  !($1 in row) { order[++n] = $1; np[$1] = $2; env[$1] = 0 }
  { row[$1] = row[$1] sprintf(" %+.3f |", $6); if (abs($8) > env[$1]) env[$1] = abs($8) }
  END { print "| case | ranks | raw error % at L0, +1, +10, +100 us | max env. error |"
        print "|---|---|---|---|"
        for (i = 1; i <= n; i++) { c = order[i]; r = row[c]; gsub(/ \|/, ",", r); sub(/,$/, "", r)
          printf "| %s | %s |%s | %.1e |\n", c, np[c], r, env[c] } }' "$results" >"$work/results.md"
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "PASS: consistency $suite"
