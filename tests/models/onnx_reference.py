"""A float64 NumPy evaluator of ONNX graphs: the reference the zoo models are checked against.

It is written from the ONNX operator specification, independently of ascend-run's kernels, and
follows the semantics of the opset the model declares (Softmax before 13 flattens from `axis`,
Clip and Unsqueeze take attributes before 11 / 13, ...). Only the operators the zoo networks use
are here; an unknown one raises, so a reference is never silently wrong.
"""
import math

import numpy as np
from onnx import numpy_helper


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pads_for(auto_pad, in_sizes, kernel, strides, dilations, pads):
    """Begin and end pads per spatial axis, auto_pad resolved as ONNX specifies."""
    n = len(in_sizes)
    if auto_pad in ("", "NOTSET"):
        p = list(pads) if pads else [0] * (2 * n)
        return p[:n], p[n:]
    if auto_pad == "VALID":
        return [0] * n, [0] * n
    begin, end = [], []
    for i in range(n):
        out = -(-in_sizes[i] // strides[i])
        total = max((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in_sizes[i], 0)
        small, big = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else big)
        end.append(big if auto_pad == "SAME_UPPER" else small)
    return begin, end


def _windows(x, kernel, strides, dilations, begin, end, fill, ceil_mode=False, outs=None):
    """Yields, for every kernel offset, the strided view of the padded input it multiplies: shape
    (N, C, *out). Also returns the output spatial sizes (`outs` imposes them)."""
    spatial = x.shape[2:]
    given, outs = outs, []
    for i, size in enumerate(spatial if given is None else ()):
        span = (kernel[i] - 1) * dilations[i] + 1
        room = size + begin[i] + end[i] - span
        out = (-(-room // strides[i]) if ceil_mode else room // strides[i]) + 1
        # ONNX: with ceil_mode, a last window starting in the end padding is dropped.
        if ceil_mode and (out - 1) * strides[i] >= size + begin[i]:
            out -= 1
        outs.append(out)
    outs = list(given) if given is not None else outs
    extra = [max((outs[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - (spatial[i] + begin[i]), 0)
             for i in range(len(spatial))]
    padded = np.pad(x, [(0, 0), (0, 0)] + [(begin[i], max(end[i], extra[i])) for i in range(len(spatial))],
                    constant_values=fill)

    def views():
        for offset in np.ndindex(*kernel):
            idx = [slice(None), slice(None)]
            for i, k in enumerate(offset):
                start = k * dilations[i]
                idx.append(slice(start, start + (outs[i] - 1) * strides[i] + 1, strides[i]))
            yield offset, padded[tuple(idx)]

    return views, outs


def conv(x, w, b, a):
    kernel = list(w.shape[2:])
    nsp = len(kernel)
    strides = a.get("strides", [1] * nsp)
    dil = a.get("dilations", [1] * nsp)
    group = a.get("group", 1)
    begin, end = _pads_for(a.get("auto_pad", "NOTSET"), x.shape[2:], kernel, strides, dil, a.get("pads"))
    views, outs = _windows(x, kernel, strides, dil, begin, end, 0.0)
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // group, m // group
    points = int(np.prod(outs))
    # One batched GEMM per kernel offset: (n, g, points, cg) @ (g, cg, mg).
    y = np.zeros((n, group, points, mg))
    wg = w.reshape((group, mg, cg) + tuple(kernel))
    for offset, v in views():
        vg = v.reshape(n, group, cg, points).transpose(0, 1, 3, 2)
        y += np.matmul(vg, wg[(slice(None), slice(None), slice(None)) + offset].transpose(0, 2, 1))
    y = y.transpose(0, 1, 3, 2).reshape((n, m) + tuple(outs))
    if b is not None:
        y += b.reshape((1, m) + (1,) * nsp)
    return y


def pool(x, a, kind):
    kernel = a["kernel_shape"]
    nsp = len(kernel)
    strides = a.get("strides", [1] * nsp)
    dil = a.get("dilations", [1] * nsp)
    begin, end = _pads_for(a.get("auto_pad", "NOTSET"), x.shape[2:], kernel, strides, dil, a.get("pads"))
    ceil_mode = bool(a.get("ceil_mode", 0))
    if kind == "max":
        views, _ = _windows(x, kernel, strides, dil, begin, end, -np.inf, ceil_mode)
        y = None
        for _, v in views():
            y = v.copy() if y is None else np.maximum(y, v)
        return y
    views, outs = _windows(x, kernel, strides, dil, begin, end, 0.0, ceil_mode)
    total = None
    for _, v in views():
        total = v.copy() if total is None else total + v
    # The divisor: how many window positions are input (or declared padding, with
    # count_include_pad); positions past the declared end pads (ceil_mode) never count.
    fill = 1.0 if a.get("count_include_pad", 0) else 0.0
    ones = np.pad(np.ones((1, 1) + x.shape[2:]), [(0, 0), (0, 0)] + list(zip(begin, end)), constant_values=fill)
    mviews, _ = _windows(ones, kernel, strides, dil, [0] * nsp, [0] * nsp, 0.0, outs=outs)
    count = None
    for _, v in mviews():
        count = v.copy() if count is None else count + v
    return total / count


def lrn(x, a):
    size = a["size"]
    alpha, beta, bias = a.get("alpha", 1e-4), a.get("beta", 0.75), a.get("bias", 1.0)
    sq = x * x
    c = x.shape[1]
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    s = np.zeros_like(x)
    for ch in range(c):
        s[:, ch] = sq[:, max(0, ch - lo):min(c, ch + hi + 1)].sum(axis=1)
    return x / (bias + alpha / size * s) ** beta


def softmax(x, a, opset, log=False):
    if opset < 13:
        axis = a.get("axis", 1) % x.ndim
        flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
        y = flat - flat.max(axis=1, keepdims=True)
        e = np.exp(y)
        r = y - np.log(e.sum(axis=1, keepdims=True)) if log else e / e.sum(axis=1, keepdims=True)
        return r.reshape(x.shape)
    axis = a.get("axis", -1)
    y = x - x.max(axis=axis, keepdims=True)
    e = np.exp(y)
    return y - np.log(e.sum(axis=axis, keepdims=True)) if log else e / e.sum(axis=axis, keepdims=True)


def reshape(x, shape, allowzero=0):
    shape = [int(s) for s in shape]
    out = [x.shape[i] if (s == 0 and not allowzero) else s for i, s in enumerate(shape)]
    return x.reshape(out)


_ERF = np.vectorize(math.erf)
_DTYPES = {1: np.float32, 6: np.int32, 7: np.int64, 9: np.bool_, 11: np.float64, 10: np.float16}


def _axes(node_inputs, a, opset, since):
    """axes from the attribute (before `since`) or the second input."""
    if opset < since:
        return a.get("axes")
    return None if len(node_inputs) < 2 or node_inputs[1] is None else [int(v) for v in node_inputs[1]]


def evaluate(model, feeds, outputs=None):
    """Runs `model` (onnx.ModelProto) on `feeds` ({name: ndarray}: graph inputs, and initializers
    the graph does not hold) in float64 (integer tensors stay integers); returns {name: ndarray}
    for `outputs` (default: the graph's outputs)."""
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    env = {}
    for init in model.graph.initializer:
        v = numpy_helper.to_array(init)
        env[init.name] = v.astype(np.float64) if v.dtype.kind == "f" else v
    for k, v in feeds.items():
        env[k] = v.astype(np.float64) if v.dtype.kind == "f" else v
    for node in model.graph.node:
        a = _attrs(node)
        x = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Constant":
            v = numpy_helper.to_array(a["value"])
            y = v.astype(np.float64) if v.dtype.kind == "f" else v
        elif op == "Conv":
            y = conv(x[0], x[1], x[2] if len(x) > 2 else None, a)
        elif op == "BatchNormalization":
            if a.get("spatial", 1) != 1:
                raise NotImplementedError("BatchNormalization spatial=0")
            shape = (1, -1) + (1,) * (x[0].ndim - 2)
            scale, bias, mean, var = (t.reshape(shape) for t in x[1:5])
            y = (x[0] - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * scale + bias
        elif op == "Relu":
            y = np.maximum(x[0], 0)
        elif op == "Clip":
            if opset < 11:
                lo, hi = a.get("min", -np.inf), a.get("max", np.inf)
            else:
                lo = x[1] if len(x) > 1 and x[1] is not None else -np.inf
                hi = x[2] if len(x) > 2 and x[2] is not None else np.inf
            y = np.minimum(np.maximum(x[0], lo), hi)
        elif op == "MaxPool":
            y = pool(x[0], a, "max")
        elif op == "AveragePool":
            y = pool(x[0], a, "avg")
        elif op == "GlobalAveragePool":
            y = x[0].mean(axis=tuple(range(2, x[0].ndim)), keepdims=True)
        elif op == "GlobalMaxPool":
            y = x[0].max(axis=tuple(range(2, x[0].ndim)), keepdims=True)
        elif op == "LRN":
            y = lrn(x[0], a)
        elif op == "Concat":
            y = np.concatenate(x, axis=a["axis"])
        elif op in ("Add", "Sub", "Mul", "Div", "Pow"):
            f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Pow": np.power}[op]
            y = f(x[0], x[1])
        elif op in ("Sum", "Max", "Min", "Mean"):
            y = x[0]
            for t in x[1:]:
                y = {"Sum": np.add, "Mean": np.add, "Max": np.maximum, "Min": np.minimum}[op](y, t)
            if op == "Mean":
                y = y / len(x)
        elif op == "Gemm":
            A = x[0].T if a.get("transA", 0) else x[0]
            B = x[1].T if a.get("transB", 0) else x[1]
            y = a.get("alpha", 1.0) * (A @ B)
            if len(x) > 2 and x[2] is not None:
                y = y + a.get("beta", 1.0) * x[2]
        elif op == "MatMul":
            y = np.matmul(x[0], x[1])
        elif op in ("Softmax", "LogSoftmax"):
            y = softmax(x[0], a, opset, log=(op == "LogSoftmax"))
        elif op == "Flatten":
            axis = a.get("axis", 1) % (x[0].ndim + 1) if x[0].ndim else 0
            y = x[0].reshape(int(np.prod(x[0].shape[:axis])), -1)
        elif op == "Reshape":
            y = reshape(x[0], x[1], a.get("allowzero", 0))
        elif op == "Transpose":
            y = np.transpose(x[0], a.get("perm"))
        elif op in ("Dropout", "Identity"):
            y = x[0]
        elif op == "Erf":
            y = _ERF(x[0])
        elif op in ("Sqrt", "Tanh", "Exp", "Sigmoid", "Neg", "Abs"):
            y = {"Sqrt": np.sqrt, "Tanh": np.tanh, "Exp": np.exp, "Neg": np.negative, "Abs": np.abs,
                 "Sigmoid": lambda t: 1 / (1 + np.exp(-t))}[op](x[0])
        elif op in ("ReduceMean", "ReduceSum"):
            since = 13 if op == "ReduceSum" else 18
            axes = _axes(x, a, opset, since)
            f = np.mean if op == "ReduceMean" else np.sum
            y = f(x[0], axis=None if axes is None else tuple(axes), keepdims=bool(a.get("keepdims", 1)))
        elif op == "Shape":
            y = np.array(x[0].shape, dtype=np.int64)
        elif op == "Gather":
            y = np.take(x[0], x[1].astype(np.int64), axis=a.get("axis", 0))
        elif op == "Unsqueeze":
            axes = _axes(x, a, opset, 13)
            rank = x[0].ndim + len(axes)
            y = x[0]
            for ax in sorted(ax % rank for ax in axes):
                y = np.expand_dims(y, ax)
        elif op == "Squeeze":
            axes = _axes(x, a, opset, 13)
            y = np.squeeze(x[0], axis=None if axes is None else tuple(axes))
        elif op == "Cast":
            t = _DTYPES[a["to"]]
            y = x[0].astype(t)
            if y.dtype.kind == "f":
                y = y.astype(np.float64)
        elif op == "Slice":
            starts, ends = [int(v) for v in x[1]], [int(v) for v in x[2]]
            axes = [int(v) for v in x[3]] if len(x) > 3 and x[3] is not None else list(range(len(starts)))
            steps = [int(v) for v in x[4]] if len(x) > 4 and x[4] is not None else [1] * len(starts)
            idx = [slice(None)] * x[0].ndim
            for s, e, ax, st in zip(starts, ends, axes, steps):
                idx[ax] = slice(s, e, st)
            y = x[0][tuple(idx)]
        elif op == "Split":
            axis = a.get("axis", 0)
            sizes = a.get("split") if opset < 13 else (list(x[1]) if len(x) > 1 and x[1] is not None else None)
            if sizes is None:
                sizes = [x[0].shape[axis] // len(node.output)] * len(node.output)
            ys = np.split(x[0], np.cumsum(sizes)[:-1], axis=axis)
            for name, v in zip(node.output, ys):
                env[name] = v
            continue
        elif op == "Where":
            y = np.where(x[0], x[1], x[2])
        elif op == "Equal":
            y = np.equal(x[0], x[1])
        elif op == "ConstantOfShape":
            v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
            y = np.full([int(d) for d in x[0]], v.reshape(-1)[0], dtype=v.dtype)
            if y.dtype.kind == "f":
                y = y.astype(np.float64)
        else:
            raise NotImplementedError(f"reference: operator {op} (node {node.name})")
        env[node.output[0]] = y
    names = outputs if outputs is not None else [o.name for o in model.graph.output]
    return {n: env[n] for n in names}
