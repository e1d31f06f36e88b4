"""A small numpy evaluator for ONNX graphs, enough for the models the onnx_rewrite tests use.

Debian's python3-onnx 1.12 has no reference evaluator and there is no ONNX Runtime package, so
the tests evaluate the original and the rewritten model with this and compare the outputs.
Each op follows the ONNX operator specification (https://onnx.ai/onnx/operators/); an op it
does not know raises Unsupported, and the caller skips the numeric check for that model.
"""
import numpy as np
from onnx import helper, mapping, numpy_helper


class Unsupported(Exception):
    pass


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pads(pads, spatial):
    if not pads:
        return [(0, 0)] * spatial
    return [(pads[i], pads[i + spatial]) for i in range(spatial)]


def _windows(x, kernel, strides, dilations):
    """Sliding windows of x[N, C, *spatial] -> [N, C, *out, *kernel] (a view)."""
    spatial = len(kernel)
    out = [(x.shape[2 + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1
           for i in range(spatial)]
    shape = x.shape[:2] + tuple(out) + tuple(kernel)
    st = x.strides
    strides_ = st[:2] + tuple(st[2 + i] * strides[i] for i in range(spatial)) + \
        tuple(st[2 + i] * dilations[i] for i in range(spatial))
    return np.lib.stride_tricks.as_strided(x, shape, strides_, writeable=False)


def conv(x, w, b, a):
    spatial = x.ndim - 2
    kernel = list(w.shape[2:])
    strides = a.get("strides", [1] * spatial)
    dil = a.get("dilations", [1] * spatial)
    group = a.get("group", 1)
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise Unsupported("Conv auto_pad")
    xp = np.pad(x, [(0, 0), (0, 0)] + _pads(a.get("pads"), spatial))
    win = _windows(xp, kernel, strides, dil)  # N, C, *out, *k
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // group, m // group
    outs = []
    letters = "hijk"[:spatial]
    klet = "pqrs"[:spatial]
    for g in range(group):
        wg = w[g * mg:(g + 1) * mg]
        xg = win[:, g * cg:(g + 1) * cg]
        expr = f"nc{letters}{klet},mc{klet}->nm{letters}"
        outs.append(np.einsum(expr, xg, wg, optimize=True))
    y = np.concatenate(outs, axis=1)
    if b is not None:
        y = y + b.reshape((1, m) + (1,) * spatial)
    return y.astype(x.dtype)


def pool(x, a, kind):
    spatial = x.ndim - 2
    kernel = a["kernel_shape"]
    strides = a.get("strides", [1] * spatial)
    dil = a.get("dilations", [1] * spatial)
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise Unsupported("pool auto_pad")
    pads = _pads(a.get("pads"), spatial)
    if a.get("ceil_mode", 0):
        # Output size rounded up; a last window that would start in the right padding is
        # dropped (the ONNX and PyTorch rule). Extra right padding makes the windows fit.
        for i in range(spatial):
            span = (kernel[i] - 1) * dil[i] + 1
            padded = x.shape[2 + i] + pads[i][0] + pads[i][1]
            out = -(-(padded - span) // strides[i]) + 1
            if (out - 1) * strides[i] >= x.shape[2 + i] + pads[i][0]:
                out -= 1
            extra = max(0, (out - 1) * strides[i] + span - padded)
            pads[i] = (pads[i][0], pads[i][1] + extra)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, [(0, 0), (0, 0)] + pads, constant_values=fill)
    win = _windows(xp, kernel, strides, dil)
    axes = tuple(range(-spatial, 0))
    if kind == "max":
        return win.max(axis=axes)
    if a.get("count_include_pad", 0) and not a.get("ceil_mode", 0):
        return win.mean(axis=axes).astype(x.dtype)
    if a.get("count_include_pad", 0):
        raise Unsupported("AveragePool ceil_mode with count_include_pad")
    ones = np.pad(np.ones_like(x), [(0, 0), (0, 0)] + pads)
    count = _windows(ones, kernel, strides, dil).sum(axis=axes)
    return (win.sum(axis=axes) / count).astype(x.dtype)


def _softplus(x):
    return np.logaddexp(0, x).astype(x.dtype)


UNARY = {
    "Relu": lambda x, a: np.maximum(x, 0).astype(x.dtype),
    "LeakyRelu": lambda x, a: np.where(x < 0, x * a.get("alpha", 0.01), x).astype(x.dtype),
    "Sigmoid": lambda x, a: (1 / (1 + np.exp(-x))).astype(x.dtype),
    "Tanh": lambda x, a: np.tanh(x),
    "Softplus": lambda x, a: _softplus(x),
    "HardSwish": lambda x, a: (x * np.clip(x / 6 + 0.5, 0, 1)).astype(x.dtype),
    "Identity": lambda x, a: x,
    "Neg": lambda x, a: -x,
    "Exp": lambda x, a: np.exp(x),
    "Sqrt": lambda x, a: np.sqrt(x),
    "Round": lambda x, a: np.round(x),
    "GlobalAveragePool": lambda x, a: x.mean(axis=tuple(range(2, x.ndim)), keepdims=True),
    "GlobalMaxPool": lambda x, a: x.max(axis=tuple(range(2, x.ndim)), keepdims=True),
}
BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
          "Pow": np.power, "Min": np.minimum, "Max": np.maximum}


def _softmax(x, axis, log):
    z = x - x.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=axis, keepdims=True))
    return (z - lse if log else np.exp(z - lse)).astype(x.dtype)


def _cast(x, to):
    if to == 16:  # BFLOAT16: numpy has none; round float32 to its top 16 bits (nearest even)
        bits = x.astype(np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.astype(np.uint32).view(np.float32)
    return x.astype(mapping.TENSOR_TYPE_TO_NP_TYPE[to])


def run_node(node, ins, opset):
    op, a = node.op_type, _attrs(node)
    if node.domain not in ("", "ai.onnx"):
        raise Unsupported(node.domain + "." + op)
    if op in UNARY:
        return [UNARY[op](ins[0], a)]
    if op in BINARY:
        return [BINARY[op](ins[0], ins[1]).astype(np.result_type(ins[0], ins[1]))]
    if op == "Conv":
        return [conv(ins[0], ins[1], ins[2] if len(ins) > 2 else None, a)]
    if op == "BatchNormalization":
        if a.get("training_mode", 0):
            raise Unsupported("BatchNormalization training_mode")
        x, s, b, m, v = ins[:5]
        shape = (1, -1) + (1,) * (x.ndim - 2)
        eps = a.get("epsilon", 1e-5)
        y = (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + eps) * s.reshape(shape) + \
            b.reshape(shape)
        return [y.astype(x.dtype)]
    if op == "Clip":
        lo = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("min", -np.inf)
        hi = ins[2] if len(ins) > 2 and ins[2] is not None else a.get("max", np.inf)
        return [np.clip(ins[0], lo, hi).astype(ins[0].dtype)]
    if op == "MaxPool":
        if len(node.output) > 1 and node.output[1]:
            raise Unsupported("MaxPool indices")
        return [pool(ins[0], a, "max")]
    if op == "AveragePool":
        return [pool(ins[0], a, "avg")]
    if op == "Flatten":
        axis = a.get("axis", 1)
        x = ins[0]
        axis = axis + x.ndim if axis < 0 else axis
        return [x.reshape(int(np.prod(x.shape[:axis])), -1)]
    if op == "Gemm":
        A, B = ins[0], ins[1]
        if a.get("transA", 0):
            A = A.T
        if a.get("transB", 0):
            B = B.T
        y = a.get("alpha", 1.0) * (A @ B)
        if len(ins) > 2 and ins[2] is not None:
            y = y + a.get("beta", 1.0) * ins[2]
        return [y.astype(ins[0].dtype)]
    if op == "MatMul":
        return [np.matmul(ins[0], ins[1])]
    if op == "Transpose":
        return [np.transpose(ins[0], a.get("perm"))]
    if op == "Dropout":
        training = len(ins) > 2 and ins[2] is not None and bool(ins[2])
        if training or (opset < 7 and not a.get("is_test", 0)):
            raise Unsupported("Dropout in training mode")
        outs = [ins[0]]
        if len(node.output) > 1:
            outs.append(np.ones(ins[0].shape, dtype=bool))
        return outs
    if op == "Cast":
        return [_cast(ins[0], a["to"])]
    if op == "Concat":
        return [np.concatenate(ins, axis=a["axis"])]
    if op == "Reshape":
        shape = [int(s) for s in ins[1]]
        shape = [ins[0].shape[i] if s == 0 and not a.get("allowzero", 0) else s
                 for i, s in enumerate(shape)]
        return [ins[0].reshape(shape)]
    if op == "Constant":
        if "value" not in a:
            raise Unsupported("Constant without value")
        return [numpy_helper.to_array(a["value"])]
    if op == "Shape":
        return [np.array(ins[0].shape, dtype=np.int64)]
    if op == "Gather":
        return [np.take(ins[0], ins[1], axis=a.get("axis", 0))]
    if op == "Unsqueeze":
        axes = a.get("axes") if opset < 13 else [int(v) for v in ins[1]]
        y = ins[0]
        for ax in sorted(ax + y.ndim + len(axes) if ax < 0 else ax for ax in axes):
            y = np.expand_dims(y, ax)
        return [y]
    if op in ("Softmax", "LogSoftmax"):
        if opset < 13:
            raise Unsupported(op + " before opset 13 (flattening semantics)")
        return [_softmax(ins[0], a.get("axis", -1), op == "LogSoftmax")]
    if op in ("ReduceMin", "ReduceMax", "ReduceSum") and (op != "ReduceSum" or opset < 13):
        axes = a.get("axes")
        f = {"ReduceMin": np.min, "ReduceMax": np.max, "ReduceSum": np.sum}[op]
        return [f(ins[0], axis=tuple(axes) if axes else None,
                  keepdims=bool(a.get("keepdims", 1))).astype(ins[0].dtype)]
    if op == "QuantizeLinear" and len(ins) == 3 and ins[1].ndim == 0:
        info = np.iinfo(ins[2].dtype)
        q = np.round(ins[0] / ins[1]) + ins[2].astype(np.int64)
        return [np.clip(q, info.min, info.max).astype(ins[2].dtype)]
    if op == "ReduceMean":
        axes = a.get("axes")
        return [ins[0].mean(axis=tuple(axes) if axes else None,
                            keepdims=bool(a.get("keepdims", 1))).astype(ins[0].dtype)]
    raise Unsupported(op)


def opset_of(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 0


def evaluate(model, feeds):
    """Runs the main graph on `feeds` (name -> array); returns the outputs in graph order."""
    g = model.graph
    for n in g.node:
        for a in n.attribute:
            if a.g.node or a.graphs:
                raise Unsupported("subgraphs")
    env = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    env.update(feeds)
    opset = opset_of(model)
    for n in g.node:
        ins = [env[i] if i else None for i in n.input]
        outs = run_node(n, ins, opset)
        for name, val in zip(n.output, outs):
            if name:
                env[name] = np.asarray(val)
    return [env[o.name] for o in g.output]


def random_feeds(model, rng, dim=1):
    """Random inputs for the graph inputs that are not initializers (symbolic dims -> dim)."""
    inits = {t.name for t in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type"):
            raise Unsupported("non-tensor input " + vi.name)
        shape = [d.dim_value if d.HasField("dim_value") else dim for d in tt.shape.dim]
        dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type]
        if np.issubdtype(dtype, np.floating):
            feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            feeds[vi.name] = rng.integers(0, 2, shape).astype(bool)
        else:
            feeds[vi.name] = rng.integers(0, 4, shape).astype(dtype)
    return feeds
