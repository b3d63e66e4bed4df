#!/usr/bin/env bash
# A/B latency of ascend-run alone under environment settings, interleaved per run so that a noisy
# machine's load falls on every setting alike: for each round, case and thread count, one
# `ascend-run run` per setting in turn; the table gives the median over rounds of each run's p50
# and of its min (the least disturbed run: on a loaded machine the steadier of the two).
#   bash bench/model_ab.sh [BUILD_DIR] [ROUNDS] [CASES] -- 'NAME=ENV ...' 'NAME=ENV ...' ...
# e.g. bash bench/model_ab.sh build 3 "mobilenetv2 shufflenet" -- 'unfused=ARUN_MODEL_FUSE=0' 'fused='
# A setting is a name, '=', then space-separated VAR=VALUE assignments (none: the defaults).
# Models come from bench/model_vs_ort.sh's folder (BUILD_DIR/bench-models; run that script once).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-3}
read -r -a cases <<<"${3:-resnet50_v1 mobilenetv2}"
shift 3
[ "${1:-}" = "--" ] && shift
settings=("$@")
cli=$build/bin/ascend-run
configs=$build/share/ascend-run/configs
models=$build/bench-models
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for ((r = 1; r <= rounds; ++r)); do
  for c in "${cases[@]}"; do
    inputs=()
    for f in "$models/$c".in.*.npy; do
      name=${f#"$models/$c".in.}
      inputs+=(--input "${name%.npy}=$f")
    done
    for threads in 1 2; do
      config=$configs/default.toml
      [ "$threads" = 1 ] && config=$configs/single-core.toml
      for s in "${settings[@]}"; do
        read -r -a assigns <<<"${s#*=}"
        p50=$(env "${assigns[@]}" "$cli" run "$models/$c.onnx" --config "$config" --warmup 5 --iterations 30 \
                --quiet "${inputs[@]}" --output-dir "$models/out" |
              sed -n 's/^latency over .* p50 \([0-9.]*\) ms.* min \([0-9.]*\) ms.*/\1 \2/p')
        echo "${s%%=*} $c $threads $p50" >>"$raw"
      done
    done
  done
  echo "round $r of $rounds done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
names=()
for s in "${settings[@]}"; do names+=("${s%%=*}"); done
echo "median over $rounds rounds of each run's p50 / min latency, ms (ratio of the mins: each setting / the first)"
printf '| case | threads |'
for n in "${names[@]}"; do printf ' %s p50 / min |' "$n"; done
printf '\n| --- | ---: |'
for n in "${names[@]}"; do printf ' ---: |'; done
echo
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for c in "${cases[@]}"; do
  for threads in 1 2; do
    printf '| %s | %s |' "$c" "$threads"
    base=
    for n in "${names[@]}"; do
      p=$(awk -v n="$n" -v c="$c" -v t="$threads" '$1 == n && $2 == c && $3 == t {print $4}' "$raw" | median)
      m=$(awk -v n="$n" -v c="$c" -v t="$threads" '$1 == n && $2 == c && $3 == t {print $5}' "$raw" | median)
      [ -z "$base" ] && base=$m
      awk -v p="$p" -v m="$m" -v b="$base" 'BEGIN {printf " %.2f / %.2f (%.2f) |", p, m, (b > 0 ? m / b : 0)}'
    done
    echo
  done
done
