#!/usr/bin/env bash
# Drives cli/completion/perfsage.bash as bash does on TAB (COMP_WORDS, COMP_CWORD) and checks
# COMPREPLY against what the built perfsage says it has: its commands and subcommands (--help),
# options (COMMAND --help) and packs (kb list --format names).
# usage: completion_test.sh BIN_DIR SCRIPT plain|bash-completion
#   plain: bash-completion's functions absent (the package not installed): nothing may fail
#   bash-completion: with its functions, as an interactive shell with the package has them
set -u
bin_dir=$(cd "$1" && pwd) script=$(realpath "$2") mode=$3
export PATH=$bin_dir:$PATH
if [[ $mode == bash-completion ]]; then
  bc=/usr/share/bash-completion/bash_completion
  if [[ ! -r $bc ]]; then
    echo "SKIPPED: the bash-completion package is not installed ($bc); scripts/setup --test"
    exit 77
  fi
  source "$bc"
  declare -F _init_completion >/dev/null || { echo "no _init_completion in $bc"; exit 1; }
else
  unset -f _init_completion _filedir _get_comp_words_by_ref 2>/dev/null
fi
source "$script"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/runs_dir" && touch "$work/trace_file.json"
cd "$work"
failures=0

# complete WORD...: the last word is the one being completed; COMPREPLY holds the answer and
# anything the function printed on stderr is a failure.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _perfsage 2>"$work/stderr"
  if [[ -s $work/stderr ]]; then
    echo "FAIL: '$*' wrote to stderr: $(cat "$work/stderr")"
    failures=$((failures + 1))
  fi
}

# expect "WORDS" EXPECTED...: every expected word is offered.
expect() {
  local line=$1
  shift
  read -ra w <<<"$line"
  [[ $line == *" " ]] && w+=("")
  complete_words "${w[@]}"
  local e r found
  for e in "$@"; do
    found=0
    for r in "${COMPREPLY[@]}"; do [[ $r == "$e" ]] && found=1; done
    if ((!found)); then
      echo "FAIL: '$line<TAB>' does not offer '$e' (offered: ${COMPREPLY[*]:-nothing})"
      failures=$((failures + 1))
    fi
  done
}

# The commands perfsage --help lists: "  name ARGS   summary" under "commands:".
mapfile -t commands < <(perfsage --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
((${#commands[@]} >= 10)) || { echo "FAIL: perfsage --help lists ${#commands[@]} commands"; exit 1; }
expect "perfsage " "${commands[@]}"
expect "perfsage da" daemon
expect "perfsage help " analyze submit runs

mapfile -t kb_subs < <(perfsage kb --help | sed -n '/^subcommands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
expect "perfsage kb " "${kb_subs[@]}"
mapfile -t action_subs < <(perfsage actions --help | sed -n '/^subcommands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
((${#action_subs[@]} == 6)) || echo "note: actions --help lists ${action_subs[*]}"
expect "perfsage actions " "${action_subs[@]}"
expect "perfsage daemon " status

mapfile -t packs < <(perfsage kb list --format names)
((${#packs[@]} > 0)) || { echo "FAIL: kb list --format names listed no pack"; exit 1; }
expect "perfsage analyze --kb " "${packs[@]}"
expect "perfsage kb test " "${packs[@]}"
expect "perfsage kb lint tra" transdata training_iteration

# Every long option of each command's --help is offered after "--".
check_options() {
  local opts
  mapfile -t opts < <(perfsage "$@" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  ((${#opts[@]} > 0)) || { echo "FAIL: perfsage $* --help lists no option"; failures=$((failures + 1)); }
  expect "perfsage $* --" "${opts[@]}"
}
for c in analyze ingest query compare runs show submit; do check_options "$c"; done
for s in "${kb_subs[@]}"; do check_options kb "$s"; done
for s in "${action_subs[@]}"; do check_options actions "$s"; done
check_options daemon status

expect "perfsage analyze --format " text json html
expect "perfsage show 3 --format " html
expect "perfsage analyze --fail-on " critical info
expect "perfsage analyze run" runs_dir
expect "perfsage analyze tra" trace_file.json
expect "perfsage compare --store tra" trace_file.json

if ((failures)); then
  echo "$failures failure(s) ($mode)"
  exit 1
fi
echo "completion ($mode): ok"
