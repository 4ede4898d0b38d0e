#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What direct writes carry, and what a compressing device makes of it: 4k random writes on a zram
# device this script makes (and removes by its own id), by storqual (`bench --write_contents W`)
# and by fio 3.x with the same contents (docs/formats.md, write_contents: scramble is fio's
# default, fixed is --scramble_buffers=0, refill is --refill_buffers=1; stamp has no fio option),
# through psync at QD1 (one thread, CPU-bound: the device's cost per write decides) and io_uring
# at QD32 (the kernel's io-wq workers compress: how the tool waits decides too). storqual and fio
# alternate (ABBA) per row; prints each row's medians and storqual/fio. docs/fio-files.md,
# "fio's JSON judged", has the figures.
#
# usage: bench/zram-write-contents.sh [--storqual PATH] [--pairs N] [--runtime S] [--size S]
#                                     [--contents stamp,scramble,fixed,refill]
#                                     [--engines psync,io_uring] [--storqual-opts "--spin_wait 50us"]
# Needs root (zram hot_add) and fio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/zram-lib.sh
. "$here/zram-lib.sh"
storqual=""
pairs=2
runtime=3
size=1g
contents=stamp,scramble,fixed,refill
engines=psync,io_uring
storqual_opts=""
usage="usage: $0 [--storqual PATH] [--pairs N] [--runtime S] [--size S] [--contents LIST] [--engines LIST] [--storqual-opts OPTS]"
while [ $# -gt 0 ]; do
  case "$1" in
    --storqual) storqual=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --contents) contents=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --storqual-opts) storqual_opts=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
case "$pairs" in '' | *[!0-9]* | 0) echo "--pairs: a positive number, got '$pairs'" >&2; exit 2 ;; esac
case "$runtime" in '' | *[!0-9]* | 0) echo "--runtime: whole seconds, got '$runtime'" >&2; exit 2 ;; esac
bench_storqual "$here"
command -v fio > /dev/null || { echo "fio is not installed" >&2; exit 77; }
zram_bench_device storqual-zram-contents
# Twice the region, so the region is whole zram pages however it was written before.
echo $(( $(numfmt --from=iec "${size^^}") * 2 )) > "/sys/block/zram$id/disksize"
region_mib=$(( $(numfmt --from=iec "${size^^}") >> 20 ))
dd if=/dev/urandom of="$dev" bs=1M count="$region_mib" oflag=direct status=none

storqual_iops() {  # contents engine depth
  # shellcheck disable=SC2086
  "$storqual" bench --target "$dev" --rw randwrite --bs 4k --iodepth "$3" --ioengine "$2" \
    --direct 1 --runtime "$runtime" --size "$size" --write_contents "$1" --allow-destructive \
    $storqual_opts --json "$work/s.json" > /dev/null
  python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["workloads"][0]["write"]["iops"]))' "$work/s.json"
}
fio_iops() {  # contents engine depth
  local opt=()
  case "$1" in
    scramble) ;;
    fixed) opt=(--scramble_buffers=0) ;;
    refill) opt=(--refill_buffers=1) ;;
    *) echo "-"; return ;;
  esac
  fio --name=w --filename="$dev" --rw=randwrite --bs=4k --iodepth="$3" --ioengine="$2" --direct=1 \
    --runtime="$runtime" --time_based --size="$size" --thread "${opt[@]}" \
    --output-format=json --output="$work/f.json" > /dev/null
  python3 -c 'import json,sys; print(round(sum(j["write"]["iops"] for j in json.load(open(sys.argv[1]))["jobs"])))' "$work/f.json"
}

echo "storqual: $storqual ${storqual_opts:+($storqual_opts)}"
echo "fio: $(fio --version)"
echo "target: $dev, 4k randwrite over ${size} (written once before), ${runtime}s per run, $pairs ABBA pairs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) CPUs)"
printf '%-9s %-9s %-22s %-22s %s\n' engine contents "storqual IOPS" "fio IOPS" "storqual/fio (median)"
IFS=, read -r -a engine_list <<< "$engines"
IFS=, read -r -a contents_list <<< "$contents"
for eng in "${engine_list[@]}"; do
  case "$eng" in psync) depth=1 ;; io_uring | libaio) depth=32 ;; *) echo "engine: psync, io_uring or libaio, got '$eng'" >&2; exit 2 ;; esac
  for wc in "${contents_list[@]}"; do
    case "$wc" in stamp | scramble | fixed | refill) ;; *) echo "contents: stamp, scramble, fixed or refill, got '$wc'" >&2; exit 2 ;; esac
    s=() f=()
    for p in $(seq 1 "$pairs"); do
      if [ $((p % 2)) -eq 1 ]; then
        s+=("$(storqual_iops "$wc" "$eng" "$depth")"); f+=("$(fio_iops "$wc" "$eng" "$depth")")
      else
        f+=("$(fio_iops "$wc" "$eng" "$depth")"); s+=("$(storqual_iops "$wc" "$eng" "$depth")")
      fi
    done
    python3 - "$eng" "$wc" "${s[*]}" "${f[*]}" <<'EOF'
import statistics, sys
eng, wc, s, f = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
ms = statistics.median(float(x) for x in s)
fs = [float(x) for x in f if x != "-"]
fmt = lambda xs: ",".join(f"{float(x) / 1000:.0f}k" if x != "-" else "-" for x in xs)
ratio = f"{ms / statistics.median(fs):.2f}" if fs else "(fio has no such contents)"
print(f"{eng:<9} {wc:<9} {fmt(s):<22} {fmt(f):<22} {ratio}")
EOF
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
