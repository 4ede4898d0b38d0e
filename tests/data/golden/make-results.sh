#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# How results/ was measured (root: a zram device of its own, removed on exit): one run of every
# method through `storqual run`, at runtime scales that keep each under a few seconds. The files
# are fixtures, not references of any device: rerun this only to add a method or a field, then
# `tests/data/golden/render.sh --update build/app/storqual` and review the diff of expected/. A run
# that did not judge (exit 2, a crash) or wrote no result stops the script: a failed run is no
# fixture.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../../build/app/storqual}
id=$(cat /sys/class/zram-control/hot_add)
dev=/dev/zram$id
cleanup() {
  for _ in 1 2 3 4 5; do echo 1 > /sys/block/zram$id/reset 2>/dev/null && break; sleep 1; done
  echo "$id" > /sys/class/zram-control/hot_remove
}
trap cleanup EXIT
echo 128M > /sys/block/zram$id/disksize
run() {
  local name=$1; shift
  local out; out=$(mktemp -d)
  local rc=0
  "$bin" run --target "$dev" "$@" --allow-destructive --force --size 32m --out "$out" > "$out.log" 2>&1 || rc=$?
  # 0 pass, 1 a claim failed, 3 incomplete: a result either way; anything else is a failed run.
  if { [ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 3 ]; } || [ ! -s "$out/storqual-result.json" ]; then
    echo "make-results: $name: storqual run exited $rc without a result" >&2
    cat "$out.log" >&2
    exit 1
  fi
  cp "$out/storqual-result.json" "$here/results/$name.json"
  rm -f "$out.log"
  rm -rf "$out"
  echo "$name"
}
run plain-quick --suite quick --runtime-scale 0.05
run latency-search-sustained --suite latency-bound --runtime-scale 0.01
run latency-search-claims --spec "$here/inputs/latency.xml" --runtime-scale 0.01
run capacity-integrity --suite integrity --runtime-scale 0.01
run integrity-claims --spec "$here/inputs/integrity.xml" --runtime-scale 0.01
run steady-state --suite "$here/inputs/steady-state-suite.xml" --runtime-scale 0.01
run pts-wsat --suite snia-wsat --runtime-scale 0.0002
run pts-wsat-claims --spec "$here/inputs/wsat.xml" --runtime-scale 0.0002
run pts-dirth --suite snia-dirth --runtime-scale 0.0005
run pts-xsr --suite snia-xsr --runtime-scale 0.0001
run pts-hir --suite snia-hir --runtime-scale 0.0002
run surface-scan --suite burn-in
run group-claims --spec "$here/inputs/group.xml" --runtime-scale 0.5
