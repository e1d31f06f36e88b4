#!/usr/bin/env bash
# cmake --install into a temporary prefix, then what an administrator meets there: the systemd
# unit starts the perfsaged of that prefix (ExecStart), its Documentation= names installed
# things, systemd-analyze verify accepts it, the installed perfsaged checks the installed
# example config, and man finds perfsage-analyze(1), perfsaged(8) and a page for every
# command under the prefix.
# usage: installed_service_test.sh BUILD_DIR WORK_DIR      (ctest label: install)
set -u
build=$(cd "$1" && pwd) work=$2
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd)
prefix=$work/prefix
if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "FAIL: cmake --install"
  exit 1
fi

unit=$prefix/lib/systemd/system/perfsaged.service
[[ -f $unit ]] || { echo "FAIL: no unit at $unit"; exit 1; }
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
binary=${exec_start%% *}
[[ $binary == "$prefix/bin/perfsaged" ]] || fail "ExecStart runs $binary, not $prefix/bin/perfsaged"
[[ -x $binary ]] || fail "ExecStart's $binary is not an installed executable"
docs=$(sed -n 's/^Documentation=//p' "$unit")
[[ $docs == *"man:perfsaged(8)"* ]] || fail "Documentation= lacks man:perfsaged(8): $docs"
for d in $docs; do
  if [[ $d == file://* && ! -f ${d#file://} ]]; then fail "Documentation= names ${d#file://}, not installed"; fi
done
grep -q '@[A-Z_]*@' "$unit" && fail "the unit has unreplaced @VARIABLES@: $(grep '@[A-Z_]*@' "$unit")"

example=$prefix/share/doc/perfsage/examples/perfsaged.yaml
[[ -f $example ]] || fail "no example config at $example"
[[ -f $prefix/share/doc/perfsage/README.md ]] || fail "README.md not installed"
# The example config's watch folder is where jobs write (/data/runs): --watch stands in for it.
mkdir -p "$work/runs"
if [[ -f $example && -x $binary ]]; then
  out=$(cd "$work" && env -u PERFSAGE_KB_PATH HOME="$work" "$binary" --config "$example" \
    --watch "$work/runs" --check-config 2>&1) || fail "$binary --check-config on the example: $out"
  [[ $out == *"config OK"* ]] || fail "--check-config said: $out"
fi

export MANPATH=$prefix/share/man
if command -v systemd-analyze >/dev/null; then
  # MANPATH: verify runs man for Documentation=man:perfsaged(8).
  out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $out"
  [[ -z $out ]] || fail "systemd-analyze verify warns: $out"
else
  echo "SKIPPED PART: systemd-analyze is not installed; the unit was not verified by systemd" >&2
fi

if command -v man >/dev/null; then
  for page in perfsage perfsage-analyze perfsaged; do
    where=$(man -w "$page" 2>&1)
    [[ $where == "$prefix"/share/man/* ]] || fail "man -w $page: $where"
  done
  MANWIDTH=100 man perfsage-analyze 2>&1 | grep -q -- '--fail-on' || fail "man perfsage-analyze does not show --fail-on"
  MANWIDTH=100 man perfsaged 2>&1 | grep -q 'daemon.watch' || fail "man perfsaged does not show daemon.watch"
  for c in $("$prefix/bin/perfsage" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ && $1 != "help" && $1 != "version" {print $1}'); do
    man -w "perfsage-$c" >/dev/null 2>&1 || fail "no man page perfsage-$c installed"
  done
else
  fail "man(1) is not installed (scripts/setup --test installs man-db)"
fi

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
rm -rf "$work"
echo "installed service: ok"
