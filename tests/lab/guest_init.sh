#!/bin/busybox sh
# SPDX-License-Identifier: Apache-2.0
# /init of the lab's guest (tests/lab/lab.py builds the initramfs around it): loads the storage
# drivers, runs storqual on every emulated disk and prints what it said between markers on the
# serial console, base64-encoded, for the host to check. lab=short|full on the kernel command line.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /run /tmp && mount -t tmpfs run /run && mount -t tmpfs tmp /tmp
export PATH=/bin:/sbin:/usr/bin:/usr/sbin LD_LIBRARY_PATH=/lab/lib
mode=short
for a in $(cat /proc/cmdline); do case $a in lab=*) mode=${a#lab=} ;; esac; done

for m in $(cat /lab/modules.order); do insmod "/lab/modules/$m" 2>/dev/null; done
# The power-cut lab (tests/lab/powercut_lab.py) boots the same initramfs with other disks.
case $mode in powercut-*) exec /bin/busybox sh /lab/powercut_guest.sh "$mode" ;; esac
# Wait for the disks QEMU was given (TCG is slow to probe SCSI and USB).
want=$(cat /lab/disk-count)
i=0
while [ $i -lt 120 ]; do
  n=$(ls /sys/block | grep -cv '^nvme[0-9]*c')
  [ "$n" -ge "$want" ] && break
  sleep 1; i=$((i + 1))
done
sleep 1

emit() {  # emit TAG FILE: the file, base64, between markers
  echo "LAB:BEGIN $1"
  base64 "$2"
  echo "LAB:END $1"
}
disks() { ls /sys/block | grep -v '^nvme[0-9]*c'; }

identify_all() {  # identify_all PASS
  storqual identify --json > /tmp/list.json 2>&1; emit "$1 list-json" /tmp/list.json
  storqual identify > /tmp/list.txt 2>&1; emit "$1 list-text" /tmp/list.txt
  for d in $(disks); do
    readlink -f "/sys/block/$d" > /tmp/path.txt; emit "$1 path $d" /tmp/path.txt
    storqual identify --target "/dev/$d" --json > /tmp/id.json 2>&1; emit "$1 json $d" /tmp/id.json
    storqual identify --target "/dev/$d" > /tmp/id.txt 2>&1; emit "$1 text $d" /tmp/id.txt
  done
}

# ATA SMART of the AHCI disk: two short self-tests through smartctl (on the lab's own disk; QEMU
# logs them at once), then storqual's reading with its pages captured, and smartctl's own JSON
# reading of the same drive for the host to compare field by field. The USB disk gives the gap.
ata_health() {
  for d in $(disks); do
    case $(readlink -f "/sys/block/$d") in
      *"$(cat /lab/sata-pci)"*) sata=$d ;;
      *"$(cat /lab/usb-pci)"*) usb=$d ;;
    esac
  done
  if command -v smartctl > /dev/null; then
    smartctl -t short "/dev/$sata" > /dev/null 2>&1
    smartctl -t short "/dev/$sata" > /dev/null 2>&1
    smartctl --json=c -H -A -l selftest -l error -P ignore "/dev/$sata" > /tmp/smartctl.json 2>&1
    emit "ata smartctl" /tmp/smartctl.json
  fi
  storqual identify --target "/dev/$sata" --json --ata-capture /tmp/ata > /tmp/ata.json 2>&1
  emit "ata json" /tmp/ata.json
  for f in /tmp/ata/*; do emit "ata page $(basename "$f")" "$f"; done
  storqual identify --target "/dev/$usb" --json > /tmp/ata-usb.json 2>&1
  emit "ata usb json" /tmp/ata-usb.json
}

# Self-tests started by storqual (tests/lab/selftest-suite.xml, --allow-self-test): on the AHCI
# disk, with smartctl's reading of the self-test log before and after; on the first NVMe namespace
# and a SCSI disk, whose outcome must be named too.
self_tests() {
  scsi=""
  for d in $(disks); do
    case $(readlink -f "/sys/block/$d") in
      *"$(cat /lab/sata-pci)"*) sata=$d ;;
      *virtio*) [ -z "$scsi" ] && [ -d "/sys/block/$d/device/scsi_device" ] && scsi=$d ;;
    esac
  done
  nv=$(ls /sys/block | grep -E '^nvme[0-9]+n1$' | head -1)
  if command -v smartctl > /dev/null; then
    smartctl --json=c -l selftest "/dev/$sata" > /tmp/st-before.json 2>&1
    emit "selftest smartctl before" /tmp/st-before.json
  fi
  for pair in "sata $sata" "nvme $nv" "scsi $scsi"; do
    set -- $pair
    [ -n "$2" ] || continue
    storqual run --target "/dev/$2" --suite /lab/selftest-suite.xml --allow-self-test \
      --out "/tmp/st-$1" > "/tmp/st-$1.log" 2>&1
    echo "exit $?" >> "/tmp/st-$1.log"
    emit "selftest console $1" "/tmp/st-$1.log"
    emit "selftest json $1" "/tmp/st-$1/storqual-result.json"
  done
  if command -v smartctl > /dev/null; then
    smartctl --json=c -l selftest "/dev/$sata" > /tmp/st-smartctl.json 2>&1
    emit "selftest smartctl" /tmp/st-smartctl.json
  fi
}

identify_all noudev
ata_health
if [ "$mode" = full ] && [ -x /lib/systemd/systemd-udevd ]; then
  /lib/systemd/systemd-udevd --daemon --resolve-names=never 2>/tmp/udevd.log
  udevadm trigger --action=add --subsystem-match=block 2>>/tmp/udevd.log
  udevadm trigger --action=add --subsystem-match=scsi 2>>/tmp/udevd.log
  udevadm settle -t 60 2>>/tmp/udevd.log
  n=$(ls /run/udev/data 2>/dev/null | grep -c '^b')
  echo "udev records of block devices: $n" >> /tmp/udevd.log
  emit "udevd log" /tmp/udevd.log
  [ "$n" -gt 0 ] && identify_all udev
fi
# After both identify passes, whose SATA health rows (the self-test log's entries) must agree.
self_tests

# The zoned namespace (nsid 3): the lab's run, which writes, is refused before anything is
# opened; its read alone, without the fill, runs.
zns=$(for d in $(disks); do case $d in nvme*n3) echo "$d" ;; esac; done | head -1)
storqual run --target "/dev/$zns" --suite /lab/run-suite.xml --allow-destructive \
  --out /tmp/zoned-write > /tmp/zoned-write.log 2>&1
echo "exit $?" >> /tmp/zoned-write.log
emit "zoned write" /tmp/zoned-write.log
storqual run --target "/dev/$zns" --suite /lab/zoned-read-suite.xml --no-fill \
  --out /tmp/zoned-read > /tmp/zoned-read.log 2>&1
echo "exit $?" >> /tmp/zoned-read.log
emit "zoned read" /tmp/zoned-read.log
# storqual bench writes through the same safety guard: refused too.
storqual bench --target "/dev/$zns" --rw randwrite --bs 4k --runtime 1 --allow-destructive \
  > /tmp/zoned-bench.log 2>&1
echo "exit $?" >> /tmp/zoned-bench.log
emit "zoned bench" /tmp/zoned-bench.log
# fio's zbd-seq-read (zonemode=zbd, read_beyond_wp=0) after writes at the write pointers: 12 MiB
# from zone 0's start (zone 0 full, zone 1 half) and 2176 KiB from zone 3's (8.5 blocks of 256k):
# it reads exactly the whole blocks below the write pointers, 14 MiB. The same read from
# storqual bench logs each I/O's offset.
dd if=/dev/zero of="/dev/$zns" bs=1M count=12 oflag=direct > /tmp/zbd-read.log 2>&1
echo "dd exit $?" >> /tmp/zbd-read.log
dd if=/dev/zero of="/dev/$zns" bs=128k count=17 seek=192 oflag=direct >> /tmp/zbd-read.log 2>&1
echo "dd exit $?" >> /tmp/zbd-read.log
# dd's close makes udev probe nsid 3, on the warn run's controller: done before that run starts.
udevadm settle -t 30 2>/dev/null || true
storqual run --target "/dev/$zns" --suite /lab/zbd-read-suite.xml --no-fill \
  --out /tmp/zbd-read >> /tmp/zbd-read.log 2>&1
echo "run exit $?" >> /tmp/zbd-read.log
storqual bench --target "/dev/$zns" --rw read --bs 256k --iodepth 16 --ioengine libaio \
  --zonemode zbd --zonesize 8m --read_beyond_wp 0 --lat-log /tmp/zbd-lat.log \
  >> /tmp/zbd-read.log 2>&1
echo "bench exit $?" >> /tmp/zbd-read.log
emit "zbd read" /tmp/zbd-read.log
emit "zbd json" /tmp/zbd-read/storqual-result.json
emit "zbd lat log" /tmp/zbd-lat.log

# A run (a read, then a write) with a SMART critical warning raised from the host (QMP) while it
# runs; its C0h log before and after gives the write amplification.
nv=$(ls /sys/block | grep -E '^nvme[0-9]+n1$' | head -1)
storqual run --target "/dev/$nv" --suite /lab/warn-suite.xml --allow-destructive --out /tmp/warn \
  > /tmp/warn.log 2>&1 &
pid=$!
sleep 3
echo "LAB:RAISE-WARNING"
wait $pid
echo "exit $?" >> /tmp/warn.log
emit "warn console" /tmp/warn.log
emit "warn json" /tmp/warn/storqual-result.json
emit "warn junit" /tmp/warn/storqual-junit.xml
grep -o 'new critical warning[^<]*' /tmp/warn/storqual-report.html > /tmp/warn-html.txt
emit "warn html" /tmp/warn-html.txt
for row in 'media writes (OCP C0h)' 'write amplification'; do
  grep -o "$row</th><td>[^<]*" /tmp/warn/storqual-report.html
done > /tmp/warn-wear.txt
emit "warn html-wear" /tmp/warn-wear.txt

if [ "$mode" = full ]; then
  # A run on every disk (the NVMe namespaces, SATA, both SCSI, USB), each ending with a verdict.
  for d in $(disks); do
    storqual run --target "/dev/$d" --suite /lab/run-suite.xml --allow-destructive \
      --out "/tmp/run-$d" > "/tmp/run-$d.log" 2>&1
    echo "exit $?" >> "/tmp/run-$d.log"
    emit "run console $d" "/tmp/run-$d.log"
    emit "run json $d" "/tmp/run-$d/storqual-result.json"
    # udev probes a disk when the run's lock on it goes (docs/identity-and-safety.md, "udev's
    # lock"); the OCP C0h log counts a controller's I/O over all its namespaces, so the next run
    # on a namespace of the same controller starts once that probe is done.
    udevadm settle -t 30 2>/dev/null || true
  done
  # Guard refusals, each with its exit code, on disks the lab made for it.
  guard() {  # guard NAME DEVICE [extra args]
    name=$1; dev=$2; shift 2
    storqual run --target "$dev" --suite /lab/run-suite.xml --out /tmp/guard "$@" \
      > /tmp/guard.log 2>&1
    echo "exit $?" >> /tmp/guard.log
    emit "guard $name" /tmp/guard.log
  }
  sata=$(cat /lab/sata-disk 2>/dev/null)
  usb=$(cat /lab/usb-disk 2>/dev/null)
  for d in $(disks); do
    p=$(readlink -f "/sys/block/$d")
    case $p in *"$(cat /lab/sata-pci)"*) sata=$d ;; *"$(cat /lab/usb-pci)"*) usb=$d ;; esac
  done
  mke2fs -q "/dev/$sata" && mkdir -p /mnt && mount -t ext4 "/dev/$sata" /mnt ||
    echo "lab: could not mount /dev/$sata"
  guard mounted "/dev/$sata" --allow-destructive
  umount /mnt
  guard signature "/dev/$sata" --allow-destructive
  guard no-destructive "/dev/$sata"
  mkswap "/dev/$usb" > /dev/null && swapon "/dev/$usb"
  guard swap "/dev/$usb" --allow-destructive
  swapoff "/dev/$usb"
fi
echo "LAB:DONE"
sync
poweroff -f
