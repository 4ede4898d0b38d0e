#!/bin/busybox sh
# SPDX-License-Identifier: Apache-2.0
# The guest's side of the power-cut lab (tests/lab/powercut_lab.py; guest_init.sh hands over for
# lab=powercut-arm and lab=powercut-check): the target is the SCSI disk QEMU serves from nbdkit
# (product PCTARGET), the journal a file on the ext4 disk PCJOURNAL, which the host keeps in a
# plain image, off the target. Arm prints LAB:CUT-NOW at its random moment (its --power-cut-cmd);
# the host then kills nbdkit and QEMU. Check prints its findings between markers.
mode=$1
cut=pc
indicators=1
depths=1,8 unit=4k bs=4k
for a in $(cat /proc/cmdline); do
  case $a in
    pc_cut=*) cut=${a#pc_cut=} ;;
    pc_indicators=*) indicators=${a#pc_indicators=} ;;
    pc_depths=*) depths=${a#pc_depths=} ;;
    pc_unit=*) unit=${a#pc_unit=} ;;
    pc_bs=*) bs=${a#pc_bs=} ;;
  esac
done
emit() {
  echo "LAB:BEGIN $1"
  base64 "$2"
  echo "LAB:END $1"
}
i=0
while [ $i -lt 120 ]; do
  t= j=
  for d in $(ls /sys/block | grep '^sd'); do
    case $(cat "/sys/block/$d/device/model" 2>/dev/null) in
      PCTARGET*) t=$d ;;
      PCJOURNAL*) j=$d ;;
    esac
  done
  [ -n "$t" ] && [ -n "$j" ] && break
  sleep 1; i=$((i + 1))
done
mkdir -p /j
mount -t ext4 "/dev/$j" /j || echo "lab: the journal disk /dev/$j does not mount"
cat "/sys/block/$t/queue/write_cache" "/sys/block/$t/queue/fua" > /tmp/cache.txt
emit "cache" /tmp/cache.txt
case $mode in
  powercut-arm)
    echo "LAB:ARMED $cut"
    storqual powercut arm --target "/dev/$t" --journal "/j/$cut" --allow-destructive \
      --size 32M --depths "$depths" --atomic-unit "$unit" --bs "$bs" --flush-every 32 \
      --fua-every 8 --cut-after 6:12 --runtime 120 \
      --power-cut-cmd 'echo LAB:CUT-NOW > /dev/console' > /tmp/arm.log 2>&1
    echo "exit $?" >> /tmp/arm.log
    emit "arm" /tmp/arm.log
    ;;
  powercut-check)
    storqual powercut check --target "/dev/$t" --journal "/j/$cut" --name "$cut" --out /tmp/c \
      > /tmp/check.log 2>&1
    echo "exit $?" >> /tmp/check.log
    emit "check" /tmp/check.log
    emit "check junit" /tmp/c/storqual-junit.xml
    emit "check json" /tmp/c/storqual-result.json
    storqual powercut check --target "/dev/$t" --journal "/j/$cut" --name "$cut plp" --plp \
      --out /tmp/p > /tmp/check-plp.log 2>&1
    echo "exit $?" >> /tmp/check-plp.log
    emit "check plp" /tmp/check-plp.log
    if [ "$indicators" = 1 ]; then
      storqual powercut indicators --target "/dev/$t" --offset 64M --size 64M --dirty 16M,64M \
        --sync-writes 64 --allow-destructive > /tmp/indicators.log 2>&1
      emit "indicators" /tmp/indicators.log
    fi
    ;;
esac
umount /j
echo "LAB:DONE"
sync
poweroff -f
