#!/usr/bin/env bash
# `pipecheck run` started by Open MPI on this machine (mpirun --oversubscribe -np 4, with
# --allow-run-as-root as root): four runs, each its own run folder, and no probe sees mpirun's
# variables (OMPI_*, PMIX_*), so none believes it is one rank of a 4-rank job.
# Usage: tests/mpi_test.sh PIPECHECK SOURCE_DIR
set -uo pipefail
pipecheck=$(readlink -f "${1:?pipecheck binary}")
source_dir=$(readlink -f "${2:?source folder}")
fail() { echo "FAILED: $*" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "SKIPPED: mpirun not installed (scripts/install-deps.sh installs openmpi-bin)"; exit 77; }
work=$(mktemp -d /tmp/pipecheck-mpi-XXXXXX)
trap 'rm -rf "$work"' EXIT
as_root=()
[[ $(id -u) -eq 0 ]] && as_root=(--allow-run-as-root)
if ! timeout 60 mpirun "${as_root[@]}" --oversubscribe -np 4 true >"$work/start.log" 2>&1; then
  echo "SKIPPED: mpirun cannot start 4 processes here: $(head -c 300 "$work/start.log")"
  exit 77
fi
mkdir -p "$work/probes"
cp "$source_dir/tests/data/probes/env_probe.sh" "$work/probes/pipecheck-hostmem"
timeout 120 mpirun "${as_root[@]}" --oversubscribe -np 4 \
  "$pipecheck" run --only hostmem --probe-dir "$work/probes" --out "$work/results" --no-color >"$work/run.log" 2>&1 ||
  { tail -n 20 "$work/run.log"; fail "mpirun -np 4 pipecheck run: exit $?"; }
logs=("$work"/results/*/hostmem.log)
[[ ${#logs[@]} -eq 4 ]] || fail "expected 4 run folders, found ${#logs[@]}: $(ls "$work/results")"
for log in "${logs[@]}"; do
  grep -q '^PATH=' "$log" || fail "$log: no environment recorded"
  if grep -E '^(OMPI_|PMIX_|PMI_|ORTE_|PRTE_|OPAL_)' "$log"; then fail "mpirun's variables reached the probe ($log)"; fi
done
# The four runs wrote one history store at once: all four are in it.
"$pipecheck" history "$work/results" --json --no-html >"$work/history.json" 2>"$work/history.err" ||
  [[ $? -eq 1 ]] || fail "pipecheck history: $(cat "$work/history.err")"
recorded=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$work/history.json")
[[ $recorded -eq 4 ]] || fail "expected 4 runs in results/history.db, found $recorded"
echo "PASSED: 4 runs under mpirun, no launcher variable in any probe's environment, all 4 in the history"
