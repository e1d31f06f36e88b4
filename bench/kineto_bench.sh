#!/bin/sh
# Generates scaled Kineto traces and measures ingest next to Python's json.load on the same file.
# Usage: bench/kineto_bench.sh BUILD_DIR [SIZE_MB ...]   (default sizes: 100 1000)
set -eu
build=${1:?build dir}; shift
sizes=${*:-100 1000}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../shared/samples/kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz
work=${TMPDIR:-/tmp}/perfsage-kineto-bench
mkdir -p "$work"
for mb in $sizes; do
  trace=$work/alexnet_x_${mb}MB.json
  [ -f "$trace" ] || python3 "$here/kineto_gen.py" "$src" "$trace" "$mb"
  sync
  cat "$trace" > /dev/null  # warm the page cache for every contender alike
  taskset -c 0 "$build/bin/kineto_bench" "$trace" "$work/store.db" 1
  "$build/bin/kineto_bench" "$trace" "$work/store.db" 2
  python3 - "$trace" <<'PY'
import json, resource, sys, time, os
t, c = time.time(), time.process_time()
with open(sys.argv[1], "rb") as f:
    doc = json.load(f)
s, cpu = time.time() - t, time.process_time() - c
mb = os.path.getsize(sys.argv[1]) / 1e6
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"python json.load  {mb:.1f} MB JSON  wall {s:.2f} s = {mb / s:.0f} MB/s  cpu {cpu:.2f} s = {mb / cpu:.0f} MB/cpu-s  "
      f"{len(doc['traceEvents']) / s / 1e6:.2f} M events/s  peak RSS {rss:.0f} MB ({rss / mb:.2f}x JSON)")
PY
  gzip -1 -c "$trace" > "$trace.gz"
  "$build/bin/kineto_bench" "$trace.gz" "$work/store.db" 2
done
