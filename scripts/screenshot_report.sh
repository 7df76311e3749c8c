#!/usr/bin/env bash
# Renders an HTML report (gpubench report RUN.json --html REPORT.html) to a PNG with
# headless Chromium, for a look at the plots without opening a browser.
#   scripts/screenshot_report.sh REPORT.html OUT.png [HEIGHT]
# HEIGHT is the window height in pixels (default: estimated from the report's length).
set -euo pipefail

if (($# < 2 || $# > 3)); then
  echo "usage: $0 REPORT.html OUT.png [HEIGHT]" >&2
  exit 2
fi
report=$(realpath "$1")
out=$(realpath -m "$2")
[[ -f "$report" ]] || { echo "screenshot_report: no such file: $1" >&2; exit 2; }

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null; then browser=$candidate; break; fi
done
[[ -n "$browser" ]] || { echo "screenshot_report: no chromium or chromium-browser (scripts/setup.sh installs chromium)" >&2; exit 1; }

# Each op/dtype section is about 750 px tall at 1400 px wide (summary table + a row of
# plots that wraps once); the header and the results table add the rest.
if (($# == 3)); then
  height=$3
else
  sections=$(grep -o '<section class="group"' "$report" | wc -l)
  rows=$(grep -o '<tr>' "$report" | wc -l)
  height=$((400 + sections * 750 + rows * 24))
fi

rm -f "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: Chromium's sandbox refuses to start as root (CI containers run as root).
timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --window-size="1400,$height" --screenshot="$out" "file://$report" >/dev/null 2>&1 || true
[[ -s "$out" ]] || { echo "screenshot_report: $browser wrote no screenshot to $out" >&2; exit 1; }
echo "$out"
