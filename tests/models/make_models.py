#!/usr/bin/python3
"""Writes the project's test models (ONNX) with inputs and float64 reference outputs.

For each model NAME (mlp, cnn, transformer) and batch size B it writes, into OUT_DIR:
  NAME_bB.onnx                 the model (opset 13, float32, static shapes)
  NAME_bB.in.INPUT.npy         a random input, float32
  NAME_bB.out.OUTPUT.npy       the expected output, computed in float64 by the NumPy code below
                               (written independently of the ONNX graph) and stored as float64

Usage: make_models.py OUT_DIR [--batches 1,32] [--seed 7]
Needs Debian's python3-onnx and python3-numpy (run with /usr/bin/python3).
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def int64s(name, values):
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)


def finish(name, nodes, inputs, outputs, initializers):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="ascend-run tests/models/make_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# ---- MLP 784-512-512-10: Gemm + Relu, Gemm + Relu, Gemm ----------------------------------------

def mlp(rng, batch):
    sizes = [784, 512, 512, 10]
    weights = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        w = rng.standard_normal((fan_out, fan_in)) / math.sqrt(fan_in)  # Gemm with transB = 1
        b = rng.standard_normal(fan_out) * 0.1
        weights.append((w, b))
    nodes, inits, x = [], [], "input"
    for i, (w, b) in enumerate(weights):
        inits += [tensor(f"w{i}", w), tensor(f"b{i}", b)]
        y = f"gemm{i}" if i + 1 < len(weights) else "logits"
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [y], transB=1, name=f"fc{i}"))
        if i + 1 < len(weights):
            nodes.append(helper.make_node("Relu", [y], [f"relu{i}"], name=f"relu{i}"))
            x = f"relu{i}"
    model = finish("mlp", nodes, [f32("input", [batch, 784])], [f32("logits", [batch, 10])], inits)

    inputs = {"input": rng.standard_normal((batch, 784)).astype(np.float32)}

    def reference(feed):
        h = feed["input"].astype(np.float64)
        for i, (w, b) in enumerate(weights):
            h = h @ np.asarray(w, np.float32).astype(np.float64).T + np.asarray(b, np.float32).astype(np.float64)
            if i + 1 < len(weights):
                h = np.maximum(h, 0)
        return {"logits": h}

    return model, inputs, reference(inputs)


# ---- CNN: Conv(1->8, 3x3, pad 1) - Relu - MaxPool 2x2 - Flatten - Gemm(1568 -> 10) ------------

def cnn(rng, batch):
    w = (rng.standard_normal((8, 1, 3, 3)) / 3.0).astype(np.float32)
    b = (rng.standard_normal(8) * 0.1).astype(np.float32)
    fw = (rng.standard_normal((10, 8 * 14 * 14)) / math.sqrt(8 * 14 * 14)).astype(np.float32)
    fb = (rng.standard_normal(10) * 0.1).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["input", "conv_w", "conv_b"], ["conv"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1], name="conv"),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], axis=1, name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1, name="fc"),
    ]
    inits = [tensor("conv_w", w), tensor("conv_b", b), tensor("fc_w", fw), tensor("fc_b", fb)]
    model = finish("cnn", nodes, [f32("input", [batch, 1, 28, 28])], [f32("logits", [batch, 10])], inits)
    inputs = {"input": rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)}

    def reference(feed):
        x = feed["input"].astype(np.float64)
        n = x.shape[0]
        padded = np.zeros((n, 1, 30, 30))
        padded[:, :, 1:29, 1:29] = x
        conv = np.zeros((n, 8, 28, 28))
        for ky in range(3):
            for kx in range(3):
                patch = padded[:, 0, ky:ky + 28, kx:kx + 28]  # [n, 28, 28]
                conv += w[:, 0, ky, kx].astype(np.float64)[None, :, None, None] * patch[:, None, :, :]
        conv += b.astype(np.float64)[None, :, None, None]
        relu = np.maximum(conv, 0)
        pool = relu.reshape(n, 8, 14, 2, 14, 2).max(axis=(3, 5))
        flat = pool.reshape(n, -1)
        return {"logits": flat @ fw.astype(np.float64).T + fb.astype(np.float64)}

    return model, inputs, reference(inputs)


# ---- Transformer block: seq 128, hidden 256, 4 heads ----------------------------------------
# x + Attention(LN(x)), then + FFN(LN(.)), with LayerNorm decomposed (ReduceMean, Sub, Pow, Add,
# Sqrt, Div, Mul, Add), heads split by Reshape with 0 and Transpose, Softmax on the last axis, and
# the FFN's GELU written with Erf.

def transformer(rng, batch, seq=128, hidden=256, heads=4, ffn=1024):
    head = hidden // heads
    p = {}
    for name, shape in [("wq", (hidden, hidden)), ("wk", (hidden, hidden)), ("wv", (hidden, hidden)),
                        ("wo", (hidden, hidden)), ("w1", (hidden, ffn)), ("w2", (ffn, hidden))]:
        p[name] = (rng.standard_normal(shape) / math.sqrt(shape[0])).astype(np.float32)
    for name, size in [("b1", ffn), ("b2", hidden)]:
        p[name] = (rng.standard_normal(size) * 0.1).astype(np.float32)
    for ln in ("ln1", "ln2"):
        p[ln + "_g"] = (1 + 0.1 * rng.standard_normal(hidden)).astype(np.float32)
        p[ln + "_b"] = (0.1 * rng.standard_normal(hidden)).astype(np.float32)
    consts = {"eps": np.float32(1e-5), "two": np.float32(2.0), "scale": np.float32(math.sqrt(head)),
              "half": np.float32(0.5), "one": np.float32(1.0), "sqrt2": np.float32(math.sqrt(2.0))}
    nodes = []

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def layer_norm(x, prefix):
        mean = node("ReduceMean", [x], prefix + "_mean", axes=[-1], keepdims=1)
        centred = node("Sub", [x, mean], prefix + "_centred")
        sq = node("Pow", [centred, "two"], prefix + "_sq")
        var = node("ReduceMean", [sq], prefix + "_var", axes=[-1], keepdims=1)
        std = node("Sqrt", [node("Add", [var, "eps"], prefix + "_var_eps")], prefix + "_std")
        normed = node("Div", [centred, std], prefix + "_normed")
        return node("Add", [node("Mul", [normed, prefix + "_g"], prefix + "_scaled"), prefix + "_b"], prefix + "_out")

    h1 = layer_norm("input", "ln1")
    split = int64s("split_shape", [0, 0, heads, head])
    merge = int64s("merge_shape", [0, 0, hidden])

    def heads_of(name):
        projected = node("MatMul", [h1, "w" + name], name)
        shaped = node("Reshape", [projected, "split_shape"], name + "_heads")
        return shaped

    q = node("Transpose", [heads_of("q")], "q_t", perm=[0, 2, 1, 3])      # [b, h, s, d]
    k = node("Transpose", [heads_of("k")], "k_t", perm=[0, 2, 3, 1])      # [b, h, d, s]
    v = node("Transpose", [heads_of("v")], "v_t", perm=[0, 2, 1, 3])      # [b, h, s, d]
    scores = node("Div", [node("MatMul", [q, k], "qk"), "scale"], "scores")
    attn = node("Softmax", [scores], "attn", axis=-1)
    ctx = node("Transpose", [node("MatMul", [attn, v], "ctx")], "ctx_t", perm=[0, 2, 1, 3])
    merged = node("Reshape", [ctx, "merge_shape"], "ctx_merged")
    resid1 = node("Add", ["input", node("MatMul", [merged, "wo"], "attn_out")], "resid1")
    h2 = layer_norm(resid1, "ln2")
    up = node("Add", [node("MatMul", [h2, "w1"], "ffn_up"), "b1"], "ffn_up_b")
    erf = node("Erf", [node("Div", [up, "sqrt2"], "gelu_scaled")], "gelu_erf")
    gelu = node("Mul", [node("Mul", [up, "half"], "gelu_half"), node("Add", [erf, "one"], "gelu_erf1")], "gelu")
    down = node("Add", [node("MatMul", [gelu, "w2"], "ffn_down"), "b2"], "ffn_down_b")
    node("Add", [resid1, down], "output")

    inits = [tensor(k_, v_) for k_, v_ in p.items()] + [tensor(k_, v_) for k_, v_ in consts.items()]
    inits += [split, merge]
    model = finish("transformer", nodes, [f32("input", [batch, seq, hidden])], [f32("output", [batch, seq, hidden])],
                   inits)
    inputs = {"input": rng.standard_normal((batch, seq, hidden)).astype(np.float32)}

    def reference(feed):
        d = {k_: v_.astype(np.float64) for k_, v_ in p.items()}
        x = feed["input"].astype(np.float64)

        def ln(t, prefix):
            mu = t.mean(axis=-1, keepdims=True)
            var = ((t - mu) ** 2).mean(axis=-1, keepdims=True)
            return (t - mu) / np.sqrt(var + 1e-5) * d[prefix + "_g"] + d[prefix + "_b"]

        def split_heads(t):
            return t.reshape(batch, seq, heads, head).transpose(0, 2, 1, 3)

        a = ln(x, "ln1")
        q_, k_, v_ = (split_heads(a @ d[w]) for w in ("wq", "wk", "wv"))
        s = q_ @ k_.transpose(0, 1, 3, 2) / math.sqrt(head)
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        s /= s.sum(axis=-1, keepdims=True)
        c = (s @ v_).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
        r1 = x + c @ d["wo"]
        u = ln(r1, "ln2") @ d["w1"] + d["b1"]
        erf = np.vectorize(math.erf)
        g = 0.5 * u * (1 + erf(u / math.sqrt(2)))
        return {"output": r1 + g @ d["w2"] + d["b2"]}

    return model, inputs, reference(inputs)


MODELS = {"mlp": mlp, "cnn": cnn, "transformer": transformer}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            rng = np.random.default_rng([args.seed, batch, list(MODELS).index(name)])
            model, inputs, outputs = MODELS[name](rng, batch)
            # The reference agrees with the graph on every output's shape (from strict shape inference).
            for out in model.graph.output:
                dims = tuple(d.dim_value for d in out.type.tensor_type.shape.dim)
                if dims != outputs[out.name].shape:
                    raise SystemExit(f"{name}: output {out.name} is {dims} in the graph, "
                                     f"{outputs[out.name].shape} in the reference")
            stem = os.path.join(args.out_dir, f"{name}_b{batch}")
            onnx.save(model, stem + ".onnx")
            for k, v in inputs.items():
                np.save(f"{stem}.in.{k}.npy", v)
            for k, v in outputs.items():
                np.save(f"{stem}.out.{k}.npy", v)
            print(f"{stem}.onnx: {len(model.graph.node)} nodes, inputs {list(inputs)}, outputs {list(outputs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
