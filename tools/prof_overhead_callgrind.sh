#!/usr/bin/env bash
# Profiling overhead as instruction counts: runs bench/prof_bench.cpp's enqueue loop once per
# configuration under callgrind, collecting only inside the loop on the main thread, `repeats`
# times, and prints the fewest instructions per task seen and its ratio to `none`. Counts vary by a
# few percent between runs (lock-contention and wait paths depend on how valgrind interleaves the
# threads); that noise only ever adds instructions, so the minimum over repeats estimates the work
# itself.
#   tools/prof_overhead_callgrind.sh [build dir, default build] [tasks, default 20000] [repeats, default 5]
set -euo pipefail
build=${1:-build}
tasks=${2:-20000}
repeats=${3:-5}
bin="$build/bin/arun_prof_bench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
modes="none off timeline api tasks"
for r in $(seq "$repeats"); do
  for mode in $modes; do
    ARUN_PROF_BENCH_TASKS=$tasks ARUN_PROF_BENCH_CALLGRIND=$mode \
      valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/cg.$mode.$r" "$bin" \
      >/dev/null 2>"$out/log.$mode.$r" || { cat "$out/log.$mode.$r" >&2; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$out/cg.$mode.$r" >>"$out/ir.$mode"
  done
done
fewest() { sort -n "$1" | head -n 1; }
none=$(fewest "$out/ir.none")
printf '%-9s %14s %12s %9s   (fewest of %d runs, %d tasks)\n' mode instructions per_task vs_none "$repeats" "$tasks"
for mode in $modes; do
  awk -v m="$mode" -v i="$(fewest "$out/ir.$mode")" -v n="$none" -v t="$tasks" \
    'BEGIN { printf "%-9s %14d %12.1f %9.4f\n", m, i, i / t, i / n }'
done
