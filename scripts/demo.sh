#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make demo`: a real qualification on an embedded default: a scratch file in the working directory
# (made and removed by storqual), the quick suite, the demo spec sheet; reports in storqual-demo/.
set -uo pipefail
bin=${1:-build/app/storqual}
out=${2:-storqual-demo}
cd "$(dirname "$0")/.."
mkdir -p "$out"
# The quick suite as written (about 20 s): a scaled run would be a deviation (docs/reports.md), and
# the demo's report should show what a qualification as written looks like.
"$bin" run --target . --spec specs/demo.xml --suite quick --out "$out"
rc=$?
echo
echo "demo: exit code $rc (0 = every claim held, 1 = a claim failed, 3 = incomplete: an error, or a claim not judged)"
echo "demo: reports in $out/: storqual-junit.xml storqual-result.json storqual-report.html"
exit $rc
