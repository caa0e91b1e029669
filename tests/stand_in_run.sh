# A stand-in for `pipecheck run`, shared by the tests of the scripts that drive whole runs
# (verdict-pairs.sh, run-times.sh). Sourced; `make_stand_in_run DIR` writes DIR/pipecheck, which
# takes the mode from --quick / --full (standard otherwise), refuses an --out that exists (the
# real one never writes into another run's folder: exit 2), exits 3 in the mode named by
# BREAK_MODE, and otherwise writes OUT/vm-1/report.json from what DIR/report prints for the mode
# (the test writes DIR/report).
make_stand_in_run() {
  mkdir -p "$1"
  cat >"$1/pipecheck" <<'SH'
#!/usr/bin/env bash
set -euo pipefail
out= mode=standard
while (( $# )); do
  case $1 in --out) out=$2 ;; --quick) mode=quick ;; --full) mode=full ;; esac
  shift
done
[[ $mode == "${BREAK_MODE:-}" ]] && { echo "pipecheck: could not run: planted" >&2; exit 3; }
[[ ! -e $out ]] || { echo "pipecheck: --out reused" >&2; exit 2; }
mkdir -p "$out/vm-1"
"$(dirname "$0")/report" "$mode" >"$out/vm-1/report.json"
SH
  chmod +x "$1/pipecheck"
}
