#!/bin/sh
# Install what is missing, build, and run every test except the `slow` label
# (which includes the larger GLPK cross-checks): unit, CLI golden, valgrind and
# the ASan+UBSan rebuild.  `tools/run-tests.sh slow` runs the slow ones too.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/tools/install-deps.sh"
build=${LLAMP_BUILD_DIR:-$here/build}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
if [ "${1:-}" = slow ]; then
  ctest --output-on-failure -j"$(nproc)"
else
  ctest --output-on-failure -j"$(nproc)" -LE slow
fi
