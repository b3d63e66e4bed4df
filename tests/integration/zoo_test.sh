#!/usr/bin/env bash
# One network of the model zoo (tests/models/make_zoo.py) through `ascend-run run`, as a user runs a
# downloaded model: every input from its .npy, every output compared by --compare with the float64
# reference. The absolute tolerance is 1e-4 of the output's largest magnitude (logits of a deep
# random network reach hundreds, probabilities are below one), the relative one 1e-3.
#   zoo_test.sh ASCEND_RUN ZOO_DIR NAME
set -euo pipefail
cli=$1
dir=$2
name=$3
args=()
for f in "$dir/$name".in.*.npy; do
  input=${f#"$dir/$name".in.}
  args+=(--input "${input%.npy}=$f")
done
for f in "$dir/$name".out.*.npy; do
  output=${f#"$dir/$name".out.}
  args+=(--compare "${output%.npy}=$f")
done
atol=$(/usr/bin/python3 -c 'import sys, numpy as np; print(1e-4 * max(float(abs(np.load(f)).max()) for f in sys.argv[1:]))' \
  "$dir/$name".out.*.npy)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$cli" run "$dir/$name.onnx" --warmup 1 --iterations 1 --quiet --rtol 1e-3 --atol "$atol" --output-dir "$out" "${args[@]}"
