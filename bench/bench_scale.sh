#!/bin/sh
# The targets of issue 12 at scale, one graph per line of output:
# generate (peak memory per event), the whole default `llamp analyze` (T,
# lambdas, critical latencies in a range, 1/2/5 % tolerances) with its stage
# times from --timing and its peak memory (/usr/bin/time -v), loading speed
# (file size / reading stage), the tolerances as a ratio of the evaluation
# stage in the same run, and one evaluation alone (bench_engine, best of 20,
# CPU time).  With REF_BUILD set (another build directory, e.g. of the commit
# before the locality layout, with bench_engine's T_hex/lambda_L_hex lines),
# that build generates the same graph in its own format and layout, and its
# T and lambda_L must equal ours bit for bit (speed never changes an answer).
#   bench/bench_scale.sh [BUILD_DIR] [GRAPH ...]
# GRAPH is a name below (default: halo7 halo8 wave4096 halo101); big ones
# need memory: halo101 ~5 GB to generate, halo300 ~14 GB.
# Prints numbers; asserts nothing but the reference answers.  Big files go to
# ${TMPDIR:-/tmp}/llamp-bench-scale and are deleted unless KEEP=1.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
graphs=${*:-halo7 halo8 wave4096 halo101}
llamp="$build/bin/llamp"
work=${TMPDIR:-/tmp}/llamp-bench-scale
mkdir -p "$work"
spec() {
  case $1 in
  halo7) echo "halo2d px=32 py=32 iters=800 bytes=8KiB compute=10us" ;;
  halo8) echo "halo3d px=8 py=8 pz=8 iters=1300 bytes=8KiB compute=10us" ;;
  wave4096) echo "wavefront px=64 py=64 sweeps=600" ;;
  halo101) echo "halo3d px=16 py=16 pz=16 iters=1900 bytes=8KiB compute=10us" ;;
  halo300) echo "halo3d px=16 py=16 pz=16 iters=5650 bytes=8KiB compute=10us" ;;
  *) echo "unknown graph $1" >&2; exit 2 ;;
  esac
}
peak_kb() { sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$1"; }
wall_s() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): \(.*\)/\1/p' "$1" |
  awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }
cpu_s() { awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$1"; }
stage() { sed -n "s/.*$2 .* \([0-9.]*\) s\$/\1/p" "$1" | head -1; }
answer() { # T and lambda_L lines of a text report
  grep -E '^(predicted runtime|latency sensitivity)' "$1" | sed 's/ρ_L.*//'; }
for name in $graphs; do
  g="$work/$name.llg"
  # shellcheck disable=SC2046
  /usr/bin/time -v "$llamp" generate $(spec "$name") -o "$g" >/dev/null 2>"$work/gen.time"
  n=$("$llamp" analyze "$g" --tolerance none | sed -n 's/.*ranks, \([0-9]*\) events.*/\1/p')
  bytes=$(stat -c %s "$g")
  echo "== $name: $(spec "$name"): $n events, $(echo "$bytes / 1000000000" | bc -l | cut -c1-5) GB"
  printf "generate: %.1f s wall, peak %.2f GB = %.1f B/event\n" "$(wall_s "$work/gen.time")" \
    "$(echo "$(peak_kb "$work/gen.time") / 1000000" | bc -l)" "$(echo "$(peak_kb "$work/gen.time") * 1024 / $n" | bc -l)"
  # the whole default analysis, page cache dropped for this file first
  # (dd's nocache: reading then starts from the disk as a user's first run would)
  dd if="$g" iflag=nocache count=0 2>/dev/null || true
  /usr/bin/time -v "$llamp" analyze "$g" --range 1us:10us --timing >"$work/an.out" 2>"$work/an.err"
  rd=$(stage "$work/an.err" reading)
  ev=$(stage "$work/an.err" evaluating)
  cl=$(stage "$work/an.err" "finding critical latencies")
  tl=$(stage "$work/an.err" "computing tolerances")
  printf "analyze (default + --range 1us:10us): %.2f s wall, %.2f s CPU, peak %.2f GB = %.1f B/event\n" \
    "$(wall_s "$work/an.err")" "$(cpu_s "$work/an.err")" "$(echo "$(peak_kb "$work/an.err") / 1000000" | bc -l)" \
    "$(echo "$(peak_kb "$work/an.err") * 1024 / $n" | bc -l)"
  alloc=$(sed -n 's/.*at the end \([0-9.e+-]*\) GB allocated.*/\1/p' "$work/an.err")
  [ -n "$alloc" ] && printf "  allocated by the analysis (peak, without the mapped graph file): %.2f GB = %.1f B/event\n" \
    "$alloc" "$(echo "$alloc * 1000000000 / $n" | bc -l)"
  printf "  stages: reading %s s (%.2f GB/s), evaluating %s s, critical latencies %s s, tolerances %s s (%.2f x evaluating)\n" \
    "$rd" "$(echo "$bytes / 1000000000 / ($rd + 0.0005)" | bc -l)" "$ev" "$cl" "$tl" "$(echo "$tl / ($ev + 0.0005)" | bc -l)"
  BENCH_EVAL_ONLY=1 "$build/bin/bench_engine" "$g" >"$work/eval.out"
  es=$(sed -n 's/^eval_seconds //p' "$work/eval.out")
  printf "one evaluation (best of 20, CPU): %.3f s = %.1f M events/s\n" "$es" "$(echo "$n / $es / 1000000" | bc -l)"
  if [ -n "${REF_BUILD:-}" ] && "$REF_BUILD/bin/llamp" analyze "$g" --tolerance none >/dev/null 2>&1; then
    # the same analysis of the same file by the reference build, right after
    # ours (machines drift: only this ratio compares), and the same report
    dd if="$g" iflag=nocache count=0 2>/dev/null || true
    /usr/bin/time -v "$REF_BUILD/bin/llamp" analyze "$g" --range 1us:10us --timing >"$work/ref_an.out" 2>"$work/ref_an.err"
    same=no
    cmp -s "$work/an.out" "$work/ref_an.out" && same=yes
    printf "  the same analysis by %s: %.2f s wall, peak %.1f B/event; this build %.2f x faster; same report: %s\n" \
      "$REF_BUILD" "$(wall_s "$work/ref_an.err")" "$(echo "$(peak_kb "$work/ref_an.err") * 1024 / $n" | bc -l)" \
      "$(echo "$(wall_s "$work/ref_an.err") / $(wall_s "$work/an.err")" | bc -l)" "$same"
  fi
  if [ -n "${REF_BUILD:-}" ]; then
    # the reference build generates the same graph in its own format and
    # layout; one evaluation there and here must give the same doubles
    # shellcheck disable=SC2046
    "$REF_BUILD/bin/llamp" generate $(spec "$name") -o "$work/ref.llg" >/dev/null 2>&1
    BENCH_EVAL_ONLY=1 "$REF_BUILD/bin/bench_engine" "$work/ref.llg" >"$work/ref.out"
    rm -f "$work/ref.llg"
    mine=$(grep _hex "$work/eval.out" | tr '\n' ' ')
    if [ -n "$mine" ] && [ "$(grep _hex "$work/ref.out" | tr '\n' ' ')" = "$mine" ]; then
      echo "T and lambda_L bit for bit as $REF_BUILD: yes ($mine)"
    else
      echo "T and lambda_L bit for bit as $REF_BUILD: NO"; grep _hex "$work/ref.out" "$work/eval.out"
    fi
  fi
  [ "${KEEP:-0}" = 1 ] || rm -f "$g"
done
