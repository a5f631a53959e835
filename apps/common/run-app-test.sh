#!/bin/sh
# Runs one proxy application for ctest (tests/apps.cmake) and checks it.
#
#   run-app-test.sh [options] BINARY [application arguments]
#     --kind mpich|simgrid   launcher family (required)
#     --launcher PATH        mpiexec or smpirun; empty or missing: skip (77)
#     --np N                 ranks (default 2)
#     --cfg OPTION           extra smpirun option (repeatable), e.g. --cfg=smpi/wtime:0
#     --env NAME=VALUE       environment for the run (repeatable)
#     --expect TEXT          the output must contain TEXT (repeatable;
#                            default "verification: PASSED")
#     --rc N                 expected exit status (default 0)
#     --file-contains F T    after the run, file F must contain T
#
# BINARY "none" means the flavour was not configured (its compiler is
# missing): skip.  smpirun always gets the bundled 16-host platform and
# --cfg=smpi/host-speed:1Gf --cfg=smpi/privatization:dlopen.
set -u
here=$(cd "$(dirname "$0")" && pwd)
kind="" launcher="" np=2 rc_want=0 cfgs="" expects="" file="" file_text=""
nl='
'
while [ $# -gt 0 ]; do
  case "$1" in
    --kind) kind=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --cfg) cfgs="$cfgs$nl$2"; shift 2 ;;
    --env) export "${2?}"; shift 2 ;;
    --expect) expects="$expects$nl$2"; shift 2 ;;
    --rc) rc_want=$2; shift 2 ;;
    --file-contains) file=$2; file_text=$3; shift 3 ;;
    --) shift; break ;;
    -*) echo "run-app-test: unknown option $1" >&2; exit 1 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "run-app-test: no binary" >&2; exit 1; }
bin=$1
shift
[ -n "$expects" ] || expects="${nl}verification: PASSED"

if [ -z "$launcher" ] || [ ! -x "$launcher" ]; then
  echo "SKIP: no $kind launcher (mpiexec/smpirun) found"
  exit 77
fi
if [ "$bin" = none ]; then
  echo "SKIP: the $kind flavour of this application was not configured (compiler missing)"
  exit 77
fi
if [ ! -f "$bin" ]; then
  echo "FAIL: $bin was not built (run the build first)"
  exit 1
fi
[ -z "$file" ] || rm -f "$file"

out=$(mktemp "${TMPDIR:-/tmp}/llamp-app-test.XXXXXX")
trap 'rm -f "$out"' EXIT
export OPENBLAS_NUM_THREADS=1
case "$kind" in
  mpich)
    set -- "$launcher" -n "$np" -bind-to core "$bin" "$@" ;;
  simgrid)
    IFS="$nl"
    # shellcheck disable=SC2086
    set -- "$launcher" -np "$np" -platform "$here/platform_small.xml" \
        --cfg=smpi/host-speed:1Gf --cfg=smpi/privatization:dlopen $cfgs "$bin" "$@"
    unset IFS ;;
  *) echo "run-app-test: --kind must be mpich or simgrid" >&2; exit 1 ;;
esac
echo "\$ $*"
"$@" >"$out" 2>&1
rc=$?
grep -v '^\[0\.000000\] \[xbt_cfg/INFO\]' "$out"
if [ "$rc" != "$rc_want" ]; then
  echo "FAIL: exit status $rc, expected $rc_want"
  exit 1
fi
status=0
IFS="$nl"
for e in $expects; do
  [ -n "$e" ] || continue
  if ! grep -qF -- "$e" "$out"; then
    echo "FAIL: output lacks '$e'"
    status=1
  fi
done
unset IFS
if [ -n "$file" ]; then
  if ! grep -qF -- "$file_text" "$file" 2>/dev/null; then
    echo "FAIL: $file does not contain '$file_text'"
    status=1
  fi
fi
exit $status
