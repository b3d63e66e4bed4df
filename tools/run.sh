#!/usr/bin/env bash
# The main job: build, then show the runtime (config, plugins, devices) and run the quickstart
# sample on the simulated Ascend NPU with the default configuration.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/tools/build.sh" "$build" -DARUN_BUILD_TESTS=OFF -DARUN_BUILD_BENCH=OFF >/dev/null
echo "== ascend-run info"
"$build/bin/ascend-run" info
echo
echo "== quickstart (examples/quickstart/quickstart.c)"
"$build/bin/quickstart"
