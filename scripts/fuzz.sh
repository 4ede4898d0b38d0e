#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every libFuzzer target of a fuzz build for RUNS executions over a copy of its committed
# corpus (tests/fuzz/corpus/<target>), so the committed corpus is never changed. Prints per target
# the executions, the time and the result; exits 1 when any target finds a crash, leak, UB report
# or uncaught exception (the input is kept in BUILD_DIR/fuzz-artifacts/<target>/).
# Usage: scripts/fuzz.sh BUILD_DIR [RUNS]      (make fuzz FUZZ_RUNS=N builds and calls this)
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [RUNS]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
runs=${2:-1000000}
case "$runs" in '' | *[!0-9]*) echo "fuzz.sh: RUNS must be a number, got '$runs'" >&2; exit 2 ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
targets=(spec_sheet suite units result_json fio_job fio_json archive_options archive_file ata_pages
         scsi_log_pages scan_checkpoint self_test_pages powercut_journal block_size_mix nvme_pages)

work=$(mktemp -d "${TMPDIR:-/tmp}/storqual-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Leaks count; UB stops the run (the libraries are built with -fno-sanitize-recover=undefined).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
printf '%-12s %12s %9s %8s  %s\n' target executions seconds exec/s result
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz.sh: $bin is missing (configure with CC=clang CXX=clang++ -DSTORQUAL_FUZZ=ON)" >&2
    exit 2
  fi
  corpus="$work/$t"
  mkdir -p "$corpus" "$work/artifacts-$t"
  cp "$src/tests/fuzz/corpus/$t/"* "$corpus/"
  dict=()
  [ -f "$src/tests/fuzz/$t.dict" ] && dict=(-dict="$src/tests/fuzz/$t.dict")
  log="$work/$t.log"
  start=$(date +%s.%N)
  status=0
  "$bin" -runs="$runs" -seed=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts-$t/" "${dict[@]}" "$corpus" >"$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$status" -eq 0 ] && grep -q '^Done ' "$log"; then
    result=clean
  else
    result="FAILED (exit $status)"
    failed=1
    keep="$build/fuzz-artifacts/$t"
    mkdir -p "$keep"
    cp "$work/artifacts-$t/"* "$keep/" 2>/dev/null || true
    cp "$log" "$keep/fuzz.log"
    grep -E 'ERROR|SUMMARY|runtime error|terminate|what\(\)|property broken' "$log" | head -20 >&2 || true
    echo "fuzz.sh: $t failed; log and reproducing input in $keep (rerun: $bin $keep/<input>)" >&2
  fi
  printf '%-12s %12s %9s %8s  %s\n' "$t" "${execs:-?}" "$seconds" "${speed:-?}" "$result"
done
exit "$failed"
