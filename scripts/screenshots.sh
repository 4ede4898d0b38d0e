#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Rewrites docs/report-pass.png (the demo's report: the quick suite on a scratch file, judged by
# specs/demo.xml) and docs/report-fail.png (the sample failing result of the tests) with headless
# chromium. Needs a build (cmake --build build) and chromium. Usage: scripts/screenshots.sh [BUILD]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
test_binary=$build/tests/html_browser_test
[ -x "$test_binary" ] || { echo "no $test_binary: build first (cmake --build $build)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 1; }
STORQUAL_UPDATE_DOC_SCREENSHOTS=1 "$test_binary" --gtest_filter='HtmlBrowser.RefreshDocScreenshots'
ls -l "$root/docs/report-pass.png" "$root/docs/report-fail.png"
