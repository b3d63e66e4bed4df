#!/usr/bin/env bash
# The main job: build, show the runtime (config, plugins, devices), run the demo on the simulated
# Ascend NPU with the default configuration (a double-buffered H2D -> C++ kernel -> D2H pipeline
# over three streams, verified against the host, with per-stage times and the overlap), then run
# the project's three ONNX models (tests/models/make_models.py: an MLP, a CNN, a transformer
# block) through `ascend-run run`, each checked against its float64 NumPy reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
# The build's own output is long; show its progress, one line per tenth, and the whole log on failure.
mkdir -p "$build"
echo "== building into $build (log: $build/build.log)"
if ! "$root/tools/build.sh" "$build" -DARUN_BUILD_TESTS=OFF -DARUN_BUILD_BENCH=OFF 2>&1 | tee "$build/build.log" |
  awk '/^setup:/ { print; fflush() }
       match($0, /^\[ *[0-9]+%\]/) { p = int(substr($0, 2, RLENGTH - 2) / 10) * 10
         if (p > shown) { shown = p; printf "   %3d%%  %s\n", p, substr($0, RLENGTH + 2); fflush() } }'; then
  cat "$build/build.log"
  echo "run.sh: the build failed (log above, and in $build/build.log)" >&2
  exit 1
fi
echo
echo "== ascend-run info"
"$build/bin/ascend-run" info
echo
echo "== ascend-run demo (tools/ascend-run/demo.cpp)"
"$build/bin/ascend-run" demo "$@"
models=$build/models
/usr/bin/python3 "$root/tests/models/make_models.py" "$models" --batches 1 >/dev/null
for m in mlp cnn transformer; do
  stem=$models/${m}_b1
  checks=()
  for ref in "$stem".out.*.npy; do     # NAME_b1.out.OUTPUT.npy: compare output OUTPUT with it
    out=${ref#"$stem".out.}
    checks+=(--compare "${out%.npy}=$ref")
  done
  echo
  echo "== ascend-run run $m (tests/models/make_models.py)"
  "$build/bin/ascend-run" run "$stem.onnx" --iterations 50 --input input="$stem.in.input.npy" \
    --output-dir "${stem}_outputs" "${checks[@]}"
done
