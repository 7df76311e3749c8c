#!/usr/bin/env bash
# Renders an HTML page of gpubench (a report: gpubench report RUN.json --html REPORT.html, or a
# history's trend page: gpubench history show --html TREND.html) to a PNG with headless
# Chromium, for a look at the plots without opening a browser.
#   scripts/screenshot_report.sh REPORT.html OUT.png [HEIGHT]
# HEIGHT is the window height in pixels (default: estimated from the page's length, at most
# 16000). Every failure says why in one line on stderr.
set -euo pipefail
trap 'echo "screenshot_report: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

if (($# < 2 || $# > 3)); then
  echo "usage: $0 REPORT.html OUT.png [HEIGHT]" >&2
  exit 2
fi
[[ -f "$1" ]] || { echo "screenshot_report: no such file: $1" >&2; exit 2; }
report=$(realpath "$1")
out=$(realpath -m "$2")
[[ -d "$(dirname "$out")" ]] || { echo "screenshot_report: no such directory for $2" >&2; exit 2; }

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null; then browser=$candidate; break; fi
done
[[ -n "$browser" ]] || { echo "screenshot_report: no chromium or chromium-browser (scripts/setup.sh installs chromium)" >&2; exit 1; }

# Occurrences of a pattern in the page; none is 0 (grep's exit 1 for no match is no failure).
count() { { grep -o "$1" "$report" || true; } | wc -l; }

# Each op/dtype section of a report is about 750 px tall at 1400 px wide (summary table + a
# row of plots that wraps once), each case of a trend page about 400 px; the header and the
# tables add the rest.
if (($# == 3)); then
  [[ "$3" =~ ^[1-9][0-9]*$ ]] || { echo "screenshot_report: HEIGHT must be a positive number of pixels, not '$3'" >&2; exit 2; }
  height=$3
else
  groups=$(count '<section class="group"')
  histories=$(count '<section class="history"')
  rows=$(count '<tr>')
  height=$((400 + groups * 750 + histories * 400 + rows * 24))
  ((height <= 16000)) || height=16000
fi

rm -f "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: Chromium's sandbox refuses to start as root (CI containers run as root).
log="$profile/browser.log"
status=0
timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --window-size="1400,$height" --screenshot="$out" "file://$report" >"$log" 2>&1 || status=$?
if [[ ! -s "$out" ]]; then
  why=$(grep -m1 -i 'error' "$log" || true)
  echo "screenshot_report: $browser wrote no screenshot to $out (exit $status${why:+: $why})" >&2
  exit 1
fi
echo "$out"
