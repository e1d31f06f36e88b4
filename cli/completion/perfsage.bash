# bash completion for perfsage (installed as share/bash-completion/completions/perfsage).
# Works with the bash-completion package and without it: its helpers are used when they are
# there, plain compgen otherwise. Options come from the command's own --help and pack names
# from `perfsage kb list --format names`, so both follow the installed perfsage.

# The words so far, as _init_completion gives them, without bash-completion.
_perfsage_words() {
  if declare -F _init_completion >/dev/null; then
    _init_completion -n = || return 1
  else
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=""
    if ((COMP_CWORD > 0)); then prev=${COMP_WORDS[COMP_CWORD - 1]}; fi
  fi
}

# Files (or, with -d, folders) matching $cur.
_perfsage_files() {
  if declare -F _filedir >/dev/null; then
    _filedir "$@"
    return
  fi
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  if [[ ${1:-} == -d ]]; then
    COMPREPLY+=($(compgen -d -- "$cur"))
  else
    COMPREPLY+=($(compgen -f -- "$cur"))
  fi
}

_perfsage_add() {
  COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

_perfsage_packs() {
  "${words[0]}" kb list --format names 2>/dev/null
}

# The long options the command's --help lists ("perfsage kb test --help").
_perfsage_options() {
  "${words[0]}" "$@" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_perfsage() {
  local cur prev words cword
  _perfsage_words || return
  COMPREPLY=()
  local commands="analyze ingest query kb actions compare daemon runs show submit help version"
  if ((cword == 1)); then
    _perfsage_add "$commands --help --version"
    return
  fi
  local cmd=${words[1]} sub=""
  case $cmd in
    kb | actions | daemon)
      if ((cword == 2)); then
        case $cmd in
          kb) _perfsage_add "list test facts validate lint describe new install remove paths --help" ;;
          actions) _perfsage_add "plan apply rollback list audit verify --help" ;;
          daemon) _perfsage_add "status --help" ;;
        esac
        return
      fi
      sub=${words[2]}
      ;;
    help)
      ((cword == 2)) && _perfsage_add "$commands"
      return
      ;;
  esac
  case $prev in
    --format)
      case $cmd/$sub in
        kb/list) _perfsage_add "text json names" ;;
        kb/facts) _perfsage_add "markdown json" ;;
        kb/*) _perfsage_add "text json markdown" ;;
        analyze/* | compare/* | show/*) _perfsage_add "text json html" ;;
        *) _perfsage_add "text json" ;;
      esac
      return
      ;;
    --fail-on)
      _perfsage_add "critical high medium low info"
      return
      ;;
    --sort)
      _perfsage_add "step total"
      return
      ;;
    --config | --store | -o | --output | --token-file | --port-file)
      _perfsage_files
      return
      ;;
    --out | --dir)
      _perfsage_files -d
      return
      ;;
    --kb)
      _perfsage_add "$(_perfsage_packs)"
      _perfsage_files -d
      return
      ;;
    --url | --token | --job | --since | --until | --limit | --page-token | --top | --status | \
      --finding | --run | --timeout)
      return # a value to type
      ;;
  esac
  if [[ $cur == -* ]]; then
    _perfsage_add "$(_perfsage_options "$cmd" $sub)"
    return
  fi
  case $cmd/$sub in
    kb/test | kb/lint | kb/validate | kb/describe)
      _perfsage_add "$(_perfsage_packs)"
      _perfsage_files -d
      ;;
    kb/remove) _perfsage_add "$(_perfsage_packs)" ;;
    kb/install) _perfsage_files ;;
    kb/* | query/* | runs/* | show/* | daemon/* | actions/apply | actions/rollback | \
      actions/list | actions/audit | actions/verify) ;;
    *) _perfsage_files ;;
  esac
}
complete -F _perfsage perfsage
