#!/bin/bash
# The capture against SimGrid on the platform files SimGrid ships
# (examples/platforms of a SimGrid 3.32 source tree; not part of this
# repository: give its path).  For every proxy application of apps/ (table
# below; 8 ranks, 2 for pingpong and latency_example, small sizes) and every
# *.xml of PLATFORMS_DIR:
#   * a probe (a plain smpicc program: MPI_Get_processor_name + Allreduce,
#     no compute simulated)
#     runs under plain `smpirun -np 8 -platform P`; a platform it cannot run
#     on is skipped with SimGrid's reason (no route between hosts, failing
#     hosts, Vivaldi zones without coordinates, ...);
#   * the application, built with smpi_llamp-cc, runs under
#       smpi_llamp-run -np N -platform P -llamp-compute none ./app ARGS
#     with LLAMP_KERNEL_MODEL=apps/common/kernel_model_example.txt: SMPI's
#     defaults otherwise (no hostfile: smpirun puts rank i on the i-th host
#     in name order, round-robin when the platform has fewer; SimGrid's
#     default collective selector; the platform's own <config>, if any).
#     Compute is only what the kernel models charge (smpi_execute_benched, in
#     seconds at smpi/host-speed, which smpi_llamp-run sets to this machine's
#     cached rate: the same on every run of one machine), so runs are
#     deterministic;
#   * the cell is the DAG's T(L0) against SimGrid's simulated time of the
#     same run, (T - SimGrid) / SimGrid in % (report.json:
#     capture.simulated_vs_predicted), or why there is none: "failed (rc N)"
#     or "timeout", then whether the program built with plain smpicc/smpif90
#     fails too under plain smpirun with the same settings ("plain ok" or
#     "plain too").
# --latency LIST runs each cell with smpi_llamp-latency --deltas LIST
# instead: the one capture's T(L0 + dL) against SimGrid runs whose every
# message's latency is dL longer; the cell is then the worst difference (%)
# over the offsets of the model that ran (observed), marked C when the run
# has contention (the rule's T(L0) differs from SimGrid's by over 0.01 %:
# links shared between messages), and the summary counts the cells within
# 0.5 % without contention and within 2 % with it.
# --block adds the LogGP-like settings of platforms/cluster16.xml's <config>
# block on the command line (--cfg=smpi/lat-factor:0:1 smpi/bw-factor:0:1
# smpi/async-small-thresh:65536), which win over SMPI's defaults and over a
# platform's own <config>.
# Prints one markdown table (rows: platforms, columns: apps), the platforms
# skipped and why, a second table with the known causes the capture named for
# the cells beyond 1 % as letters (legend printed), the other causes and
# failure messages grouped, and a summary (cells within 0.1, 1, 5 %, the
# worst 5).  Never run by ctest.
#
# usage: bench/bench_platforms.sh [options] BUILD_DIR PLATFORMS_DIR [APP...]
#   APP...           apps to run (default: all of the table below)
#   --block          force cluster16.xml's <config> block (see above)
#   --latency LIST   T(L0 + dL) for the offsets LIST (e.g. 1,10,100us; see above)
#   --only REGEX     only platforms whose file name matches (grep -E)
#   --timeout S      seconds per run (default 120)
#   -j N             N runs at a time (default 1: the machine is shared)
#   --keep DIR       keep the work directory (builds, logs, outputs) in DIR
# Example (about 10 minutes per mode on 2 cores):
#   bench/bench_platforms.sh /tmp/base/build /tmp/sg332/examples/platforms
#   bench/bench_platforms.sh --block /tmp/base/build /tmp/sg332/examples/platforms
set -u
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
block=0 only="" timeout_s=120 jobs=1 keep="" latency=""
while [ $# -gt 0 ]; do
  case "$1" in
    --block) block=1; shift ;;
    --latency) latency=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_platforms: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { usage >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) || exit 1
pdir=$(cd "$2" && pwd) || exit 1
shift 2
bin=$build/bin
for t in smpi_llamp-cc smpi_llamp-run smpi_llamp-latency; do
  [ -x "$bin/$t" ] || { echo "bench_platforms: $bin/$t missing (build smpi-llamp in $build)" >&2; exit 1; }
done
command -v smpicc >/dev/null && command -v smpirun >/dev/null ||
  { echo "bench_platforms: smpicc/smpirun not found" >&2; exit 1; }
if [ -n "$keep" ]; then
  mkdir -p "$keep" && work=$(cd "$keep" && pwd) || exit 1
else
  work=$(mktemp -d /tmp/bench_platforms.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work" || exit 1
common=$here/apps/common
export LLAMP_KERNEL_MODEL=$common/kernel_model_example.txt OPENBLAS_NUM_THREADS=1
# name  ranks  source files (apps/...)  arguments
apps=(
  "stencil3d 8 stencil3d/stencil3d.c --weak 16 --iters 20"
  "cg 8 cg/cg.c --weak 16 --iters 20 --fixed"
  "sweep 8 sweep/sweep.c --weak 8,8,16 --angles 2"
  "fft 8 fft/fft.c --n 32 --iters 2"
  "lu 8 lu/lu.c,lu/lu_bcast.c --n 256 --nb 32"
  "hydro3d 8 hydro3d/hydro3d.c --weak 8 --iters 20 --serial-max 0"
  "md 8 md/md.c --weak 4 --steps 20"
  "heat2d 8 heat2d/heat2d.F90 --n 64,64 --iters 40"
  "wavefront 8 wavefront/wavefront.F90 --n 32,32,16 --iters 3 --block-us 5"
  "pingpong 2 pingpong/pingpong.c --sizes 0:1M --reps 5"
  "latency_example 2 latency_example/latency_example.c --iters 20"
)
want=" $* "
blockcfg=()
[ $block = 1 ] && blockcfg=(--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=smpi/async-small-thresh:65536)

# ---- building ----
names=() nps=() argss=() plaincmds=() fortrans=()
for line in "${apps[@]}"; do
  read -r name np srcs args <<<"$line"
  [ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
  files="" extra="" fortran=0
  for f in ${srcs//,/ }; do
    case "$f" in *.F90) fortran=1; mkdir -p "src-$name"; cp "$here/apps/$f" "src-$name/"; files="$files $work/src-$name/${f##*/}" ;;
      *) files="$files $here/apps/$f" ;; esac
  done
  [ "$name" = lu ] && extra="-lopenblas"
  # the command that builds it; "plain" (smpicc/smpif90, for runs that fail) is built when needed
  if [ $fortran = 1 ]; then
    cmd="cd $work/src-$name && %CC%f90 -O2 -DLLAMP_SMPI=1 $files -o $work/${name}_%FLAVOUR%"
  else
    cmd="%CC%cc -O2 -DLLAMP_SMPI=1 -I$common $files $common/llamp_kernel.c $common/llamp_app.c -o $work/${name}_%FLAVOUR% -lm $extra"
  fi
  c=${cmd//%CC%/$bin/smpi_llamp-}
  (eval "${c//%FLAVOUR%/cap}") >"build-$name.log" 2>&1 ||
    { echo "bench_platforms: $name does not build (skipped):" >&2; tail -3 "build-$name.log" >&2; continue; }
  c=${cmd//%CC%/smpi}
  names+=("$name") nps+=("$np") argss+=("$args") plaincmds+=("${c//%FLAVOUR%/plain}") fortrans+=("$fortran")
done
[ ${#names[@]} -gt 0 ] || { echo "bench_platforms: no application to run" >&2; exit 1; }
cat >probe.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int rank, len;
    double x, y;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(name, &len);
    printf("probe %d %s\n", rank, name);
    x = rank;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
EOF
smpicc -O2 probe.c -o probe >build-probe.log 2>&1 || { cat build-probe.log; exit 1; }

# ---- platforms: those plain smpirun runs with 8 ranks ----
plats=() hosts=() skipped=()
for p in "$pdir"/*.xml; do
  b=$(basename "$p" .xml)
  [ -z "$only" ] || [[ "$b" =~ $only ]] || continue
  timeout -k 5 "$timeout_s" smpirun -np 8 -platform "$p" "${blockcfg[@]}" --cfg=smpi/simulate-computation:no \
    --log=root.thres:warning ./probe >"probe-$b.log" 2>&1 </dev/null
  rc=$?
  if [ $rc -ne 0 ] || [ "$(grep -c '^probe ' "probe-$b.log")" != 8 ]; then
    why=$(grep -m1 -E 'CRITICAL|rror|xception' "probe-$b.log" | sed 's/^\[[^]]*\] *//; s/^[^ ]*\.[ch]pp:[0-9]*: *//; s/^\[[a-z_]*\/CRITICAL\] *//' | cut -c1-140)
    skipped+=("$b (rc $rc: ${why:-no output})")
    continue
  fi
  plats+=("$b")
  hosts+=("$(awk '/^probe / { print $3 }' "probe-$b.log" | sort -u | wc -l)")
done
[ ${#plats[@]} -gt 0 ] || { echo "bench_platforms: no platform in $pdir runs" >&2; exit 1; }

# ---- runs ----
# errline LOG: SimGrid's critical message, else the first error of the capture or smpi_llamp-run
errline() {
  { grep -E 'CRITICAL' "$1" | sed 's/^\[[^]]*\] *//'
    grep -E '^smpi_llamp[-a-z]*: ' "$1" |
      grep -Ev 'SimGrid charges|: compute:|collectives as|NIC rule|: wrote |: seed |computes at|known cause|SimGrid simulated|records ->|not modelled:|approximate:|warning:'
  } | head -1 | cut -c1-200
}
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done; }
# run_one APP_INDEX PLATFORM -> res/APP.PLATFORM: difference in % or a reason; causes/APP.PLATFORM
run_one() {
  local a=$1 b=$2 name=${names[$1]} o="out/${names[$1]}.$2" rc rep
  if [ -n "$latency" ]; then
    # shellcheck disable=SC2086
    timeout -k 10 $((4 * timeout_s)) "$bin/smpi_llamp-latency" --deltas "$latency" --out "$o" -np "${nps[$a]}" \
      -platform "$pdir/$b.xml" "${blockcfg[@]}" -llamp-compute none -llamp-quiet "./${name}_cap" ${argss[$a]} \
      >"log/$name.$b.log" 2>&1
    rc=$?
    rep=$o/capture/report.json
    [ -f "$o/latency.tsv" ] || rep=/nonexistent
  else
    # shellcheck disable=SC2086
    timeout -k 10 "$timeout_s" "$bin/smpi_llamp-run" -np "${nps[$a]}" -platform "$pdir/$b.xml" "${blockcfg[@]}" \
      -llamp-compute none -llamp-out "$o" -llamp-quiet "./${name}_cap" ${argss[$a]} >"log/$name.$b.log" 2>&1
    rc=$?
    rep=$o/report.json
  fi
  if [ -f "$rep" ]; then
    python3 - "$rep" "res/$name.$b" "causes/$name.$b" "$o/latency.tsv" <<'EOF'
import json, os, re, sys
c = json.load(open(sys.argv[1])).get("capture", {}).get("simulated_vs_predicted", {})
s, t = c.get("simulated_time"), c.get("predicted_time")
cell = "%+.3f" % ((t - s) / s * 100) if s and t is not None else "no times"
if os.path.exists(sys.argv[4]):  # --latency: the worst offset, C when contended
    rows = [l.split("\t") for l in open(sys.argv[4]).read().splitlines()[1:] if l.strip()]
    worst = max((float(r[3]) for r in rows if float(r[0]) > 0), key=abs, default=None)
    rule0 = [float(r[5]) for r in rows if float(r[0]) == 0]
    if worst is not None:
        cell = "%+.3f%s" % (worst, " C" if rule0 and abs(rule0[0]) > 0.01 else "")
with open(sys.argv[2], "w") as f:
    f.write(cell + "\n")
with open(sys.argv[3], "w") as f:
    for k in c.get("known_causes", []):
        f.write(re.sub(r"\s+", " ", k) + "\n")
EOF
    [ $rc = 0 ] || echo "$(cat "res/$name.$b") (rc $rc)" >"res/$name.$b"
  else
    if [ $rc = 124 ] || [ $rc = 137 ]; then r="timeout"; else r="failed (rc $rc)"; fi
    errline "log/$name.$b.log" >"causes/$name.$b"
    # the same run of the program built with plain smpicc / smpif90 (same settings): fails too?
    [ -x "${name}_plain" ] || flock "build-$name.lock" bash -c "[ -x ${name}_plain ] || { ${plaincmds[$a]}; }" \
      >>"build-$name.log" 2>&1
    local priv=() hs
    # smpi_llamp-run's smpi/host-speed (this machine's rate, scales smpi_execute_benched): the same for plain
    hs=$(grep -o -m1 -- '--cfg=smpi/host-speed:[^ ]*' "log/$name.$b.log")
    [ -n "$hs" ] || { hs=$(cat "${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/smpi-llamp/hostspeed-$(uname -n)" 2>/dev/null) &&
      hs="--cfg=smpi/host-speed:$hs"; }
    [ -z "$hs" ] || priv=("$hs")
    [ "${fortrans[$a]}" = 1 ] && priv+=(--cfg=smpi/privatize-libs:"$(readelf -d "${name}_plain" | grep -o 'libgfortran\.so\.[0-9]*' | head -1)")
    # shellcheck disable=SC2086
    timeout -k 10 "$timeout_s" smpirun -np "${nps[$a]}" -platform "$pdir/$b.xml" "${blockcfg[@]}" "${priv[@]}" \
      --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 "./${name}_plain" ${argss[$a]} >"log/$name.$b.plain.log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then r="$r, plain ok"; else r="$r, plain too (rc $rc)"; fi
    echo "$r" >"res/$name.$b"
  fi
  [ -n "$keep" ] || rm -rf "$o/trace"
}
mkdir -p out log res causes
total=$((${#plats[@]} * ${#names[@]})) k=0
for b in "${plats[@]}"; do
  for a in "${!names[@]}"; do
    k=$((k + 1))
    echo "[$k/$total] ${names[$a]} on $b" >&2
    throttle
    run_one "$a" "$b" </dev/null &
  done
done
wait

# ---- the table ----
mode="SMPI's defaults" what="T(L0)"
[ $block = 1 ] && mode="cluster16.xml's <config> block forced (--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=smpi/async-small-thresh:65536)"
[ -n "$latency" ] && what="T(L0 + dL) for dL = $latency (the worst offset; C: the run has contention)"
echo "### $what vs SimGrid (%) on SimGrid's platforms, $mode"
echo
echo "smpi_llamp-run -np N -platform P ${blockcfg[*]} -llamp-compute none, LLAMP_KERNEL_MODEL=apps/common/kernel_model_example.txt;"
echo "ranks: $(for a in "${!names[@]}"; do printf '%s %s, ' "${names[$a]}" "${nps[$a]}"; done | sed 's/, $//'); hosts = distinct hosts of 8 ranks."
echo
printf '| platform | hosts |'; for n in "${names[@]}"; do printf ' %s |' "$n"; done; echo
printf '|---|---|'; for _ in "${names[@]}"; do printf -- '---|'; done; echo
for i in "${!plats[@]}"; do
  b=${plats[$i]}
  printf '| %s | %s |' "$b" "${hosts[$i]}"
  for n in "${names[@]}"; do printf ' %s |' "$(cat "res/$n.$b" 2>/dev/null || echo '?')"; done
  echo
done
echo
if [ ${#skipped[@]} -gt 0 ]; then
  echo "Platforms plain smpirun cannot run with 8 ranks (skipped):"
  echo
  for s in "${skipped[@]}"; do echo "* $s"; done
  echo
fi
# cause tags of the cells beyond 1 % and the failures (report.json's known_causes)
. "$here/bench/bench_lib.sh"
tags() { cause_tags "causes/$1"; } # APP.PLATFORM
echo "Known causes the capture named for the cells beyond 1 % and the failures (report.json: known_causes): L lat-factor,"
echo "B bw-factor, E eager/rendezvous thresholds (async-small-thresh, send-is-detached-thresh), C links shared between routes"
echo "(contention), H ranks sharing a host, R route latencies/bandwidths unlike L/G or spread, P calls not modelled / MPI_Test"
echo "polling, O per-message CPU overheads, K back-to-back sends to one peer sharing its link, ? other or a failure (listed"
echo "below), - none named."
echo
printf '| platform |'; for n in "${names[@]}"; do printf ' %s |' "$n"; done; echo
printf '|---|'; for _ in "${names[@]}"; do printf -- '---|'; done; echo
for b in "${plats[@]}"; do
  printf '| %s |' "$b"
  for n in "${names[@]}"; do
    r=$(cat "res/$n.$b" 2>/dev/null)
    case "$r" in [+-][0-9]*) awk -v r="${r%% *}" 'BEGIN { exit !(r > 1 || r < -1) }' || { printf ' |'; continue; } ;; esac
    printf ' %s |' "$(tags "$n.$b")"
  done
  echo
done
other=$(for b in "${plats[@]}"; do for n in "${names[@]}"; do
  [ -s "causes/$n.$b" ] || continue
  grep -Ev "$cause_known" "causes/$n.$b" | sed "s/^/$n.$b\t/"
done; done)
if [ -n "$other" ]; then
  echo
  echo "Other causes and failure messages (numbers as N), with their cells:"
  echo
  echo "$other" | python3 -c '
import re, sys
groups = {}
for line in sys.stdin:
    cell, msg = line.rstrip("\n").split("\t", 1)
    msg = re.sub(r"^\[[^]]*\] *", "", msg)
    msg = re.sub(r"[0-9][0-9.]*(e[+-]?[0-9]+)?", "N", msg)[:220]
    groups.setdefault(msg, []).append(cell)
for msg, cells in sorted(groups.items(), key=lambda kv: -len(kv[1])):
    print("* %s (%d: %s)" % (msg, len(cells), ", ".join(cells)))'
fi
echo
for b in "${plats[@]}"; do for n in "${names[@]}"; do printf '%s.%s %s\n' "$n" "$b" "$(cat "res/$n.$b" 2>/dev/null)"; done; done | awk -v lat="$latency" '
  { n_all++ }
  $2 ~ /^[+-][0-9]/ {
    d = $2 + 0; a = d < 0 ? -d : d; n++
    if (a <= 0.1) w01++; if (a <= 1) w1++; if (a <= 5) w5++
    if ($3 == "C") { nc++; if (a <= 2) c2++ } else { nu++; if (a <= 0.5) u05++ }
    line[n] = sprintf("%s %+.3f %%", $1, d); key[n] = a
  }
  END {
    printf "Summary: %d cells, %d with both times (%d failed or timed out); within 0.1 %%: %d, within 1 %%: %d, within 5 %%: %d\n", n_all, n, n_all - n, w01, w1, w5
    if (lat != "") printf "Without contention %d cells, %d within 0.5 %%; with contention (C) %d cells, %d within 2 %%\n", nu, u05, nc, c2
    printf "Worst 5:"
    for (j = 1; j <= 5 && j <= n; j++) {
      b = 0; for (i = 1; i <= n; i++) if (!(i in used) && (b == 0 || key[i] > key[b])) b = i
      used[b] = 1; printf "%s %s", (j == 1 ? "" : ";"), line[b]
    }
    print ""
  }'
