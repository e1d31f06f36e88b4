#!/usr/bin/env bash
# The built man pages against the built programs: a page for every command perfsage --help
# lists, every long option of each command's (and subcommand's) --help in its page, every
# option of perfsaged --help and every config key daemon/config.cpp reads in perfsaged(8), and
# each page renders with man(1) without warnings.
# usage: man_pages_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd)
perfsage=$build/bin/perfsage perfsaged=$build/bin/perfsaged
man_dir=$build/cli/man
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
command -v man >/dev/null || { echo "SKIPPED: man(1) is not installed (man-db)"; exit 77; }

# page_has PAGE WORD...: each word (an option or key) appears in the page's roff source, where
# '-' is written '\-'.
page_has() {
  local page=$1 word
  shift
  for word in "$@"; do
    grep -qF -- "${word//-/\\-}" "$page" || fail "$(basename "$page") lacks $word"
  done
}

long_options() {
  "$@" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

subcommands() {
  "$perfsage" "$1" --help 2>&1 | sed -n '/^subcommands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}'
}

renders() {
  local page=$1 out
  out=$(MANWIDTH=100 man --warnings -l "$page" 2>&1 >/dev/null)
  [[ -z $out ]] || fail "$(basename "$page") renders with warnings: $out"
  MANWIDTH=100 man -l "$page" 2>/dev/null | grep -q "EXIT STATUS" || fail "$(basename "$page") has no EXIT STATUS"
}

[[ -f $man_dir/perfsage.1 ]] || fail "no perfsage.1"
renders "$man_dir/perfsage.1"
# help and version are the top-level page's.
mapfile -t commands < <("$perfsage" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ && $1 != "help" && $1 != "version" {print $1}')
((${#commands[@]} >= 10)) || fail "perfsage --help lists ${#commands[@]} commands"
for c in "${commands[@]}"; do
  page=$man_dir/perfsage-$c.1
  if [[ ! -f $page ]]; then
    fail "no page for perfsage $c ($page): add it to PERFSAGE_MAN_COMMANDS in cli/CMakeLists.txt"
    continue
  fi
  renders "$page"
  for section in "EXIT STATUS" FILES "SEE ALSO"; do grep -q "^\.SH $section" "$page" || fail "perfsage-$c.1 has no $section"; done
  page_has "$man_dir/perfsage.1" "perfsage-$c"
  mapfile -t subs < <(subcommands "$c")
  if ((${#subs[@]} == 0)); then
    mapfile -t opts < <(long_options "$perfsage" "$c")
    ((${#opts[@]} > 1)) || fail "perfsage $c --help lists no option"
    page_has "$page" "${opts[@]}"
  else
    for s in "${subs[@]}"; do
      grep -q "^\.SS $s\$" "$page" || fail "perfsage-$c.1 has no section for $s"
      mapfile -t opts < <(long_options "$perfsage" "$c" "$s")
      page_has "$page" "${opts[@]}"
    done
  fi
done

page=$build/daemon/man/perfsaged.8
if [[ -f $page ]]; then
  renders "$page"
  mapfile -t opts < <(long_options "$perfsaged")
  page_has "$page" "${opts[@]}"
  mapfile -t keys < <(grep -oE '"daemon\.[a-z_.]+(\[\]\.[a-z_]+)?"' "$source/daemon/config.cpp" | tr -d '"' | sort -u)
  ((${#keys[@]} > 30)) || fail "found ${#keys[@]} config keys in daemon/config.cpp"
  page_has "$page" "${keys[@]}"
  for section in SIGNALS FILES "EXIT STATUS" CONFIGURATION "HTTP API"; do grep -q "^\.SH $section" "$page" || fail "perfsaged.8 has no $section"; done
else
  fail "no perfsaged.8"
fi

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "man pages: ok"
