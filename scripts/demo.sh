#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make demo`: a real qualification on an embedded default: a scratch file in the working directory
# (made and removed by storqual), the quick suite, the demo spec sheet; reports in storqual-demo/.
set -uo pipefail
bin=${1:-build/app/storqual}
out=${2:-storqual-demo}
cd "$(dirname "$0")/.."
mkdir -p "$out"
# Half the quick suite's runtimes: the demo shows the tool working; CI runs the full suites.
"$bin" run --target . --spec specs/demo.xml --suite quick --runtime-scale 0.5 --out "$out"
rc=$?
echo
echo "demo: exit code $rc (0 = every claim held, 1 = a claim failed, 3 = a run-time error)"
echo "demo: reports in $out/: storqual-junit.xml storqual-result.json storqual-report.html"
exit $rc
