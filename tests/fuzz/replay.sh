#!/bin/sh
# Replays one fuzz target's regression inputs (ctest's fuzz_replay_<target>): the seeds
# make_seeds.py writes from the samples, examples, fixtures, packs and ../shared/crashers, and
# the inputs committed in tests/fuzz/corpus/<target> (what fuzzing found, minimised).
#   replay.sh REPLAY_BINARY TARGET SCRATCH_DIR
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1" target="$2" scratch="$3"
rm -rf "$scratch"
mkdir -p "$scratch"
# Smaller seeds than a fuzz run's: the replay is a smoke test, run by every build of the suite.
python3 "$here/make_seeds.py" "$target" "$scratch" --max-bytes 65536
set -- "$scratch"
[ -d "$here/corpus/$target" ] && set -- "$@" "$here/corpus/$target"
exec "$bin" "$@"
