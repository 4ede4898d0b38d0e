#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The captured ATA SMART pages the tests replay (devices/ata_smart.hpp CapturedAtaAdmin), written
# from real pages, all committed; re-run to change them.
#
#   make_pages.py --from-lab build/lab/ata-pages   (after `make lab`): qemu-ahci/ takes the pages
#       storqual captured through SG_IO from the lab's AHCI disk (QEMU's IDE core), and smartctl's
#       JSON reading of the same drive in the guest (smartctl.json, the independent decoder).
#   make_pages.py: failing/ and the fuzz corpus from qemu-ahci/ (no lab needed).
#
# failing/ is the QEMU drive's pages with bytes edited as a failing HDD's would read (ACS-3 SMART
# READ DATA layout: 30 attribute entries of 12 bytes from byte 2: id, flags (2), value, worst, raw
# (6, little-endian), reserved; the thresholds page the same with the threshold in byte 1 of an
# entry; byte 511 the checksum making the page sum to 0 modulo 256). Its readings:
#   before: reallocated (5) raw 2, pending (197) 0, offline uncorrectable (198) 0, reported
#           uncorrect (187) 0, UDMA CRC (199) 0, temperature (194) 34 C (min/max 20/45), status
#           passed, one short self-test passed, error log count 0.
#   after:  5 raw 40 and its value 30 at or below its threshold 36 (pre-failure), 197 raw 8,
#           199 raw 12, 194 41 C, SMART RETURN STATUS failing (2CF4h), a short self-test ending in
#           a read failure at LBA 123456, error log count 7.
#   cable:  as before but 199 raw 12: only the cable or backplane, not the drive.
import argparse
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
QEMU = os.path.join(HERE, "qemu-ahci")
FAILING = os.path.join(HERE, "failing")
CORPUS = os.path.join(HERE, "..", "..", "fuzz", "corpus", "ata_pages")


def read(path):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    assert len(data) == 512, "%s is %d bytes" % (path, len(data))
    return data


def write(path, page):
    with open(path, "wb") as f:
        f.write(page)


def checksum(page):
    page[511] = (-sum(page[:511])) & 0xFF
    return page


def set_attribute(page, attr_id, flags, value, worst, raw):
    """Sets attribute attr_id in its slot, or in the first free one."""
    slot = next((i for i in range(30) if page[2 + 12 * i] == attr_id), None)
    if slot is None:
        slot = next(i for i in range(30) if page[2 + 12 * i] == 0)
    e = 2 + 12 * slot
    page[e:e + 12] = struct.pack("<BHBB6sB", attr_id, flags, value, worst, raw, 0)


def set_threshold(page, attr_id, threshold):
    slot = next((i for i in range(30) if page[2 + 12 * i] == attr_id), None)
    if slot is None:
        slot = next(i for i in range(30) if page[2 + 12 * i] == 0)
    e = 2 + 12 * slot
    page[e:e + 12] = bytes([attr_id, threshold]) + bytes(10)


def raw48(n):
    return n.to_bytes(6, "little")


def self_test_log(entries):
    """entries: (test, status nibble, hours, failing lba), oldest first."""
    p = bytearray(512)
    p[0] = 1
    for i, (test, status, hours, lba) in enumerate(entries):
        e = 2 + 24 * i
        p[e:e + 9] = struct.pack("<BBHBI", test, status << 4, hours, 0, lba)
    p[508] = len(entries)
    return checksum(p)


def error_log(count):
    p = bytearray(512)
    p[0] = 1
    p[452:454] = struct.pack("<H", count)
    return checksum(p)


def reading(base, r5, v5, r197, r199, temp):
    p = bytearray(base)
    set_attribute(p, 5, 0x0033, v5, v5, raw48(r5))
    set_attribute(p, 187, 0x0032, 100, 100, raw48(0))
    set_attribute(p, 194, 0x0022, 100 - temp, 55, bytes([temp, 0, 20, 45, 0, 0]))
    set_attribute(p, 197, 0x0012, 100, 100, raw48(r197))
    set_attribute(p, 198, 0x0010, 100, 100, raw48(0))
    set_attribute(p, 199, 0x003e, 200, 200, raw48(r199))
    return checksum(p)


def make_failing():
    os.makedirs(FAILING, exist_ok=True)
    shutil.copy(os.path.join(QEMU, "ata-identify.bin"), os.path.join(FAILING, "ata-identify.bin"))
    data = read(os.path.join(QEMU, "ata-smart-now.bin"))
    thresholds = read(os.path.join(QEMU, "ata-thresholds.bin"))
    for attr_id, t in ((187, 0), (194, 0), (197, 0), (198, 0), (199, 0)):
        set_threshold(thresholds, attr_id, t)
    write(os.path.join(FAILING, "ata-thresholds.bin"), checksum(thresholds))
    readings = {
        "before": (reading(data, 2, 100, 0, 0, 34), [(1, 0, 100, 0)], 0, "passed"),
        "after": (reading(data, 40, 30, 8, 12, 41), [(1, 0, 100, 0), (1, 7, 102, 123456)], 7,
                  "failing"),
        "cable": (reading(data, 2, 100, 0, 12, 35), [(1, 0, 100, 0)], 0, "passed"),
    }
    for name, (smart, tests, errors, status) in readings.items():
        write(os.path.join(FAILING, "ata-smart-%s.bin" % name), smart)
        write(os.path.join(FAILING, "ata-selftest-%s.bin" % name), self_test_log(tests))
        write(os.path.join(FAILING, "ata-errorlog-%s.bin" % name), error_log(errors))
        with open(os.path.join(FAILING, "ata-status-%s.txt" % name), "w") as f:
            f.write(status + "\n")


def make_corpus():
    """fuzz_ata_pages inputs: data + thresholds (+ self-test log + error log)."""
    os.makedirs(CORPUS, exist_ok=True)
    sets = [(QEMU, "now"), (FAILING, "before"), (FAILING, "after")]
    for n, (d, r) in enumerate(sets):
        pages = [read(os.path.join(d, "ata-smart-%s.bin" % r)),
                 read(os.path.join(d, "ata-thresholds.bin"))]
        with open(os.path.join(CORPUS, "%d-pair" % n), "wb") as f:
            f.write(b"".join(pages))
        for kind in ("selftest", "errorlog"):
            pages.append(read(os.path.join(d, "ata-%s-%s.bin" % (kind, r))))
        with open(os.path.join(CORPUS, "%d-logs" % n), "wb") as f:
            f.write(b"".join(pages))


def from_lab(lab_pages):
    os.makedirs(QEMU, exist_ok=True)
    for name in sorted(os.listdir(lab_pages)):
        shutil.copy(os.path.join(lab_pages, name), os.path.join(QEMU, name))
    with open(os.path.join(QEMU, "smartctl.json")) as f:
        json.load(f)  # smartctl wrote JSON, or the lab had no smartctl in the guest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--from-lab", help="the lab's captured pages (build/lab/ata-pages)")
    args = ap.parse_args()
    if args.from_lab:
        from_lab(args.from_lab)
    make_failing()
    make_corpus()


if __name__ == "__main__":
    main()
