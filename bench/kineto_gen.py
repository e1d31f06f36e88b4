#!/usr/bin/env python3
"""Scales a real Kineto trace up to a target size: the events are repeated with shifted times
and shifted External id / correlation / flow ids so the result is still a valid, linkable
Kineto trace. Usage: kineto_gen.py SOURCE(.json|.json.gz) OUT.json SIZE_MB"""
import gzip
import json
import sys


def main():
    src, out, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    body = [e for e in events if e.get("ph") != "M"]
    meta = [e for e in events if e.get("ph") == "M"]
    times = [e["ts"] for e in body if isinstance(e.get("ts"), (int, float))]
    ends = [e["ts"] + e.get("dur", 0) for e in body if isinstance(e.get("ts"), (int, float))]
    span = int(max(ends) - min(times)) + 1000
    ids = [0]
    for e in body:
        a = e.get("args", {})
        for k in ("External id", "correlation"):
            if isinstance(a.get(k), int):
                ids.append(a[k])
        if isinstance(e.get("id"), int):
            ids.append(e["id"])
    stride = max(ids) + 1
    header = {k: v for k, v in doc.items() if k != "traceEvents"}
    target = int(size_mb * 1024 * 1024)
    written = 0
    with open(out, "w", encoding="utf-8") as f:
        head = json.dumps(header, indent=2)[:-2]  # without the closing brace
        f.write(head + ',\n  "traceEvents": [\n')
        first = True
        rep = 0
        while written < target:
            dt, di = rep * span, rep * stride
            lines = []
            for e in body:
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = e2["ts"] + dt
                if isinstance(e2.get("id"), int):
                    e2["id"] = e2["id"] + di
                if "args" in e2:
                    a = dict(e2["args"])
                    for k in ("External id", "correlation"):
                        if isinstance(a.get(k), int):
                            a[k] += di
                    e2["args"] = a
                lines.append("  " + json.dumps(e2))
            chunk = ("" if first else ",\n") + ",\n".join(lines)
            first = False
            f.write(chunk)
            written += len(chunk)
            rep += 1
        for e in meta:
            f.write(",\n  " + json.dumps(e))
        f.write("\n  ]\n}\n")
    print(f"{out}: {rep} repetitions of {len(body)} events, {written / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
