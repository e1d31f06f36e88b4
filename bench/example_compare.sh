#!/bin/sh
# The bundled example (scripts/demo's command) end to end, two perfsage binaries alternating so
# that both see the same machine load: wall and CPU (user + system) of `perfsage analyze` with
# its temporary store, then with a fresh --store each run; the least, the median and the most
# of RUNS runs each, and the load average before and after.
# Usage: bench/example_compare.sh BASELINE_PERFSAGE NEW_PERFSAGE RUNS [INPUT]
set -eu
base=${1:?baseline perfsage}; new=${2:?new perfsage}; runs=${3:?runs}
input=${4:-$(dirname "$0")/../examples/resnet50_rank0_ascend_pt}
work=$(mktemp -d "${TMPDIR:-/tmp}/perfsage-example-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in temporary store; do
  : > "$work/base"; : > "$work/new"
  i=0
  while [ "$i" -lt "$runs" ]; do
    for label in base new; do
      bin=$base; [ "$label" = new ] && bin=$new
      set -- analyze "$input" -o "$work/report"
      if [ "$mode" = store ]; then
        rm -f "$work/s.db" "$work/s.db-wal" "$work/s.db-shm"
        set -- "$@" --store "$work/s.db"
      fi
      /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin" "$@" 2> "$work/log" ||
        { cat "$work/log" >&2; exit 1; }
      awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time" >> "$work/$label"
    done
    i=$((i + 1))
  done
  for label in base new; do
    for col in 1 2; do
      what=wall; [ "$col" = 2 ] && what=cpu
      sort -n -k"$col","$col" "$work/$label" | awk -v c="$col" -v l="$label" -v m="$mode" \
        -v w="$what" '{ v[NR] = $c } END {
          printf "%-9s %-4s %-4s least %.2f s  median %.2f s  most %.2f s  (%d runs)\n",
                 m, l, w, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
