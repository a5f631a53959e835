#!/bin/sh
# Install the Debian packages the build and the tests need (root, bookworm).
# Only Debian's archive is used.  Skips apt when everything is present.
set -eu
need=""
command -v cmake >/dev/null || need="$need cmake"
command -v cc >/dev/null || need="$need build-essential"
command -v glpsol >/dev/null || need="$need glpk-utils"
command -v valgrind >/dev/null || need="$need valgrind"
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing:$need (run as root or install them)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q $need >/dev/null
fi
