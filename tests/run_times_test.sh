#!/usr/bin/env bash
# scripts/compare/run-times.sh against a stand-in pipecheck: every run gets its own --out, the
# wall time and each stage's seconds of report.json are gathered per mode, and a run that breaks
# (exit 3) stops the script with exit 3 naming the round and mode.
# usage: run_times_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
script=$source_dir/scripts/compare/run-times.sh
command -v jq >/dev/null || { echo "skipped: no jq"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tests/stand_in_run.sh: decode takes 13.26 s in quick mode and 24.04 s otherwise; the stand-in
# exits 3 in the mode named by BREAK_MODE.
source "$source_dir/tests/stand_in_run.sh"
make_stand_in_run "$work/bin"
cat >"$work/bin/report" <<'SH'
#!/usr/bin/env bash
decode=24.04
[[ $1 == quick ]] && decode=13.26
echo "{\"overall\": \"pass\", \"probes\": [{\"stage\": \"storage\", \"seconds\": 3.91}, {\"stage\": \"decode\", \"seconds\": $decode}]}"
SH
chmod +x "$work/bin/report"

fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$script" --bin "$work/bin" --rounds 3)
[[ $(grep -c "^round .* quick: .* s, pass, storage 3.9 s, decode 13.3 s" <<<"$out") == 3 ]] || fail "quick rounds not reported: $out"
[[ $(grep -c "^round .* standard: .* s, pass, storage 3.9 s, decode 24 s" <<<"$out") == 3 ]] || fail "default rounds not reported: $out"
grep -q "^quick: .* s, storage 3.9 \[3.9, 3.9\], decode 13.3 \[13.3, 13.3\]" <<<"$out" || fail "quick summary wrong: $out"
grep -q "^standard: .* s, storage 3.9 \[3.9, 3.9\], decode 24.0 \[24.0, 24.0\]" <<<"$out" || fail "default summary wrong: $out"

rc=0
err=$(BREAK_MODE=quick "$script" --bin "$work/bin" --rounds 2 2>&1 >/dev/null) || rc=$?
[[ $rc == 3 ]] || fail "a broken run exited $rc, not 3"
grep -q "round 1, quick: pipecheck run exited 3: pipecheck: could not run: planted" <<<"$err" || fail "the broken run is not named: $err"

rc=0
"$script" --bin "$work/bin" --modes "quick slow" >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "an unknown mode exited $rc, not 2"
echo "ok"
