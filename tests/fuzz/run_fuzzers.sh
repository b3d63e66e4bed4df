#!/usr/bin/env bash
# Runs every fuzz target of a build made with -DARUN_BUILD_FUZZERS=ON for SECONDS each, two at a
# time, from its seed corpus (new inputs go to BUILD/fuzz-corpus, never into the repository).
# Exits non-zero if any target finds something; prints each target's executions.
#   tests/fuzz/run_fuzzers.sh BUILD [SECONDS] [TARGET...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run_fuzzers.sh BUILD [SECONDS] [TARGET...]}
seconds=${2:-60}
shift 2 2>/dev/null || shift $#
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config onnx npy api)
work=$build/fuzz-corpus
mkdir -p "$work/artifacts"
# Death by a sanitizer report, also in forked children; the device model reserves big address ranges.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TMPDIR=${TMPDIR:-/tmp}

run_one() {
  local t=$1
  mkdir -p "$work/$t"
  local extra=()
  # The runtime keeps per-process state (threads, caches) across inputs; its leaks are checked by
  # the ASan test pass, not per input here.
  [ "$t" = api ] && extra+=(-detect_leaks=0)
  "$build/bin/fuzz_$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$t-" "${extra[@]}" "$work/$t" "$here/$t/corpus" \
    >"$work/$t.log" 2>&1
}

status=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  if [ ${#pids[@]} -ge 2 ]; then
    for i in "${!pids[@]}"; do
      if ! wait "${pids[$i]}"; then
        echo "fuzz_${names[$i]}: FOUND SOMETHING (log: $work/${names[$i]}.log)"; tail -40 "$work/${names[$i]}.log"; status=1
      fi
    done
    pids=()
    names=()
  fi
done
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "fuzz_${names[$i]}: FOUND SOMETHING (log: $work/${names[$i]}.log)"; tail -40 "$work/${names[$i]}.log"; status=1
  fi
done
for t in "${targets[@]}"; do
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$t.log" | awk '{print $2}')
  echo "fuzz_$t: ${runs:-?} executions in ${seconds}s, corpus $(ls "$work/$t" | wc -l) new inputs"
done
exit $status
