#!/usr/bin/env bash
# Renders a pipecheck report.html in headless Chromium: fails when the page logs a console error
# or an uncaught exception, or references anything over the network; saves a screenshot to look at.
# Usage: scripts/check-html.sh REPORT.html [SCREENSHOT.png]   (default: REPORT.png beside it)
set -euo pipefail

if [[ $# -lt 1 || ! -f "$1" ]]; then
  echo "usage: $0 REPORT.html [SCREENSHOT.png]" >&2
  exit 2
fi
html=$(readlink -f "$1")
shot=${2:-${html%.html}.png}

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z "$browser" ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "check-html: installing chromium (apt-get)" >&2
    apt-get install -y chromium >/dev/null
    browser=$(command -v chromium)
  else
    echo "check-html: no chromium found; install it (apt-get install chromium)" >&2
    exit 3
  fi
fi

# Self-contained: nothing may load from the network (no http(s) src/href, no @import url).
if grep -Eq '(src|href)="(https?:)?//|@import|url\((https?:)?//' "$html"; then
  echo "check-html: $1 references an external resource:" >&2
  grep -Eon '(src|href)="(https?:)?//[^"]*|@import[^;]*|url\((https?:)?//[^)]*' "$html" | head >&2
  exit 1
fi

profile=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$profile" "$log"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0
       --window-size=1400,2400)

# The DOM after load: proves the page parsed; console messages go to the log.
dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$html" 2>"$log")
if ! grep -q '</html>' <<<"$dom"; then
  echo "check-html: chromium produced no DOM for $1" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
timeout 120 "$browser" "${flags[@]}" --screenshot="$shot" "file://$html" 2>>"$log" >/dev/null

# Console lines look like: [..:INFO:CONSOLE:1] "Uncaught ReferenceError: ...", source: file://... (1)
errors=$(grep -E ':CONSOLE[:(]' "$log" | grep -Ei 'uncaught|error|refused|failed to load|net::ERR' || true)
if [[ -n "$errors" ]]; then
  echo "check-html: console errors in $1:" >&2
  echo "$errors" >&2
  exit 1
fi
echo "check-html: $1 renders with no console errors; screenshot: $shot"
