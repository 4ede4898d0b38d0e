#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The captured SCSI LOG SENSE pages the tests replay (devices/scsi_log.hpp CapturedScsiLog:
# scsi-log-<page>-<reading>.bin), written by hand in the layouts of SPC-5 / SBC-4 as a 12 TB SAS
# HDD reports them (QEMU's scsi-hd answers no LOG SENSE, so the lab has none to capture). Each
# page: byte 0 the page code, byte 1 the subpage (0), bytes 2-3 the length of what follows
# (big-endian), then parameters: code (2 bytes), control byte, length, value (big-endian counters).
# The pages are committed; re-run to change them. The tests decode them with `sg_logs --in=FILE
# --raw` too (sg3-utils). The fuzz corpus of fuzz_scsi_log_pages (tests/fuzz/corpus/scsi_log_pages:
# a selector byte, the index of the page code in the target's list, then the page; selectors 9,
# 10 and 11 a READ DEFECT DATA (10) or (12) header or REQUEST SENSE data) is made from them here
# as well. Beside the pages, each reading has the header READ DEFECT DATA (12) answers for the
# grown list (scsi-defects12-<reading>.bin) and REQUEST SENSE's sense data
# (scsi-sense-<reading>.bin).
#   sas/: readings before and after of a healthy drive (corrected errors and bytes grow, nothing
#         uncorrected), and "failing": 3 uncorrected read errors, 1 uncorrected verify error, a
#         background short self-test that failed in its second segment at LBA 0x2A3F00, and the
#         informational exceptions page predicting a failure (ASC 5Dh, ASCQ 10h); its grown
#         defect list holds 3 entries (none before) and REQUEST SENSE reports the failure
#         prediction too.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def param(code, value, control=0x02):
    return struct.pack(">HBB", code, control, len(value)) + value


def page(code, params):
    body = b"".join(params)
    return struct.pack(">BBH", code, 0, len(body)) + body


def counters(code, corrected_fast, corrected_delayed, rereads, algorithm, bytes_done, uncorrected):
    total = corrected_fast + corrected_delayed
    return page(code, [param(0, struct.pack(">I", corrected_fast)),
                       param(1, struct.pack(">I", corrected_delayed)),
                       param(2, struct.pack(">I", rereads)),
                       param(3, struct.pack(">I", total)),
                       param(4, struct.pack(">I", algorithm)),
                       param(5, struct.pack(">Q", bytes_done)),
                       param(6, struct.pack(">I", uncorrected))])


def supported(codes):
    """Page 00h: the header, then one byte per page code (no parameters)."""
    return struct.pack(">BBH", 0, 0, len(codes)) + bytes(codes)


def self_tests(entries):
    """entries, newest first: (code, result, segment, hours, lba, sense key, asc, ascq)."""
    params = []
    for i in range(20):
        if i < len(entries):
            code, result, seg, hours, lba, key, asc, ascq = entries[i]
            value = struct.pack(">BBHQBBBB", (code << 5) | result, seg, hours, lba, key, asc, ascq,
                                0)
        else:
            value = bytes(16)
        params.append(param(i + 1, value, 0x03))
    return page(0x10, params)


def reading(read, write, verify, non_medium, temp, cycles, tests, ie):
    return {
        0x00: supported([0x00, 0x02, 0x03, 0x05, 0x06, 0x0D, 0x0E, 0x10, 0x2F]),
        0x02: counters(0x02, *write),
        0x03: counters(0x03, *read),
        0x05: counters(0x05, *verify),
        0x06: page(0x06, [param(0, struct.pack(">I", non_medium))]),
        0x0D: page(0x0D, [param(0, bytes([0, temp]), 0x03), param(1, bytes([0, 60]), 0x03)]),
        0x0E: page(0x0E, [param(1, b"202312", 0x01), param(2, b"      ", 0x01),
                          param(3, struct.pack(">I", 50000), 0x03),
                          param(4, struct.pack(">I", cycles), 0x03)]),
        0x10: self_tests(tests),
        0x2F: page(0x2F, [param(0, bytes([ie[0], ie[1], temp]), 0x03)]),
    }


def defects12(entries):
    """READ DEFECT DATA (12) header: GLISTV, long block format (8-byte descriptors), length."""
    return struct.pack(">BBHI", 0, 0x08 | 0x03, 0, 8 * entries)


def fixed_sense(key, asc, ascq):
    return struct.pack(">BBBIBIBBBBBB", 0x70, 0, key, 0, 10, 0, asc, ascq, 0, 0, 0, 0)


def write(directory, name, pages):
    os.makedirs(directory, exist_ok=True)
    for code, data in pages.items():
        with open(os.path.join(directory, "scsi-log-%02x-%s.bin" % (code, name)), "wb") as f:
            f.write(data)


def main():
    sas = os.path.join(HERE, "sas")
    passed = (1, 0, 0, 1000, 0xFFFFFFFFFFFFFFFF, 0, 0, 0)  # no failure: LBA all ones
    write(sas, "before", reading(read=(120, 2, 0, 122, 9_876_543_210_000, 0),
                                 write=(0, 0, 0, 0, 8_765_432_100_000, 0),
                                 verify=(4, 0, 0, 4, 123_456_789_000, 0), non_medium=17, temp=31,
                                 cycles=42, tests=[passed], ie=(0, 0)))
    write(sas, "after", reading(read=(180, 3, 0, 183, 9_926_543_210_000, 0),
                                write=(0, 0, 0, 0, 8_815_432_100_000, 0),
                                verify=(4, 0, 0, 4, 123_456_789_000, 0), non_medium=17, temp=38,
                                cycles=42, tests=[passed], ie=(0, 0)))
    failed = (1, 6, 2, 1003, 0x2A3F00, 3, 0x11, 0x00)
    write(sas, "failing", reading(read=(190, 5, 2, 195, 9_936_543_210_000, 3),
                                  write=(0, 0, 0, 0, 8_825_432_100_000, 0),
                                  verify=(4, 0, 0, 4, 123_456_789_000, 1), non_medium=18, temp=47,
                                  cycles=43, tests=[failed, passed], ie=(0x5D, 0x10)))
    for name, entries, sense in (("before", 0, (0, 0, 0)), ("after", 0, (0, 0, 0)),
                                 ("failing", 3, (0, 0x5D, 0x10))):
        with open(os.path.join(sas, "scsi-defects12-%s.bin" % name), "wb") as f:
            f.write(defects12(entries))
        with open(os.path.join(sas, "scsi-sense-%s.bin" % name), "wb") as f:
            f.write(fixed_sense(*sense))
    make_corpus()


def make_corpus():
    codes = [0x00, 0x02, 0x03, 0x05, 0x06, 0x0D, 0x0E, 0x10, 0x2F]  # fuzz_entry_points.hpp kCodes
    corpus = os.path.join(HERE, "..", "..", "fuzz", "corpus", "scsi_log_pages")
    os.makedirs(corpus, exist_ok=True)
    for i, code in enumerate(codes):
        for name in ("before", "failing"):
            with open(os.path.join(HERE, "sas", "scsi-log-%02x-%s.bin" % (code, name)), "rb") as f:
                data = f.read()
            with open(os.path.join(corpus, "%02x-%s" % (code, name)), "wb") as f:
                f.write(bytes([i]) + data)
    with open(os.path.join(corpus, "defects10"), "wb") as f:
        f.write(bytes([9]) + defects12(2)[:2] + struct.pack(">H", 16))
    with open(os.path.join(corpus, "defects12"), "wb") as f:
        f.write(bytes([10]) + defects12(3))
    with open(os.path.join(corpus, "sense-5d"), "wb") as f:
        f.write(bytes([11]) + fixed_sense(0, 0x5D, 0x10))


if __name__ == "__main__":
    main()
