# bash completion for perfsage (installed as share/bash-completion/completions/perfsage)

_perfsage() {
  local cur prev words cword
  _init_completion || return
  local commands="analyze ingest query kb actions compare help version"
  local kb_sub="list test facts validate lint describe new install remove paths"
  if [[ $cword -eq 1 ]]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  local cmd=${words[1]}
  case $prev in
    --format)
      case $cmd in
        kb) COMPREPLY=($(compgen -W "text json markdown" -- "$cur")) ;;
        analyze|compare) COMPREPLY=($(compgen -W "text json html" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
      esac
      return ;;
    --fail-on)
      COMPREPLY=($(compgen -W "critical high medium low info" -- "$cur"))
      return ;;
    --config|--store|-o|--output)
      _filedir
      return ;;
    --kb)
      local packs
      packs=$(perfsage kb list --format json 2>/dev/null | sed -n 's/^ *"name": "\(.*\)",$/\1/p')
      COMPREPLY=($(compgen -W "$packs" -- "$cur"))
      _filedir -d
      return ;;
  esac
  case $cmd in
    analyze)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--kb --config --store --job --format --output --fail-on --lenient --quiet --verbose --help" -- "$cur"))
      else
        _filedir
      fi ;;
    ingest)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--store --job --config --format --output --lenient --verbose --help" -- "$cur"))
      else
        _filedir
      fi ;;
    compare)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--store --format --output --top --sort --config --kb --help" -- "$cur"))
      else
        _filedir
      fi ;;
    query)
      COMPREPLY=($(compgen -W "--store --tables --header --help" -- "$cur")) ;;
    kb)
      if [[ $cword -eq 2 ]]; then
        COMPREPLY=($(compgen -W "$kb_sub --help" -- "$cur"))
      elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--config --format --strict --replace --dir --help" -- "$cur"))
      else
        _filedir
      fi ;;
    help)
      COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
    *)
      _filedir ;;
  esac
}
complete -F _perfsage perfsage
