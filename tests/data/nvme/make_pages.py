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
          warn_min, crit_min, tmt=(0, 0, 0, 0)):
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
    put(p, 216, struct.pack("<IIII", *tmt))                       # TMT1/TMT2 counts, total times (s)
    return p


OCP_GUID = bytes.fromhex("AFD514C97C6F4F9CA4F2BFEA2810AFC5")[::-1]  # little-endian in the page


def ocp_c0(pmuw, pmur, bad_user, bad_user_norm, bad_sys, bad_sys_norm, xor, uncorr, soft_ecc,
           e2e_det, e2e_corr, sys_used, refresh, erase_max, erase_min, tt_events, tt_status,
           pcie_corr, incomplete, free_pct, cap_health, unaligned, secver, nuse, plp, endurance,
           version=4, guid=OCP_GUID):
    """OCP Datacenter NVMe SSD specification, SMART / Health Information Extended (C0h)."""
    p = bytearray(512)
    put(p, 0, u128(pmuw))                                         # physical media units written
    put(p, 16, u128(pmur))                                        # physical media units read
    put(p, 32, bad_user.to_bytes(6, "little"))
    put(p, 38, struct.pack("<H", bad_user_norm))
    put(p, 40, bad_sys.to_bytes(6, "little"))
    put(p, 46, struct.pack("<H", bad_sys_norm))
    put(p, 48, struct.pack("<QQQ", xor, uncorr, soft_ecc))
    put(p, 72, struct.pack("<II", e2e_det, e2e_corr))
    p[80] = sys_used
    put(p, 81, refresh.to_bytes(7, "little"))
    put(p, 88, struct.pack("<II", erase_max, erase_min))
    p[96] = tt_events
    p[97] = tt_status
    put(p, 104, struct.pack("<Q", pcie_corr))
    put(p, 112, struct.pack("<I", incomplete))
    p[120] = free_pct
    put(p, 128, struct.pack("<H", cap_health))
    put(p, 136, struct.pack("<QQQ", unaligned, secver, nuse))
    put(p, 160, u128(plp))
    put(p, 176, u128(endurance))
    put(p, 494, struct.pack("<H", version))
    put(p, 496, guid)
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
    # OCP C0h: every field a distinct known value; 48- and 56-bit counters use their high bytes.
    ocp = dict(pmuw=3 * 10**12, pmur=(1 << 64) + 7, bad_user=0x0000_0102_0304, bad_user_norm=98,
               bad_sys=0x0506_0000_0001, bad_sys_norm=99, xor=11, uncorr=2, soft_ecc=333,
               e2e_det=4, e2e_corr=3, sys_used=12, refresh=0x01_0203_0405_0607,
               erase_max=1500, erase_min=1200, tt_events=6, tt_status=0, pcie_corr=21,
               incomplete=1, free_pct=37, cap_health=100, unaligned=55, secver=3,
               nuse=244190000, plp=17, endurance=5 * 10**15)
    pages["ocp-smart-log.bin"] = ocp_c0(**ocp)
    pages["ocp-before.bin"] = pages["ocp-smart-log.bin"]
    # After the run: 2.56 GB more media writes for the 1.024 GB the host wrote (smart-before ->
    # smart-after: 2000 data units): write amplification 2.5; a new bad block, a PCIe error,
    # one more throttling event and throttling on at the end.
    after = dict(ocp, pmuw=ocp["pmuw"] + 2_560_000_000, bad_user=ocp["bad_user"] + 1,
                 pcie_corr=22, tt_events=7, tt_status=1)
    pages["ocp-after.bin"] = ocp_c0(**after)
    # Another vendor's C0h: same size, a different GUID.
    pages["ocp-wrong-guid.bin"] = ocp_c0(**ocp, guid=bytes(range(16)))
    # A run that heats up: the composite temperature climbs and the drive enters thermal
    # management level 1 (TMT1) between the third and the fourth reading, 40 s of it by the last.
    for i, (kelvin, tmt) in enumerate([(330, (2, 0, 100, 0)), (340, (2, 0, 100, 0)),
                                       (348, (2, 0, 100, 0)), (352, (3, 0, 110, 0)),
                                       (353, (3, 0, 140, 0)), (351, (3, 0, 140, 0))]):
        pages["smart-thermal-%d.bin" % i] = smart(0x00, kelvin, 100, 3, 5, 1000 + 500 * i, 200,
                                                  10, 1, 0, 0, 0, 0, tmt)
    for name, data in pages.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(bytes(data))


def zns_pages():
    """tests/data/nvme-zns: a zoned namespace as QEMU 10 serves one (nvme-ns zoned=true,
    zoned.zone_size=8M, zoned.max_open=4, zoned.max_active=6): 4096-byte blocks, 64 MiB, ZSZE
    2048 blocks, MOR 3 and MAR 5 (0's based)."""
    out = os.path.join(os.path.dirname(HERE), "nvme-zns")
    os.makedirs(out, exist_ok=True)
    ctrl = bytearray(4096)
    put(ctrl, 0, struct.pack("<HH", 0x1B36, 0x1AF4))
    put(ctrl, 4, b"SQNVME0001".ljust(20))
    put(ctrl, 24, b"QEMU NVMe Ctrl".ljust(40))
    put(ctrl, 64, b"10.0.2".ljust(8))
    put(ctrl, 80, struct.pack("<I", 0x00020000))                  # VER 2.0.0
    ns = bytearray(4096)
    put(ns, 0, struct.pack("<QQQ", 16384, 16384, 0))              # 64 MiB of 4 KiB
    ns[26] = 0                                                    # FLBAS: format 0
    put(ns, 128, struct.pack("<HBB", 0, 12, 0))                   # LBAF0: 4096 B
    zns = bytearray(4096)
    put(zns, 4, struct.pack("<II", 5, 3))                         # MAR, MOR (0's based)
    put(zns, 2816, struct.pack("<QB", 2048, 0))                   # LBAFE0: ZSZE 2048 blocks
    pages = {"identify-ctrl.bin": ctrl, "identify-ns.bin": ns, "identify-ns-zns.bin": zns,
             "smart-log.bin": smart(0, 300, 100, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0)}
    for name, data in pages.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes(data))


if __name__ == "__main__":
    main()
    zns_pages()
