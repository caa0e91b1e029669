#!/usr/bin/env bash
# `pipecheck compare --fleet` on the recorded fleet writes fleet.html; headless Chromium renders it
# (scripts/check-html.sh: no console error, nothing external, outliers marked in the matrix).
# Usage: tests/fleet_page_test.sh PIPECHECK SOURCE_DIR
set -uo pipefail
pipecheck=$(readlink -f "${1:?pipecheck}")
source_dir=$(readlink -f "${2:?source folder}")
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null ||
  { echo "SKIPPED: no chromium here (apt-get install chromium)"; exit 77; }
work=$(mktemp -d /tmp/pipecheck-fleet-page-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$source_dir/tests/data/compare/fleet" "$work/results"
"$pipecheck" compare --fleet "$work/results" --no-color >"$work/compare.txt"
rc=$?
[[ $rc -eq 1 ]] || { cat "$work/compare.txt"; echo "FAILED: compare --fleet exit $rc (the recorded fleet has outliers)"; exit 1; }
grep -q "fleet page: $work/results/fleet.html" "$work/compare.txt" || { echo "FAILED: no fleet page named"; exit 1; }
"$source_dir/scripts/check-html.sh" "$work/results/fleet.html" "$work/fleet.png" || exit 1
echo "PASSED: fleet page"
