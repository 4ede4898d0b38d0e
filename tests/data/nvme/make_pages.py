#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the captured NVMe admin pages the fake NvmeAdmin replays (layouts from the NVMe base
# specification 2.0: Identify Controller and Identify Namespace are 4096 bytes, the SMART / Health
# Information log page 512 bytes, all little-endian). The pages are committed; re-run to change.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(page, offset, data):
    page[offset:offset + len(data)] = data


def u128(value):
    return value.to_bytes(16, "little")


def identify_ctrl():
    p = bytearray(4096)
    put(p, 0, struct.pack("<HH", 0x144D, 0x144D))                 # VID, SSVID
    put(p, 4, b"S5GXNF0R123456A".ljust(20))                       # SN, space padded
    put(p, 24, b"Samsung SSD 980 PRO 1TB".ljust(40))              # MN
    put(p, 64, b"5B2QGXA7")                                       # FR
    put(p, 78, struct.pack("<H", 6))                              # CNTLID
    put(p, 80, struct.pack("<I", 0x00010400))                     # VER 1.4.0
    return p


def identify_ns():
    p = bytearray(4096)
    nsze = 244190646
    put(p, 0, struct.pack("<QQQ", nsze, nsze, 1000))              # NSZE, NCAP, NUSE
    p[25] = 1                                                     # NLBAF: two formats
    p[26] = 1                                                     # FLBAS: format 1 in use
    put(p, 128, struct.pack("<HBB", 0, 9, 2))                     # LBAF0: 512 B
    put(p, 132, struct.pack("<HBB", 8, 12, 0))                    # LBAF1: 4096 B + 8 B metadata
    return p


def smart(warning, kelvin, spare, used, read, written, hours, cycles, unsafe, media, errlog,
          warn_min, crit_min):
    p = bytearray(512)
    p[0] = warning
    put(p, 1, struct.pack("<H", kelvin))
    p[3] = spare
    p[4] = 10                                                     # spare threshold
    p[5] = used
    put(p, 32, u128(read))
    put(p, 48, u128(written))
    put(p, 112, u128(cycles))
    put(p, 128, u128(hours))
    put(p, 144, u128(unsafe))
    put(p, 160, u128(media))
    put(p, 176, u128(errlog))
    put(p, 192, struct.pack("<II", warn_min, crit_min))
    return p


def main():
    two64 = 1 << 64
    pages = {
        "identify-ctrl.bin": identify_ctrl(),
        "identify-ns.bin": identify_ns(),
        # A worn drive (percentage used above 100) with counters past 2^64.
        "smart-before.bin": smart(0x00, 311, 100, 104, two64 + 5, 2 * two64 - 1000, 12000, 300, 17,
                                  0, 5, 3, 0),
        # After the run: 2000 more data units written (carrying into the high word), new media
        # errors, the reliability-degraded bit, hotter.
        "smart-after.bin": smart(0x04, 325, 99, 105, two64 + 5, 2 * two64 + 1000, 12001, 300, 17,
                                 3, 7, 5, 0),
        # Every counter at 2^128 - 1.
        "smart-max.bin": smart(0xFF, 0xFFFF, 255, 255, (1 << 128) - 1, (1 << 128) - 1,
                               (1 << 128) - 1, (1 << 128) - 1, (1 << 128) - 1, (1 << 128) - 1,
                               (1 << 128) - 1, 0xFFFFFFFF, 0xFFFFFFFF),
    }
    # What a drive reports now, for `storqual identify --nvme-pages` (the default page name).
    pages["smart-log.bin"] = pages["smart-before.bin"]
    for name, data in pages.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(bytes(data))


if __name__ == "__main__":
    main()
