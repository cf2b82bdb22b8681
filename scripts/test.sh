#!/usr/bin/env bash
# The README's test command: set up, build, run every test (ctest).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh"
"$here/scripts/build.sh"
cd "${BUILD_DIR:-$here/build}"
ctest --output-on-failure -j"${JOBS:-2}" --timeout 300
