#!/bin/sh
# The classification's 19 points (llamp classify) four lanes to a vector
# (AVX2, the default where the CPU has it) against one lane at a time
# (LLAMP_LANES=scalar), on a generated 8 x 8 halo (1000 iterations, 576 k
# events) under the capture's model (o = 0, eager, the NIC rule), one
# thread, REPS runs of each interleaved.  Times are the "classifying" stage
# (the engine's creation is apart).  Both reports must be the same byte for
# byte.
#   bench/bench_classify.sh BUILD_DIR [REPS]
build=$(cd "${1:?usage: $0 BUILD_DIR [REPS]}" && pwd) # absolute: the bench works in a temporary directory
reps=${2:-5}
# shellcheck source=bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh" # best and median of a list of times (before the cd below)
llamp=$build/bin/llamp
[ -x "$llamp" ] || { echo "no $llamp" >&2; exit 2; }
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
"$llamp" generate halo2d px=8 py=8 iters=1000 -o g.llg >gen.log 2>&1 || { cat gen.log; exit 1; }
params="--L 2us --o 0 --G 0.1ns --S 64KiB --nic"
stage() { # the classifying stage's seconds; the report into $1
  out=$1
  shift
  # shellcheck disable=SC2086 # params are llamp's options
  env LLAMP_THREADS=1 "$@" "$llamp" classify g.llg $params --format json -o "$out" --timing 2>&1 >/dev/null |
    sed -n 's/.*classifying.*\.\.\. *\([0-9.]*\) s.*/\1/p'
}
vec="" one=""
for _ in $(seq "$reps"); do
  vec="$vec $(stage vec.json)"
  one="$one $(stage one.json LLAMP_LANES=scalar)"
done
same=same
cmp -s vec.json one.json || same=DIFFER
avx2=$(grep -c avx2 /proc/cpuinfo 2>/dev/null | awk '{ print ($1 > 0 ? "yes" : "no") }')
echo "halo2d 8 x 8, 1000 iterations (576 k events), 19 classification points, one thread, $reps runs each (AVX2: $avx2)"
echo "  one lane at a time:   best $(best "$one") s, median $(median "$one") s"
echo "  four to a vector:     best $(best "$vec") s, median $(median "$vec") s"
echo "  ratio (one / four):   best x$(echo "$(best "$one") $(best "$vec")" | awk '{ printf "%.2f", $1 / $2 }'), median x$(echo "$(median "$one") $(median "$vec")" | awk '{ printf "%.2f", $1 / $2 }')"
echo "  reports: $same"
[ "$same" = same ]
