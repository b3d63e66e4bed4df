#!/usr/bin/env bash
# `ascend-run run` end to end on the generated test models: outputs written as .npy and checked
# with NumPy against the float64 references, random inputs, --compare catching a wrong result, a
# profile, and the errors of bad input.
#   cli_run_test.sh ASCEND_RUN MODELS_DIR
set -euo pipefail
cli=$1
models=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
py=/usr/bin/python3
# expect RC PATTERN ARGS...: ascend-run run ARGS must exit with RC and print PATTERN on stdout or stderr.
expect() {
  local want=$1 pattern=$2 rc=0
  shift 2
  "$cli" run "$@" >"$work/out" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || fail "ascend-run run $* returned $rc, not $want: $(cat "$work/out")"
  grep -q -- "$pattern" "$work/out" || fail "ascend-run run $*: no '$pattern' in: $(cat "$work/out")"
}

# Each model at batch 1 and 32 with its inputs, compared by ascend-run and again by NumPy.
for stem in mlp_b1 mlp_b32 cnn_b1 cnn_b32 transformer_b1; do
  ref=$(echo "$models/$stem".out.*.npy)
  out=${ref#"$models/$stem".out.}
  out=${out%.npy}
  expect 0 "$out vs .*: match" "$models/$stem.onnx" --iterations 3 --quiet --input input="$models/$stem.in.input.npy" \
    --output-dir "$work/$stem" --compare "$out=$ref"
  grep -q 'latency over 3 runs (after 1 warm-up): p50 ' "$work/out" || fail "$stem: no latency line: $(cat "$work/out")"
  "$py" - "$work/$stem/$out.npy" "$ref" <<'PY' || fail "$stem: the written output does not match the reference"
import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
assert got.dtype == np.float32, got.dtype
assert got.shape == want.shape, (got.shape, want.shape)
assert np.allclose(got, want, rtol=1e-3, atol=1e-4), np.abs(got - want).max()
PY
done

# --graph: the step captured once (aclmdlRICapture*) and replayed; the replayed outputs match the
# references too, and the captured graph holds the step's tasks.
for stem in cnn_b1 transformer_b1; do
  ref=$(echo "$models/$stem".out.*.npy)
  out=${ref#"$models/$stem".out.}
  out=${out%.npy}
  expect 0 "$out vs .*: match" "$models/$stem.onnx" --graph --iterations 3 --quiet \
    --input input="$models/$stem.in.input.npy" --output-dir "$work/g_$stem" --compare "$out=$ref"
  grep -q 'graph: the step captured as [1-9][0-9]* tasks on [1-9][0-9]* streams' "$work/out" ||
    fail "$stem --graph: no capture line: $(cat "$work/out")"
  grep -q 'latency over 3 replays (after 1 warm-up): p50 ' "$work/out" || fail "$stem --graph: no latency line"
  grep -q 'host cost of a replay (aclmdlRIExecuteAsync): p50 ' "$work/out" || fail "$stem --graph: no host cost line"
done

# Random inputs, the default output folder (<model>_outputs in the working directory).
(cd "$work" && "$cli" run "$models/cnn_b1.onnx" --iterations 2 --seed 5 >"$work/out" 2>&1) ||
  fail "random-input run failed: $(cat "$work/out")"
[ -s "$work/cnn_b1_outputs/logits.npy" ] || fail "no cnn_b1_outputs/logits.npy: $(cat "$work/out")"

# A profile of one run: the timeline is written and is valid JSON.
(cd "$work" && "$cli" run "$models/mlp_b1.onnx" --iterations 2 --profile >"$work/out" 2>&1) ||
  fail "profiled run failed: $(cat "$work/out")"
timeline=$(find "$work/ascend-run-profile" -name '*.json' | head -1)
[ -n "$timeline" ] || fail "--profile wrote no timeline: $(ls -R "$work")"
"$py" -c 'import json, sys; t = json.load(open(sys.argv[1])); assert t["traceEvents"]' "$timeline" ||
  fail "the timeline is not valid JSON"

# A wrong reference (another model's output of the same shape) is reported, exit code 3.
expect 3 "MISMATCH" "$models/mlp_b1.onnx" --iterations 1 --input input="$models/mlp_b1.in.input.npy" \
  --output-dir "$work/x" --compare logits="$models/cnn_b1.out.logits.npy"
# Bad input.
expect 1 "has no input of that name (its inputs: input)" "$models/mlp_b1.onnx" --input nope="$models/mlp_b1.in.input.npy"
expect 1 "holds shape (1, 1, 28, 28)" "$models/mlp_b1.onnx" --input input="$models/cnn_b1.in.input.npy"
head -c 300 "$models/mlp_b1.in.input.npy" >"$work/short.npy"
expect 1 "truncated data" "$models/mlp_b1.onnx" --input input="$work/short.npy"
printf 'not an onnx model' >"$work/bad.onnx"
expect 1 "not a valid ONNX ModelProto" "$work/bad.onnx"
expect 1 "cannot open model file" "$work/missing.onnx"
head -c 5000 "$models/cnn_b1.onnx" >"$work/truncated.onnx"
expect 1 "not a valid ONNX ModelProto" "$work/truncated.onnx"
# Issue 24 finding 7: the readers refuse what they cannot trust, with a message and exit code 1.
"$py" - "$work" <<'PY' || fail "could not write the hostile inputs"
import sys, numpy as np, onnx
from onnx import TensorProto, helper
work = sys.argv[1]
def npy(name, descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
    with open(f"{work}/{name}", 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + len(header).to_bytes(2, 'little') + header.encode() + data)
n = 784 * 4
npy('junk.npy', '<f4junk', '(1, 784)', b'\0' * n)
npy('trailing.npy', '<f4', '(1, 784)', b'\0' * (n + 1))
def model(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), f"{work}/{name}.onnx")
f32 = TensorProto.FLOAT
# Two outputs whose names became the same file once.
model('names', [helper.make_node('Relu', ['x'], ['a/b']), helper.make_node('Neg', ['x'], ['a_b'])],
      [helper.make_tensor_value_info('x', f32, [2])],
      [helper.make_tensor_value_info('a/b', f32, [2]), helper.make_tensor_value_info('a_b', f32, [2])])
np.save(f"{work}/x.npy", np.array([-1.0, 2.0], dtype=np.float32))
# NaN and infinities: Log of [-1, 0, 1] is [nan, -inf, 0].
model('log', [helper.make_node('Log', ['x'], ['y'])], [helper.make_tensor_value_info('x', f32, [3])],
      [helper.make_tensor_value_info('y', f32, [3])])
np.save(f"{work}/log_in.npy", np.array([-1.0, 0.0, 1.0], dtype=np.float32))
with np.errstate(all='ignore'):
    np.save(f"{work}/log_ref.npy", np.log(np.array([-1.0, 0.0, 1.0], dtype=np.float32)))
    np.save(f"{work}/log_ref64.npy", np.log(np.array([-1.0, 0.0, 1.0])))  # a finer reference: fine
np.save(f"{work}/log_int.npy", np.array([0, 0, 0], dtype=np.int64))
np.save(f"{work}/log_wrong.npy", np.array([0.0, -np.inf, 0.0], dtype=np.float32))
# An input of 2^40 elements.
model('huge', [helper.make_node('Relu', ['x'], ['y'])], [helper.make_tensor_value_info('x', f32, [1 << 40])],
      [helper.make_tensor_value_info('y', f32, [1 << 40])])
# Finding 1: strides [0, 0] crashed libonnx's shape inference.
model('stride0', [helper.make_node('MaxPool', ['x'], ['y'], kernel_shape=[2, 2], strides=[0, 0])],
      [helper.make_tensor_value_info('x', f32, [1, 1, 4, 4])], [helper.make_tensor_value_info('y', f32, None)])
PY
expect 1 "is not supported" "$models/mlp_b1.onnx" --input input="$work/junk.npy"
expect 1 "trailing data" "$models/mlp_b1.onnx" --input input="$work/trailing.npy"
expect 1 "is a directory" "$models/mlp_b1.onnx" --input input="$work"
expect 1 "not a regular file" "$models/mlp_b1.onnx" --input input=/dev/zero
expect 1 "not a regular file" /dev/zero
expect 1 "is a directory" "$work"
mkfifo "$work/fifo.onnx"
expect 1 "not a regular file" "$work/fifo.onnx"
expect 1 "attribute 'strides' is \[0, 0\]" "$work/stride0.onnx"
# 2^40 elements: refused by the importer's tensor limit; with the limit lifted, before host allocation.
expect 1 "declares dimension 0 as 1099511627776" "$work/huge.onnx"
ARUN_MODEL_MAX_TENSOR_BYTES=99999999999999 expect 1 "more than this machine has" "$work/huge.onnx"
# --compare: NaN matches NaN and -inf matches -inf (in float32 or float64 references); a NaN against
# a number does not; nor does a reference of integers for a float output.
expect 0 "y vs .*: .*0 of 3 outside .*: match" "$work/log.onnx" --input x="$work/log_in.npy" \
  --compare y="$work/log_ref.npy" --iterations 1 --output-dir "$work/log"
expect 3 "1 of 3 outside .*MISMATCH" "$work/log.onnx" --input x="$work/log_in.npy" \
  --compare y="$work/log_wrong.npy" --iterations 1 --output-dir "$work/log"
expect 0 "0 of 3 outside .*: match" "$work/log.onnx" --input x="$work/log_in.npy" \
  --compare y="$work/log_ref64.npy" --iterations 1 --output-dir "$work/log"
expect 3 "holds 'i8' elements, the output 'f4': MISMATCH" "$work/log.onnx" --input x="$work/log_in.npy" \
  --compare y="$work/log_int.npy" --iterations 1 --output-dir "$work/log"
# Outputs named "a/b" and "a_b" get files of their own.
expect 0 "output a_b .* -> $work/names/a_b.npy" "$work/names.onnx" --input x="$work/x.npy" --output-dir "$work/names" \
  --iterations 1
"$py" - "$work/names" <<'PY' || fail "outputs a/b and a_b: $(ls "$work/names")"
import sys, numpy as np
d = sys.argv[1]
assert np.array_equal(np.load(f"{d}/a_b-0.npy"), [0.0, 2.0]), np.load(f"{d}/a_b-0.npy")
assert np.array_equal(np.load(f"{d}/a_b.npy"), [1.0, -2.0]), np.load(f"{d}/a_b.npy")
PY
expect 2 "ascend-run run: --iterations: must be a whole number from 1" "$models/mlp_b1.onnx" --iterations 0
expect 2 "ascend-run run: --input: must be NAME=FILE.npy, not 'justaname'" "$models/mlp_b1.onnx" --input justaname
expect 2 "ascend-run run: model is required"
echo "cli run test: ok"
