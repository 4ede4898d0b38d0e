#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The golden files checked by the formats' own referees, so that a frozen output that was wrong
# fails even though it renders byte for byte (render.sh): every expected/*.junit.xml against both
# JUnit XSDs (tests/data/junit-xsd, xmllint), every expected/*.ocp.jsonl against the OCP Test &
# Validation schema (tests/data/ocp/validate.py), every expected/*.fio through `fio --parse-only`.
# A missing referee fails (it names it), and so does a count below what render.sh writes (14
# results, 3 fio exports). ctest runs it (golden_valid).
#   validate.sh [PYTHON]   (the interpreter with python3-jsonschema; default /usr/bin/python3)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=$here/..
python=${1:-/usr/bin/python3}
failed=0
for tool in xmllint fio "$python"; do
  command -v "$tool" > /dev/null || { echo "FAIL: $tool is missing (scripts/install-deps.sh test)"; exit 1; }
done
count() { ls "$here"/expected/*."$1" 2> /dev/null | wc -l; }
junit=$(count junit.xml) ocp=$(count ocp.jsonl) fio=$(count fio)
if [ "$junit" -lt 14 ] || [ "$ocp" -lt 14 ] || [ "$fio" -lt 3 ]; then
  echo "FAIL: expected/ holds $junit JUnit, $ocp OCP and $fio fio files (at least 14, 14, 3)"
  failed=1
fi
for xsd in junit-10.xsd jenkins-junit.xsd; do
  for f in "$here"/expected/*.junit.xml; do
    if ! out=$(xmllint --noout --schema "$data/junit-xsd/$xsd" "$f" 2>&1); then
      echo "FAIL $(basename "$f"): not valid against $xsd: $out"
      failed=1
    fi
  done
done
if ! out=$("$python" "$data/ocp/validate.py" "$here"/expected/*.ocp.jsonl 2>&1); then
  echo "FAIL: the OCP streams are not valid against tests/data/ocp/schema: $out"
  failed=1
fi
for f in "$here"/expected/*.fio; do
  if ! out=$(fio --parse-only "$f" 2>&1); then
    echo "FAIL $(basename "$f"): fio --parse-only refuses it: $out"
    failed=1
  fi
done
[ $failed = 0 ] && echo "golden files valid: $junit JUnit against 2 XSDs, $ocp OCP streams, $fio fio job files"
exit $failed
