#!/bin/sh
# Set up a fresh Debian bookworm machine (as root), build, and run the main job
# on the bundled default: recompile the stencil3d proxy application with
# smpi_llamp-cc, emulate it on 16 SimGrid hosts (platforms/cluster16.xml,
# models/default.cfg) with smpi_llamp-run, and print the latency report the
# capture layer writes at MPI_Finalize (once with the program's measured
# compute, the default, once with kernel models).  Then the LLAMP paper's
# running example.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/tools/install-deps.sh"
build=${LLAMP_BUILD_DIR:-$here/build}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
bin="$build/bin"
work="$build/quickstart"
mkdir -p "$work"
cd "$work"
echo "== 1. recompile: smpi_llamp-cc apps/stencil3d/stencil3d.c =="
"$bin/smpi_llamp-cc" -O2 -I"$here/apps/common" "$here/apps/stencil3d/stencil3d.c" \
  "$here/apps/common/llamp_kernel.c" "$here/apps/common/llamp_app.c" -o stencil3d -lm
echo "== 2. emulate on 16 hosts and report, as a new user would: no options =="
# compute is the program's measured CPU time, replayed 1:1 on the platform's
# hosts; everything SimGrid says is shown
"$bin/smpi_llamp-run" -np 16 -llamp-out llamp-out ./stencil3d --weak 32 --iters 100
echo
echo "== 2b. the same with compute from kernel models (deterministic) =="
LLAMP_KERNEL_MODEL="$here/apps/common/kernel_model_example.txt" \
  "$bin/smpi_llamp-run" -np 16 -llamp-out llamp-out-models -llamp-range 0:20us \
  -llamp-compute none ./stencil3d --weak 32 --iters 100
echo
echo "== 3. re-analyse the written graph later, at other parameters =="
"$bin/llamp" analyze llamp-out/graph.llg --L 10us --o 0 --G 0.1ns --S 64KiB --tolerance 1,5
echo
echo "== the LLAMP paper's running example (o=0, G=5ns/B, L=0.5us) =="
"$bin/llamp" analyze "$here/tests/data/examples/paper_example.goal" --o 0 --G 5ns --L 0.5us \
  --range 0.2us:0.5us --budget 2us
