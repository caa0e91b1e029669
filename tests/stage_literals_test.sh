#!/usr/bin/env bash
# One stage, one place (issue 23): no stage name is a string literal in more than 3 non-test
# source files (its record lives in stages/, its name in core/stage_names.hpp). And no two units
# (a header and its source) include each other's header.
# usage: stage_literals_test.sh SOURCE_DIR
set -euo pipefail
cd "$1"
status=0
names=$(sed -n 's/^inline constexpr char \([a-z_]*\)\[\] = "\([a-z_]*\)";$/\2/p' core/stage_names.hpp)
[[ -n "$names" ]] || { echo "FAIL: no stage names found in core/stage_names.hpp"; exit 1; }
sources=$(git ls-files -- '*.cpp' '*.hpp' '*.cu' | grep -v '^tests/')
for name in $names; do
  files=$(grep -l "\"$name\"" $sources || true)
  count=$(grep -c . <<<"$files" || true)
  if (( count > 3 )); then
    echo "FAIL: \"$name\" is a string literal in $count non-test source files:" $files
    status=1
  fi
done
# Units (a header and its source) that include each other's header.
unit_includes() {  # HEADER: what it and its .cpp include
  local cpp=${1%.hpp}.cpp
  sed -n 's/^#include "\([^"]*\.hpp\)"$/\1/p' "$1" $([[ -f $cpp ]] && echo "$cpp")
}
for header in $(git ls-files -- '*.hpp'); do
  for included in $(unit_includes "$header" | sort -u); do
    [[ -f "$included" && "$included" != "$header" ]] || continue
    if unit_includes "$included" | grep -qx "$header"; then
      echo "FAIL: $header and $included include each other"
      status=1
    fi
  done
done
(( status == 0 )) && echo "ok: stage names and headers"
exit $status
