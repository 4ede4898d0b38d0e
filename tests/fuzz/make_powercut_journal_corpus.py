#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpus of fuzz_powercut_journal (tests/fuzz/corpus/powercut_journal): journals
# and listener streams of journal version 2 (runner/measure/powercut_journal.hpp has the layout),
# whole, torn and damaged. The first byte selects the entry point (even: the journal reader, odd:
# the listener's stream checks with the token "fuzz-token"). XXH32 from the system's libxxhash.
import ctypes
import pathlib
import struct
import sys

xxh = ctypes.CDLL("libxxhash.so.0")
xxh.XXH32.restype = ctypes.c_uint32
xxh.XXH32.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32]


def frame(payload):
    return struct.pack("<II", len(payload), xxh.XXH32(payload, len(payload), 0)) + payload


def text(s):
    return struct.pack("<H", len(s)) + s


def header(seq, run=7, unit=4096, version=2):
    return frame(struct.pack("<BIQQQQIQ", 1, version, seq, run, 0, 1 << 20, unit, 5) + text(b"/dev/x"))


def write(seq, record, offset, epoch=0, fua=0):
    return frame(struct.pack("<BQQQIBQQQ", 2, seq, record, offset, 4096, fua, epoch, record + 1, 9))


def flush(seq, epoch, next_record):
    return frame(struct.pack("<BQQQQ", 3, seq, epoch, next_record, 9))


def end(seq, n):
    return frame(struct.pack("<BQQ", 4, seq, n))


def shutdowns(seq):
    return frame(struct.pack("<BQBQBQ", 5, seq, 1, 41, 1, 7) + text(b"nvme:smart-log"))


def hello(token=b"fuzz-token", version=2):
    return frame(struct.pack("<BI", 16, version) + text(token))


def whole():
    return (header(0) + shutdowns(1) + write(2, 1, 0) + write(3, 2, 8192, fua=1) + flush(4, 1, 3)
            + write(5, 3, 4096, epoch=1) + end(6, 3))


def main(out):
    out = pathlib.Path(out)
    j = whole()
    frames = []
    at = 0
    while at < len(j):
        n = struct.unpack_from("<I", j, at)[0]
        frames.append(j[at:at + 8 + n])
        at += 8 + n
    flipped = bytearray(j)
    flipped[len(frames[0]) + 12] ^= 0x10
    huge = bytearray(j)
    struct.pack_into("<I", huge, len(frames[0]) + len(frames[1]), 0xfffffff0)
    seeds = {
        "journal-whole": j,
        "journal-torn": j[:-5],
        "journal-no-header": b"".join(frames[2:]),
        "journal-shutdowns": header(0) + shutdowns(1),
        "journal-header-only": header(0),
        "journal-two-runs": header(0) + header(1, run=8),
        "journal-replayed": b"".join(frames[:4] + frames[3:]),
        "journal-gap": b"".join(frames[:3] + frames[4:]),
        "journal-flip-early": bytes(flipped),
        "journal-huge-length": bytes(huge),
        "journal-unit-1000": header(0, unit=1000),
        "journal-version-1": frame(struct.pack("<BIQQQIQ", 1, 1, 7, 0, 1 << 20, 4096, 5) + text(b"")),
        "journal-outside": header(0) + write(1, 1, 1 << 30),
        "stream-whole": hello() + j,
        "stream-no-hello": j,
        "stream-partial": hello() + j[:-5],
        "stream-wrong-token": hello(b"not-the-token") + j,
        "stream-old-protocol": hello(version=1) + j,
        "stream-replayed": hello() + b"".join(frames[:4] + frames[3:]),
    }
    for name, data in seeds.items():
        selector = b"\x01" if name.startswith("stream") else b"\x00"
        (out / name).write_bytes(selector + data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus/powercut_journal")
