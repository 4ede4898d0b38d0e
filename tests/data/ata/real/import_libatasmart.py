#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Real drives' SMART pages for the tests (tests/unit/ata_real_drives_test.cpp), from the snapshots
# libatasmart keeps of "bad or weird drives" (its source tree's blob-examples/, written by
# `skdump --save` on the drive itself; one file per drive, named MODEL--FIRMWARE).
#
#   import_libatasmart.py BLOB_DIR
#
# Each snapshot becomes a folder here in the layout devices/ata_smart.hpp CapturedAtaAdmin reads
# (ata-identify.bin, ata-smart-now.bin, ata-thresholds.bin, ata-status-now.txt) beside the
# snapshot itself (skdump.blob), which the test gives to `skdump --load` (libatasmart-bin), the
# independent decoder, and a fuzz_ata_pages input (tests/fuzz/corpus/ata_pages/real-*). A snapshot is a sequence of tags (atasmart.c sk_disk_get_blob): four ASCII
# letters as a big-endian word, the size as a big-endian word, then the bytes: IDFY (IDENTIFY
# DEVICE, 512), SMST (SMART RETURN STATUS: a word, 1 good), SMDT (SMART READ DATA, 512), SMTH
# (SMART READ THRESHOLDS, 512). A snapshot without SMST gives status "unknown". They carry no
# self-test or error log: those readings are absent, as from a drive that refuses them.
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "..", "fuzz", "corpus", "ata_pages")


def tags(blob):
    out, i = {}, 0
    while i + 8 <= len(blob):
        tag, size = struct.unpack(">4sI", blob[i:i + 8])
        out[tag.decode("ascii")] = blob[i + 8:i + 8 + size]
        i += 8 + size
    if i != len(blob):
        raise ValueError("trailing bytes after the last tag")
    return out


def import_one(path):
    blob = open(path, "rb").read()
    t = tags(blob)
    for need in ("IDFY", "SMDT", "SMTH"):
        if len(t.get(need, b"")) != 512:
            raise ValueError("%s: no 512-byte %s tag" % (path, need))
    name = os.path.basename(path).replace(" ", "_")
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    for tag, file in (("IDFY", "ata-identify.bin"), ("SMDT", "ata-smart-now.bin"),
                      ("SMTH", "ata-thresholds.bin")):
        with open(os.path.join(out, file), "wb") as f:
            f.write(t[tag])
    status = "unknown"
    if "SMST" in t:
        status = "passed" if struct.unpack(">I", t["SMST"])[0] else "failing"
    with open(os.path.join(out, "ata-status-now.txt"), "w") as f:
        f.write(status + "\n")
    shutil.copy(path, os.path.join(out, "skdump.blob"))
    return name, status


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: import_libatasmart.py BLOB_DIR")
    for f in sorted(os.listdir(sys.argv[1])):
        if f == "README":
            continue
        name, status = import_one(os.path.join(sys.argv[1], f))
        print("%-40s %s" % (name, status))
        # fuzz_ata_pages input: the data page, then the thresholds page.
        with open(os.path.join(CORPUS, "real-" + name), "wb") as out:
            for page in ("ata-smart-now.bin", "ata-thresholds.bin"):
                out.write(open(os.path.join(HERE, name, page), "rb").read())


if __name__ == "__main__":
    main()
