#!/usr/bin/env bash
# Profiling overhead as instruction counts (no timing noise): runs bench/prof_bench.cpp's enqueue
# loop once per configuration under callgrind, collecting only inside the loop on the main thread,
# and prints instructions per task and the ratio to `none`.
#   tools/prof_overhead_callgrind.sh [build dir, default build] [tasks, default 20000]
set -euo pipefail
build=${1:-build}
tasks=${2:-20000}
bin="$build/bin/arun_prof_bench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A ir
for mode in none off timeline api tasks; do
  ARUN_PROF_BENCH_TASKS=$tasks ARUN_PROF_BENCH_CALLGRIND=$mode \
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/cg.$mode" "$bin" >/dev/null 2>"$out/log.$mode" ||
    { cat "$out/log.$mode" >&2; exit 1; }
  ir[$mode]=$(awk '/^(summary|totals):/ {print $2; exit}' "$out/cg.$mode")
done
printf '%-9s %14s %12s %9s\n' mode instructions per_task vs_none
for mode in none off timeline api tasks; do
  awk -v m="$mode" -v i="${ir[$mode]}" -v n="${ir[none]}" -v t="$tasks" \
    'BEGIN { printf "%-9s %14d %12.1f %9.4f\n", m, i, i / t, i / n }'
done
