#!/bin/bash
# Native prediction error of every proxy app (docs/native.md): the runtime
# predicted from a native trace with LogGP parameters measured in the same
# session (calib_loggp), and the emulation's T(L0) (smpi_llamp-run on
# platforms/cluster16.xml with models/default.cfg), against the measured
# native runtime.  Prints a table; never run by ctest.
#
#   bench/bench_native.sh [BUILD_DIR] [REPS] [RANKS]      (defaults: build 5 2)
#
# Per app, all with RANKS ranks and `mpiexec -bind-to core`:
#   1. one traced run (llamp-trace) -> llamp build -> llamp analyze at the
#      measured L, o, g, G, S: "predicted";
#   2. REPS traced runs, interleaved with REPS untraced ones: "measured" is
#      the median (and min) of the traced runs' MPI_Init..MPI_Finalize time,
#      the longest rank (rank-R.clock "span"; what the DAG's T stands for);
#      the untraced runs give the capture's cost on the app's own timer;
#   3. the app built with smpi_llamp-cc, run by smpi_llamp-run -np RANKS
#      (--cfg=smpi/host-speed:1Gf: the platform's 1 Gf hosts then replay the
#      bursts measured here at this machine's speed): report.json's runtime
#      at L0 = 2 us ("emu T(L0)").
# error = predicted / measured median - 1.  Noise: the spread column is
# (max - min) / median of the REPS measured runs.  "self" compares the
# prediction with the MPI_Init..MPI_Finalize time of the very run it was
# built from (the same compute gaps: only the communication is modelled).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) # absolute: the bench works in a temporary directory
reps=${2:-5}
np=${3:-2}
bin=$build/bin
mpiexec=${MPIEXEC:-mpiexec}
command -v "$mpiexec" >/dev/null || { echo "bench_native: no mpiexec" >&2; exit 1; }
for f in llamp llamp-trace calib_loggp_mpi; do
  [ -x "$bin/$f" ] || { echo "bench_native: $bin/$f not built" >&2; exit 1; }
done
emu=1
[ -x "$bin/smpi_llamp-cc" ] && [ -x "$bin/smpi_llamp-run" ] || emu=0
work=$(mktemp -d /tmp/bench_native.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

# app name, arguments (2 ranks: ~0.05-0.5 s each; docs/apps.md)
apps=(
  "latency_example|--iters 1000"
  "pingpong|--sizes 0:1M --reps 100"
  "stencil3d|--weak 32 --iters 100"
  "cg|--weak 32"
  "lu|--n 1024 --nb 64"
  "fft|--n 64 --iters 4"
  "sweep|--weak 32,32,64"
)

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
minimum() { sort -g | head -1; }
maximum() { sort -g | tail -1; }
run_mpi() { "$mpiexec" -n "$np" -bind-to core "$@"; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# ---- LogGP parameters of this machine, this session ----
echo "calibrating: $mpiexec -n 2 -bind-to core calib_loggp_mpi -o native.cfg" >&2
run_mpi "$bin/calib_loggp_mpi" -o "$work/native.cfg" 2>/dev/null || { echo "bench_native: calib_loggp failed" >&2; exit 1; }
param() { sed -n "s/^  $1 = \"\{0,1\}\([^\";]*\)\"\{0,1\};.*/\1/p" "$work/native.cfg"; }
L=$(param L) o=$(param o) g=$(param g) G=$(param G) S=$(param S)
[ "$g" = "0.0" ] && g=0
grep -E '^#   (one-way 8|o_s|o_r|o =|g |G:|S =)' "$work/native.cfg" >&2
echo "model: L=$L o=$o g=$g G=$G S=$S" >&2

rows=()
for entry in "${apps[@]}"; do
  app=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  exe=$bin/${app}_mpi
  [ -x "$exe" ] || { echo "skip $app: not built" >&2; continue; }
  echo "== $app ${args[*]}" >&2
  load=$(cut -d' ' -f1 /proc/loadavg)
  # 1. the prediction's trace
  rm -rf "$work/t"
  "$bin/llamp-trace" -o "$work/t" "$mpiexec" -n "$np" -bind-to core "$exe" "${args[@]}" >"$work/app.out" 2>&1 \
    || { echo "bench_native: traced $app failed" >&2; cat "$work/app.out" >&2; exit 1; }
  "$bin/llamp" build "$work/t" -o "$work/g.llg" >"$work/build.out" || exit 1
  events=$(sed -n 's/.*: [0-9]* ranks, \([0-9]*\) events.*/\1/p' "$work/build.out" | head -1)
  self=$(awk '$1 == "span" { if ($2 + 0 > m) m = $2 + 0 } END { print m }' "$work"/t/rank-*.clock)
  pred=$("$bin/llamp" analyze "$work/g.llg" --L "$L" --o "$o" --g "$g" --G "$G" --S "$S" --format json |
         sed -n 's/^  "runtime": \([^,]*\),/\1/p')
  # 2. measured: REPS traced and REPS untraced runs, interleaved
  : >"$work/span" ; : >"$work/apptime_cap" ; : >"$work/apptime_plain"
  for i in $(seq "$reps"); do
    run_mpi "$exe" "${args[@]}" >"$work/p.out" 2>&1 || { cat "$work/p.out" >&2; exit 1; }
    sed -n 's/^time: \([^ ]*\) s.*/\1/p' "$work/p.out" >>"$work/apptime_plain"
    rm -rf "$work/m"
    "$bin/llamp-trace" -o "$work/m" "$mpiexec" -n "$np" -bind-to core "$exe" "${args[@]}" >"$work/c.out" 2>&1 \
      || { cat "$work/c.out" >&2; exit 1; }
    sed -n 's/^time: \([^ ]*\) s.*/\1/p' "$work/c.out" >>"$work/apptime_cap"
    awk '$1 == "span" { if ($2 + 0 > m) m = $2 + 0 } END { print m }' "$work"/m/rank-*.clock >>"$work/span"
  done
  meas=$(median <"$work/span") mmin=$(minimum <"$work/span") mmax=$(maximum <"$work/span")
  plain=$(median <"$work/apptime_plain") capt=$(median <"$work/apptime_cap")
  # 3. the emulation
  emuT=nan
  if [ $emu = 1 ]; then
    srcs=("$here"/apps/"$app"/*.c "$here/apps/common/llamp_kernel.c" "$here/apps/common/llamp_app.c")
    libs=(-lm)
    if [ "$app" = lu ]; then
      inc=$(dirname "$(find /usr/include -name cblas.h 2>/dev/null | head -1)")
      libs+=(-I"$inc" -lopenblas)
    fi
    if [ ! -x "$work/${app}_emu" ]; then
      "$bin/smpi_llamp-cc" -O2 -std=gnu11 -DLLAMP_SMPI=1 -I"$here/apps/common" -I"$here/apps/$app" \
        "${srcs[@]}" -o "$work/${app}_emu" "${libs[@]}" >"$work/cc.out" 2>&1 || { cat "$work/cc.out" >&2; emu=0; }
    fi
    if [ -x "$work/${app}_emu" ]; then
      rm -rf "$work/e"
      (cd "$work" && "$bin/smpi_llamp-run" -np "$np" -llamp-out "$work/e" -llamp-quiet --cfg=smpi/host-speed:1Gf \
         --log=root.thres:critical "./${app}_emu" "${args[@]}") >"$work/e.out" 2>&1 \
        || { echo "bench_native: emulation of $app failed" >&2; tail -5 "$work/e.out" >&2; }
      [ -f "$work/e/report.json" ] && emuT=$(sed -n 's/^  "runtime": \([^,]*\),/\1/p' "$work/e/report.json")
    fi
  fi
  rows+=("$app $np $events $pred $meas $mmin $mmax $emuT $plain $capt $self $load")
done

echo
echo "load average before / after: $load0 / $(cut -d' ' -f1-3 /proc/loadavg)"
echo "LogGP (calib_loggp, this session): L=$L o=$o g=$g G=$G S=$S; $reps measured runs per app, $np ranks"
printf '%s\n' "${rows[@]}" | awk '
function t(x) { if (x == "nan" || x == "") return "-"; x += 0; if (x >= 1) return sprintf("%.3f s", x);
                if (x >= 1e-3) return sprintf("%.2f ms", x * 1e3); return sprintf("%.1f us", x * 1e6) }
function e(p, m) { if (p == "nan" || p == "" || m <= 0) return "-"; return sprintf("%+.1f %%", (p / m - 1) * 100) }
BEGIN { printf "| %-15s | %5s | %7s | %10s | %10s | %10s | %8s | %7s | %9s | %10s | %8s | %9s | %4s |\n", "app", "ranks", "events",
        "predicted", "measured", "min", "error", "spread", "self", "emu T(L0)", "emu err", "capture", "load"
        printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "---", "--:", "--:", "--:", "--:", "--:", "--:", "--:", "--:", "--:", "--:", "--:", "--:" }
{ printf "| %-15s | %5s | %7s | %10s | %10s | %10s | %8s | %6.1f%% | %9s | %10s | %8s | %9s | %4s |\n", $1, $2, $3, t($4), t($5), t($6),
         e($4, $5), ($7 - $6) / $5 * 100, e($4, $11), t($8), e($8, $5), e($10, $9), $12 }'
echo
echo "measured: median of the traced runs' MPI_Init..MPI_Finalize (longest rank); min: their minimum;"
echo "spread: (max - min) / median; self: predicted vs the measured time of the traced run it was"
echo "predicted from; capture: the app's own timer, traced vs untraced medians; load: 1-minute load"
echo "average when the app's batch started (2 cores; other jobs share the VM)."
