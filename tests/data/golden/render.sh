#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The golden reports: every result in results/ (one run of each method, make-results.sh) rendered
# by `storqual report` must be what expected/ holds, byte for byte: its JSON (the file itself: a
# result reads back and writes out unchanged), the JUnit (plain and --junit-rich), the HTML, the
# OCP Test & Validation stream (--ocp-diag) and the console table; and the fio job files `storqual
# suites export --fio` writes for the suites of inputs/ and the quick suite (expected/SUITE.fio).
# ctest runs it (golden_reports); `render.sh --update BINARY` rewrites expected/ after a change that
# means to alter a report: review that diff as the change. validate.sh (ctest golden_valid) checks
# expected/ against the formats' own referees (the JUnit XSDs, the OCP schema, fio --parse-only).
set -uo pipefail
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
bin=${1:?usage: render.sh [--update] STORQUAL_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/expected"
failed=0
for result in "$here"/results/*.json; do
  name=$(basename "$result" .json)
  out="$work/$name"
  mkdir -p "$out"
  if ! { "$bin" report "$result" --json "$out/result.json" --junit "$out/junit.xml" \
           --html "$out/report.html" --ocp-diag "$out/ocp.jsonl" &&
         "$bin" report "$result" --junit "$out/junit-rich.xml" --junit-rich; } > "$out/log" 2>&1 ||
     ! "$bin" report "$result" > "$out/console.txt" 2>> "$out/log"; then
    echo "FAIL $name: storqual report failed"
    cat "$out/log"
    failed=1
    continue
  fi
  if ! cmp -s "$result" "$out/result.json"; then
    echo "FAIL $name: the JSON does not read back unchanged"
    diff "$result" "$out/result.json" | head -20
    failed=1
  fi
  for kind in junit.xml junit-rich.xml report.html ocp.jsonl console.txt; do
    expected="$here/expected/$name.$kind"
    if [ $update = 1 ]; then
      cp "$out/$kind" "$expected"
    elif ! cmp -s "$expected" "$out/$kind"; then
      echo "FAIL $name: $kind differs from expected/$name.$kind"
      diff "$expected" "$out/$kind" | head -20
      failed=1
    fi
  done
done
# The fio exports: the suites the golden runs used (inputs/) and the quick suite, on one target.
for suite in "$here"/inputs/*-suite.xml quick; do
  name=$(basename "$suite" .xml)
  if ! "$bin" suites export "$suite" --fio --target /dev/zram0 --out "$work/$name.fio" \
       > "$work/$name.log" 2>&1; then
    echo "FAIL $name: storqual suites export --fio failed"
    cat "$work/$name.log"
    failed=1
    continue
  fi
  # The header names the suite file by its absolute path (a command that works from anywhere):
  # the checkout's own folder is written as tests/data/golden, so the golden holds in any clone.
  sed -i "s|$here/|tests/data/golden/|g" "$work/$name.fio"
  if [ $update = 1 ]; then
    cp "$work/$name.fio" "$here/expected/$name.fio"
  elif ! cmp -s "$here/expected/$name.fio" "$work/$name.fio"; then
    echo "FAIL $name: the fio export differs from expected/$name.fio"
    diff "$here/expected/$name.fio" "$work/$name.fio" | head -20
    failed=1
  fi
done
[ $failed = 0 ] && echo "golden reports: $(ls "$here"/results/*.json | wc -l) results render as expected/"
exit $failed
