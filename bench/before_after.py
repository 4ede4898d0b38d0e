#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# One storqual binary against another on the null engine (the tool's own cost per I/O, no device):
# ABBA pairs of `storqual bench --ioengine null`, 4k random reads at QD1 and QD32, the median of the
# per-pair ratios (after / before). For a refactor that must not slow the loop down (issue 27:
# within 3%). Usage: bench/before_after.py BEFORE_BINARY AFTER_BINARY [PAIRS [RUNTIME]]
import json
import os
import statistics
import subprocess
import sys
import tempfile


def iops(binary, qd, runtime):
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        subprocess.run([binary, "bench", "--target", "null", "--ioengine", "null", "--rw",
                        "randread", "--bs", "4k", "--iodepth", str(qd), "--runtime", runtime,
                        "--norandommap", "1", "--json", out], check=True, capture_output=True,
                       env={**os.environ, "STORQUAL_ARCHIVE": "off"})
        with open(out) as f:
            return json.load(f)["workloads"][0]["read"]["iops"]
    finally:
        os.unlink(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__ or "usage: before_after.py BEFORE AFTER [PAIRS [RUNTIME]]")
    before, after = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    runtime = sys.argv[4] if len(sys.argv) > 4 else "3"
    for qd in (1, 32):
        iops(before, qd, runtime), iops(after, qd, runtime)  # warm-up
        ratios, a_all, b_all = [], [], []
        for i in range(pairs):
            if i % 2 == 0:
                b = iops(before, qd, runtime)
                a = iops(after, qd, runtime)
            else:
                a = iops(after, qd, runtime)
                b = iops(before, qd, runtime)
            ratios.append(a / b)
            a_all.append(a)
            b_all.append(b)
        print(f"null-qd{qd}: before median {statistics.median(b_all):.0f} IOPS, after median "
              f"{statistics.median(a_all):.0f} IOPS, after/before median of pair ratios "
              f"{statistics.median(ratios):.4f} (pairs: {', '.join(f'{r:.3f}' for r in ratios)})")


if __name__ == "__main__":
    main()
