#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# How results/ was measured (root: a zram device of its own, removed on exit): one run of every
# method through `storqual run`, at runtime scales that keep each under a few seconds. The files
# are fixtures, not references of any device: rerun this only to add a method or a field, then
# `scripts/golden-reports.sh --update` and review the diff of expected/.
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
  "$bin" run --target "$dev" "$@" --allow-destructive --force --size 32m --out "$out" > /dev/null 2>&1 || true
  cp "$out/storqual-result.json" "$here/results/$name.json"
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
