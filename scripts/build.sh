#!/usr/bin/env bash
# Configures and builds everything, the tests included, into ${BUILD_DIR:-build} (extra cmake
# arguments pass through). The tests are asked for by name: scripts/demo.sh turns them off in the
# same folder.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DCUBLASSPY_BUILD_TESTS=ON "$@" >/dev/null
cmake --build "$build" -j"${JOBS:-2}"
