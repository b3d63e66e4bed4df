#!/usr/bin/python3
"""Writes the classic model-zoo architectures as ONNX models with random weights, a random input
and float64 reference outputs (tests/models/onnx_reference.py, written from the ONNX operator
specification).

The networks are built by this script (no download): ResNet-50 v1 and v2, DenseNet-121,
Inception v1 (GoogLeNet, with LRN) and v2 (BN-Inception), SqueezeNet 1.0 and 1.1, ShuffleNet
(v1, 3 groups), VGG-19, AlexNet (grouped convolutions and LRN, as Caffe's), MobileNetV2 and a
2-layer BERT-style encoder. Each uses the opset its published export uses (7-10 for the image
classics, 12-13 for the rest) and the operators that export contains: a SqueezeNet 1.0 applies
Softmax to [N, 1000, 1, 1] with opset-9 semantics, MobileNetV2 clips with min/max inputs, the
encoder reshapes through Shape/Gather/Unsqueeze/Concat as PyTorch's exporter writes it.

For each NAME it writes into OUT_DIR: NAME.onnx, NAME.in.INPUT.npy, NAME.out.OUTPUT.npy (float64).
Usage: make_zoo.py OUT_DIR [--models a,b] [--image 224] [--seed 11] [--list]
--image sets the input resolution of the networks with a global pool before their classifier
(VGG-19 and AlexNet keep 224 / 227: their classifiers fix it).
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_reference  # noqa: E402


class Net:
    """A graph under construction: nodes, float32 initializers drawn from `rng`, unique names."""

    def __init__(self, name, rng, opset):
        self.name, self.rng, self.opset = name, rng, opset
        self.nodes, self.weights, self.count = [], {}, 0

    def uid(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, prefix, array, dtype=np.float32):
        name = self.uid(prefix)
        self.weights[name] = np.asarray(array, dtype=dtype)
        return name

    def node(self, op, ins, outs=1, **attrs):
        name = self.uid(op.lower())
        names = [name] if outs == 1 else [f"{name}_{i}" for i in range(outs)]
        self.nodes.append(helper.make_node(op, ins, names, name=name, **attrs))
        return names[0] if outs == 1 else names

    # Layers, with weights scaled so that activations stay of order one through deep stacks.
    def conv(self, x, cin, cout, k, stride=1, pad=None, group=1, bias=True):
        fan_in = cin // group * k * k
        w = self.const("w", self.rng.standard_normal((cout, cin // group, k, k), dtype=np.float32) * math.sqrt(2.0 / fan_in))
        ins = [x, w]
        if bias:
            ins.append(self.const("b", 0.05 * self.rng.standard_normal(cout)))
        p = k // 2 if pad is None else pad
        pads = list(p) if isinstance(p, (list, tuple)) else [p] * 4
        return self.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=pads, group=group)

    def bn(self, x, c):
        scale = self.const("gamma", 1.0 + 0.1 * self.rng.standard_normal(c))
        shift = self.const("beta", 0.1 * self.rng.standard_normal(c))
        mean = self.const("mean", 0.1 * self.rng.standard_normal(c))
        var = self.const("var", 1.0 + 0.5 * self.rng.random(c))
        attrs = {"epsilon": 1e-5}
        if self.opset < 9:
            attrs["spatial"] = 1  # written by the opset 7-8 exporters
        return self.node("BatchNormalization", [x, scale, shift, mean, var], **attrs)

    def relu(self, x):
        return self.node("Relu", [x])

    def conv_bn_relu(self, x, cin, cout, k, stride=1, pad=None, group=1):
        return self.relu(self.bn(self.conv(x, cin, cout, k, stride, pad, group, bias=False), cout))

    def maxpool(self, x, k, s, pads=(0, 0, 0, 0), **attrs):
        return self.node("MaxPool", [x], kernel_shape=[k, k], strides=[s, s], pads=list(pads), **attrs)

    def avgpool(self, x, k, s, pads=(0, 0, 0, 0), **attrs):
        return self.node("AveragePool", [x], kernel_shape=[k, k], strides=[s, s], pads=list(pads), **attrs)

    def gemm(self, x, fin, fout, scale=1.0):
        w = self.const("fc_w", self.rng.standard_normal((fout, fin), dtype=np.float32) * scale / math.sqrt(fin))
        b = self.const("fc_b", 0.05 * self.rng.standard_normal(fout))
        return self.node("Gemm", [x, w, b], transB=1)

    def classifier(self, x, c, classes=1000, softmax=True, dropout=False, scale=1.0):
        """GlobalAveragePool - Flatten - [Dropout] - Gemm - [Softmax]."""
        h = self.node("Flatten", [self.node("GlobalAveragePool", [x])], axis=1)
        if dropout:
            h = self.dropout(h)
        logits = self.gemm(h, c, classes, scale)
        return self.node("Softmax", [logits], axis=1) if softmax else logits

    def dropout(self, x):
        return self.node("Dropout", [x], ratio=0.5) if self.opset < 12 else self.node("Dropout", [x])

    def finish(self, inputs, outputs, feed):
        """The model, its reference outputs ({public name: float64 array}) on `feed`. `outputs` maps
        the graph's output tensors to public names; their shapes are the reference's."""
        for node in self.nodes:
            node.output[:] = [outputs.get(o, o) for o in node.output]
            node.input[:] = [outputs.get(i, i) for i in node.input]

        def model_of(outs, inits, extra_inputs):
            graph = helper.make_graph(self.nodes, self.name, inputs + extra_inputs, outs, inits)
            m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                  producer_name="ascend-run tests/models/make_zoo.py")
            m.ir_version = 7
            return m

        # The reference runs on the bare graph (weights as inputs), which is also what the checker
        # validates: serialising hundreds of MB of weights for it would cost more than the rest.
        bare = model_of([], [], [])
        ref = onnx_reference.evaluate(bare, {**feed, **self.weights}, list(outputs.values()))
        elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
        outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(ref[n].shape)) for n in outputs.values()]
        weight_inputs = [helper.make_tensor_value_info(k, elem[v.dtype], list(v.shape)) for k, v in self.weights.items()]
        onnx.checker.check_model(model_of(outs, [], weight_inputs))
        inits = [numpy_helper.from_array(v, k) for k, v in self.weights.items()]
        return model_of(outs, inits, []), ref


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def image_model(net, x, size, output, channels=3):
    """Finishes an image classifier whose graph ends at `x`: input [1, 3, size, size]."""
    feed = {"data": net.rng.standard_normal((1, channels, size, size)).astype(np.float32)}
    return net.finish([f32("data", [1, channels, size, size])], {x: output}, feed) + (feed,)


# ---- ResNet-50 -----------------------------------------------------------------------------------

def resnet50(rng, image, version):
    net = Net(f"resnet50_v{version}", rng, 7)
    x = net.conv("data", 3, 64, 7, 2, 3, bias=False)
    x = net.relu(net.bn(x, 64))
    x = net.maxpool(x, 3, 2, (1, 1, 1, 1))
    c = 64
    for stage, (width, blocks) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        for i in range(blocks):
            stride = 2 if i == 0 and stage > 0 else 1
            out = width * 4
            if version == 1:  # post-activation, stride in the first 1x1 (the original paper's)
                h = net.conv_bn_relu(x, c, width, 1, stride, 0)
                h = net.conv_bn_relu(h, width, width, 3)
                h = net.bn(net.conv(h, width, out, 1, 1, 0, bias=False), out)
                short = x if i > 0 else net.bn(net.conv(x, c, out, 1, stride, 0, bias=False), out)
                x = net.relu(net.node("Add", [h, short]))
            else:  # pre-activation (He et al. 2016): BN-ReLU before each convolution
                pre = net.relu(net.bn(x, c))
                h = net.conv(pre, c, width, 1, 1, 0, bias=False)
                h = net.conv(net.relu(net.bn(h, width)), width, width, 3, stride, bias=False)
                h = net.conv(net.relu(net.bn(h, width)), width, out, 1, 1, 0, bias=False)
                short = x if i > 0 else net.conv(pre, c, out, 1, stride, 0, bias=False)
                x = net.node("Add", [h, short])
            c = out
    if version == 2:
        x = net.relu(net.bn(x, c))
    return image_model(net, net.classifier(x, c, softmax=False), image, "logits")


# ---- DenseNet-121 --------------------------------------------------------------------------------

def densenet121(rng, image):
    net = Net("densenet121", rng, 9)
    x = net.maxpool(net.conv_bn_relu("data", 3, 64, 7, 2, 3), 3, 2, (1, 1, 1, 1))
    c, growth = 64, 32
    for b, layers in enumerate((6, 12, 24, 16)):
        feats = [x]
        for _ in range(layers):
            h = net.conv(net.relu(net.bn(x, c)), c, 4 * growth, 1, 1, 0, bias=False)
            h = net.conv(net.relu(net.bn(h, 4 * growth)), 4 * growth, growth, 3, bias=False)
            feats.append(h)
            c += growth
            x = net.node("Concat", feats, axis=1)
        if b < 3:
            x = net.conv(net.relu(net.bn(x, c)), c, c // 2, 1, 1, 0, bias=False)
            c //= 2
            x = net.avgpool(x, 2, 2)
    return image_model(net, net.classifier(net.relu(net.bn(x, c)), c), image, "prob")


# ---- Inception v1 (GoogLeNet) and v2 (BN-Inception) ----------------------------------------------

def googlenet(rng, image):
    net = Net("inception_v1", rng, 9)

    def cr(x, cin, cout, k, stride=1, pad=None):
        return net.relu(net.conv(x, cin, cout, k, stride, pad))

    def lrn(x):
        return net.node("LRN", [x], size=5, alpha=1e-4, beta=0.75, bias=1.0)

    # Caffe pools with ceil rounding; opset 9 has no ceil_mode, so the export pads the end.
    x = lrn(net.maxpool(cr("data", 3, 64, 7, 2, 3), 3, 2, (0, 0, 1, 1)))
    x = net.maxpool(lrn(cr(cr(x, 64, 64, 1), 64, 192, 3)), 3, 2, (0, 0, 1, 1))
    c = 192
    table = [("3a", 64, 96, 128, 16, 32, 32), ("3b", 128, 128, 192, 32, 96, 64), "pool",
             ("4a", 192, 96, 208, 16, 48, 64), ("4b", 160, 112, 224, 24, 64, 64), ("4c", 128, 128, 256, 24, 64, 64),
             ("4d", 112, 144, 288, 32, 64, 64), ("4e", 256, 160, 320, 32, 128, 128), "pool",
             ("5a", 256, 160, 320, 32, 128, 128), ("5b", 384, 192, 384, 48, 128, 128)]
    for row in table:
        if row == "pool":
            x = net.maxpool(x, 3, 2, (0, 0, 1, 1))
            continue
        _, b1, r3, b3, r5, b5, bp = row
        branches = [cr(x, c, b1, 1), cr(cr(x, c, r3, 1), r3, b3, 3), cr(cr(x, c, r5, 1), r5, b5, 5),
                    cr(net.maxpool(x, 3, 1, (1, 1, 1, 1)), c, bp, 1)]
        x = net.node("Concat", branches, axis=1)
        c = b1 + b3 + b5 + bp
    return image_model(net, net.classifier(x, c, dropout=True), image, "prob")


def bn_inception(rng, image):
    net = Net("inception_v2", rng, 9)
    cbr = net.conv_bn_relu
    x = net.maxpool(cbr("data", 3, 64, 7, 2, 3), 3, 2, (0, 0, 1, 1))
    x = net.maxpool(cbr(cbr(x, 64, 64, 1), 64, 192, 3), 3, 2, (0, 0, 1, 1))
    c = 192
    # (1x1, 3x3 reduce, 3x3, double 3x3 reduce, double 3x3, pool kind, pool projection, stride)
    table = [(64, 64, 64, 64, 96, "avg", 32, 1), (64, 64, 96, 64, 96, "avg", 64, 1), (0, 128, 160, 64, 96, "max", 0, 2),
             (224, 64, 96, 96, 128, "avg", 128, 1), (192, 96, 128, 96, 128, "avg", 128, 1),
             (160, 128, 160, 128, 160, "avg", 128, 1), (96, 128, 192, 160, 192, "avg", 128, 1),
             (0, 128, 192, 192, 256, "max", 0, 2), (352, 192, 320, 160, 224, "avg", 128, 1),
             (352, 192, 320, 192, 224, "max", 128, 1)]
    for b1, r3, b3, rd, bd, pool, bp, s in table:
        branches = [cbr(x, c, b1, 1)] if b1 else []
        branches.append(cbr(cbr(x, c, r3, 1), r3, b3, 3, s))
        branches.append(cbr(cbr(cbr(x, c, rd, 1), rd, bd, 3), bd, bd, 3, s))
        if s == 2:
            branches.append(net.maxpool(x, 3, 2, (0, 0, 1, 1)))
        else:
            p = (net.avgpool(x, 3, 1, (1, 1, 1, 1), count_include_pad=1) if pool == "avg" else
                 net.maxpool(x, 3, 1, (1, 1, 1, 1)))
            branches.append(cbr(p, c, bp, 1))
        c = b1 + b3 + bd + (bp if s == 1 else c)
        x = net.node("Concat", branches, axis=1)
    return image_model(net, net.classifier(x, c), image, "prob")


# ---- SqueezeNet 1.0 / 1.1 ------------------------------------------------------------------------

def squeezenet(rng, image, version):
    # 1.1's published export is opset 7; this one uses opset 10 to carry MaxPool's ceil_mode.
    net = Net(f"squeezenet{version}", rng, 9 if version == "1.0" else 10)

    def cr(x, cin, cout, k, stride=1, pad=None):
        return net.relu(net.conv(x, cin, cout, k, stride, pad))

    def pool(x):
        if net.opset >= 10:
            return net.maxpool(x, 3, 2, ceil_mode=1)
        return net.maxpool(x, 3, 2, (0, 0, 1, 1))

    def fire(x, cin, s, e):
        sq = cr(x, cin, s, 1)
        return net.node("Concat", [cr(sq, s, e, 1), cr(sq, s, e, 3)], axis=1), 2 * e

    if version == "1.0":
        x, c = pool(cr("data", 3, 96, 7, 2, 0)), 96
        plan = [(16, 64), (16, 64), (32, 128), "pool", (32, 128), (48, 192), (48, 192), (64, 256), "pool", (64, 256)]
    else:
        x, c = pool(cr("data", 3, 64, 3, 2, 0)), 64
        plan = [(16, 64), (16, 64), "pool", (32, 128), (32, 128), "pool", (48, 192), (48, 192), (64, 256), (64, 256)]
    for step in plan:
        if step == "pool":
            x = pool(x)
        else:
            x, c = fire(x, c, *step)
    x = cr(net.dropout(x), c, 1000, 1, 1, 0)
    # As the published export: Softmax of [N, 1000, 1, 1] at opset < 13 normalises over axes 1...
    return image_model(net, net.node("Softmax", [net.node("GlobalAveragePool", [x])]), image, "prob")


# ---- ShuffleNet v1 (3 groups) --------------------------------------------------------------------

def shufflenet(rng, image, groups=3):
    net = Net("shufflenet", rng, 9)
    x = net.maxpool(net.conv_bn_relu("data", 3, 24, 3, 2), 3, 2, (1, 1, 1, 1))
    c = 24

    def shuffle(x, ch):
        shaped = net.node("Reshape", [x, net.const("shape", [0, groups, ch // groups, -1], np.int64)])
        swapped = net.node("Transpose", [shaped], perm=[0, 2, 1, 3])
        return swapped  # reshaped back to 4-D by the caller (it knows the spatial size)

    size = image // 4
    for stage, (out, units) in enumerate(zip((240, 480, 960), (4, 8, 4))):
        for i in range(units):
            stride = 2 if i == 0 else 1
            branch_out = out - c if stride == 2 else out
            mid = out // 4
            g = 1 if stage == 0 and i == 0 else groups
            h = net.conv_bn_relu(x, c, mid, 1, 1, 0, group=g)
            h = shuffle(h, mid)
            h = net.node("Reshape", [h, net.const("shape", [0, mid, size, size], np.int64)])
            h = net.bn(net.conv(h, mid, mid, 3, stride, 1, group=mid, bias=False), mid)
            size = (size + 1) // 2 if stride == 2 else size
            h = net.bn(net.conv(h, mid, branch_out, 1, 1, 0, group=groups, bias=False), branch_out)
            if stride == 2:
                x = net.relu(net.node("Concat", [net.avgpool(x, 3, 2, (1, 1, 1, 1)), h], axis=1))
            else:
                x = net.relu(net.node("Add", [x, h]))
            c = out
    # Activations grow through the 16 residual units: a smaller classifier keeps Softmax unsaturated.
    return image_model(net, net.classifier(x, c, scale=0.004), image, "prob")


# ---- VGG-19 and AlexNet --------------------------------------------------------------------------

def vgg19(rng, image):
    net = Net("vgg19", rng, 9)
    x, c = "data", 3
    for width, convs in zip((64, 128, 256, 512, 512), (2, 2, 4, 4, 4)):
        for _ in range(convs):
            x, c = net.relu(net.conv(x, c, width, 3)), width
        x = net.maxpool(x, 2, 2)
    spatial = 224 // 32
    h = net.node("Flatten", [x], axis=1)
    h = net.dropout(net.relu(net.gemm(h, c * spatial * spatial, 4096)))
    h = net.dropout(net.relu(net.gemm(h, 4096, 4096)))
    return image_model(net, net.node("Softmax", [net.gemm(h, 4096, 1000)], axis=1), 224, "prob")


def alexnet(rng, image):
    net = Net("alexnet", rng, 9)

    def cr(x, cin, cout, k, stride=1, pad=None, group=1):
        return net.relu(net.conv(x, cin, cout, k, stride, pad, group))

    def lrn(x):
        return net.node("LRN", [x], size=5, alpha=1e-4, beta=0.75, bias=1.0)

    x = net.maxpool(lrn(cr("data", 3, 96, 11, 4, 0)), 3, 2)
    x = net.maxpool(lrn(cr(x, 96, 256, 5, 1, 2, group=2)), 3, 2)
    x = net.maxpool(cr(cr(cr(x, 256, 384, 3), 384, 384, 3, group=2), 384, 256, 3, group=2), 3, 2)
    h = net.node("Reshape", [x, net.const("shape", [1, 256 * 6 * 6], np.int64)])
    h = net.dropout(net.relu(net.gemm(h, 9216, 4096)))
    h = net.dropout(net.relu(net.gemm(h, 4096, 4096)))
    return image_model(net, net.node("Softmax", [net.gemm(h, 4096, 1000)]), 227, "prob")


# ---- MobileNetV2 ---------------------------------------------------------------------------------

def mobilenetv2(rng, image):
    net = Net("mobilenetv2", rng, 12)
    lo, hi = net.const("zero", 0.0), net.const("six", 6.0)

    def cbr6(x, cin, cout, k, stride=1, group=1):
        return net.node("Clip", [net.bn(net.conv(x, cin, cout, k, stride, group=group, bias=False), cout), lo, hi])

    x, c = cbr6("data", 3, 32, 3, 2), 32
    for t, out, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                         (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = c * t
            h = cbr6(x, c, hidden, 1) if t != 1 else x
            h = cbr6(h, hidden, hidden, 3, stride, group=hidden)
            h = net.bn(net.conv(h, hidden, out, 1, bias=False), out)
            x = net.node("Add", [x, h]) if stride == 1 and c == out else h
            c = out
    x = cbr6(x, c, 1280, 1)
    return image_model(net, net.classifier(x, 1280, softmax=False, dropout=True), image, "logits")


# ---- A 2-layer BERT-style encoder (opset 13, as PyTorch exports it) ------------------------------

def bert(rng, image, layers=2, seq=128, hidden=256, heads=4, ffn=1024, vocab=4000):
    net = Net("bert_encoder", rng, 13)
    head = hidden // heads
    i64 = np.int64

    def w(shape, scale=None):
        return net.const("w", rng.standard_normal(shape) * (scale or 1 / math.sqrt(shape[0])))

    def layer_norm(x):
        mean = net.node("ReduceMean", [x], axes=[-1])
        centred = net.node("Sub", [x, mean])
        var = net.node("ReduceMean", [net.node("Pow", [centred, net.const("two", 2.0)])], axes=[-1])
        std = net.node("Sqrt", [net.node("Add", [var, net.const("eps", 1e-12)])])
        normed = net.node("Div", [centred, std])
        gamma = net.const("ln_g", 1 + 0.1 * rng.standard_normal(hidden))
        return net.node("Add", [net.node("Mul", [normed, gamma]), net.const("ln_b", 0.1 * rng.standard_normal(hidden))])

    def dense(x, fin, fout):
        return net.node("Add", [net.node("MatMul", [x, w((fin, fout))]), net.const("bias", 0.05 * rng.standard_normal(fout))])

    def dim(x, axis):  # Shape -> Gather -> Unsqueeze: the exporter's dynamic dimension
        shape = net.node("Shape", [x])
        d = net.node("Gather", [shape, net.const("axis", axis, i64)], axis=0)
        return net.node("Unsqueeze", [d, net.const("axes", [0], i64)])

    words = net.node("Gather", [w((vocab, hidden), 1.0), "input_ids"], axis=0)
    positions = net.node("Gather", [w((seq, hidden), 0.5), net.const("pos", np.arange(seq)[None, :], i64)], axis=0)
    types = net.node("Gather", [w((2, hidden), 0.5), net.const("types", np.zeros((1, seq)), i64)], axis=0)
    x = layer_norm(net.node("Add", [net.node("Add", [words, positions]), types]))
    # The additive mask: (1 - mask) * -10000, broadcast over heads and query positions.
    m = net.node("Cast", [net.node("Unsqueeze", ["attention_mask", net.const("axes", [1, 2], i64)])], to=1)
    bias = net.node("Mul", [net.node("Sub", [net.const("one", 1.0), m]), net.const("neg", -10000.0)])
    for _ in range(layers):
        batch, length = dim(x, 0), dim(x, 1)
        split = net.node("Concat", [batch, length, net.const("hd", [heads, head], i64)], axis=0)

        def heads_of(t, perm):
            return net.node("Transpose", [net.node("Reshape", [t, split])], perm=perm)

        q = heads_of(dense(x, hidden, hidden), [0, 2, 1, 3])
        k = heads_of(dense(x, hidden, hidden), [0, 2, 3, 1])
        v = heads_of(dense(x, hidden, hidden), [0, 2, 1, 3])
        scores = net.node("Div", [net.node("MatMul", [q, k]), net.const("scale", math.sqrt(head))])
        probs = net.node("Softmax", [net.node("Add", [scores, bias])], axis=-1)
        ctx = net.node("Transpose", [net.node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        merge = net.node("Concat", [batch, length, net.const("h", [hidden], i64)], axis=0)
        attn = dense(net.node("Reshape", [ctx, merge]), hidden, hidden)
        x = layer_norm(net.node("Add", [x, attn]))
        up = dense(x, hidden, ffn)
        erf = net.node("Erf", [net.node("Div", [up, net.const("sqrt2", math.sqrt(2.0))])])
        gelu = net.node("Mul", [net.node("Mul", [up, net.const("half", 0.5)]),
                                net.node("Add", [erf, net.const("one", 1.0)])])
        x = layer_norm(net.node("Add", [x, dense(gelu, ffn, hidden)]))
    first = net.node("Gather", [x, net.const("cls", 0, i64)], axis=1)
    pooled = net.node("Tanh", [net.node("Gemm", [first, w((hidden, hidden)),
                                                 net.const("pool_b", 0.05 * rng.standard_normal(hidden))])])
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, seq])
    valid = seq - 17  # the last tokens are padding
    feed = {"input_ids": rng.integers(0, vocab, (1, seq)).astype(i64),
            "attention_mask": (np.arange(seq) < valid).astype(i64)[None, :]}
    return net.finish([ids, mask], {x: "last_hidden_state", pooled: "pooler_output"}, feed) + (feed,)


MODELS = {
    "resnet50_v1": lambda rng, image: resnet50(rng, image, 1),
    "resnet50_v2": lambda rng, image: resnet50(rng, image, 2),
    "densenet121": densenet121,
    "inception_v1": googlenet,
    "inception_v2": bn_inception,
    "squeezenet1.0": lambda rng, image: squeezenet(rng, image, "1.0"),
    "squeezenet1.1": lambda rng, image: squeezenet(rng, image, "1.1"),
    "shufflenet": shufflenet,
    "vgg19": vgg19,
    "alexnet": alexnet,
    "mobilenetv2": mobilenetv2,
    "bert_encoder": bert,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--image", type=int, default=224)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.models.split(","):
        if name not in MODELS:
            raise SystemExit(f"make_zoo: unknown model {name} (known: {', '.join(MODELS)})")
        rng = np.random.default_rng([args.seed, list(MODELS).index(name)])
        model, outputs, feed = MODELS[name](rng, args.image)
        stem = os.path.join(args.out_dir, name)
        onnx.save(model, stem + ".onnx")
        for k, v in feed.items():
            np.save(f"{stem}.in.{k}.npy", v)
        for k, v in outputs.items():
            np.save(f"{stem}.out.{k}.npy", np.asarray(v, dtype=np.float64))
        ops = sorted({n.op_type for n in model.graph.node})
        print(f"{stem}.onnx: opset {model.opset_import[0].version}, {len(model.graph.node)} nodes, "
              f"outputs {', '.join(f'{k}{list(v.shape)}' for k, v in outputs.items())}; ops {' '.join(ops)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
