#!/bin/sh
# The Debian package, installed into a fresh prefix, runs the README recipe
# with nothing from the build or source tree (registered by tests/install.cmake):
#   run_test.sh BUILD_DIR SOURCE_DIR
# cpack builds the .deb; dpkg-deb -x unpacks it into a new directory (no
# root, no dpkg database); then, with PREFIX/bin first in PATH:
#   smpi_llamp-cc, smpi_llamp-run, llamp analyze (README "three lines"),
#   pkg-config and find_package(smpi_llamp) builds of a program using the
#   library, a CMake project with CMAKE_C_COMPILER=smpi_llamp-cc, man pages.
# Exit 77 (skipped) without SimGrid, the capture build, cpack or dpkg-deb.
set -u
build=$1
src=$2
work=$build/tests/install-work
command -v smpicc >/dev/null 2>&1 || { echo "skip: smpicc not found"; exit 77; }
[ -x "$build/bin/smpi_llamp-run" ] || { echo "skip: the capture layer was not built"; exit 77; }
for t in cpack dpkg-deb pkg-config; do
  command -v $t >/dev/null 2>&1 || { echo "skip: $t not found"; exit 77; }
done
fail() {
  echo "FAIL: $*"
  exit 1
}
expect() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1 lacks: $2"; }; }
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >cpack.txt 2>&1 || { cat cpack.txt; fail "cpack"; }
deb=$(ls "$work"/pkg/smpi-llamp_*_amd64.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || { cat cpack.txt; fail "no .deb"; }
dpkg-deb -I "$deb" >info.txt || fail "dpkg-deb -I"
expect info.txt "Package: smpi-llamp"
expect info.txt "Depends: libc6, libsimgrid-dev (>= 3.32), libconfig9, python3"
dpkg-deb -x "$deb" root || fail "dpkg-deb -x"
P=$work/root/usr
for f in bin/llamp bin/smpi_llamp-cc bin/smpi_llamp-cxx bin/smpi_llamp-f90 bin/smpi_llamp-run \
  bin/llamp-platform lib/libsmpi_llamp.a lib/libsmpi_llamp_capture.a lib/libsmpi_llamp_capture_rt.so lib/smpi_llamp-run-prep \
  include/smpi_llamp/llamp_graph.h share/smpi-llamp/models/default.cfg \
  share/smpi-llamp/platforms/cluster16.xml share/doc/smpi_llamp/capture.md \
  share/man/man1/llamp.1 share/man/man1/smpi_llamp-run.1 lib/pkgconfig/smpi_llamp.pc \
  lib/cmake/smpi_llamp/smpi_llampConfig.cmake \
  bin/smpi_llamp-study bin/smpi_llamp-whatif bin/llamp-routes bin/llamp-calibrate bin/calib_netfit \
  share/man/man1/smpi_llamp-study.1 share/man/man1/smpi_llamp-whatif.1 share/man/man1/llamp-routes.1 \
  share/man/man1/llamp-calibrate.1 share/man/man1/calib_netfit.1; do
  [ -e "$P/$f" ] || fail "the package lacks $f"
done
# what this build made (MPICH, OpenBLAS): installed with its man page
for f in bin/calib_netbench_mpi bin/calib_loggp_mpi bin/llamp_calib_kernels \
  lib/libllamp_kernel_record.so bin/llamp-inject bin/llamp-validate lib/libllamp_inject.so bin/llamp-trace; do
  if [ -e "$build/$f" ]; then
    [ -e "$P/$f" ] || fail "the package lacks $f"
    case $f in bin/*) [ -e "$P/share/man/man1/${f#bin/}.1" ] || fail "no man page for $f" ;; esac
  fi
done
# nothing installed points into the build or the source tree
if grep -l -e "$build" -e "$src" "$P"/bin/smpi_llamp-cc "$P"/bin/smpi_llamp-run "$P"/bin/llamp-trace \
  "$P"/bin/llamp-calibrate "$P"/bin/llamp-inject "$P"/bin/llamp-validate "$P"/lib/pkgconfig/*.pc \
  "$P"/lib/cmake/smpi_llamp/*.cmake "$P"/share/man/man1/*.1 2>/dev/null; then
  fail "installed files name the build or source tree"
fi
export PATH="$P/bin:$PATH"

# the README recipe, on a user's program (a 2-D halo exchange)
cp "$src/tests/capture/halo.c" app.c
smpi_llamp-cc -O2 app.c -o app || fail "smpi_llamp-cc"
readelf -d app | grep -q "$P/lib" || fail "app does not find the capture runtime in $P/lib"
smpi_llamp-run -np 16 -llamp-out out ./app 4 4 20 1024 5 2 >run.txt 2>&1 || { cat run.txt; fail "smpi_llamp-run"; }
cat run.txt
expect run.txt "smpi_llamp: wrote out/graph.llg, out/report.json, out/sweep.csv"
expect out/report.json "\"config\": \"$P/share/smpi-llamp/models/default.cfg\""
llamp analyze out/graph.llg --L 5us --range 0:50us >a.txt || fail "llamp analyze"
"$build/bin/llamp" analyze out/graph.llg --L 5us --range 0:50us >b.txt || fail "build-tree llamp analyze"
expect a.txt "predicted runtime   T   ="
cmp a.txt b.txt || fail "the installed llamp answers differently"
# the commands added since: classification, routes, studies, calibration,
# the injector (from the installed copy only)
llamp classify out/graph.llg >cl.txt || fail "llamp classify"
expect cl.txt "class"
llamp-routes --help >routes_help.txt 2>&1 || fail "llamp-routes --help"
expect routes_help.txt "usage: llamp-routes PLATFORM.xml"
llamp-routes "$P/share/smpi-llamp/platforms/cluster16.xml" -n 4 -o routes.txt || fail "llamp-routes"
llamp analyze out/graph.llg --routes out/routes.txt >ar.txt || fail "llamp analyze --routes"
expect routes.txt "llamp-routes 1"
smpi_llamp-study --help >study_help.txt 2>&1 || fail "smpi_llamp-study --help"
expect study_help.txt "usage: smpi_llamp-study"
# two samples of the program: smpi_llamp-study runs the smpi_llamp-run beside it
smpi_llamp-study -n 2 -j 1 --seed 1 --out st --variability none -np 4 \
  --cfg=smpi/simulate-computation:no ./app 2 2 2 64 1 1 >study.txt 2>&1 || { cat study.txt; fail "smpi_llamp-study"; }
[ -s st/study.json ] || { cat study.txt; fail "no st/study.json"; }
smpi_llamp-whatif --help >whatif_help.txt 2>&1 || fail "smpi_llamp-whatif --help"
expect whatif_help.txt "usage: smpi_llamp-whatif"
# a what-if study, predictions only: llamp-platform, llamp-routes, llamp beside it
smpi_llamp-whatif --seed 1 --out wi --variant flat:4 --variant "flat:4 --wire 2us" --predict-only -np 4 \
  --cfg=smpi/simulate-computation:no ./app 2 2 2 64 1 1 >whatif.txt 2>&1 || { cat whatif.txt; fail "smpi_llamp-whatif"; }
[ -s wi/whatif.csv ] || { cat whatif.txt; fail "no wi/whatif.csv"; }
llamp-calibrate --help >cal_help.txt 2>&1 || fail "llamp-calibrate --help"
expect cal_help.txt "llamp-calibrate network"
calib_netfit --help >netfit_help.txt 2>&1 || fail "calib_netfit --help"
if [ -x "$P/bin/llamp_calib_kernels" ]; then
  # the recorder is found in the installed LIBDIR
  llamp-calibrate kernels -o k.cfg -- true >kern.txt 2>&1
  rec=$(sed -n 's/.* with LD_PRELOAD=\([^ :]*\).*/\1/p' kern.txt | head -n 1)
  [ -n "$rec" ] && [ "$rec" -ef "$P/lib/libllamp_kernel_record.so" ] ||
    { cat kern.txt; fail "llamp_calib_kernels does not preload the installed recorder"; }
fi
if [ -x "$P/bin/llamp-inject" ]; then
  llamp-inject --help >inj_help.txt 2>&1 || fail "llamp-inject --help"
  # the injector library is the installed one
  llamp-inject -dL 1us sh -c 'echo "$LD_PRELOAD"' >inj.txt 2>&1 || { cat inj.txt; fail "llamp-inject"; }
  [ "$(cut -d: -f1 inj.txt)" -ef "$P/lib/libllamp_inject.so" ] || { cat inj.txt; fail "llamp-inject preloads another library"; }
fi

# a plain smpirun of the program finds the installed model file by itself
LLAMP_OUT=plain smpirun -np 16 -platform "$P/share/smpi-llamp/platforms/cluster16.xml" \
  --cfg=smpi/simulate-computation:no ./app 4 4 2 1024 5 2 >plain.txt 2>&1 || { cat plain.txt; fail "plain smpirun"; }
expect plain/report.json "\"config\": \"$P/lib/../share/smpi-llamp/models/default.cfg\""

# the library through pkg-config and through find_package
cat >use.c <<'EOT'
#include <stdio.h>
#include "llamp_graph.h"
#include "llamp_units.h"
int main(int argc, char **argv) {
  char err[256];
  double v;
  if (llamp_units_parse("3us", LLAMP_UNIT_TIME, "us", &v, err, sizeof err)) return 1;
  llamp_graph_t *g = llamp_graph_read_binary(argv[1], err, sizeof err);
  if (!g) return 2;
  printf("%g s, %llu vertices\n", v, (unsigned long long)llamp_graph_num_vertices(g));
  llamp_graph_destroy(g);
  return argc > 0 ? 0 : 1;
}
EOT
PKG_CONFIG_PATH=$P/lib/pkgconfig
export PKG_CONFIG_PATH
nv=$(sed -n 's/^out\/graph.llg: 16 ranks, \([0-9]*\) events.*/\1/p' run.txt)
[ -n "$nv" ] || fail "no vertex count in the run's output"
cc use.c $(pkg-config --cflags --libs smpi_llamp) -o use_pc || fail "cc with pkg-config"
./use_pc out/graph.llg >pc.txt || fail "use_pc"
expect pc.txt "3e-06 s, $nv vertices"
[ "$(pkg-config --variable=cc smpi_llamp)" -ef "$P/bin/smpi_llamp-cc" ] || fail "pkg-config --variable=cc"
mkdir -p user && cat >user/CMakeLists.txt <<'EOT'
cmake_minimum_required(VERSION 3.18)
project(user C)
find_package(smpi_llamp 0.1 REQUIRED)
add_executable(use ../use.c)
target_link_libraries(use smpi_llamp::smpi_llamp)
EOT
cmake -S user -B user/build -DCMAKE_PREFIX_PATH="$P" >cm.txt 2>&1 && cmake --build user/build >>cm.txt 2>&1 ||
  { cat cm.txt; fail "find_package(smpi_llamp)"; }
user/build/use out/graph.llg >cm_run.txt || fail "use (CMake)"
expect cm_run.txt "3e-06 s, $nv vertices"

# smpi_llamp-cc as a build system's C compiler (CMake; autotools: CC=)
mkdir -p mpi && cat >mpi/CMakeLists.txt <<'EOT'
cmake_minimum_required(VERSION 3.18)
project(mpiapp C)
add_executable(app ../app.c)
EOT
cmake -S mpi -B mpi/build -DCMAKE_C_COMPILER="$P/bin/smpi_llamp-cc" >mpi.txt 2>&1 &&
  cmake --build mpi/build >>mpi.txt 2>&1 || { cat mpi.txt; fail "CMake with CMAKE_C_COMPILER=smpi_llamp-cc"; }
smpi_llamp-run -np 4 --cfg=smpi/simulate-computation:no -llamp-out out_cm -llamp-quiet mpi/build/app 2 2 2 64 1 1 \
  >mpi_run.txt 2>&1 || { cat mpi_run.txt; fail "the CMake-built program"; }
[ -s out_cm/graph.llg ] || fail "the CMake-built program was not captured"
CC=smpi_llamp-cc sh -c '$CC -O1 app.c -o app_cc' || fail "CC=smpi_llamp-cc"

# man pages: the --help text
if command -v man >/dev/null 2>&1; then
  MANWIDTH=200 man -l "$P/share/man/man1/llamp.1" >man.txt 2>/dev/null || fail "man llamp"
  expect man.txt "usage: llamp COMMAND [options]"
  expect man.txt "usage: llamp analyze GRAPH [options]"
  MANWIDTH=200 man -l "$P/share/man/man1/smpi_llamp-run.1" >man2.txt 2>/dev/null || fail "man smpi_llamp-run"
  expect man2.txt "-llamp-out DIR          output directory"
fi
echo "PASS: install"
