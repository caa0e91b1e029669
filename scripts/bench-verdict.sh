#!/bin/sh
# The last line of `make bench`: pipecheck's own verdict and exit code in words, so a failed
# verdict is never read as a failed build (make can only add "Error N" after it).
# Usage: scripts/bench-verdict.sh EXIT_CODE   (the codes of core/outcome.hpp)
code="$1"
case "$code" in
  0) verdict="PASS: nothing failed" ;;
  1) verdict="FAIL: a verdict failed, a probe failed or the baseline regressed" ;;
  2) verdict="USAGE: bad input, nothing was run" ;;
  3) verdict="COULD NOT RUN" ;;
  4) verdict="INCONCLUSIVE: nothing failed, but noise or a busy machine could have produced a failure; rerun on a quiet machine" ;;
  130) verdict="INTERRUPTED" ;;
  *) verdict="unknown outcome" ;;
esac
if [ "$code" = 0 ]; then
  echo "make bench: verdict $verdict (pipecheck exit code 0); the build succeeded"
else
  echo "make bench: verdict $verdict (pipecheck exit code $code); the build succeeded, so make's \"Error $code\" below is pipecheck's verdict"
fi
