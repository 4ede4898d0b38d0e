#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Verification overhead: 4k randwrite QD32 on a zram device this script makes (and removes by its
# own id), with inline verify against without, in alternating runs; prints each run, the medians
# and the ratio (the issue asks for >= 80%), with the load average before and after.
#
# usage: bench/verify-overhead.sh [--storqual PATH] [--pairs N] [--runtime S] [--size S]
#                                 [--verify-opts "--verify xxh3 --verify_backlog 1024 ..."]
# Needs root (zram hot_add).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/zram-lib.sh
. "$here/zram-lib.sh"
storqual=""
pairs=5
runtime=5s
size=512m
verify_opts="--verify xxh3 --verify_backlog 1024 --verify_backlog_batch 128"
while [ $# -gt 0 ]; do
  case "$1" in
    --storqual) storqual=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --verify-opts) verify_opts=$2; shift 2 ;;
    *) echo "usage: $0 [--storqual PATH] [--pairs N] [--runtime S] [--size S] [--verify-opts OPTS]" >&2; exit 2 ;;
  esac
done
bench_storqual "$here"
zram_bench_device storqual-verify-overhead
echo "$size" > "/sys/block/zram$id/disksize"
# The whole device once, so that every run overwrites stored blocks.
dd if=/dev/urandom of="$dev" bs=1M count=$(( $(blockdev --getsize64 "$dev") >> 20 )) oflag=direct status=none

base=(bench --target "$dev" --rw randwrite --bs 4k --iodepth 32 --runtime "$runtime"
      --ioengine io_uring --direct 1 --allow-destructive)
iops() { python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workloads"][0]; i=w.get("integrity"); print(round(w["write"]["iops"]), "" if i is None else "bad=%d inline=%d end=%d" % (i["corrupted"]+i["misplaced"]+i["stale"]+i["foreign"]+i["bad_inline"], i["verified_inline"], i["verified_at_end"]))' "$1"; }

echo "storqual: $storqual"
echo "target: $dev ($size zram), 4k randwrite QD32, $runtime per run, $pairs pairs, alternating"
echo "verify: $verify_opts"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) CPUs)"
plain=()
checked=()
for i in $(seq 1 "$pairs"); do
  "$storqual" "${base[@]}" --json "$work/plain.json" > /dev/null
  p=$(iops "$work/plain.json")
  # shellcheck disable=SC2086
  "$storqual" "${base[@]}" $verify_opts --json "$work/verify.json" > /dev/null
  v=$(iops "$work/verify.json")
  plain+=("${p%% *}")
  checked+=("${v%% *}")
  echo "pair $i: without verify ${p%% *} IOPS | with verify ${v%% *} IOPS (${v#* })"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "${plain[*]}" "${checked[*]}" <<'EOF'
import statistics, sys
plain = [float(x) for x in sys.argv[1].split()]
checked = [float(x) for x in sys.argv[2].split()]
mp, mc = statistics.median(plain), statistics.median(checked)
pair_ratios = sorted(c / p for p, c in zip(plain, checked))
print(f"median without verify: {mp:,.0f} IOPS; with inline verify: {mc:,.0f} IOPS")
print(f"ratio (medians): {mc / mp * 100:.1f}%  (pairwise min..max {pair_ratios[0]*100:.1f}%..{pair_ratios[-1]*100:.1f}%)  target >= 80%")
EOF
