#!/usr/bin/env bash
# integration.speedscope: profiles an unmodified example with the timeline sink (slice_args = false)
# and loads the trace into speedscope's importer under Node.js (speedscope_check.cjs checks the tracks).
# Exit 77 (ctest SKIP) only when node or the speedscope package is absent.
#   speedscope_test.sh EXAMPLE_BIN SCRATCH_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
example=$1
scratch=$2
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (tools/setup.sh installs Debian's nodejs)"
  exit 77
fi
if [ ! -d "$here/node_modules/speedscope" ]; then
  echo "SKIP: speedscope is not installed in $here (tools/setup.sh runs npm install there)"
  exit 77
fi
rm -rf "$scratch"
mkdir -p "$scratch"
cat > "$scratch/speedscope.toml" <<TOML
[[plugin]]
kind = "device"
name = "ascend"

[[plugin]]
kind = "profiler"
name = "timeline"
[plugin.options]
slice_args = false
TOML
(cd "$scratch" && ASCEND_RUN_CONFIG="$scratch/speedscope.toml" ASCEND_RUN_PROFILING=timeline \
  ASCEND_RUN_PROFILING_DIR="$scratch/out" "$example" > example.log 2>&1) ||
  { echo "FAIL: the example failed:"; cat "$scratch/example.log"; exit 1; }
traces=("$scratch"/out/timeline-*.json)
if [ ${#traces[@]} -ne 1 ] || [ ! -f "${traces[0]}" ]; then
  echo "FAIL: expected one timeline in $scratch/out"
  ls -l "$scratch/out" || true
  exit 1
fi
node "$here/speedscope_check.cjs" "${traces[0]}"
