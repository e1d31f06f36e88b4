#!/usr/bin/python3
"""Checks the onnx_rewrite passes on real models, structurally and numerically.

Models: torchvision architectures exported with Debian's python3-torch at test time (skipped,
with a message, when torch is not installed), the small models built below with the onnx
helper API, tests/fixtures/graph/small_cnn.onnx, and every model of Debian's libonnx-testdata
that holds an op a pass looks at. For each rewrite:
  * the output passes onnx.checker (with full_check) and keeps the graph's inputs and outputs,
    names and types;
  * exact passes compute the same outputs (numpy evaluation of both models, onnx_numpy.py, on
    random inputs or the test data's own inputs) within float tolerance;
  * inexact passes change nothing unless --allow-inexact is given, and then say what changes;
  * running the same passes on the output changes nothing (byte-identical model).
Exit 77 (ctest's skip) when python3-onnx or python3-numpy is missing.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e} (install python3-onnx and python3-numpy)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_numpy  # noqa: E402

EXACT = ["remove_identity", "remove_dropout", "remove_transpose", "fold_batchnorm",
         "fuse_matmul_add", "remove_cast_round_trip"]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run_tool(tool, src, dst, passes, allow_inexact=False):
    cmd = [tool, src, dst] + (["--allow-inexact"] if allow_inexact else []) + passes
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    notes = {"applied": [], "proposed": [], "skipped": []}
    for line in p.stdout.splitlines():
        kind, pass_, nodes, text = line.split("\t", 3)
        notes[kind].append((pass_, nodes.split(",") if nodes else [], text))
    return notes


def io_signature(model):
    g = model.graph
    return ([(v.name, v.type.SerializeToString()) for v in g.input],
            [(v.name, v.type.SerializeToString()) for v in g.output])


def op_counts(model):
    counts = {}
    for n in model.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    return counts


def outputs_close(a, b, rtol, atol):
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False, f"shape/type {x.shape} {x.dtype} vs {y.shape} {y.dtype}"
        if x.dtype.kind in "fc":
            scale = float(np.max(np.abs(x))) if x.size else 0.0
            scale = scale if scale > 0 else 1.0
            if not np.allclose(x, y, rtol=rtol, atol=atol * scale, equal_nan=True):
                return False, f"max abs diff {float(np.max(np.abs(x - y))):.3g} (scale {scale:.3g})"
        elif not np.array_equal(x, y):
            return False, "values differ"
    return True, ""


def check(tool, name, src, passes, tmp, allow_inexact=False, feeds=None, expect=None,
          exact=True, full_check=True, max_rel_diff=None):
    """Rewrites src, runs every check, returns (notes, rewritten model)."""
    dst = os.path.join(tmp, name + ".out.onnx")
    notes = run_tool(tool, src, dst, passes, allow_inexact)
    before, after = onnx.load(src), onnx.load(dst)
    try:
        onnx.checker.check_model(after, full_check=full_check)
    except Exception as e:  # noqa: BLE001 - any checker complaint is a failure
        fail(f"{name}: rewritten model fails the checker: {e}")
    if io_signature(before) != io_signature(after):
        fail(f"{name}: graph inputs or outputs changed")
    # Idempotence: the same passes on the output change nothing.
    again = os.path.join(tmp, name + ".again.onnx")
    notes2 = run_tool(tool, dst, again, passes, allow_inexact)
    if notes2["applied"]:
        fail(f"{name}: second run applied {notes2['applied'][:3]}")
    with open(dst, "rb") as f1, open(again, "rb") as f2:
        if f1.read() != f2.read():
            fail(f"{name}: second run changed the model")
    if expect:
        for pass_, count in expect.items():
            got = sum(1 for n in notes["applied"] if n[0] == pass_)
            if got != count:
                fail(f"{name}: {pass_} applied {got} times, expected {count}")
    if notes["applied"]:
        try:
            rng = np.random.default_rng(7)
            inputs = feeds if feeds is not None else onnx_numpy.random_feeds(before, rng)
            ya = onnx_numpy.evaluate(before, inputs)
            yb = onnx_numpy.evaluate(after, inputs)
            ok, why = outputs_close(ya, yb, rtol=1e-4, atol=1e-5)
            if exact and not ok:
                fail(f"{name}: outputs differ after exact rewrite: {why}")
            same = all(np.array_equal(x, y) for x, y in zip(ya, yb))
            if not exact and same:
                fail(f"{name}: inexact rewrite left the outputs bit-identical")
            diff = max((float(np.max(np.abs(x.astype(np.float64) - y)))
                        for x, y in zip(ya, yb) if x.dtype.kind == "f" and x.size), default=0.0)
            scale = max((float(np.max(np.abs(x))) for x in ya if x.dtype.kind == "f" and x.size),
                        default=0.0)
            if max_rel_diff is not None and diff > max_rel_diff * scale:
                fail(f"{name}: outputs moved {diff:.3g}, more than {max_rel_diff} of {scale:.3g}")
            print(f"ok {name}: {len(notes['applied'])} rewrites, outputs "
                  f"{'match' if ok else 'differ'} (max abs diff {diff:.3g}, output scale "
                  f"{scale:.3g})")
        except onnx_numpy.Unsupported as e:
            print(f"ok {name}: {len(notes['applied'])} rewrites (numeric check skipped: {e})")
    return notes, after


def save(model, path):
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    return path


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def built_models(tmp):
    """Small graphs covering each pass's exact and refused cases."""
    rng = np.random.default_rng(3)
    init = lambda name, *shape: numpy_helper.from_array(  # noqa: E731
        rng.standard_normal(shape).astype(np.float32), name)
    out = {}
    # Transposes: a cancelling pair, an identity perm, a pair whose first has another reader,
    # and a cancelling pair that ends at the graph output.
    nodes = [
        helper.make_node("Transpose", ["x"], ["t1"], name="t1", perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["t1"], ["t2"], name="t2", perm=[0, 3, 1, 2]),
        helper.make_node("Relu", ["t2"], ["r"], name="relu"),
        helper.make_node("Transpose", ["r"], ["t3"], name="t3_noop", perm=[0, 1, 2, 3]),
        helper.make_node("Transpose", ["t3"], ["t4"], name="t4", perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["t4"], ["t5"], name="t5", perm=[0, 2, 1, 3]),
        helper.make_node("Sigmoid", ["t4"], ["sig"], name="side_reader"),
        helper.make_node("Transpose", ["sig"], ["side"], name="side_back", perm=[0, 2, 1, 3]),
        helper.make_node("Add", ["t5", "side"], ["s"], name="add"),
        helper.make_node("Transpose", ["s"], ["t6"], name="t6", perm=[1, 0, 2, 3]),
        helper.make_node("Transpose", ["t6"], ["y"], name="t7", perm=[1, 0, 2, 3]),
    ]
    g = helper.make_graph(nodes, "transposes", [vi("x", [2, 3, 4, 4])], [vi("y", [2, 3, 4, 4])])
    out["transposes"] = (save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                              os.path.join(tmp, "transposes.onnx")),
                         {"remove_transpose": 4})
    # Dropout (opset 13): removable with a constant false training_mode and an unused mask;
    # kept when the mask is read.
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Dropout", ["c", "ratio", "train"], ["d", "mask_unused"], name="drop"),
        helper.make_node("Dropout", ["d", "ratio"], ["e", "mask"], name="drop_mask_read"),
        helper.make_node("Cast", ["mask"], ["m"], name="mask_cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["e", "m"], ["y"], name="mul"),
    ]
    g = helper.make_graph(
        nodes, "dropouts", [vi("x", [1, 2, 5, 5])], [vi("y", [1, 3, 5, 5])],
        initializer=[init("w", 3, 2, 3, 3),
                     numpy_helper.from_array(np.array(0.3, np.float32), "ratio"),
                     numpy_helper.from_array(np.array(False), "train")])
    out["dropouts"] = (save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                            os.path.join(tmp, "dropouts.onnx")), {"remove_dropout": 1})
    # MatMul + Add: a row bias (fused, also with the bias first) and a full-matrix bias (kept).
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"], name="mm1"),
        helper.make_node("Add", ["b1", "m1"], ["a1"], name="add1"),
        helper.make_node("Relu", ["a1"], ["r"], name="relu"),
        helper.make_node("MatMul", ["r", "w2"], ["m2"], name="mm2"),
        helper.make_node("Add", ["m2", "b2"], ["a2"], name="add2"),
        helper.make_node("MatMul", ["a2", "w3"], ["m3"], name="mm3"),
        helper.make_node("Add", ["m3", "b3"], ["y"], name="add3"),
    ]
    g = helper.make_graph(nodes, "matmul_add", [vi("x", [4, 8])], [vi("y", [4, 5])],
                          initializer=[init("w1", 8, 6), init("b1", 6), init("w2", 6, 5),
                                       init("b2", 1, 5), init("w3", 5, 5), init("b3", 4, 5)])
    out["matmul_add"] = (save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                              os.path.join(tmp, "matmul_add.onnx")), {"fuse_matmul_add": 2})
    # Identities ending at the graph output, and a widening Cast round trip (exact).
    nodes = [
        helper.make_node("Cast", ["x"], ["xd"], name="to_double", to=TensorProto.DOUBLE),
        helper.make_node("Cast", ["xd"], ["xf"], name="to_float", to=TensorProto.FLOAT),
        helper.make_node("Relu", ["xf"], ["r"], name="relu"),
        helper.make_node("Identity", ["r"], ["i1"], name="id1"),
        helper.make_node("Identity", ["i1"], ["y"], name="id2"),
    ]
    g = helper.make_graph(nodes, "identities", [vi("x", [3, 4])], [vi("y", [3, 4])])
    out["identities"] = (save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                              os.path.join(tmp, "identities.onnx")),
                         {"remove_identity": 2, "remove_cast_round_trip": 1})
    return out


def torch_models(cache):
    """Exports the torchvision models into `cache` (reused while this script and torch are the
    same: the folder name holds both)."""
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"skipped torchvision models: {e} (install python3-torch python3-torchvision)")
        return {}
    import hashlib
    with open(os.path.abspath(__file__), "rb") as f:
        key = hashlib.sha256(f.read() + torch.__version__.encode()).hexdigest()[:16]
    folder = os.path.join(cache, key)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)

    def export(make, name, shape, fresh=False):
        path = os.path.join(folder, name + ".onnx")
        if os.path.exists(path):
            return path
        model = make()
        # Real statistics, not the fresh-init identity (mean 0, var 1, scale 1, shift 0): the
        # fold must move every number. A fresh model instead shares its equal BatchNorm
        # parameters through Identity nodes (the exporter deduplicates initializers).
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d) and not fresh:
                with torch.no_grad():
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.normal_(0, 0.2)
                    m.running_mean.normal_(0, 0.2)
                    m.running_var.uniform_(0.5, 2.0)
        model.eval()
        # PRESERVE keeps BatchNormalization nodes (EVAL mode folds them during export).
        torch.onnx.export(model, torch.randn(*shape), path + ".tmp", opset_version=13,
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                          input_names=["input"], output_names=["logits"])
        os.replace(path + ".tmp", path)
        return path

    def resnet_mish():
        model = torchvision.models.resnet18(num_classes=10)
        for module in list(model.modules()):
            for child_name, child in list(module.named_children()):
                if isinstance(child, torch.nn.ReLU):
                    setattr(module, child_name, torch.nn.Mish())
        return model

    class HalfInput(torch.nn.Module):  # a float -> float16 -> float round trip at the input
        def __init__(self):
            super().__init__()
            self.net = torchvision.models.squeezenet1_1(num_classes=10)

        def forward(self, x):
            return self.net(x.half().float())

    return {
        "resnet18": export(lambda: torchvision.models.resnet18(num_classes=10), "resnet18",
                           (1, 3, 32, 32)),
        "mobilenet_v2": export(
            lambda: torchvision.models.mobilenet_v2(width_mult=0.5, num_classes=10),
            "mobilenet_v2", (1, 3, 32, 32)),
        "resnet18_fresh": export(lambda: torchvision.models.resnet18(num_classes=10),
                                 "resnet18_fresh", (1, 3, 32, 32), fresh=True),
        "resnet18_mish": export(resnet_mish, "resnet18_mish", (1, 3, 32, 32)),
        "squeezenet_half": export(HalfInput, "squeezenet_half", (1, 3, 48, 48)),
    }


def check_torch(tool, tmp, paths):
    if not paths:
        return
    for name in ("resnet18", "mobilenet_v2"):
        before = onnx.load(paths[name])
        n_bn = op_counts(before).get("BatchNormalization", 0)
        _, after = check(tool, name, paths[name], EXACT, tmp, expect={"fold_batchnorm": n_bn})
        left = op_counts(after)
        if left.get("BatchNormalization") or left.get("Identity"):
            fail(f"{name}: BatchNormalization or Identity left: {left}")
    # Folding alone sees through the Identity nodes that share BatchNorm parameters, and drops
    # the ones only the folded BatchNorms read.
    before = onnx.load(paths["resnet18_fresh"])
    shared = sum(1 for n in before.graph.node if n.op_type == "Identity")
    _, after = check(tool, "resnet18_fresh", paths["resnet18_fresh"], ["fold_batchnorm"], tmp,
                     expect={"fold_batchnorm": op_counts(before)["BatchNormalization"]})
    read = {i for n in after.graph.node for i in n.input} | {o.name for o in after.graph.output}
    dangling = [n.name for n in after.graph.node if not set(n.output) & read]
    if shared == 0 or dangling or op_counts(after).get("Identity"):
        fail(f"resnet18_fresh: {shared} Identity nodes before; after: "
             f"{op_counts(after).get('Identity', 0)} left, dangling {dangling[:5]}")
    # Mish: proposed only, unless allowed; then replaced, and the outputs differ as stated.
    notes, after = check(tool, "resnet18_mish_proposed", paths["resnet18_mish"],
                         ["replace_activation:LeakyRelu"], tmp)
    if notes["applied"] or len(notes["proposed"]) != 17 or op_counts(after).get("Softplus") != 17:
        fail(f"resnet18_mish: expected 17 proposals and no change, got {notes}")
    elif "outputs change" not in notes["proposed"][0][2]:
        fail(f"resnet18_mish: the proposal does not say what changes: {notes['proposed'][0]}")
    notes, after = check(tool, "resnet18_mish_allowed", paths["resnet18_mish"],
                         ["replace_activation:LeakyRelu"], tmp, allow_inexact=True, exact=False,
                         expect={"replace_activation": 17})
    if op_counts(after).get("LeakyRelu") != 17 or op_counts(after).get("Softplus"):
        fail(f"resnet18_mish: Mish not replaced: {op_counts(after)}")
    # float -> float16 -> float: proposed (rounding), applied only when allowed.
    notes, _ = check(tool, "squeezenet_half_proposed", paths["squeezenet_half"],
                     ["remove_cast_round_trip"], tmp)
    if notes["applied"] or len(notes["proposed"]) != 1 or "float16" not in notes["proposed"][0][2]:
        fail(f"squeezenet_half: expected one float16 proposal, got {notes}")
    # Removing float16 rounding (relative 2^-11 at the input) moves the logits by about as much.
    check(tool, "squeezenet_half_allowed", paths["squeezenet_half"], ["remove_cast_round_trip"],
          tmp, allow_inexact=True, exact=False, expect={"remove_cast_round_trip": 1},
          max_rel_diff=2e-3)


def check_testdata(tool, tmp, root):
    """Every libonnx-testdata model with an op a pass reads: no crash, valid output, and the
    test's own inputs give the same outputs where anything changed."""
    if not os.path.isdir(root):
        print(f"skipped libonnx-testdata: {root} not found (install libonnx-testdata)")
        return
    interesting = {"Identity", "Dropout", "Transpose", "BatchNormalization", "MatMul", "Cast",
                   "Softplus", "Gemm", "Conv"}
    seen = changed = 0
    for path in sorted(glob.glob(os.path.join(root, "*", "*", "model.onnx"))):
        model = onnx.load(path)
        if not interesting & {n.op_type for n in model.graph.node}:
            continue
        seen += 1
        name = os.path.relpath(os.path.dirname(path), root).replace("/", "__")
        feeds = None
        data = os.path.join(os.path.dirname(path), "test_data_set_0")
        inputs = sorted(glob.glob(os.path.join(data, "input_*.pb")),
                        key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
        real_inputs = [v for v in model.graph.input
                       if v.name not in {t.name for t in model.graph.initializer}]
        if inputs and len(inputs) == len(real_inputs) and all(
                v.type.HasField("tensor_type") for v in real_inputs):
            feeds = {}
            for vi_, p in zip(real_inputs, inputs):
                t = TensorProto()
                with open(p, "rb") as f:
                    t.ParseFromString(f.read())
                feeds[vi_.name] = numpy_helper.to_array(t)
        try:
            onnx.checker.check_model(model, full_check=True)
            full = True
        except Exception:  # noqa: BLE001 - some test models are not strictly valid
            full = False
        try:
            notes, _ = check(tool, name, path, EXACT, tmp, feeds=feeds, full_check=full)
        except RuntimeError as e:
            fail(str(e))
            continue
        changed += bool(notes["applied"])
    print(f"libonnx-testdata: {seen} models checked, {changed} rewritten")
    if seen == 0:
        fail(f"no libonnx-testdata models found under {root}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--testdata", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--cache", help="folder for the exported torchvision models (kept)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="perfsage-onnx-rewrite-") as tmp:
        for name, (path, expect) in built_models(tmp).items():
            check(args.tool, name, path, EXACT, tmp, expect=expect)
        small = os.path.join(args.fixtures, "small_cnn.onnx")
        notes, _ = check(args.tool, "small_cnn", small, EXACT, tmp,
                         expect={"fold_batchnorm": 1, "fuse_matmul_add": 1})
        if len(notes["proposed"]) != 1:
            fail(f"small_cnn: the float16 round trip is not proposed: {notes}")
        check_torch(args.tool, tmp, torch_models(args.cache or tmp))
        check_testdata(args.tool, tmp, args.testdata)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all onnx_rewrite checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
