#!/bin/bash
# Alternating runs of several perfsage binaries on one input, fresh --store each time, one line
# per run: wall, CPU (user + system), peak RSS, the ingest (-v), the analysis (from the ingest's
# log line to the fact prefetch's: the analyzers, their rows copied into the store, summary
# and facts) and the load average, so that a noisy machine shows in every figure.
# Usage: bench/analysis_runs.sh RUNS INPUT PERFSAGE...
# (PERFSAGE_ANALYZER_THREADS=1 in the environment runs the analyzers one after another.)
set -eu
runs=${1:?runs}; input=${2:?input}; shift 2
work=${TMPDIR:-/tmp}/perfsage-analysis-runs
mkdir -p "$work"
seconds() {  # the time of day of the first log line matching $1, in seconds
  grep -m1 "$1" "$work/log" | sed -E 's/^\[[0-9-]+ ([0-9]+):([0-9]+):([0-9.]+)\].*/\1 \2 \3/' |
    awk '{ printf "%.3f", $1 * 3600 + $2 * 60 + $3 }'
}
for i in $(seq "$runs"); do
  for bin in "$@"; do
    rm -f "$work/s.db" "$work/s.db-wal" "$work/s.db-shm"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" analyze -v --store "$work/s.db" \
      "$input" -o "$work/report" 2> "$work/log" || { cat "$work/log" >&2; exit 1; }
    ingest=$(grep -m1 '\] ingest:' "$work/log" | sed -E 's/.* in ([0-9.]+) ms.*/\1/')
    analysis=$(awk -v a="$(seconds '\] ingest:')" -v z="$(seconds 'fact prefetch')" \
      'BEGIN { printf "%.0f", (z - a) * 1000 }')
    read -r wall user sys rss < "$work/time"
    printf "%s\t%s\twall %s s\tcpu %.2f s\trss %d MB\tingest %s ms\tanalysis %s ms\tload %s\n" \
      "$i" "$bin" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
      $((rss / 1024)) "$ingest" "$analysis" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done
