#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Imported fio job files run by storqual and by fio on the same zram device (docs/fio-files.md).

Each job file (default: four of Debian's fio-examples) is imported (`storqual suites import`),
given a short runtime and a size that fits the device (the only changes, made in the suite XML),
and exported again (`storqual suites export --fio --target DEV`; with `iomem=shmhuge` over a hugetlb
pool where storqual's buffers are on huge pages, as bench/vs-fio.sh does): storqual runs the suite XML
(`storqual run --suite`), fio runs the export, which is the same I/O pattern (tests/system/
fio_examples.py checks import(export) == suite). Before each run the device's page cache is
flushed (blockdev --flushbufs), as buffered jobs read through it. The two alternate in ABBA order, PAIRS pairs per
job file; the median IOPS of each side are compared. Exits 1 when a job file's IOPS differ by
more than --tolerance (5%). Needs root (a zram device made here and removed by its own name).

  bench/fio-jobs-vs-fio.sh [--pairs 3] [--runtime 5] [--device-size 2g] [--size 1g]
                           [--jobs FILE.fio,...] [--json OUT]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_fio import (HUGE_PAGE, Device, HugePages, size_bytes, storqual_binary,  # noqa: E402
                    zram_bench_skip)  # bench/vs-fio.sh's

# A benchmark's runs are not acceptance records: none goes into the archive (docs/archive.md).
os.environ.setdefault("STORQUAL_ARCHIVE", "off")

EXAMPLES = "/usr/share/doc/fio/examples"
DEFAULT_JOBS = ["fio-rand-read.fio", "fio-rand-write.fio", "fio-seq-read.fio", "fio-seq-write.fio"]


def check(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (p.returncode, " ".join(argv), p.stdout, p.stderr))
    return p.stdout


def prepare(storqual, job, tmp, device, runtime, size):
    """The suite XML storqual runs and the job file fio runs, from one imported job file."""
    stem = os.path.splitext(os.path.basename(job))[0]
    xml = check([storqual, "suites", "import", job], cwd=os.path.dirname(job) or ".")
    root = ET.fromstring(xml)
    for w in root.findall("workload"):
        w.set("runtime", "%ds" % runtime)
        w.set("size", size)
        w.attrib.pop("io_limit", None)
    suite = os.path.join(tmp, stem + ".xml")
    ET.ElementTree(root).write(suite)
    fio_job = os.path.join(tmp, stem + ".fio")
    check([storqual, "suites", "export", suite, "--fio", "--target", device, "--out", fio_job])
    # storqual's I/O buffers of 2 MiB or more (iodepth x bs per job) are on huge pages; fio's are
    # with iomem=shmhuge over a hugetlb pool (bench/vs-fio.sh does the same).
    pool = max(int(w.get("iodepth", "1")) * size_bytes(w.get("bs", "4k")) *
               int(w.get("numjobs", "1")) for w in root.findall("workload"))
    if pool >= HUGE_PAGE:
        text = open(fio_job).read().replace("[global]\n", "[global]\niomem=shmhuge\n", 1)
        open(fio_job, "w").write(text)
    else:
        pool = 0
    return suite, fio_job, pool



def storqual_iops(storqual, suite, device, tmp):
    out = tempfile.mkdtemp(dir=tmp)
    check([storqual, "run", "--target", device, "--suite", suite, "--measure-only",
           "--allow-destructive", "--force", "--out", out])
    result = json.load(open(os.path.join(out, "storqual-result.json")))
    shutil.rmtree(out)
    return sum(w[d]["iops"] for w in result["workloads"] for d in ("read", "write") if w.get(d))


def fio_iops(fio_job):
    j = json.loads(check(["fio", "--output-format=json", fio_job]))
    return sum(job[d]["iops"] for job in j["jobs"] for d in ("read", "write"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--device-size", default="2g")
    ap.add_argument("--size", default="1g")
    ap.add_argument("--jobs", default=",".join(DEFAULT_JOBS))
    ap.add_argument("--tolerance", type=float, default=5.0)
    ap.add_argument("--json")
    a = ap.parse_args()
    if skip := zram_bench_skip():
        print("skip: " + skip)
        return 77
    storqual = storqual_binary()
    report, failed = [], False
    tmp = tempfile.mkdtemp(prefix="storqual-fio-jobs.")
    try:
        with Device("zram", size_bytes(a.device_size)) as dev:
            print("device %s (%s), %d s per run, %d ABBA pairs" % (dev.path, a.device_size,
                                                                   a.runtime, a.pairs))
            print("%-22s %12s %12s %8s" % ("job file", "storqual", "fio", "diff"))
            for name in a.jobs.split(","):
                job = name if os.path.sep in name else os.path.join(EXAMPLES, name)
                suite, fio_job, pool = prepare(storqual, job, tmp, dev.path, a.runtime, a.size)
                sq, fi = [], []
                huge = HugePages(pool)
                huge.__enter__()
                for pair in range(a.pairs):
                    order = ("storqual", "fio") if pair % 2 == 0 else ("fio", "storqual")
                    for side in order:
                        # Buffered jobs (direct=0) read through the page cache: each run starts
                        # with this device's cache empty (BLKFLSBUF, this device only).
                        check(["blockdev", "--flushbufs", dev.path])
                        if side == "storqual":
                            sq.append(storqual_iops(storqual, suite, dev.path, tmp))
                        else:
                            fi.append(fio_iops(fio_job))
                huge.__exit__(None, None, None)
                if pool and not huge.ok:
                    print("  (no hugetlb pool: fio ran on 4 KiB pages, storqual on huge pages)")
                s, f = statistics.median(sq), statistics.median(fi)
                diff = 100.0 * (s - f) / f if f else float("inf")
                ok = abs(diff) <= a.tolerance
                failed |= not ok
                print("%-22s %12.0f %12.0f %+7.1f%% %s" % (os.path.basename(job), s, f, diff,
                                                         "" if ok else "OVER"))
                report.append({"job": os.path.basename(job), "storqual_iops": sq, "fio_iops": fi,
                               "median_diff_pct": diff})
    finally:
        shutil.rmtree(tmp)
    if a.json:
        with open(a.json, "w") as out:
            json.dump(report, out, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
