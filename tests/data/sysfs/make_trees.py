#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the captured sysfs trees under tests/data/sysfs/<case>/sys: only the attributes storqual
# reads, laid out as a real kernel has them (devices/... plus block/, class/block/ and dev/block/
# relative symlinks). Re-run after changing it; the trees are committed.
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Tree:
    def __init__(self, case):
        self.root = os.path.join(HERE, case, "sys")
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)

    def attr(self, rel, value):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = "wb" if isinstance(value, bytes) else "w"
        with open(path, mode) as f:
            f.write(value if isinstance(value, bytes) else value + "\n")

    def attrs(self, rel, values):
        for name, value in values.items():
            self.attr(os.path.join(rel, name), value)

    def link(self, rel, target_rel):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        target = os.path.join(self.root, target_rel)
        os.symlink(os.path.relpath(target, os.path.dirname(path)), path)

    def disk(self, rel, name, devnum, sectors, queue, extra=None, hidden=False):
        """A disk at devices/<rel> (the block dir itself), with block/, class/block/, dev/block."""
        self.attrs(rel, {"size": str(sectors), "removable": "0", "ro": "0"})
        if not hidden:
            self.attr(os.path.join(rel, "dev"), devnum)
            self.link("dev/block/" + devnum, rel)
        self.attrs(os.path.join(rel, "queue"), queue)
        self.link("block/" + name, rel)
        self.link("class/block/" + name, rel)
        if extra:
            self.attrs(rel, extra)

    def partition(self, disk_rel, name, number, devnum, start, sectors):
        rel = os.path.join(disk_rel, name)
        self.attrs(rel, {"partition": str(number), "start": str(start), "size": str(sectors),
                         "dev": devnum, "ro": "0"})
        self.link("class/block/" + name, rel)
        self.link("dev/block/" + devnum, rel)


def queue(lbs=512, pbs=512, rot=0, sched="[none] mq-deadline", nr=256, wc="write back"):
    return {"logical_block_size": str(lbs), "physical_block_size": str(pbs),
            "rotational": str(rot), "scheduler": sched, "nr_requests": str(nr),
            "write_cache": wc}


def nvme():
    t = Tree("nvme")
    pci = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0"
    t.attrs(pci, {"vendor": "0x144d", "device": "0xa80a"})
    ctrl = pci + "/nvme/nvme0"
    t.attrs(ctrl, {"model": "Samsung SSD 980 PRO 1TB".ljust(40), "serial": "S5GXNF0R123456A".ljust(20),
                   "firmware_rev": "5B2QGXA7", "transport": "pcie", "cntlid": "6",
                   "subsysnqn": "nqn.2014.08.org.nvmexpress:144d144dS5GXNF0R123456A     Samsung SSD 980 PRO 1TB",
                   "address": "0000:3d:00.0", "state": "live"})
    t.link(ctrl + "/device", pci)
    ns = ctrl + "/nvme0n1"
    t.disk(ns, "nvme0n1", "259:0", 1953525168, queue(sched="[none] mq-deadline", nr=1023),
           {"wwid": "eui.002538b211b2c3d4", "nsid": "1"})
    t.link(ns + "/device", ctrl)
    t.partition(ns, "nvme0n1p1", 1, "259:1", 2048, 1048576)
    t.partition(ns, "nvme0n1p2", 2, "259:2", 1050624, 1952474511)


def nvme_zns():
    """A zoned namespace as Linux 6.1 shows QEMU 10's (nvme-ns zoned=true, zoned.zone_size=8M,
    zoned.max_open=4, zoned.max_active=6) beside a conventional one on the same controller."""
    t = Tree("nvme-zns")
    pci = "devices/pci0000:00/0000:00:04.0"
    t.attrs(pci, {"vendor": "0x1b36", "device": "0x0010"})
    ctrl = pci + "/nvme/nvme0"
    t.attrs(ctrl, {"model": "QEMU NVMe Ctrl".ljust(40), "serial": "SQNVME0001".ljust(20),
                   "firmware_rev": "10.0.2", "transport": "pcie", "cntlid": "0",
                   "subsysnqn": "nqn.2019-08.org.qemu:SQNVME0001", "address": "0000:00:04.0",
                   "state": "live"})
    t.link(ctrl + "/device", pci)
    ns = ctrl + "/nvme0n1"
    t.disk(ns, "nvme0n1", "259:0", 131072, queue(nr=1023), {"nsid": "1"})
    t.link(ns + "/device", ctrl)
    zq = dict(queue(lbs=4096, pbs=4096, sched="[none] mq-deadline", nr=1023),
              zoned="host-managed", chunk_sectors="16384", nr_zones="8", max_open_zones="4",
              max_active_zones="6", zone_append_max_bytes="524288", zone_write_granularity="4096")
    zns = ctrl + "/nvme0n2"
    t.disk(zns, "nvme0n2", "259:1", 131072, zq, {"nsid": "2"})
    t.link(zns + "/device", ctrl)


def nvme_multipath():
    t = Tree("nvme-multipath")
    pci = "devices/pci0000:00/0000:00:1b.0/0000:02:00.0"
    t.attrs(pci, {"vendor": "0x1e0f", "device": "0x0011"})
    ctrl = pci + "/nvme/nvme0"
    model = "KIOXIA KCD8XRUG1T92".ljust(40)
    serial = "X2Q0A0CT0T18".ljust(20)
    t.attrs(ctrl, {"model": model, "serial": serial, "firmware_rev": "0105", "transport": "pcie",
                   "cntlid": "1", "subsysnqn": "nqn.2019-10.com.kioxia:KCD8XRUG1T92:X2Q0A0CT0T18"})
    t.link(ctrl + "/device", pci)
    subsys = "devices/virtual/nvme-subsystem/nvme-subsys0"
    t.attrs(subsys, {"model": model, "serial": serial, "firmware_rev": "0105",
                     "subsysnqn": "nqn.2019-10.com.kioxia:KCD8XRUG1T92:X2Q0A0CT0T18",
                     "iopolicy": "numa", "subsystype": "nvm"})
    t.link(subsys + "/nvme0", ctrl)
    # The hidden per-path disk: a child of the controller, no dev_t, no partitions.
    path = ctrl + "/nvme0c0n1"
    t.disk(path, "nvme0c0n1", "", 3750748848, queue(lbs=4096, pbs=4096, nr=1023),
           {"nsid": "1", "ana_state": "optimized"}, hidden=True)
    t.link(path + "/device", ctrl)
    head = subsys + "/nvme0n1"
    t.disk(head, "nvme0n1", "259:0", 3750748848, queue(lbs=4096, pbs=4096, nr=1023),
           {"wwid": "eui.8ce38ee20a1b2c3d", "nsid": "1"})
    t.link(head + "/device", subsys)
    t.link(head + "/multipath/nvme0c0n1", path)
    t.partition(head, "nvme0n1p1", 1, "259:1", 2048, 3750746800)


def sata_ssd():
    t = Tree("sata-ssd")
    sdev = "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0"
    serial = b"S6PTNZ0R123456X     "
    t.attrs(sdev, {"vendor": "ATA     ", "model": "Samsung SSD 870 ", "rev": "2B6Q",
                   "wwid": "naa.5002538f41234567", "type": "0",
                   "vpd_pg80": bytes([0, 0x80, 0, len(serial)]) + serial})
    blk = sdev + "/block/sda"
    t.disk(blk, "sda", "8:0", 1953525168, queue(sched="[mq-deadline] kyber bfq none", nr=64))
    t.link(blk + "/device", sdev)
    t.partition(blk, "sda1", 1, "8:1", 2048, 1048576)
    t.partition(blk, "sda2", 2, "8:2", 1050624, 1952474512)


def sas_disk(case="sas-disk", model="ST4000NM0025    ", serial=b"ZC1ABCDE", partitions=True):
    t = Tree(case)
    sdev = ("devices/pci0000:00/0000:00:01.0/0000:02:00.0/host2/port-2:0/end_device-2:0/"
            "target2:0:0/2:0:0:0")
    model_bytes = model if isinstance(model, bytes) else model.encode()
    t.attrs(sdev, {"vendor": "SEAGATE ", "rev": "E003", "wwid": "naa.5000c500a1b2c3d4",
                   "type": "0", "vpd_pg80": bytes([0, 0x80, 0, len(serial)]) + serial})
    t.attr(sdev + "/model", model_bytes + b"\n")
    blk = sdev + "/block/sdb"
    t.disk(blk, "sdb", "8:16", 7814037168,
           queue(pbs=4096, rot=1, sched="[mq-deadline] kyber bfq none", nr=256,
                 wc="write through"))
    t.link(blk + "/device", sdev)
    if partitions:
        t.partition(blk, "sdb1", 1, "8:17", 2048, 7814033408)


def virtio():
    t = Tree("virtio")
    vdev = "devices/pci0000:00/0000:00:04.0/virtio1"
    t.attrs(vdev, {"vendor": "0x1af4", "device": "0x0002", "status": "0x0000000f"})
    blk = vdev + "/block/vda"
    t.disk(blk, "vda", "253:0", 41943040, queue(sched="[mq-deadline] kyber bfq none", nr=256),
           {"serial": "vm-root-disk"})
    t.link(blk + "/device", vdev)
    t.partition(blk, "vda1", 1, "253:1", 2048, 41940992)


def mmc():
    t = Tree("mmc-sd")
    card = "devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:aaaa"
    t.attrs(card, {"name": "SC64G", "serial": "0x1234abcd", "manfid": "0x000003",
                   "oemid": "0x5344", "fwrev": "0x0", "hwrev": "0x8", "date": "03/2021",
                   "type": "SD"})
    blk = card + "/block/mmcblk0"
    t.disk(blk, "mmcblk0", "179:0", 124735488, queue(sched="[mq-deadline] kyber bfq none", nr=128,
                                                    wc="write through"))
    t.link(blk + "/device", card)
    t.partition(blk, "mmcblk0p1", 1, "179:1", 8192, 524288)
    t.partition(blk, "mmcblk0p2", 2, "179:2", 532480, 124203008)


def usb_stick():
    t = Tree("usb-stick")
    usb = "devices/pci0000:00/0000:00:14.0/usb2/2-1"
    t.attrs(usb, {"idVendor": "0781", "idProduct": "5567", "serial": "4C530001230829114213",
                  "manufacturer": "SanDisk", "product": "Cruzer Blade", "speed": "480"})
    sdev = usb + "/2-1:1.0/host6/target6:0:0/6:0:0:0"
    t.attrs(sdev, {"vendor": "SanDisk ", "model": "Cruzer Blade    ", "rev": "1.00", "type": "0"})
    blk = sdev + "/block/sdc"
    t.disk(blk, "sdc", "8:32", 60062500, queue(rot=1, sched="[mq-deadline] kyber bfq none", nr=2,
                                              wc="write through"))
    t.link(blk + "/device", sdev)
    t.partition(blk, "sdc1", 1, "8:33", 32, 60062468)


def loop():
    t = Tree("loop")
    blk = "devices/virtual/block/loop3"
    t.disk(blk, "loop3", "7:3", 2097152, queue(sched="none", nr=128, wc="write back"))
    t.attrs(blk + "/loop", {"backing_file": "/var/tmp/disk image.img", "offset": "0",
                            "sizelimit": "0", "dio": "1", "autoclear": "0", "partscan": "1"})
    t.partition(blk, "loop3p1", 1, "259:5", 2048, 2095104)


def zram():
    t = Tree("zram")
    blk = "devices/virtual/block/zram1"
    t.disk(blk, "zram1", "252:1", 2097152, queue(lbs=4096, pbs=4096, sched="none", nr=128,
                                                wc="write through"))
    t.attrs(blk, {"comp_algorithm": "lzo lzo-rle lz4 [zstd]", "disksize": "1073741824",
                  "initstate": "1"})


def hostile():
    # A device that lies: markup, ESC sequences, BEL, and bytes that are not UTF-8 in its model.
    sas_disk("hostile-model", model=b"<script>alert(1)</script>\x07\x1b[31m\xff\xfeX\xc3",
             serial=b"\x01SER\x00IAL\x7f", partitions=False)


def vpd(code, payload):
    return bytes([0, code, len(payload) >> 8, len(payload) & 0xff]) + payload


def vpd83_naa(naa_hex):
    d = bytes.fromhex(naa_hex)
    # A T10 vendor id designator first (as QEMU writes one), then the NAA of the logical unit.
    t10 = b"SQLAB   SERIAL"
    return vpd(0x83, bytes([0x02, 0x01, 0, len(t10)]) + t10 + bytes([0x01, 0x03, 0, len(d)]) + d)


def ata_identify(model, serial, firmware, wwn_hex=None):
    """512 bytes of IDENTIFY DEVICE data: ATA strings are words with the first character high."""
    words = [0] * 256

    def put(first, last, text):
        text = text.ljust(2 * (last - first + 1))
        for i, w in enumerate(range(first, last + 1)):
            words[w] = (ord(text[2 * i]) << 8) | ord(text[2 * i + 1])

    put(10, 19, serial)
    put(23, 26, firmware)
    put(27, 46, model)
    if wwn_hex:
        words[87] = 0x4100
        for i in range(4):
            words[108 + i] = int(wwn_hex[4 * i:4 * i + 4], 16)
    return b"".join(w.to_bytes(2, "little") for w in words)


def vpd89(identify):
    # SAT-3 ATA Information page: SAT vendor/product/revision, signature, command code ECh, then
    # the IDENTIFY data at byte 60 of the page.
    body = b"\0" * 4 + b"linux   " + b"libata          " + b"1.00" + b"\0" * 20 + b"\xec" + b"\0" * 3
    return vpd(0x89, body + identify)


def scsi_host(t, host_rel, name, proc_name):
    t.attr(host_rel + "/scsi_host/" + name + "/proc_name", proc_name)


def virtio_scsi():
    # QEMU -device virtio-scsi-pci -device scsi-hd,vendor=...,product=...,serial=...,ver=...,wwn=...
    t = Tree("virtio-scsi")
    vdev = "devices/pci0000:00/0000:00:04.0/virtio1"
    t.attrs(vdev, {"vendor": "0x1af4", "device": "0x0008"})
    host = vdev + "/host0"
    scsi_host(t, host, "host0", "virtio_scsi")
    sdev = host + "/target0:0:0/0:0:0:0"
    t.attrs(sdev, {"vendor": "SQLABVND", "model": "SQLAB-VSCSI     ", "rev": "SQV1", "type": "0",
                   "vpd_pg80": vpd(0x80, b"SQVSCSI001"),
                   "vpd_pg83": vpd83_naa("5000c500aabbcc01")})
    blk = sdev + "/block/sda"
    t.disk(blk, "sda", "8:0", 131072, queue(rot=1, sched="[mq-deadline] none", nr=128))
    t.link(blk + "/device", sdev)


def sata_ahci():
    # A SATA disk on AHCI without udev: sysfs rev holds 4 characters of "SQFW0002" (the last
    # four, as libata's SAT INQUIRY does) and model 16 of the 40; VPD page 0x89 has them all.
    t = Tree("sata-ahci")
    port = "devices/pci0000:00/0000:00:1f.2/ata1"
    host = port + "/host0"
    scsi_host(t, host, "host0", "ahci")
    sdev = host + "/target0:0:0/0:0:0:0"
    model = "SQLAB SATA SSD WITH A LONG MODEL NAME"
    t.attrs(sdev, {"vendor": "ATA     ", "model": model[:16], "rev": "0002", "type": "0",
                   "vpd_pg80": vpd(0x80, b"SQSATA0001".rjust(20)),
                   "vpd_pg89": vpd89(ata_identify(model, "SQSATA0001", "SQFW0002",
                                                  "5000c50012345678"))})
    blk = sdev + "/block/sdb"
    t.disk(blk, "sdb", "8:16", 131072, queue(sched="[mq-deadline] none", nr=32))
    t.link(blk + "/device", sdev)


def scsi_udev():
    # An LSI (sym53c8xx) SCSI disk whose sysfs has no VPD pages, read with a udev record: udev's
    # ID_SERIAL_SHORT is the NAA WWN (scsi_id builds it from page 0x83), ID_SCSI_SERIAL the unit
    # serial number.
    t = Tree("scsi-udev")
    pci = "devices/pci0000:00/0000:00:05.0"
    host = pci + "/host1"
    scsi_host(t, host, "host1", "sym53c8xx")
    sdev = host + "/target1:0:0/1:0:0:0"
    t.attrs(sdev, {"vendor": "SQLABLSI", "model": "SQLAB-LSI       ", "rev": "SQL1", "type": "0",
                   "wwid": "naa.5000c500aabbcc02"})
    blk = sdev + "/block/sdc"
    t.disk(blk, "sdc", "8:32", 131072, queue(rot=1, sched="[mq-deadline] none", nr=128))
    t.link(blk + "/device", sdev)
    os.makedirs(os.path.join(HERE, "scsi-udev", "udev"), exist_ok=True)
    with open(os.path.join(HERE, "scsi-udev", "udev", "sdc.properties"), "w") as f:
        f.write("\n".join([
            "DEVNAME=/dev/sdc", "ID_BUS=scsi", "ID_MODEL=SQLAB-LSI", "ID_MODEL_ENC=SQLAB-LSI\\x20\\x20",
            "ID_REVISION=SQL1", "ID_SCSI=1", "ID_SCSI_SERIAL=SQLSI00001",
            "ID_SERIAL=35000c500aabbcc02", "ID_SERIAL_SHORT=5000c500aabbcc02", "ID_TYPE=disk",
            "ID_VENDOR=SQLABLSI", "ID_VENDOR_ENC=SQLABLSI", "ID_WWN=0x5000c500aabbcc02",
            "ID_WWN_WITH_EXTENSION=0x5000c500aabbcc02", ""]))


def nvme_multipath_two_controllers():
    # Native multipath on kernel 6.1 (QEMU nvme-subsys with two nvme controllers): the head has no
    # multipath/ directory; its paths are the hidden disks nvme0c0n1 and nvme0c1n1. The emulated
    # PCIe link reads "Unknown", width 0 and maximum 255.
    t = Tree("nvme-multipath-6.1")
    subsys = "devices/virtual/nvme-subsystem/nvme-subsys0"
    model = "QEMU NVMe Ctrl".ljust(40)
    serial = "SQNVME0001".ljust(20)
    nqn = "nqn.2019-08.org.qemu:sqlab"
    t.attrs(subsys, {"model": model, "serial": serial, "firmware_rev": "10.0.2",
                     "subsysnqn": nqn, "iopolicy": "numa", "subsystype": "nvm"})
    for c, slot in ((0, "06"), (1, "07")):
        pci = "devices/pci0000:00/0000:00:%s.0" % slot
        t.attrs(pci, {"vendor": "0x1b36", "device": "0x0010", "current_link_speed": "Unknown",
                      "current_link_width": "0", "max_link_speed": "Unknown",
                      "max_link_width": "255"})
        ctrl = pci + "/nvme/nvme%d" % c
        t.attrs(ctrl, {"model": model, "serial": serial, "firmware_rev": "10.0.2",
                       "transport": "pcie", "cntlid": str(c), "subsysnqn": nqn})
        t.link(ctrl + "/device", pci)
        t.link(subsys + "/nvme%d" % c, ctrl)
        for nsid, lbs, sectors in ((1, 512, 131072), (2, 4096, 131072)):
            path = ctrl + "/nvme0c%dn%d" % (c, nsid)
            t.disk(path, "nvme0c%dn%d" % (c, nsid), "", sectors, queue(lbs=lbs, pbs=lbs, nr=1023),
                   {"nsid": str(nsid), "ana_state": "optimized"}, hidden=True)
            t.link(path + "/device", ctrl)
    for nsid, lbs, sectors in ((1, 512, 131072), (2, 4096, 131072)):
        head = subsys + "/nvme0n%d" % nsid
        t.disk(head, "nvme0n%d" % nsid, "259:%d" % (nsid - 1), sectors,
               queue(lbs=lbs, pbs=lbs, nr=1023), {"wwid": "nvme.1b36-%d" % nsid, "nsid": str(nsid)})
        t.link(head + "/device", subsys)


CASES = [nvme, nvme_zns, nvme_multipath, sata_ssd, sas_disk, virtio, mmc, usb_stick, loop, zram, hostile,
         virtio_scsi, sata_ahci, scsi_udev, nvme_multipath_two_controllers]

if __name__ == "__main__":
    for case in CASES:
        case()
    sys.exit(0)
