#!/usr/bin/env bash
# The test job: a normal build with every test (unit, conformance against each backend,
# integration) and the conformance suite under every scheduling and allocator policy, then the tests
# again under ASan+UBSan, the concurrent core under TSan, and a bounded fuzzing pass (tests/fuzz). ARUN_SANITIZERS=0 skips the sanitizer
# passes, ARUN_FUZZ=0 the fuzzing; ARUN_FUZZ_SECONDS sets each fuzz target's time (default 45).
set -euo pipefail
# Plugins are loaded only from files and folders nobody else can write (core/src/plugins): build
# with a umask that gives them those permissions, whatever the caller's.
umask 022
root=$(cd "$(dirname "$0")/.." && pwd)
base=${BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

# Section headers carry the seconds since the start, so a CI log shows where the time goes.
section() { echo "== $* [${SECONDS}s]"; }

run_ctest() {  # build_dir [ctest args...]
  local dir=$1
  shift
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$jobs" "$@"
}

section "normal build"
# Tests on explicitly: the build folder may be one tools/run.sh configured without them.
"$root/tools/build.sh" "$base" -DARUN_BUILD_TESTS=ON -DARUN_BUILD_BENCH=ON -DCMAKE_INSTALL_PREFIX="$base/test-prefix"
run_ctest "$base"

# One conformance run per (setting, configuration), $jobs at a time (the runs mostly wait on the
# simulated devices, so two share two CPUs well); a failed run prints its output and fails the job.
#   conformance_matrix VAR "value1 value2 ..." config.toml...
conformance_matrix() {
  local var=$1 values=$2 logs status=0 n=0
  shift 2
  logs=$(mktemp -d)
  for value in $values; do
    for cfg in "$@"; do
      n=$((n + 1))
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
      (
        rc=0
        env "$var=$value" ARUN_CONFORMANCE_CONFIGS="$cfg" "$base/bin/conformance_tests" --gtest_brief=1 \
          >"$logs/$n.log" 2>&1 || rc=$?
        echo "$rc" >"$logs/$n.rc"
      ) &
      echo "$var=$value $(basename "$cfg")" >"$logs/$n.name"
    done
  done
  wait
  for i in $(seq 1 "$n"); do
    if [ "$(cat "$logs/$i.rc")" != "0" ]; then
      echo "-- FAILED: $(cat "$logs/$i.name")"
      # What failed first (a long log is cut in the middle when shown), then the whole log.
      grep -A8 -E ': Failure$|^\[  FAILED  \]' "$logs/$i.log" | head -80 || true
      echo "-- its whole log:"
      cat "$logs/$i.log"
      status=1
    else
      echo "-- $(cat "$logs/$i.name"): $(grep -m1 "PASSED" "$logs/$i.log" || tail -1 "$logs/$i.log")"
    fi
  done
  rm -rf "$logs"
  return $status
}

# The suite must hold under every scheduling policy, not only the default: once per policy (the
# scheduler plugin included), against each backend and the one-AI-core configuration.
section "conformance under each scheduling policy"
cfgdir="$base/share/ascend-run/configs"
conformance_matrix ASCEND_RUN_SCHED "priority:aging_us=100 fifo round_robin wrr:weights=4,2,1 fair sjf" \
  "$cfgdir/default.toml" "$cfgdir/null.toml" "$cfgdir/single-core.toml"

# And under each allocator policy beyond the default `direct` (plugin-built, with options).
section "conformance under each allocator policy"
conformance_matrix ASCEND_RUN_ALLOC "caching caching:max_split=40MiB,release_threshold=64MiB,round=1KiB caching:expandable_segments=true bins bins:max_bin=64KiB" \
  "$cfgdir/default.toml" "$cfgdir/null.toml"

# And with the Ascend model's worker pool sized 1, 2 and 8 threads (issue 16: the units are logical,
# whatever the pool's size; 1 makes every hand-off go through the queue and the pool's growth).
section "conformance with 1, 2 and 8 device workers"
pooldir=$(mktemp -d)
pool_cfgs=()
for n in 1 2 8; do
  sed "s/^copy_engines = .*/&\nexecutor_threads = $n/" "$cfgdir/default.toml" >"$pooldir/workers-$n.toml"
  grep -q "^executor_threads = $n" "$pooldir/workers-$n.toml"
  pool_cfgs+=("$pooldir/workers-$n.toml")
done
conformance_matrix ARUN_POOL_MATRIX "1" "${pool_cfgs[@]}"
rm -rf "$pooldir"

# The sanitizer passes and the fuzzers are built with clang at -O1 with line tables: clang compiles an
# instrumented file about twice as fast as gcc, and one ASan+UBSan build serves both the tests and
# the libFuzzer targets (tests/fuzz). The test programs themselves are compiled at -O0. The libraries are
# unity builds (8 sources per compiler run: most of a file's time is parsing the headers they share,
# so arun_core compiles ~2x faster; tests/CMakeLists.txt keeps the tests out); the normal build
# above stays one file per run, so every file still compiles on its own.
sanitizer_build() {  # build_dir sanitizers [cmake args...]
  local dir=$1 sanitize=$2
  shift 2
  CC=clang CXX=clang++ "$root/tools/build.sh" "$dir" -DCMAKE_BUILD_TYPE=None -DARUN_SANITIZE="$sanitize" \
    -DCMAKE_C_FLAGS="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 \
    -DARUN_TEST_COMPILE_OPTIONS=-O0 -DARUN_BUILD_TESTS=ON -DARUN_BUILD_BENCH=OFF "$@"
}
fuzz=OFF
[ "${ARUN_FUZZ:-1}" != "0" ] && fuzz=ON
if [ "${ARUN_SANITIZERS:-1}" != "0" ] || [ "$fuzz" = ON ]; then
  # ARUN_BUILD_FUZZERS adds libFuzzer's coverage instrumentation to every library (and needs ASan).
  section "ASan + UBSan build (clang)"
  sanitizer_build "$base-asan" address,undefined -DARUN_BUILD_FUZZERS=$fuzz \
    -DCMAKE_INSTALL_PREFIX="$base-asan/test-prefix"
  [ "$fuzz" = ON ] && cmake --build "$base-asan" -j"$jobs" --target arun_fuzzers
fi
if [ "${ARUN_SANITIZERS:-1}" != "0" ]; then
  section "ASan + UBSan tests"
  # Death tests fork; the simulated device reserves large address ranges, which ASan must allow.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest "$base-asan" -E '^integration'

  section "TSan (the concurrent core and the device model)"
  ARUN_TARGETS="core_test ascend_device_test conformance_tests model_conformance_tests arun_device_null arun_device_ascend arun_configs ascend-run api_stress_test profiler_test profiler_collection_test hccl_test" \
    sanitizer_build "$base-tsan" thread
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  "$base-tsan/bin/core_test"
  # Death tests fork a multi-threaded process, which TSan cannot follow: they run in the other passes.
  "$base-tsan/bin/ascend_device_test" --gtest_filter='-*Death*:*DeathTest*'
  # The profiler: per-thread rings, the collector and the sinks, with work on several streams.
  "$base-tsan/bin/profiler_test" --gtest_filter='-*Death*:*DeathTest*'
  "$base-tsan/bin/profiler_collection_test"
  # stress.*: tests/stress (threads x streams x random task mixes), against every backend.
  # hccl.*: ranks as threads of one process exchanging through the devices (tests/hccl).
  run_ctest "$base-tsan" -R '^(conformance|demo|stress|model\.|hccl\.(collectives|management|errors)$)'
fi
if [ "$fuzz" = ON ]; then
  # Each libFuzzer target runs from its seed corpus (tests/fuzz/<target>/corpus) for a bounded time,
  # two at a time; any crash, leak, timeout or sanitizer report fails the job and leaves the input
  # in <build>/fuzz-corpus/artifacts.
  section "fuzzing"
  "$root/tests/fuzz/run_fuzzers.sh" "$base-asan" "${ARUN_FUZZ_SECONDS:-45}"
fi
section "all tests passed"
