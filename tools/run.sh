#!/usr/bin/env bash
# The main job: build, show the runtime (config, plugins, devices), then run the demo on the
# simulated Ascend NPU with the default configuration: a double-buffered H2D -> C++ kernel -> D2H
# pipeline over three streams, verified against the host, with per-stage times and the overlap.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/tools/build.sh" "$build" -DARUN_BUILD_TESTS=OFF -DARUN_BUILD_BENCH=OFF >/dev/null
echo "== ascend-run info"
"$build/bin/ascend-run" info
echo
echo "== ascend-run demo (tools/ascend-run/demo.cpp)"
"$build/bin/ascend-run" demo "$@"
