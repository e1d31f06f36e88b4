#!/bin/sh
# The stage breakdown of `perfsage analyze --verbose` for two binaries on the same input,
# interleaved so that both see the same machine load, fresh store each time: for every stage
# the -v log times (ingest, each analyzer and each timed part of one, summary, fact prefetch)
# the least over RUNS runs, then wall time, CPU time (user + system: on a loaded machine the
# work done, where wall time also measures the other processes) and peak RSS (least). Analyzers
# that run concurrently overlap: their times do not add up to the wall time.
# Usage: bench/analysis_stages.sh BASELINE_PERFSAGE NEW_PERFSAGE RUNS INPUT
# (PERFSAGE_ANALYZER_THREADS=1 in the environment runs the analyzers one after another.)
set -eu
base=${1:?baseline perfsage}; new=${2:?new perfsage}; runs=${3:?runs}; input=${4:?input}
work=${TMPDIR:-/tmp}/perfsage-analysis-stages
mkdir -p "$work"
: > "$work/base.all"; : > "$work/new.all"
i=0
while [ "$i" -lt "$runs" ]; do
  for label in base new; do
    bin=$base; [ "$label" = new ] && bin=$new
    rm -f "$work/s.db" "$work/s.db-wal" "$work/s.db-shm"
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" analyze -v --store "$work/s.db" "$input" \
      -o "$work/report" 2> "$work/log" || { cat "$work/log" >&2; exit 1; }
    # "stage<TAB>ms" lines: ingest, analyzers, their parts, fact prefetch, wall, RSS.
    sed -n 's/.*\] ingest: .* in \([0-9.]*\) ms.*/ingest\t\1/p;
            s/.*\] \(analyzer [a-z_]*\): \([0-9.]*\) ms$/\1\t\2/p;
            s/.*\] \(gpu [a-z_ ,]*\): \([0-9.]*\) ms$/  \1\t\2/p;
            s/.*\] \(roofline [a-z_ ]*\): \([0-9.]*\) ms$/  \1\t\2/p;
            s/.*\] \(launch pass [a-z ]*\): \([0-9.]*\) ms$/    \1\t\2/p;
            s/.*\] fact prefetch: .* in \([0-9.]*\) ms.*/fact prefetch\t\1/p' "$work/log" \
      >> "$work/$label.all"
    awk '{ printf "wall (s)\t%s\ncpu (s)\t%.2f\npeak RSS (MB)\t%.0f\n", $1, $3 + $4, $2 / 1024 }' \
      "$work/time" \
      >> "$work/$label.all"
  done
  i=$((i + 1))
done
echo "$(basename "$input"): least of $runs alternating runs (ms unless said)"
# Stages in the order of the first log, the least value per stage per binary.
awk -F '\t' '
  FNR == 1 { file++ }
  { key = $1; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    v = $2 + 0; if (!((file, key) in best) || v < best[file, key]) best[file, key] = v }
  END { printf "%-52s %12s %12s\n", "stage", "baseline", "new"
        for (i = 1; i <= n; i++) printf "%-52s %12s %12s\n", order[i],
          ((1, order[i]) in best) ? best[1, order[i]] : "-",
          ((2, order[i]) in best) ? best[2, order[i]] : "-" }' \
  "$work/base.all" "$work/new.all"
