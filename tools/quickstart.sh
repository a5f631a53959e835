#!/bin/sh
# Set up a fresh Debian bookworm machine (as root), build, and run the main
# job on the bundled default: `llamp analyze` on a generated 3-D halo graph and
# on the LLAMP paper's running example.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/tools/install-deps.sh"
build=${LLAMP_BUILD_DIR:-$here/build}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
llamp="$build/bin/llamp"
echo "== the LLAMP paper's running example (o=0, G=5ns/B, L=0.5us) =="
"$llamp" analyze "$here/tests/data/examples/paper_example.goal" --o 0 --G 5ns --L 0.5us \
  --range 0.2us:0.5us --budget 2us
echo
echo "== a 3-D halo exchange, 64 ranks, 50 iterations, 8 KiB faces, 20 us compute =="
"$llamp" generate halo3d px=4 py=4 pz=4 iters=50 bytes=8KiB compute=20us -o "$build/halo3d.goal"
"$llamp" analyze "$build/halo3d.goal" --range 0:100us --tolerance 1,2,5
