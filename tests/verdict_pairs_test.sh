#!/usr/bin/env bash
# scripts/compare/verdict-pairs.sh against a stand-in pipecheck: pairs whose verdicts agree are
# counted as agreeing, one subject whose quick verdict differs from full's is named and makes the
# script exit 1, and a run that breaks (exit 3) stops it with exit 3 naming the round and mode.
# usage: verdict_pairs_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
script=$source_dir/scripts/compare/verdict-pairs.sh
command -v jq >/dev/null || { echo "skipped: no jq"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tests/stand_in_run.sh: decode/full/threads:2 passes, except in quick mode when QUICK_WARNS
# is set; the stand-in exits 3 in the mode named by BREAK_MODE.
source "$source_dir/tests/stand_in_run.sh"
make_stand_in_run "$work/bin"
cat >"$work/bin/report" <<'SH'
#!/usr/bin/env bash
verdict=pass
[[ $1 == quick && -n ${QUICK_WARNS:-} ]] && verdict=warn
cat <<JSON
{"overall": "$verdict", "verdicts": [
  {"subject": "decode/full/threads:2", "verdict": "$verdict"},
  {"subject": "decode/full/threads:1", "verdict": "info"},
  {"subject": "inventory/cpu", "verdict": "pass"}]}
JSON
SH
chmod +x "$work/bin/report"

fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$script" --bin "$work/bin" --rounds 2 --only decode)
grep -q "quick: 2 of 2 pairs agree" <<<"$out" || fail "agreeing pairs not counted: $out"
grep -q "standard: 2 of 2 pairs agree" <<<"$out" || fail "standard not counted: $out"

rc=0
out=$(QUICK_WARNS=1 "$script" --bin "$work/bin" --rounds 2 --only decode) || rc=$?
[[ $rc == 1 ]] || fail "a differing verdict exited $rc, not 1: $out"
grep -q "quick: 0 of 2 pairs agree" <<<"$out" || fail "differing pairs counted as agreeing: $out"
grep -q "differ: decode/full/threads:2 warn/pass" <<<"$out" || fail "the differing subject is not named: $out"

rc=0
err=$(BREAK_MODE=full "$script" --bin "$work/bin" --rounds 1 2>&1 >/dev/null) || rc=$?
[[ $rc == 3 ]] || fail "a broken run exited $rc, not 3"
grep -q "full: pipecheck run exited 3" <<<"$err" || fail "the broken run is not named: $err"
echo "ok"
