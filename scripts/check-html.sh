#!/usr/bin/env bash
# Renders a pipecheck report.html (or the fleet page, fleet.html) in headless Chromium: fails when the page logs a console error
# or an uncaught exception, or references anything over the network, or when a chart's text is
# cut or collides: every SVG text must lie inside its chart, bar labels left of their bars, and no
# two labels may overlap (measured with the fonts Chromium really uses, not by character count);
# on the fleet page every host row has a cell for every stage and outlier cells are drawn marked;
# saves a screenshot to look at.
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
# Chart text geometry: a copy of the page with a measuring script (the report itself has none).
probe=$(mktemp --suffix=.html)
script=$(mktemp)
trap 'rm -rf "$profile" "$log" "$probe" "$script"' EXIT
cat > "$script" <<'JS'
(function () {
  var problems = [], count = 0, slack = 0.5;
  // The text's box in its chart's coordinates, its own transform (a rotated axis label) applied.
  function box(t) {
    var b = t.getBBox(), list = t.transform.baseVal;
    var corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]];
    if (list.numberOfItems) {
      var m = list.consolidate().matrix;
      corners = corners.map(function (p) { return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f]; });
    }
    var xs = corners.map(function (p) { return p[0]; }), ys = corners.map(function (p) { return p[1]; });
    return {x0: Math.min.apply(null, xs), x1: Math.max.apply(null, xs), y0: Math.min.apply(null, ys), y1: Math.max.apply(null, ys)};
  }
  function name(t) { return '"' + t.textContent.slice(0, 60) + '"'; }
  document.querySelectorAll('svg.chart').forEach(function (svg, index) {
    var view = svg.viewBox.baseVal, texts = svg.querySelectorAll('text'), labels = [];
    texts.forEach(function (t) {
      var b = box(t);
      count++;
      if (b.x0 < view.x - slack || b.x1 > view.x + view.width + slack || b.y0 < view.y - slack ||
          b.y1 > view.y + view.height + slack) {
        problems.push('chart ' + index + ': ' + name(t) + ' at x ' + b.x0.toFixed(1) + '..' + b.x1.toFixed(1) +
                      ', y ' + b.y0.toFixed(1) + '..' + b.y1.toFixed(1) + ' leaves the chart (0..' + view.width + ' x 0..' + view.height + ')');
      }
      if (t.classList.contains('bar-label')) {
        var bar = t.parentNode.querySelector('rect.bar');
        if (bar && b.x1 > bar.x.baseVal.value + slack) problems.push('chart ' + index + ': bar label ' + name(t) + ' runs into its bar');
      }
      if (t.classList.contains('bar-label') || t.classList.contains('bar-note') || t.parentNode.classList.contains('legend')) {
        labels.push([t, b]);
      }
    });
    for (var i = 0; i < labels.length; i++) {
      for (var j = i + 1; j < labels.length; j++) {
        var a = labels[i][1], c = labels[j][1];
        var dx = Math.min(a.x1, c.x1) - Math.max(a.x0, c.x0), dy = Math.min(a.y1, c.y1) - Math.max(a.y0, c.y0);
        if (dx > 1 && dy > 1) problems.push('chart ' + index + ': ' + name(labels[i][0]) + ' overlaps ' + name(labels[j][0]));
      }
    }
  });
  // The fleet page (compare --fleet): every host row has a cell for every stage, and every
  // outlier cell is drawn, and drawn unlike the others.
  var fleet = document.querySelector('table.fleet'), fleetText = '';
  if (fleet) {
    var stages = fleet.querySelectorAll('thead th').length - 1, rows = fleet.querySelectorAll('tbody tr');
    var plain = fleet.querySelector('td.cell:not(.outlier)'), marked = fleet.querySelectorAll('td.outlier');
    var plainBackground = plain ? getComputedStyle(plain).backgroundColor : '';
    rows.forEach(function (row) {
      var cells = row.querySelectorAll('td.cell').length;
      if (cells !== stages) problems.push('fleet: host ' + row.getAttribute('data-host') + ' has ' + cells + ' cells for ' + stages + ' stages');
    });
    marked.forEach(function (cell) {
      var r = cell.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) problems.push('fleet: an outlier cell is not drawn');
      if (getComputedStyle(cell).backgroundColor === plainBackground) problems.push('fleet: an outlier cell looks like the others');
    });
    fleetText = '; fleet: ' + rows.length + ' hosts x ' + stages + ' stages, ' + marked.length + ' outlier cells marked';
  }
  var out = document.createElement('pre');
  out.id = 'pipecheck-label-check';
  out.textContent = problems.length ? 'LABEL-PROBLEMS\n' + problems.join('\n')
                                    : 'LABELS-OK ' + count + ' chart texts inside their charts, none overlapping' + fleetText;
  document.body.appendChild(out);
})();
JS
{ sed '/<\/body>/,$d' "$html"; echo '<script>'; cat "$script"; echo '</script></body></html>'; } > "$probe"
measured=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$probe" 2>>"$log" |
           sed -n '/<pre id="pipecheck-label-check">/,/<\/pre>/p')
if ! grep -q 'LABELS-OK' <<<"$measured"; then
  echo "check-html: chart text in $1 is cut or collides:" >&2
  sed -e 's/<[^>]*>//g' <<<"$measured" | grep -v '^LABEL-PROBLEMS$' | head -40 >&2
  exit 1
fi
echo "check-html: $1 renders with no console errors; $(sed -e 's/<[^>]*>//g' -e 's/^LABELS-OK //' <<<"$measured" | tr -d '\n'); screenshot: $shot"
