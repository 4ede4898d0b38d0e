#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# One storqual binary against another on the null engine, counted in instructions instead of time:
# each binary runs `storqual bench --ioengine null` under valgrind's callgrind, which counts the
# instructions executed inside the job threads only (--toggle-collect on the job thread's entry),
# and the count is divided by the I/Os the run completed. Unlike bench/before_after.py's IOPS this
# does not move with the load of a shared machine (two runs of one binary agree to 0.1
# instructions per I/O), so it finds a hot-path regression of 1% where wall time cannot; it does
# not see cache misses or branch mispredictions, so before_after.py stays the verdict.
# Usage: bench/instructions_per_io.py BEFORE_BINARY AFTER_BINARY [RUNTIME_S]
# Needs valgrind (Debian's valgrind package).
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CASES = [
    ("randread QD1", ["--rw", "randread", "--iodepth", "1", "--norandommap", "1"]),
    ("randread QD32", ["--rw", "randread", "--iodepth", "32", "--norandommap", "1"]),
    ("randread QD32 random map", ["--rw", "randread", "--iodepth", "32"]),
    ("read QD32", ["--rw", "read", "--iodepth", "32"]),
    ("randrw QD32", ["--rw", "randrw", "--iodepth", "32", "--norandommap", "1"]),
]


def per_io(binary, args, runtime):
    with tempfile.TemporaryDirectory() as tmp:
        out, cg = os.path.join(tmp, "r.json"), os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=std::thread::_State_impl*",
                        f"--callgrind-out-file={cg}", binary, "bench", "--target", "null",
                        "--ioengine", "null", "--bs", "4k", "--runtime", runtime, "--json", out,
                        *args], check=True, capture_output=True,
                       env={**os.environ, "STORQUAL_ARCHIVE": "off"})
        with open(cg) as f:
            m = re.search(r"^summary: (\d+)", f.read(), re.M)
        if not m:
            sys.exit(f"{cg}: no 'summary:' line in callgrind's output")
        with open(out) as f:
            w = json.load(f)["workloads"][0]
        ios = sum(w[d].get("ios", 0) for d in ("read", "write") if d in w)
        if ios == 0:
            sys.exit(f"{binary}: the run completed no I/O ({out})")
        return int(m.group(1)) / ios


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: instructions_per_io.py BEFORE AFTER [RUNTIME_S]")
    if not shutil.which("valgrind"):
        sys.exit("instructions_per_io.py: valgrind is missing (apt-get install valgrind)")
    before, after = sys.argv[1], sys.argv[2]
    runtime = sys.argv[3] if len(sys.argv) > 3 else "2"
    for name, args in CASES:
        b, a = per_io(before, args, runtime), per_io(after, args, runtime)
        print(f"null {name}: before {b:.1f}, after {a:.1f} instructions per I/O in the job "
              f"threads, after/before {a / b:.4f}")


if __name__ == "__main__":
    main()
