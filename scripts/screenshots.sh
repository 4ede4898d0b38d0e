#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Rewrites docs/report-pass.png (the demo's report: the quick suite on a scratch file, judged by
# specs/demo.xml), docs/report-fail.png (the sample failing result of the tests) and docs/audit.png
# (the audit page of tests/system/audit_test.cpp's purchase order) with headless
# chromium. Needs a build (cmake --build build) and chromium. Usage: scripts/screenshots.sh [BUILD]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
test_binary=$build/tests/html_browser_test
[ -x "$test_binary" ] || { echo "no $test_binary: build first (cmake --build $build)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 1; }
STORQUAL_UPDATE_DOC_SCREENSHOTS=1 "$test_binary" --gtest_filter='HtmlBrowser.RefreshDocScreenshots'
# docs/audit.png: the audit page of the test's purchase order (tests/system/audit_test.cpp).
[ -x "$build/tests/audit_test" ] &&
  STORQUAL_UPDATE_DOC_SCREENSHOTS=1 "$build/tests/audit_test" --gtest_filter='AuditBrowser.*'
ls -l "$root/docs/report-pass.png" "$root/docs/report-fail.png" "$root/docs/audit.png"
