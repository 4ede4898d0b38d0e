# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# Sourced by the shell benches that measure on a zram device of their own (verify-overhead.sh,
# zram-write-contents.sh): the storqual binary, the root and zram checks, and the device, made
# here and removed by its own id at exit together with the bench's scratch folder.

# A benchmark's runs are not acceptance records: none goes into the archive (docs/archive.md).
export STORQUAL_ARCHIVE=${STORQUAL_ARCHIVE:-off}

# bench_storqual DIR: keeps $storqual when given, else takes DIR/../build*/app/storqual; exits 2
# when there is none.
bench_storqual() {
  if [ -z "$storqual" ]; then
    for b in "$1"/../build/app/storqual "$1"/../build-*/app/storqual; do
      [ -x "$b" ] && { storqual=$b; break; }
    done
  fi
  [ -x "$storqual" ] || { echo "storqual binary not found (give --storqual PATH)" >&2; exit 2; }
}

# zram_bench_device NAME: needs root and zram (exit 77 otherwise); sets id and dev (a new zram
# device, no size yet) and work (a scratch folder /tmp/NAME.XXXXXX); both go at exit.
zram_bench_device() {
  [ "$(id -u)" -eq 0 ] || { echo "needs root (zram)" >&2; exit 77; }
  [ -e /sys/class/zram-control/hot_add ] || modprobe zram num_devices=0 2>/dev/null || true
  [ -e /sys/class/zram-control/hot_add ] || { echo "zram is not available" >&2; exit 77; }
  id=$(cat /sys/class/zram-control/hot_add)
  # shellcheck disable=SC2034 # the sourcing bench's target
  dev=/dev/zram$id
  work=$(mktemp -d "/tmp/$1.XXXXXX")
  trap zram_bench_cleanup EXIT
}

zram_bench_cleanup() {
  rm -rf "$work"
  # udev may still hold the device for a moment after the last run closed it.
  for _ in 1 2 3 4 5; do
    echo "$id" > /sys/class/zram-control/hot_remove 2>/dev/null && return
    sleep 1
  done
  echo 1 > "/sys/block/zram$id/reset" 2>/dev/null || true
  echo "$id" > /sys/class/zram-control/hot_remove || echo "could not remove zram$id" >&2
}
