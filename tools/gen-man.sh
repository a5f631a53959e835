#!/bin/sh
# gen-man.sh OUT.1 NAME VERSION COMMAND... - a man page made of the text
# `COMMAND --help` prints (the one source of a command's documentation).
# For `llamp`, each command listed under "Commands:" adds a section with
# `llamp CMD --help`.  Used by cmake/packaging.cmake at build time.
set -eu
out=$1 name=$2 version=$3
shift 3
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
help=$("$@" --help 2>&1) || { echo "gen-man: '$* --help' failed" >&2; exit 1; }
# the summary: the first paragraph after "NAME - " on the first line (to
# its first full stop), else the line after the usage line
summary=$(printf '%s\n' "$help" | awk 'NR == 1 { k = index($0, " - "); if (!k) exit; on = 1; $0 = substr($0, k + 3) }
  on && /^$/ { exit } on { t = t (t ? " " : "") $0 } END { sub(/\. .*/, ".", t); print t }')
[ -n "$summary" ] || summary=$(printf '%s\n' "$help" | sed -n '2p')
{
  printf '.TH "%s" 1 "" "smpi-llamp %s" "smpi-llamp"\n' "$(echo "$name" | tr a-z A-Z)" "$version"
  echo ".SH NAME"
  printf '%s \\- %s\n' "$name" "$(printf '%s\n' "$summary" | esc)"
  echo ".SH DESCRIPTION"
  printf '%s\n' "The text of \\fB$name --help\\fR:"
  echo ".PP"
  echo ".nf"
  printf '%s\n' "$help" | esc
  echo ".fi"
  if [ "$name" = llamp ]; then
    for cmd in $(printf '%s\n' "$help" | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
      echo ".SH \"LLAMP $(echo "$cmd" | tr a-z A-Z)\""
      echo ".nf"
      "$@" "$cmd" --help 2>&1 | esc
      echo ".fi"
    done
  fi
  echo ".SH SEE ALSO"
  echo "llamp(1), smpi_llamp-cc(1), smpi_llamp-run(1), llamp-trace(1), llamp-platform(1), llamp_hostspeed(1);"
  echo "the documentation in share/doc/smpi_llamp (docs/*.md)."
} >"$out.tmp"
mv "$out.tmp" "$out"
