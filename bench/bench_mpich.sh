#!/bin/bash
# The capture against SimGrid on the C programs of SimGrid's copy of the MPICH
# test suite (teshsuite/smpi/mpich3-test of a SimGrid 3.32 source tree; not
# part of this repository: give its path).  For every line of each
# directory's `testlist` (program, ranks, arg=/env=/mpiexecarg= keys):
#   * the program is built as SimGrid's CMakeLists.txt of the directory builds
#     it (its source, COMPILE_FLAGS, include/, util/'s mtest_c library), once
#     with smpi_llamp-cc and once with plain smpicc;
#   * it runs under a BARE `smpi_llamp-run -np N -platform P` (SMPI's and the
#     capture's defaults: compute measured and replayed, SimGrid's default
#     collective selector) and under plain `smpirun -np N -platform P`, each
#     with a timeout;
#   * SimGrid's simulated time of the capture run against the DAG's T(L0)
#     (report.json: capture.simulated_vs_predicted), the known causes the
#     capture named for runs beyond 1 % (as letters, legend printed), and a
#     status, the first that applies:
#       deadlock           SimGrid found a deadlock in the capture run only
#       timeout            the capture run exceeded the timeout, plain did not
#       plain fails        plain smpirun fails (rc != 0 or no "No Errors") and
#                          the capture run does the same
#       exit code differs  plain smpirun fails, the capture run differently; or
#                          both ran but their exit codes differ
#       capture failure    plain smpirun passed; the capture run wrote no
#                          report.json (its error is quoted)
#       output differs     the capture run did not print "No Errors"
#       ok                 the same exit code and "No Errors" as plain smpirun
#     Plain smpirun is bare (no option but -np and -platform); with compute
#     measured (the default) the capture's numbers vary a little between runs.
# P is a 64-host <cluster> this script writes: 1 Gflop/s hosts, private
# 10 GB/s links of 1 us (as platforms/cluster16.xml, no backbone), in two
# variants:
#   defaults   no <config>: SMPI's own defaults (lat/bw factors, eager up to
#              smpi/async-small-thresh = 0, detached below 65536 B)
#   block      the <config> block of platforms/cluster16.xml copied in
#              (lat-factor 0:1, bw-factor 0:1, async-small-thresh 65536)
# Skipped lines (with the reason): xfail=, programs SimGrid's CMakeLists does
# not build (not compiled in SMPI, Fortran, missing source), subdirectories.
# Ends each variant with a summary: runs with both times, how many within
# 0.1 %, 1 %, 5 % (|T - SimGrid| / SimGrid), the worst 5, and the statuses.
# Never run by ctest.
#
# usage: bench/bench_mpich.sh [options] BUILD_DIR MPICH3_TEST_DIR [DIR...]
#   DIR...            directories of MPICH3_TEST_DIR (default: coll pt2pt)
#   -j N              N runs at a time (default 1: the machine is shared)
#   --variant V       defaults, block or both (default both)
#   --timeout S       seconds per run (default 60)
#   --only REGEX      only programs whose DIR/NAME matches (grep -E)
#   --compute MODE    add -llamp-compute MODE to the capture runs (default: none
#                     added, i.e. smpi_llamp-run's default, compute measured)
#   --keep DIR        keep the work directory (builds, logs, outputs) in DIR
# Example:
#   bench/bench_mpich.sh /tmp/base/build /tmp/sg332/teshsuite/smpi/mpich3-test coll pt2pt
set -u
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
jobs=1 variants="defaults block" timeout_s=60 only="" compute="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --variant)
      case "$2" in both) variants="defaults block" ;; defaults | block) variants=$2 ;;
        *) echo "bench_mpich: --variant defaults|block|both" >&2; exit 2 ;; esac
      shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --compute) compute=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_mpich: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { usage >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) || exit 1
mt=$(cd "$2" && pwd) || exit 1
shift 2
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(coll pt2pt)
bin=$build/bin
for t in "$bin/smpi_llamp-cc" "$bin/smpi_llamp-run"; do
  [ -x "$t" ] || { echo "bench_mpich: $t missing (build smpi-llamp in $build)" >&2; exit 1; }
done
command -v smpicc >/dev/null && command -v smpirun >/dev/null ||
  { echo "bench_mpich: smpicc/smpirun not found" >&2; exit 1; }
[ -f "$mt/util/mtest.c" ] && [ -d "$mt/include" ] ||
  { echo "bench_mpich: $mt is not mpich3-test (util/mtest.c, include/)" >&2; exit 1; }
if [ -n "$keep" ]; then
  mkdir -p "$keep" && work=$(cd "$keep" && pwd) || exit 1
else
  work=$(mktemp -d /tmp/bench_mpich.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work" || exit 1

# ---- the platforms ----
cluster='  <cluster id="c64" prefix="n" radical="0-63" suffix="" speed="1Gf" bw="10GBps" lat="1us"/>'
head_xml="<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">
<platform version=\"4.1\">"
printf '%s\n%s\n</platform>\n' "$head_xml" "$cluster" >plat-defaults.xml
block=$(sed -n '/<config>/,/<\/config>/p' "$here/platforms/cluster16.xml")
[ -n "$block" ] || { echo "bench_mpich: no <config> block in $here/platforms/cluster16.xml" >&2; exit 1; }
printf '%s\n%s\n%s\n</platform>\n' "$head_xml" "$block" "$cluster" >plat-block.xml

# ---- the test list: DIR NAME NP SKIP SRCS FLAGS ARGS ENV MPIEXECARGS (tab-separated) ----
python3 - "$mt" "${dirs[@]}" >tests.tsv <<'EOF' || exit 1
import os, re, sys
mt, dirs = sys.argv[1], sys.argv[2:]

def targets(d):
    """name -> (sources, compile flags) as SimGrid's CMakeLists.txt of d builds them."""
    path = os.path.join(mt, d, "CMakeLists.txt")
    if not os.path.exists(path):
        return None
    txt = "\n".join(l.split("#", 1)[0] for l in open(path).read().splitlines())
    var = {m.group(1): m.group(2) for m in re.finditer(r'set\(\s*(\w+)\s+"([^"]*)"\s*\)', txt)}
    exp = lambda s: re.sub(r"\$\{(\w+)\}", lambda m: var.get(m.group(1), ""), s)
    keep = lambda srcs: [s for s in srcs if "/util/" not in s]
    t = {}
    for m in re.finditer(r"foreach\s*\(\s*(\w+)\s+([^)]*)\)(.*?)endforeach", txt, re.S):
        v, items, body = m.group(1), m.group(2).split(), m.group(3)
        a = re.search(r"add_executable\(\s*\$\{%s\}\s+EXCLUDE_FROM_ALL\s+([^)]*)\)" % v, body)
        if not a:
            continue
        f = re.search(r'set_target_properties\(\s*\$\{%s\}\s+PROPERTIES\s+COMPILE_FLAGS\s+"([^"]*)"' % v, body)
        for it in items:
            t[it] = ([s.replace("${%s}" % v, it) for s in keep(a.group(1).split())], exp(f.group(1)) if f else "")
    for m in re.finditer(r"add_executable\(\s*([\w.-]+)\s+EXCLUDE_FROM_ALL\s+([^)]*)\)", txt):
        t[m.group(1)] = (keep(m.group(2).split()), "")
    for m in re.finditer(r'set_target_properties\(\s*([\w.-]+)\s+PROPERTIES\s+COMPILE_FLAGS\s+"([^"]*)"', txt):
        if m.group(1) in t:
            t[m.group(1)] = (t[m.group(1)][0], exp(m.group(2)))
    return t

for d in dirs:
    lst = os.path.join(mt, d, "testlist")
    if not os.path.exists(lst):
        print(f"bench_mpich: {lst} does not exist", file=sys.stderr)
        sys.exit(1)
    t = targets(d) or {}
    for line in open(lst):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("!"):
            continue
        w = line.split()
        name, np = w[0], (w[1] if len(w) > 1 else "1")
        args, env, mpx, skip = [], [], [], ""
        for kv in w[2:]:
            if "=" not in kv:
                continue
            k, v = kv.split("=", 1)
            if k == "arg": args.append(v)
            elif k == "env": env.append(v)
            elif k == "mpiexecarg": mpx.append(v)
            elif k == "xfail": skip = f"xfail={v}"
        srcs, flags = t.get(name, ([], ""))
        if os.path.isdir(os.path.join(mt, d, name)):
            skip = skip or "a directory"
        elif d.startswith("f") and d[1:3] in ("77", "90", "08"):
            skip = skip or "Fortran"
        elif name not in t:
            skip = skip or "not built by SimGrid's CMakeLists.txt"
        elif not all(s.endswith(".c") for s in srcs):
            skip = skip or "not C"
        elif not all(os.path.exists(os.path.join(mt, d, s)) for s in srcs):
            skip = skip or "source missing"
        print("\t".join([d, name, np, skip or "-", " ".join(srcs) or "-", flags or "-",
                         " ".join(args) or "-", " ".join(env) or "-", " ".join(mpx) or "-"]))
EOF

# ---- building: util/ as SimGrid's mtest_c, then each program twice ----
mkdir -p util bins
for f in dtypes mtest mtestcheck mtest_datatype mtest_datatype_gen; do
  smpicc -O2 -w -I"$mt/include" -c "$mt/util/$f.c" -o "util/$f.o" >>util/build.log 2>&1 ||
    { cat util/build.log; echo "bench_mpich: cannot build $mt/util/$f.c" >&2; exit 1; }
done
ar rcs util/libmtest_c.a util/*.o
build_one() { # DIR NAME SRCS FLAGS -> bins/DIR/NAME_cap, NAME_plain (status in bins/DIR/NAME.build)
  local d=$1 n=$2 srcs=$3 flags=$4 files="" s
  [ "$flags" = - ] && flags=""
  for s in $srcs; do files="$files $mt/$d/$s"; done
  mkdir -p "bins/$d"
  # shellcheck disable=SC2086
  if "$bin/smpi_llamp-cc" -O2 -w $flags -I"$mt/include" $files util/libmtest_c.a -lm -o "bins/$d/${n}_cap" \
    >"bins/$d/$n.log" 2>&1 &&
    smpicc -O2 -w $flags -I"$mt/include" $files util/libmtest_c.a -lm -o "bins/$d/${n}_plain" >>"bins/$d/$n.log" 2>&1; then
    echo ok >"bins/$d/$n.build"
  else
    echo failed >"bins/$d/$n.build"
  fi
}
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done; }
declare -A built
while IFS=$'\t' read -r d n np skip srcs flags args env mpx; do
  [ "$skip" = - ] || continue
  [ -z "$only" ] || [[ "$d/$n" =~ $only ]] || continue
  [ -z "${built[$d/$n]:-}" ] || continue
  built[$d/$n]=1
  throttle
  build_one "$d" "$n" "$srcs" "$flags" </dev/null &
done <tests.tsv
wait

# ---- running ----
noerr() { grep -Eq '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$1" && echo 1 || echo 0; }
# errline LOG: SimGrid's critical message, else the first error of the capture or smpi_llamp-run
errline() {
  { grep -E 'CRITICAL' "$1" | sed 's/^\[[^]]*\] *//'
    grep -E '^smpi_llamp[-a-z]*: ' "$1" |
      grep -Ev 'SimGrid charges|: compute:|collectives as|NIC rule|: wrote |: seed |computes at|known cause|SimGrid simulated|records ->|not modelled:|approximate:|warning:'
  } | head -1 | cut -c1-200
}
# tags FILE: the known causes (report.json) as letters: L lat-factor, B bw-factor,
# E eager/rendezvous thresholds, C contention, H shared hosts, R route
# latencies/bandwidths, P calls not modelled / MPI_Test polling, O CPU
# overheads, K back-to-back sends, ? other
. "$here/bench/bench_lib.sh"
tags() { cause_tags "$1"; }
# run_one ID VARIANT DIR NAME NP ARGS ENV MPX -> runs/ID.res: one tab-separated line
# (dir/name, np, simgrid, T, diff %, status, detail)
run_one() {
  local id=$1 v=$2 d=$3 n=$4 np=$5 args=$6 env=$7 mpx=$8 r="runs/$1" st detail=""
  [ "$args" = - ] && args=""
  [ "$env" = - ] && env=""
  [ "$mpx" = - ] && mpx=""
  mkdir -p "$r"
  local cmode=()
  [ -z "$compute" ] || cmode=(-llamp-compute "$compute")
  # shellcheck disable=SC2086
  (cd "$r" && env $env timeout -k 10 "$timeout_s" smpirun -np "$np" -platform "$work/plat-$v.xml" $mpx \
    "$work/bins/$d/${n}_plain" $args >plain.log 2>&1; echo $? >plain.rc)
  # shellcheck disable=SC2086
  (cd "$r" && env $env timeout -k 10 "$timeout_s" "$bin/smpi_llamp-run" -np "$np" -platform "$work/plat-$v.xml" \
    $mpx "${cmode[@]}" -llamp-out out "$work/bins/$d/${n}_cap" $args >cap.log 2>&1; echo $? >cap.rc)
  local prc crc pne cne sim="" t="" dif="" tags="" dead="Deadlock detected"
  prc=$(cat "$r/plain.rc") crc=$(cat "$r/cap.rc") pne=$(noerr "$r/plain.log") cne=$(noerr "$r/cap.log")
  if [ -f "$r/out/report.json" ]; then
    read -r sim t dif < <(python3 -c '
import json, re, sys
c = json.load(open(sys.argv[1])).get("capture", {}).get("simulated_vs_predicted", {})
s, t = c.get("simulated_time"), c.get("predicted_time")
with open(sys.argv[2], "w") as f:
    for k in c.get("known_causes", []):
        f.write(re.sub(r"\s+", " ", k) + "\n")
if s is None or t is None: print("- - -")
else: print(s, t, "%+.4f" % ((t - s) / s * 100) if s > 0 else "-")' "$r/out/report.json" "$r/causes.txt")
    awk -v d="$dif" 'BEGIN { exit !(d != "-" && (d > 1 || d < -1)) }' && tags=$(tags "$r/causes.txt")
  fi
  if grep -q "$dead" "$r/cap.log" && ! grep -q "$dead" "$r/plain.log"; then
    st="deadlock" # SimGrid found one in the capture run only
  elif { [ "$crc" = 124 ] || [ "$crc" = 137 ]; } && [ "$prc" != 124 ] && [ "$prc" != 137 ]; then
    st="timeout"; detail="plain smpirun: rc $prc"
  elif [ "$prc" != 0 ] || [ "$pne" = 0 ]; then # the program fails under plain smpirun
    if [ "$crc" = "$prc" ] && [ "$cne" = "$pne" ]; then st="plain fails"; detail="rc $prc, No Errors: $pne, the same under the capture"
    else st="exit code differs"; detail="capture rc $crc, plain rc $prc"; fi
  elif [ ! -f "$r/out/report.json" ] || [ -z "$sim" ] || [ "$sim" = - ]; then
    st="capture failure"; detail="capture rc $crc, plain rc 0"
  elif [ "$crc" != "$prc" ]; then
    st="exit code differs"; detail="capture rc $crc, plain rc $prc"
  elif [ "$cne" = 0 ]; then
    st="output differs"; detail="no \"No Errors\" under the capture"
  else
    st="ok"
  fi
  if [ "$st" != ok ] && [ "$st" != "plain fails" ]; then
    local msg
    msg=$(errline "$r/cap.log")
    [ -z "$msg" ] || detail="${detail:+$detail; }$msg"
  fi
  [ "$st" = ok ] && [ -z "$keep" ] && rm -rf "$r/out/trace"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d/$n${args:+ $args}" "$np" "${sim:--}" "${t:--}" "${dif:--}" "$st" \
    "${detail:--}" "${tags:--}" >"$r.res"
}

fmt_s() { awk -v x="$1" 'BEGIN { if (x == "-" || x == "") print "-"; else printf "%.6g", x }'; }
mkdir -p runs
for v in $variants; do
  case "$v" in
    defaults) title="SMPI's defaults (no <config>)" ;;
    block) title="cluster16.xml's <config> block (lat-factor 0:1, bw-factor 0:1, async-small-thresh 65536)" ;;
  esac
  echo
  echo "### mpich3-test ($(IFS=,; echo "${dirs[*]}")) on a 64-host cluster, $title"
  echo
  i=0 ids=()
  total=$(awk -F'\t' -v o="$only" '$4 == "-" && (o == "" || ($1 "/" $2) ~ o)' tests.tsv | wc -l)
  while IFS=$'\t' read -r d n np skip srcs flags args env mpx; do
    [ -z "$only" ] || [[ "$d/$n" =~ $only ]] || continue
    if [ "$skip" != - ]; then
      printf '%s\t%s\t-\t-\t-\tskipped\t%s\n' "$d/$n" "$np" "$skip" >"runs/$v-skip-$d-$n-$np.res"
      ids+=("$v-skip-$d-$n-$np")
      continue
    fi
    i=$((i + 1))
    id="$v-$i"
    ids+=("$id")
    if [ "$(cat "bins/$d/$n.build")" != ok ]; then
      printf '%s\t%s\t-\t-\t-\tbuild failed\t%s\n' "$d/$n" "$np" \
        "$(grep -m1 -E 'error' "bins/$d/$n.log" | cut -c1-120)" >"runs/$id.res"
      continue
    fi
    echo "[$v $i/$total] $d/$n $np" >&2
    throttle
    run_one "$id" "$v" "$d" "$n" "$np" "$args" "$env" "$mpx" </dev/null &
  done <tests.tsv
  wait
  echo "| program | ranks | SimGrid (s) | DAG T(L0) (s) | T vs SimGrid | status | causes (> 1 %) |"
  echo "|---|---|---|---|---|---|---|"
  for id in "${ids[@]}"; do
    IFS=$'\t' read -r prog np sim t dif st detail tg <"runs/$id.res"
    [ "$st" = skipped ] && continue
    [ "$detail" = - ] && detail=""
    [ "${tg:--}" = - ] && tg=""
    printf '| %s | %s | %s | %s | %s | %s%s | %s |\n' "$prog" "$np" "$(fmt_s "$sim")" "$(fmt_s "$t")" \
      "$([ "$dif" = - ] && echo - || echo "$dif %")" "$st" "${detail:+ ($detail)}" "$tg"
  done
  skipped=$(for id in "${ids[@]}"; do awk -F'\t' '$6 == "skipped" { print $1 " " $2 " (" $7 ")" }' "runs/$id.res"; done)
  if [ -n "$skipped" ]; then
    echo
    echo "Skipped: $(echo "$skipped" | paste -sd, - | sed 's/,/, /g')"
  fi
  echo
  echo "Causes: the known causes the capture named (report.json) for runs beyond 1 %: L lat-factor, B bw-factor,"
  echo "E eager/rendezvous thresholds (async-small-thresh, send-is-detached-thresh), C links shared between routes"
  echo "(contention), H ranks sharing a host, R route latencies/bandwidths, P calls not modelled / MPI_Test polling,"
  echo "O per-message CPU overheads, K back-to-back sends to one peer, ? other, - none named."
  echo
  for id in "${ids[@]}"; do cat "runs/$id.res"; done | awk -F'\t' '
    $6 == "skipped" { next }
    { n_all++; status[$6]++ }
    $5 != "-" {
      d = $5 + 0; a = d < 0 ? -d : d; n++
      if (a <= 0.1) w01++; if (a <= 1) w1++; if (a <= 5) w5++
      line[n] = sprintf("%s (%s ranks, %s: %+.3f %%%s)", $1, $2, $6, d, ($8 == "" || $8 == "-" ? "" : ", causes " $8)); key[n] = a
    }
    END {
      printf "Summary: %d runs, %d with both times; within 0.1 %%: %d, within 1 %%: %d, within 5 %%: %d\n", n_all, n, w01, w1, w5
      s = ""; for (k in status) s = s sprintf("%s%s %d", (s == "" ? "" : ", "), k, status[k]); print "Statuses: " s
      printf "Worst 5:"
      for (j = 1; j <= 5 && j <= n; j++) {
        b = 0; for (i = 1; i <= n; i++) if (!(i in used) && (b == 0 || key[i] > key[b])) b = i
        used[b] = 1; printf "%s %s", (j == 1 ? "" : ";"), line[b]
      }
      print ""
    }'
done
