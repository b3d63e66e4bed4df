#!/usr/bin/env bash
# Model latency of ascend-run (simulated NPU, `ascend-run run`) beside ONNX Runtime's CPU execution
# provider (bench/ort/ort_latency.mjs), on the project's test models and the model zoo
# (tests/models/make_zoo.py), in one run: each round runs every case under both, alternating, and
# the table gives the medians over rounds of each p50.
#   bash bench/model_vs_ort.sh [BUILD_DIR] [ROUNDS] [CASES]
# CASES (default: all) is a space-separated list, e.g. "resnet50_v1 mlp_b1". ARUN_CONV_ENGINE=openblas
# runs ascend-run's convolutions on OpenBLAS instead of oneDNN.
# "1 thread" is configs/single-core.toml (one AI core) for us and intraOpNumThreads=1 for ORT;
# "2 threads" is the default configuration (kernels split over min(AI cores, CPUs) = 2 blocks) and
# intraOpNumThreads=2. Both do 10 warm-up runs, then time 50. Needs ARUN_BENCH_PEERS=1 bash tools/setup.sh
# (Node.js and onnxruntime-node 1.30.0 from npm into bench/ort/node_modules).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-3}
cli=$build/bin/ascend-run
configs=$build/share/ascend-run/configs
[ -x "$cli" ] || { echo "model_vs_ort: $cli not built" >&2; exit 1; }
[ -d "$root/bench/ort/node_modules/onnxruntime-node" ] ||
  { echo "model_vs_ort: onnxruntime-node is missing: ARUN_BENCH_PEERS=1 bash tools/setup.sh" >&2; exit 1; }
models=$build/bench-models
/usr/bin/python3 "$root/tests/models/make_models.py" "$models" >/dev/null
zoo=(resnet50_v1 resnet50_v2 densenet121 inception_v1 inception_v2 squeezenet1.0 squeezenet1.1 shufflenet vgg19
     alexnet mobilenetv2 bert_encoder)
[ -f "$models/vgg19.onnx" ] || /usr/bin/python3 "$root/tests/models/make_zoo.py" "$models" >/dev/null
read -r -a cases <<<"${3:-mlp_b1 mlp_b32 cnn_b1 cnn_b32 transformer_b1 transformer_b32 ${zoo[*]}}"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for ((r = 1; r <= rounds; ++r)); do
  for threads in 1 2; do
    config=$configs/default.toml
    [ "$threads" = 1 ] && config=$configs/single-core.toml
    for c in "${cases[@]}"; do
      inputs=()
      for f in "$models/$c".in.*.npy; do
        name=${f#"$models/$c".in.}
        inputs+=(--input "${name%.npy}=$f")
      done
      p50=$("$cli" run "$models/$c.onnx" --config "$config" --warmup 10 --iterations 50 --quiet \
              "${inputs[@]}" --output-dir "$models/out" |
            sed -n 's/^latency over .* p50 \([0-9.]*\) ms.*/\1/p')
      echo "arun $c $threads $p50" >>"$raw"
      node "$root/bench/ort/ort_latency.mjs" --intra "$threads" --warmup 10 --runs 50 "$models/$c.onnx" |
        sed -n "s/^ort \([^ ]*\) intra=\([0-9]*\) p50_ms=\([0-9.]*\).*/ort \1 \2 \3/p" >>"$raw"
    done
  done
  echo "round $r of $rounds done" >&2
done
echo "median p50 latency over $rounds rounds, ms (ratio = ascend-run / ONNX Runtime)"
printf '| case | threads | ascend-run | ONNX Runtime | ratio |\n| --- | ---: | ---: | ---: | ---: |\n'
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for c in "${cases[@]}"; do
  for threads in 1 2; do
    ours=$(awk -v c="$c" -v t="$threads" '$1 == "arun" && $2 == c && $3 == t {print $4}' "$raw" | median)
    peer=$(awk -v c="$c" -v t="$threads" '$1 == "ort" && $2 == c && $3 == t {print $4}' "$raw" | median)
    awk -v c="$c" -v t="$threads" -v a="$ours" -v o="$peer" \
      'BEGIN {printf "| %s | %s | %.3f | %.3f | %.2f |\n", c, t, a, o, (o > 0 ? a / o : 0)}'
  done
done
