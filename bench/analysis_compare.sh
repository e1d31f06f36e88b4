#!/bin/sh
# Analysis end to end, two perfsage binaries on the same inputs, interleaved so that both see
# the same machine load: ingest, analyzers (the GPU analyzer apart), fact queries and packs,
# (summed over fact types; they run on two connections) wall time and peak RSS of `perfsage analyze --verbose --store` on a fresh store, best of N.
# Usage: bench/analysis_compare.sh BASELINE_PERFSAGE NEW_PERFSAGE RUNS INPUT...
set -eu
base=${1:?baseline perfsage}; new=${2:?new perfsage}; runs=${3:?runs}; shift 3
work=${TMPDIR:-/tmp}/perfsage-analysis-compare
mkdir -p "$work"
one() {  # binary input -> "wall_s rss_mb ingest_ms analyzers_ms gpu_ms facts_ms"
  rm -f "$work/s.db" "$work/s.db-wal" "$work/s.db-shm"
  # The report goes to a file of our own: a perfsage older than issue 26 renamed a file over
  # -o FILE, and run as root `-o /dev/null` replaced the machine's null device.
  /usr/bin/time -f "%e %M" -o "$work/time" "$1" analyze -v --store "$work/s.db" "$2" \
    -o "$work/report" 2> "$work/log" || { cat "$work/log" >&2; exit 1; }
  awk -v t="$(cat "$work/time")" '
    /\] ingest: /      { for (i = 1; i <= NF; i++) if ($i == "in") ing = $(i + 1) }
    /\] analyzer /     { a += $(NF - 1); if ($0 ~ /analyzer gpu:/) g = $(NF - 1) }
    /\] facts /       { f += $(NF - 1) }
    END { split(t, w, " "); printf "%.2f %.0f %.0f %.0f %.0f %.0f\n", w[1], w[2] / 1024, ing, a, g, f }' \
    "$work/log"
}
for input in "$@"; do
  mb=$(du -m "$input" | cut -f1)
  for label in base new; do eval "best_$label=''"; done
  i=0
  while [ "$i" -lt "$runs" ]; do
    for label in base new; do
      bin=$base; [ "$label" = new ] && bin=$new
      r=$(one "$bin" "$input")
      eval "prev=\$best_$label"
      if [ -z "$prev" ] || [ "$(echo "$r" | cut -d' ' -f1 | tr -d .)" -lt "$(echo "$prev" | cut -d' ' -f1 | tr -d .)" ]; then
        eval "best_$label='$r'"
      fi
    done
    i=$((i + 1))
  done
  echo "$(basename "$input") (${mb} MB), best of $runs: wall_s rss_mb ingest_ms analyzers_ms gpu_ms facts_ms"
  echo "  baseline: $best_base"
  echo "  new:      $best_new"
done
