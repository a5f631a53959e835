#!/bin/sh
# Install the Debian packages the build and the tests need (root, bookworm).
# Only Debian's archive is used.  Skips apt when everything is present.
set -eu
PATH=$PATH:/usr/sbin:/sbin   # munged, slurmctld, slurmd
need=""
command -v cmake >/dev/null || need="$need cmake"
command -v cc >/dev/null || need="$need build-essential"
command -v glpsol >/dev/null || need="$need glpk-utils"
command -v valgrind >/dev/null || need="$need valgrind"
command -v mpiexec.mpich >/dev/null || need="$need mpich"   # apps: *_mpi
ls /usr/include/*/mpich/mpi.h >/dev/null 2>&1 || need="$need libmpich-dev"   # apps: *_mpi
ls /usr/lib/*/libopenblas.so >/dev/null 2>&1 || need="$need libopenblas-dev"   # apps: lu
command -v smpicc >/dev/null || need="$need libsimgrid-dev"   # apps: *_smpi; capture
[ -f /usr/include/libconfig.h ] || need="$need libconfig-dev"   # capture: models/*.cfg
command -v python3 >/dev/null || need="$need python3"   # capture: wrapper generator
command -v gfortran >/dev/null || need="$need gfortran"   # Fortran: smpif90, mpif90, apps heat2d/wavefront
[ -f /usr/include/gsl/gsl_rng.h ] || need="$need libgsl-dev"   # fits, RNG, statistics (calib, kernel models)
command -v gnuplot >/dev/null || need="$need gnuplot-nox"   # calibration fit plots
command -v rsvg-convert >/dev/null || need="$need librsvg2-bin"   # llamp plot: SVG -> PNG
command -v ip >/dev/null || need="$need iproute2"   # calibration across two network namespaces
command -v pkg-config >/dev/null || need="$need pkgconf"   # install_package: the installed .pc file
command -v strace >/dev/null || need="$need strace"   # capture_smpi_timer: counts SMPI's clock system calls
command -v dpkg-deb >/dev/null || need="$need dpkg"   # install_package: cpack -G DEB, dpkg-deb -x
command -v munged >/dev/null || need="$need munge"   # study/whatif Slurm tests: a private munged
command -v slurmctld >/dev/null || need="$need slurmctld"   # study/whatif Slurm tests: a private one-node cluster
command -v slurmd >/dev/null || need="$need slurmd"
command -v sbatch >/dev/null || need="$need slurm-client"
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing:$need (run as root or install them)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  # no daemon of the packages (munge, slurmd, slurmctld) may start on the
  # machine: the tests start their own (tests/study/slurm_cluster.sh)
  rc_guard=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && rc_guard=1
  fi
  apt-get install -y -q $need >/dev/null
  [ -z "$rc_guard" ] || rm -f /usr/sbin/policy-rc.d
fi
