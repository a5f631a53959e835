#!/bin/bash
# bench_calibrated.sh BUILD [REPS]: issue 8's check against real runs.
# Calibrates this machine (network, intra-node: the real runs below use
# shared memory; kernels: the built-in dgemm/dtrsm sweep, and each app's own
# kernels recorded from one native run at the same rank count), then runs
# apps/lu and apps/stencil3d at 2 and 4 ranks, REPS times each (default 5),
# real (MPICH, mpiexec -bind-to core) and emulated (smpi_llamp-run with the
# calibrated network on a full mesh whose links have the model's reference
# latency and bandwidth) interleaved, and compares the times the apps print
# (their timed region: wall time natively, simulated time under SimGrid).
# Emulation variants: "sweep" = lu's BLAS from the dgemm/dtrsm sweep model,
# stencil3d's compute measured and replayed 1:1; "recorded" = the kernel
# model recorded from the app's native run.  Prints medians, spreads
# (min..max) and the error of the median.  A rank count above the cores is
# run and printed but marked: MPICH's polling ranks then share cores.
set -u
build=$(cd "${1:?usage: bench_calibrated.sh BUILD [REPS]}" && pwd)
reps=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/bench_calibrated.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$w"' EXIT
cd "$w"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
"$build/bin/llamp-calibrate" network --quick -o net.cfg > cal-net.log 2>&1 || { tail -5 cal-net.log; exit 1; }
"$build/bin/llamp-calibrate" kernels --quick -o k.cfg > cal-k.log 2>&1 || { tail -5 cal-k.log; exit 1; }
grep -E "R\^2|r2" cal-k.log | head -4
lat=$("$build/bin/llamp" model net.cfg 2>/dev/null | sed -n 's/.*reference latency \([^ ,]*\).*/\1/p' | head -1)
get() { python3 - "$1" "$2" <<'PY'
import re, sys
txt = open(sys.argv[1]).read()
m = re.search(r"smpi\s*=\s*\{(.*?)\n\};", txt, re.S)
v = re.search(r"\b%s\s*=\s*([^;]+);" % sys.argv[2], m.group(1) if m else "")
print(v.group(1).strip().strip('"') if v else "")
PY
}
lat=$(get net.cfg reference_latency) bw=$(get net.cfg reference_bandwidth)
[ -n "$lat" ] && [ -n "$bw" ] || { echo "no smpi group in the calibration"; cat net.cfg | head -40; exit 1; }
echo "calibrated (intra): reference latency $lat s, bandwidth $bw B/s"
# a full mesh of 4 hosts, one full-duplex link per pair with the reference values
{
  echo "<?xml version='1.0'?><!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"><platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
  for i in 0 1 2 3; do echo "<host id=\"h$i\" speed=\"1Gf\"/>"; done
  for i in 0 1 2 3; do for j in 0 1 2 3; do [ $i -lt $j ] &&
    echo "<link id=\"l$i$j\" bandwidth=\"${bw}Bps\" latency=\"${lat}s\" sharing_policy=\"SPLITDUPLEX\"/>"; done; done
  for i in 0 1 2 3; do for j in 0 1 2 3; do [ $i -lt $j ] &&
    echo "<route src=\"h$i\" dst=\"h$j\" symmetrical=\"NO\"><link_ctn id=\"l$i$j\" direction=\"UP\"/></route><route src=\"h$j\" dst=\"h$i\" symmetrical=\"NO\"><link_ctn id=\"l$i$j\" direction=\"DOWN\"/></route>"; done; done
  echo "</zone></platform>"
} > mesh4.xml
printf 'h0\nh1\nh2\nh3\n' > hosts
for app in lu stencil3d; do
  "$build/bin/smpi_llamp-cc" -O2 -std=gnu11 -DLLAMP_SMPI=1 -I"$src/apps/common" -I"$src/smpi_llamp/include" \
    -I"$src/apps/$app" "$src/apps/$app"/*.c "$src/apps/common/llamp_app.c" "$src/apps/common/llamp_kernel.c" \
    $( [ $app = lu ] && echo -lopenblas ) -lm -o "${app}_cap" > "cc-$app.log" 2>&1 || { tail -3 "cc-$app.log"; exit 1; }
done
apptime() { sed -n 's/^time: \([0-9.eE+-]*\) s.*/\1/p' "$1" | tail -1; }
printf "%-10s %2s %-9s %-32s %-32s %s\n" app P model "real (median, min..max)" "emulated (median, min..max)" "error"
for app in lu stencil3d; do
  case $app in lu) args="--n 1024 --nb 64" ;; stencil3d) args="--weak 48 --iters 50" ;; esac
  for P in 2 4; do
    # the app's own kernels, recorded natively at this rank count
    "$build/bin/llamp-calibrate" kernels -o "k-$app-$P.cfg" -- mpiexec -n $P -bind-to core \
      "$build/bin/${app}_mpi" $args > "cal-k-$app-$P.log" 2>&1 || { tail -3 "cal-k-$app-$P.log"; exit 1; }
    : > real.txt; : > emu-sweep.txt; : > emu-recorded.txt
    for ((r = 0; r < reps; r++)); do
      mpiexec -n $P -bind-to core "$build/bin/${app}_mpi" $args > run.out 2>&1 && apptime run.out >> real.txt
      for v in sweep recorded; do
        case $v in
          sweep) kern=$([ $app = lu ] && echo "-llamp-kernels k.cfg") ;;
          recorded) kern="-llamp-kernels k-$app-$P.cfg" ;;
        esac
        "$build/bin/smpi_llamp-run" -np $P -platform mesh4.xml -hostfile hosts -llamp-config net.cfg $kern \
          -llamp-out "emu-$app-$P-$v-$r" "./${app}_cap" $args > emu.out 2>&1 && apptime emu.out >> "emu-$v.txt"
      done
    done
    for v in sweep recorded; do
    python3 - "$app" "$P" "$v" "$(nproc)" <<'PY'
import statistics, sys
app, P, v, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
r = [float(x) for x in open("real.txt").read().split()]
e = [float(x) for x in open("emu-%s.txt" % v).read().split()]
if not r or not e:
    print("%-10s %2d %-9s runs failed (real %d, emulated %d)" % (app, P, v, len(r), len(e))); sys.exit()
mr, me = statistics.median(r), statistics.median(e)
print("%-10s %2d %-9s %-32s %-32s %+.1f %%%s" % (app, P, v,
      "%.4g s (%.4g..%.4g, %d)" % (mr, min(r), max(r), len(r)),
      "%.4g s (%.4g..%.4g, %d)" % (me, min(e), max(e), len(e)), 100 * (me - mr) / mr,
      "  (oversubscribed: %d ranks on %d cores)" % (P, cores) if P > cores else ""))
PY
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
