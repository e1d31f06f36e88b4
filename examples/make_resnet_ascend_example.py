#!/usr/bin/env python3
"""Writes a synthetic PyTorch-on-Ascend profiler output folder for `scripts/demo`.

The files follow the real torch_npu formats (docs/formats.md; column names and value shapes as in
the public msprof-analyze samples): kernel_details.csv, trace_view.json and step_trace_time.csv
under <name>_ascend_pt/ASCEND_PROFILER_OUTPUT/. The numbers model three training steps of a
ResNet-50-like network on one 910B-class device (24 cube / 48 vector cores), with problems a
user would want found: an AI CPU NonZero and an INT64->UINT64 Cast, TransData round trips, online
operator compilation (aclopCompileAndExecute), exposed gradient all-reduce.

Deterministic (fixed seed). Usage: python3 examples/make_resnet_ascend_example.py [OUT_DIR]
"""
import csv
import json
import os
import random
import sys

rng = random.Random(20261202)
out_root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "resnet50_rank0_ascend_pt")
out = os.path.join(out_root, "ASCEND_PROFILER_OUTPUT")
os.makedirs(out, exist_ok=True)

HEADER = ["Step Id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "Accelerator Core",
          "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Mix Block Dim",
          "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
          "Output Data Types", "Output Formats", "Context ID", "aicore_time(us)",
          "aic_total_cycles", "aic_mac_fp16_ratio", "aic_mac_int8_ratio", "aic_cube_fops",
          "aic_vector_fops", "aiv_time(us)", "aiv_total_cycles", "aiv_vec_fp32_ratio",
          "aiv_vec_fp16_ratio", "aiv_vec_int32_ratio", "aiv_vec_misc_ratio", "aiv_cube_fops",
          "aiv_vector_fops"]

# (type, core, block dim, mean µs, in dtypes, out dtypes, in formats, out formats, shapes)
LAYER_OPS = [
    ("TransData", "AI_VECTOR_CORE", 48, 38.0, "FLOAT16", "FLOAT16", "NCHW", "NC1HWC0",
     "64,256,56,56"),
    ("Conv2D", "AI_CORE", 24, 210.0, "FLOAT16;FLOAT16", "FLOAT16", "NC1HWC0;FRACTAL_Z",
     "NC1HWC0", "64,16,56,56,16;144,16,16,16"),
    ("BNTrainingReduce", "AI_VECTOR_CORE", 48, 42.0, "FLOAT16", "FLOAT;FLOAT", "NC1HWC0",
     "NC1HWC0;NC1HWC0", "64,16,56,56,16"),
    ("BNTrainingUpdate", "AI_VECTOR_CORE", 48, 55.0, "FLOAT16;FLOAT;FLOAT", "FLOAT16",
     "NC1HWC0;NC1HWC0;NC1HWC0", "NC1HWC0", "64,16,56,56,16"),
    ("Relu", "AI_VECTOR_CORE", 48, 24.0, "FLOAT16", "FLOAT16", "NC1HWC0", "NC1HWC0",
     "64,16,56,56,16"),
    ("TransData", "AI_VECTOR_CORE", 48, 36.0, "FLOAT16", "FLOAT16", "NC1HWC0", "NCHW",
     "64,16,56,56,16"),
]
BACKWARD_OPS = [
    ("Conv2DBackpropInput", "AI_CORE", 24, 260.0, "FLOAT16;FLOAT16", "FLOAT16",
     "FRACTAL_Z;NC1HWC0", "NC1HWC0", "144,16,16,16;64,16,56,56,16"),
    ("Conv2DBackpropFilter", "AI_CORE", 24, 240.0, "FLOAT16;FLOAT16", "FLOAT", "NC1HWC0;NC1HWC0",
     "FRACTAL_Z", "64,16,56,56,16;64,16,56,56,16"),
    ("BNTrainingUpdateGrad", "AI_VECTOR_CORE", 40, 61.0, "FLOAT16;FLOAT16", "FLOAT;FLOAT",
     "NC1HWC0;NC1HWC0", "NC1HWC0;NC1HWC0", "64,16,56,56,16"),
    ("ReluGrad", "AI_VECTOR_CORE", 48, 26.0, "FLOAT16;FLOAT16", "FLOAT16", "NC1HWC0;NC1HWC0",
     "NC1HWC0", "64,16,56,56,16"),
]
STEP_US = 58_000.0
LAYERS = 16
rows, trace, step_rows = [], [], []
t0 = 1733140000000000.0
task_id = 1000
PID_PY, PID_CANN, PID_HW, PID_OVL = 3001, 300102, 800, 30011100
meta = [
    (PID_PY, "Python", "CPU"), (PID_CANN, "CANN", "CPU"), (PID_HW, "Ascend Hardware", "NPU"),
    (PID_OVL, "Overlap Analysis", "NPU")]
for pid, name, label in meta:
    trace.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}})
    trace.append({"ph": "M", "name": "process_labels", "pid": pid, "tid": 0,
                  "args": {"labels": label}})
for i, n in enumerate(["Computing", "Communication", "Communication(Not Overlapped)", "Free"]):
    trace.append({"ph": "M", "name": "thread_name", "pid": PID_OVL, "tid": i,
                  "args": {"name": n}})


def ts(us):
    return "%.3f" % us


def add_task(step, name, typ, core, start, dur, blk, idt, odt, ifmt, ofmt, shapes, stream=3):
    global task_id
    task_id += 1
    cube = core == "AI_CORE"
    fops = dur * (2.2e8 if cube else 4.0e6)
    rows.append([
        step, 4294967295, task_id, stream, name, typ, core, "%.3f" % start, "%.3f" % dur,
        "%.3f" % rng.uniform(0.5, 3.0), blk, 0, '"""%s"""' % shapes, idt, ifmt, '"""%s"""' % shapes,
        odt, ofmt, "N/A",
        "%.3f" % (dur * 0.93 if cube else 0), int(dur * 1.8e3 * blk) if cube else 0,
        "%.4f" % (rng.uniform(0.55, 0.8) if cube else 0), 0, "%.0f" % (fops if cube else 0),
        "%.0f" % (0 if cube else fops),
        "%.3f" % (0 if cube else dur * 0.9), 0 if cube else int(dur * 1.8e3 * blk),
        "%.4f" % (0 if cube else rng.uniform(0.1, 0.3)),
        "%.4f" % (0 if cube else rng.uniform(0.2, 0.5)), 0,
        "%.4f" % (0 if cube else rng.uniform(0.0, 0.1)), 0, "%.0f" % (0 if cube else fops)])
    trace.append({"ph": "X", "name": name, "pid": PID_HW, "tid": stream, "ts": ts(start),
                  "dur": dur, "args": {"Model Id": 4294967295, "Task Type": core,
                                       "Stream Id": stream, "Task Id": task_id}})


for step in (1, 2, 3):
    step_start = t0 + (step - 1) * STEP_US
    trace.append({"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#%d" % step, "pid": PID_PY,
                  "tid": PID_PY, "ts": ts(step_start), "dur": STEP_US - 5, "args": {}})
    load = rng.uniform(2500, 3500)
    trace.append({"ph": "X", "cat": "cpu_op",
                  "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                  "pid": PID_PY, "tid": PID_PY, "ts": ts(step_start + 10), "dur": load,
                  "args": {}})
    t = step_start + load + 200
    computing = 0.0
    # Online compilation of aclop operators (dynamic shapes) in every step.
    for op in ("NonZero", "Conv2D", "MaxPoolWithArgmaxV1"):
        d = rng.uniform(900, 1400)
        trace.append({"ph": "X", "name": "AscendCL@aclopCompileAndExecute", "pid": PID_CANN,
                      "tid": PID_CANN, "ts": ts(t), "dur": d,
                      "args": {"Thread Id": PID_CANN, "Mode": "ACL_OP", "level": "acl",
                               "id": op}})
        trace.append({"ph": "X", "name": "AscendCL@opCompile", "pid": PID_CANN,
                      "tid": PID_CANN, "ts": ts(t + 5), "dur": d * 0.4,
                      "args": {"Thread Id": PID_CANN, "Mode": "ACL_OP", "level": "acl"}})
        t += d + 20
    # First layer: Cast + TransData before the first convolution (AIPP candidate).
    for name, typ, dur in (("trans_Cast_0", "Cast", 31.0), ("trans_TransData_1", "TransData",
                                                                58.0)):
        add_task(step, name, typ, "AI_VECTOR_CORE", t, dur, 48, "UINT8", "FLOAT16", "NCHW",
                 "NC1HWC0", "64,3,224,224")
        t += dur + 2
        computing += dur
    n = 2
    for layer in range(LAYERS):
        for typ, core, blk, mean, idt, odt, ifmt, ofmt, shp in LAYER_OPS:
            dur = rng.gauss(mean, mean * 0.05)
            add_task(step, "%s%d" % (typ, n), typ, core, t, dur, blk, idt, odt, ifmt, ofmt, shp)
            n += 1
            t += dur + rng.uniform(1, 4)
            computing += dur
    # AI CPU operators: NonZero on the loss mask, and an INT64 -> UINT64 Cast feeding it.
    for name, typ, dur, idt, odt in (("NonZero217", "NonZero", 1850.0, "BOOL", "INT64"),
                                     ("trans_Cast_218", "Cast", 160.0, "INT64", "UINT64")):
        d = rng.gauss(dur, dur * 0.03)
        add_task(step, name, typ, "AI_CPU", t, d, 1, idt, odt, "FORMAT_ND", "FORMAT_ND", "64,1000")
        t += d + 5
        computing += d
    for layer in range(LAYERS):
        for typ, core, blk, mean, idt, odt, ifmt, ofmt, shp in BACKWARD_OPS:
            dur = rng.gauss(mean, mean * 0.05)
            add_task(step, "%s%d" % (typ, n), typ, core, t, dur, blk, idt, odt, ifmt, ofmt, shp)
            n += 1
            t += dur + rng.uniform(1, 4)
            computing += dur
    # Gradient all-reduce after the backward pass: mostly not overlapped with compute.
    comm = rng.uniform(21000, 23000)
    rows.append([step, 4294967295, "N/A", "N/A", "hcom_allReduce__%d_0" % (400 + step),
                 "hcom_allReduce_", "HCCL", "%.3f" % t, "%.3f" % comm, "%.3f" % 2.1] +
                ["N/A"] * (len(HEADER) - 10))
    overlapped = comm * 0.08
    trace.append({"ph": "X", "name": "Computing", "pid": PID_OVL, "tid": 0,
                  "ts": ts(step_start + load + 200), "dur": computing})
    trace.append({"ph": "X", "name": "Communication", "pid": PID_OVL, "tid": 1, "ts": ts(t),
                  "dur": comm})
    trace.append({"ph": "X", "name": "Communication(Not Overlapped)", "pid": PID_OVL, "tid": 2,
                  "ts": ts(t + overlapped), "dur": comm - overlapped})
    t += comm
    opt = rng.uniform(6000, 7000)
    trace.append({"ph": "X", "cat": "cpu_op", "name": "Optimizer.step#SGD.step", "pid": PID_PY,
                  "tid": PID_PY, "ts": ts(t), "dur": opt, "args": {}})
    sync = rng.uniform(300, 600)
    trace.append({"ph": "X", "name": "AscendCL@aclrtSynchronizeStream", "pid": PID_CANN,
                  "tid": PID_CANN, "ts": ts(t + opt), "dur": sync,
                  "args": {"Thread Id": PID_CANN, "Mode": "ACL_RTS", "level": "acl"}})
    free = STEP_US - computing - (comm - overlapped)
    trace.append({"ph": "X", "name": "Free", "pid": PID_OVL, "tid": 3, "ts": ts(t + opt),
                  "dur": free})
    step_rows.append([0, step, "%.3f" % computing, "%.3f" % (comm - overlapped),
                      "%.3f" % overlapped, "%.3f" % comm, "%.3f" % free, 0, 0,
                      "%.3f" % (comm - overlapped), "%.3f" % load])

with open(os.path.join(out, "kernel_details.csv"), "w", newline="") as f:
    f.write(",".join(HEADER) + "\n")
    for r in rows:
        f.write(",".join(str(c) for c in r) + "\n")
with open(os.path.join(out, "trace_view.json"), "w") as f:
    json.dump(trace, f)
with open(os.path.join(out, "step_trace_time.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["Device_id", "Step", "Computing", "Communication(Not Overlapped)", "Overlapped",
                "Communication", "Free", "Stage", "Bubble",
                "Communication(Not Overlapped and Exclude Receive)", "Preparing"])
    w.writerows(step_rows)
print("wrote", out)
