#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target (tests/fuzz/fuzz_<target>.cpp) into a folder.

Seeds are made at fuzz time from what the checkout and its neighbours hold: ../shared/samples,
the examples, the test fixtures, the built-in packs and ../shared/crashers (regression inputs).
Nothing here is copied into the project. A target whose first input byte chooses a variant
(file name, strict or lenient mode) gets one seed per variant that fits the file.

    make_seeds.py TARGET OUT_DIR [--max-bytes N]
"""
import argparse
import gzip
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "samples"
CRASHERS = SHARED / "crashers"


def files(base, pattern):
    return sorted(p for p in base.glob(pattern) if p.is_file()) if base.exists() else []


def text_of(path):
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def trimmed_json(data, max_bytes):
    """A large trace cut down to its first events, still valid JSON (the fuzzer truncates
    long inputs, which would leave only the damaged-file paths to explore)."""
    if len(data) <= max_bytes:
        return data
    try:
        doc = json.loads(data)
    except ValueError:
        return data[:max_bytes]
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    keep = list(events)
    while keep:
        body = keep if isinstance(doc, list) else dict(doc, traceEvents=keep)
        out = json.dumps(body).encode()
        if len(out) <= max_bytes:
            return out
        keep = keep[: len(keep) * 3 // 4]
    return data[:max_bytes]


# Variant indexes must match the name tables of the fuzz targets.
CSV_NAMES = ["kernel_details", "op_summary", "step_trace_time", "cluster_step_trace_time",
             "op_statistic", "step_trace_"]
ASCEND_JSON_NAMES = ["trace_view", "msprof_", "info.json", "communication", "fusion_result"]


def variant(name, table):
    for i, key in enumerate(table):
        if name.startswith(key) or key in name:
            return i
    return None


def seeds(target, max_bytes):
    """Yields (choice byte or None, bytes)."""
    if target == "csv_tables":
        for p in files(SAMPLES, "ascend/**/*.csv") + files(ROOT / "examples", "**/*.csv"):
            # cluster_step_trace_time before step_trace_time: the longer key first
            name = p.name
            v = 3 if name.startswith("cluster_step") else variant(name, CSV_NAMES)
            if v is not None:
                yield v, p.read_bytes()[:max_bytes]
    elif target == "kineto":
        for p in files(SAMPLES, "kineto/*") + files(ROOT / "tests/fixtures", "**/*.json.gz"):
            yield 0, trimmed_json(text_of(p), max_bytes)
    elif target == "ascend_json":
        for p in (files(SAMPLES, "ascend/**/*.json") + files(ROOT / "examples", "**/*.json")
                  + files(CRASHERS, "F*/**/*.json")):
            v = variant(p.name, ASCEND_JSON_NAMES)
            if v is not None:
                yield v, trimmed_json(p.read_bytes(), max_bytes)
        # info.json has no sample: one as msprof writes it
        yield 2, (b'{"platform_version":"5","DeviceInfo":[{"id":0,"env_type":3,"ai_core_num":24,'
                  b'"aiv_num":48,"aic_frequency":"1800","hwts_frequency":"50"}]}')
    elif target == "ge_text":
        for p in files(SAMPLES, "ascend/**/ge_proto_*"):
            yield 0, p.read_bytes()[:max_bytes]
    elif target == "onnx":
        for p in (files(ROOT / "tests/fixtures", "**/*.onnx")
                  + files(Path("/usr/share/onnx"), "**/*.onnx")[:200]):
            data = p.read_bytes()
            if len(data) <= max_bytes:
                yield 0, data
    elif target == "pack_yaml":
        for p in files(ROOT / "knowledge_bases", "**/pack.yaml") + files(CRASHERS, "packs/*/pack.yaml"):
            yield None, p.read_bytes()[:max_bytes]
    elif target == "config_yaml":
        for p in files(CRASHERS, "C1_config_uncaught/*.yaml") + files(ROOT / "examples", "**/*.yaml"):
            yield None, p.read_bytes()
        yield None, (b"kb:\n  paths: [packs]\n  packs: [aicpu, 'gpu_*']\n  enable: [tag:ascend]\n"
                     b"  disable: [aicpu.small_tasks]\n  params: {aicpu: {min_task_us: 50}}\n"
                     b"  min_maturity: incubating\n  builtin: true\nlimits:\n  pack_time: 2s\n"
                     b"  pack_memory: 256MiB\n  pack_max_firings: 100000\n  isolate: untrusted\n"
                     b"  max_input: 1GiB\n  pack_time_ms: 2000\n")
    else:
        sys.exit(f"make_seeds.py: unknown target {target}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("target")
    ap.add_argument("out", type=Path)
    ap.add_argument("--max-bytes", type=int, default=128 * 1024)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    n = 0
    for choice, data in seeds(args.target, args.max_bytes - 1):
        # Strict and lenient variants of each file (mode is the choice byte's low bit).
        prefixes = [b""] if choice is None else [bytes([choice << 1]), bytes([choice << 1 | 1])]
        for prefix in prefixes:
            seed = prefix + data
            (args.out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
            n += 1
    print(f"{args.target}: {n} seed(s) in {args.out}")


if __name__ == "__main__":
    main()
