#!/usr/bin/env bash
# Configures and builds ascend-run into a build folder (default: build/), installing the Debian
# packages it needs first. Extra arguments go to cmake's configure step; ARUN_TARGETS (a space-
# separated list) limits what is built.
#   tools/build.sh [BUILD_DIR] [cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
"$root/tools/setup.sh"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
if [ -n "${ARUN_TARGETS:-}" ]; then
  # shellcheck disable=SC2086
  cmake --build "$build" -j"$jobs" --target ${ARUN_TARGETS}
else
  cmake --build "$build" -j"$jobs"
fi
