#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Imported fio job files run by storqual and by fio on the same zram (or loop) device (docs/fio-files.md).

Each job file (default: four of Debian's fio-examples) is imported (`storqual suites import`),
given a short runtime and a size that fits the device (the only changes, made in the suite XML),
and exported again (`storqual suites export --fio --target DEV`; with `iomem=shmhuge` over a hugetlb
pool where storqual's buffers are on huge pages, as bench/vs-fio.sh does): storqual runs the suite XML
(`storqual run --suite`), fio runs the export, which is the same I/O pattern (tests/system/
fio_examples.py checks import(export) == suite). Before each run the device's page cache is
flushed (blockdev --flushbufs), as buffered jobs read through it. The two alternate in ABBA order,
WARMUP pairs not counted then PAIRS pairs per job file; the median IOPS of each side are compared. Exits 1 when a job file's IOPS differ by
more than --tolerance (5%). Beside them: I/Os per CPU-second of each tool's whole process (fio
from wait4; storqual from its result's cpu.process_pct, the process while the jobs ran) and what
the device saw per I/O (/sys/block/DEV/stat: requests per tool I/O, KiB per request), which tell a
tool that issues another I/O pattern from one that spends another CPU time per I/O. Needs root
(a zram or loop device made here and removed by its own name).

Fidelity checks, from what the suite asks for (docs/fio-files.md, "Side by side with fio"), each
read from the kernel's block-layer trace of the device (bench/block_trace.py: the same referee for
both tools, neither tool's own report):
- a block-size mix (`bssplit`): each direction's share of I/Os per request size the device saw,
  summed over the counted runs, within --tolerance of bssplit's share for every size of 1% or more
  (or within 3 binomial sigmas of one run's count of that direction, where that is wider),
  and no size bssplit does not have at 1% or more; fio's beside it (fio's own can fail it: with
  its random map fio cuts an I/O at the first block it already did, docs/fio-files.md);
- a skewed distribution (`random_distribution`): the share of I/Os on the hottest 10% of the
  region's blocks (by the run's own counts), median per tool, within --tolerance of fio's;
- a rate (`rate_iops`, `rate`): each tool's median IOPS within --rate-tolerance (2%) of the rate.
A job on fio's null engine (zipf.fio) runs on psync instead, so that its offsets reach the device.

  bench/fio-jobs-vs-fio.sh [--pairs 3] [--warmup 1] [--runtime 5] [--device zram|loop]
                           [--device-size 2g] [--size 1g] [--jobs FILE.fio,...]
                           [--fio-options OPT=V,...] [--rate-tolerance 2] [--json OUT]
  bench/fio-jobs-vs-fio.sh --fidelity     (the issue's set: zram, then jesd219 on loop-tmpfs)
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_fio import (HUGE_PAGE, Device, HugePages, run_timed, size_bytes,  # noqa: E402
                    storqual_binary, zram_bench_skip)  # bench/vs-fio.sh's
from block_trace import BlockTrace, hottest_share, size_mix  # noqa: E402

# A benchmark's runs are not acceptance records: none goes into the archive (docs/archive.md).
os.environ.setdefault("STORQUAL_ARCHIVE", "off")

EXAMPLES = "/usr/share/doc/fio/examples"
DEFAULT_JOBS = ["fio-rand-read.fio", "fio-rand-write.fio", "fio-seq-read.fio", "fio-seq-write.fio"]
# --fidelity: a block-size mix, a zipf and a zoned distribution, a rate on zram; jesd219 (512-byte
# requests, which zram's 4 KiB blocks refuse under direct I/O) on a loop device over tmpfs.
# cmdprio-bssplit.fio (64k/40:1m/60, random map) is not in it: fio's 1 MiB reads reached the
# device also as 128k..640k requests, in 64 KiB multiples, which fits the random map's cut that
# iometer showed (docs/fio-files.md, "What the device saw"; not checked with norandommap here).
FIDELITY = [("zram", ["zipf.fio", "rand-zones.fio", "fixed-rate-submission.fio"]),
            ("loop-tmpfs", ["jesd219.fio", "iometer-file-access-server.fio"])]


def check(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (p.returncode, " ".join(argv), p.stdout, p.stderr))
    return p.stdout


def prepare(storqual, job, tmp, device, runtime, size, fio_options=""):
    """The suite XML storqual runs and the job file fio runs, from one imported job file."""
    stem = os.path.splitext(os.path.basename(job))[0]
    xml = check([storqual, "suites", "import", job], cwd=os.path.dirname(job) or ".")
    root = ET.fromstring(xml)
    for w in root.findall("workload"):
        w.set("runtime", "%ds" % runtime)
        w.set("size", size)
        w.attrib.pop("io_limit", None)
        if w.get("ioengine") == "null":  # its offsets must reach the device's trace, each one
            w.set("ioengine", "psync")
            w.set("direct", "1")
    suite = os.path.join(tmp, stem + ".xml")
    ET.ElementTree(root).write(suite)
    fio_job = os.path.join(tmp, stem + ".fio")
    check([storqual, "suites", "export", suite, "--fio", "--target", device, "--out", fio_job])
    # storqual's I/O buffers of 2 MiB or more (iodepth x bs per job) are on huge pages; fio's are
    # with iomem=shmhuge over a hugetlb pool (bench/vs-fio.sh does the same). fio rounds each
    # job's buffers, plus its alignment, up to whole huge pages (and crashes when the pool is
    # short: fio 3.33 on fio-seq-RW's four jobs of 4 MiB).
    def job_pool(w):
        per_job = int(w.get("iodepth", "1")) * size_bytes(w.get("bs", "4k"))
        if per_job < HUGE_PAGE:
            return 0
        return int(w.get("numjobs", "1")) * (-(-per_job // HUGE_PAGE) + 2) * HUGE_PAGE
    pool = max(job_pool(w) for w in root.findall("workload"))
    if fio_options:  # --fio-options: more [global] options for fio's side only
        text = open(fio_job).read().replace(
            "[global]\n", "[global]\n" + "\n".join(fio_options.split(",")) + "\n", 1)
        open(fio_job, "w").write(text)
    if pool:
        text = open(fio_job).read().replace("[global]\n", "[global]\niomem=shmhuge\n", 1)
        open(fio_job, "w").write(text)
    return suite, fio_job, pool



def cpu_times():
    """All CPUs' (busy + idle, steal) jiffies from /proc/stat: the hypervisor's steal tells a
    noisy run on a virtual machine from a slow tool."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(f[:8]), f[7]


def device_requests(device):
    """Requests completed and sectors moved, reads and writes together (/sys/block/DEV/stat)."""
    f = open("/sys/block/%s/stat" % os.path.basename(device)).read().split()
    return int(f[0]) + int(f[4]), int(f[2]) + int(f[6])


def storqual_iops(storqual, suite, device, tmp):
    """IOPS, I/Os per CPU-second of the whole process while the jobs ran (cpu.process_pct:
    `run` also identifies the device and probes the null engine's ceiling) and the device's
    requests and sectors per I/O; `workloads`: each workload's IOPS, in the suite's order."""
    out = tempfile.mkdtemp(dir=tmp)
    before = device_requests(device)
    check([storqual, "run", "--target", device, "--suite", suite, "--measure-only",
           "--allow-destructive", "--force", "--out", out])
    after = device_requests(device)
    result = json.load(open(os.path.join(out, "storqual-result.json")))
    shutil.rmtree(out)
    per = [sum(w[d]["iops"] for d in ("read", "write") if w.get(d)) for w in result["workloads"]]
    ios = sum(w[d]["ios"] for w in result["workloads"] for d in ("read", "write") if w.get(d))
    cpus = sum(w["cpu"].get("process_pct", 0) for w in result["workloads"]) / 100
    iops = sum(per)
    return {"iops": iops, "workloads": per, "per_core": iops / cpus if cpus > 0 else 0,
            "requests_per_io": (after[0] - before[0]) / ios if ios else 0,
            "kib_per_request": (after[1] - before[1]) / 2 / max(1, after[0] - before[0])}


def fio_iops(fio_job, runtime):
    """As storqual_iops, from fio's JSON: the export starts each workload with stonewall, so a
    workload is one of fio's groups (groupid, in order)."""
    before = device_requests_of_job(fio_job)
    text, cpu_s = run_timed(["fio", "--output-format=json", fio_job])
    after = device_requests_of_job(fio_job)
    # fio prints some warnings on stdout ahead of the JSON ("verification read phase will never
    # start because write phase uses all of runtime")
    start = text.find("\n{") + 1 if not text.startswith("{") else 0
    try:
        j = json.loads(text[start:])
    except ValueError:
        sys.exit("fio wrote no JSON for %s:\n%s" % (fio_job, text[:2000]))
    groups = {}
    for job in j["jobs"]:
        groups[job["groupid"]] = groups.get(job["groupid"], 0) + sum(
            job[d]["iops"] for d in ("read", "write"))
    per = [groups[g] for g in sorted(groups)]
    iops = sum(per)
    ios = sum(job[d]["total_ios"] for job in j["jobs"] for d in ("read", "write"))
    return {"iops": iops, "workloads": per,
            "per_core": iops * runtime / cpu_s if cpu_s > 0 else 0,
            "requests_per_io": (after[0] - before[0]) / ios if ios else 0,
            "kib_per_request": (after[1] - before[1]) / 2 / max(1, after[0] - before[0])}


def device_requests_of_job(fio_job):
    """device_requests of the filename= the export wrote into the job file."""
    for line in open(fio_job):
        if line.startswith("filename="):
            return device_requests(line.split("=", 1)[1].strip())
    return (0, 0)


def nominal_mix(bssplit):
    """fio's bssplit as {direction: {bytes: share}}: one list for both directions, or a part per
    direction (reads first; an empty part: the direction's bs, not a mix)."""
    mix = {}
    parts = bssplit.split(",") if "," in bssplit else [bssplit, bssplit]
    for kind, part in zip(("read", "write"), (parts + [""])[:2]):
        entries = [e.split("/") for e in part.split(":") if e]
        if entries:
            mix[kind] = {size_bytes(b.lower().replace("b", "")): float(p) / 100 for b, p in entries}
    return mix


def nominal_hottest(distribution):
    """The share fio's zoned distribution puts on the first 10% of the region (zoned:P/S:...),
    None for another distribution (zipf's depends on its theta and the region's size)."""
    if not distribution.startswith("zoned:"):
        return None
    left, share = 10.0, 0.0
    for zone in distribution[6:].split(":"):
        pct, _, size = zone.partition("/")
        size = float(size) if size else 100.0
        take = min(left, size)
        share += float(pct) * take / size
        left -= take
        if left <= 0:
            break
    return share / 100


def fidelity(stem, workloads, sq, fi, sq_ios, fi_ios, a):
    """The checks of what the device saw (module docstring); returns (failed, report rows)."""
    failed, rows = False, []
    w = workloads[0]
    tol = a.tolerance / 100
    if w.get("bssplit"):
        # The device's mix of each tool against bssplit's: every size of 1% or more within the
        # tolerance, and no other size of 1% or more (a request cut short on its way).
        s_mix = size_mix([io for ios in sq_ios for io in ios])
        f_mix = size_mix([io for ios in fi_ios for io in ios])
        want = nominal_mix(w.get("bssplit"))
        # A share is a count: where one run's I/Os of a direction cannot tell 5% at that share,
        # the bound is 3 binomial sigmas of that count (storqual's runs draw the same sizes each
        # run, as fio's with randrepeat=1: a run, not their sum, is the sample).
        def bound(kind, nominal):
            n = min([sum(1 for k, _, _ in ios if k == kind) for ios in sq_ios] or [0])
            sigma = math.sqrt((1 - nominal) / (nominal * n)) if n and nominal > 0 else 0
            return max(tol, 3 * sigma)
        for kind in sorted(want):
            for size in sorted(set(want[kind]) | set(s_mix.get(kind, {})) | set(f_mix.get(kind, {}))):
                nominal = want[kind].get(size, 0.0)
                sv, fv = s_mix.get(kind, {}).get(size, 0), f_mix.get(kind, {}).get(size, 0)
                if max(nominal, sv, fv) < 0.01:
                    continue
                rel = bound(kind, nominal) if nominal >= 0.01 else 0
                near = lambda x: abs(x - nominal) <= rel * nominal if nominal >= 0.01 else x < 0.01
                ok = near(sv)
                failed |= not ok
                print("  %-32s %5s %6d B %11.2f%% %11.2f%% %8s %s (bssplit %.0f%% +-%.1f%%%s)" % (
                    "mix", kind, size, 100 * sv, 100 * fv, "", "  " if ok else "OVER",
                    100 * nominal, 100 * rel, "" if near(fv) else "; fio's is not"))
                rows.append({"job": stem, "check": "mix", "direction": kind, "bytes": size,
                             "storqual_share": sv, "fio_share": fv, "bssplit_share": nominal,
                             "bound_rel": rel, "ok": ok, "fio_ok": near(fv)})
    dist = w.get("random_distribution", "random")
    if dist != "random":
        block = size_bytes(w.get("blockalign") or w.get("bs", "4k"))
        region = size_bytes(w.get("size"))
        offset = size_bytes(w.get("offset", "0"))
        s_hot = statistics.median(hottest_share(x, offset, region, block) for x in sq_ios)
        f_hot = statistics.median(hottest_share(x, offset, region, block) for x in fi_ios)
        ok = f_hot > 0 and abs(s_hot - f_hot) <= tol * f_hot
        failed |= not ok
        want = nominal_hottest(dist)
        print("  %-32s %18.2f%% %11.2f%% %+7.1f%% %s (%s%s)" % (
            "hottest 10%% of %d KiB blocks" % (block // 1024), 100 * s_hot, 100 * f_hot,
            100 * (s_hot - f_hot) / f_hot if f_hot else float("inf"), "  " if ok else "OVER",
            dist, ": %.0f%% on the first 10%%" % (100 * want) if want is not None else ""))
        rows.append({"job": stem, "check": "hottest_10pct", "distribution": dist,
                     "storqual_share": s_hot, "fio_share": f_hot, "ok": ok})
    rate = w.get("rate_iops")
    if rate is None and w.get("rate"):
        rate = size_bytes(w.get("rate")) / size_bytes(w.get("bs", "4k"))
    if rate is not None:
        rate = float(rate) * int(w.get("numjobs", "1"))
        got = [statistics.median(r["iops"] for r in runs) for runs in (sq, fi)]
        ok = all(abs(x - rate) <= a.rate_tolerance / 100 * rate for x in got)
        failed |= not ok
        print("  %-32s %12.1f %12.1f %8s %s (against the rate: storqual %+.2f%%, fio %+.2f%%)"
              % ("rate %g IOPS" % rate, got[0], got[1], "", "  " if ok else "OVER",
                 100 * (got[0] - rate) / rate, 100 * (got[1] - rate) / rate))
        rows.append({"job": stem, "check": "rate", "rate_iops": rate, "storqual_iops": got[0],
                     "fio_iops": got[1], "ok": ok})
    return failed, rows


def bench_device(a, storqual, kind, jobs, tmp, report):
    """Every job file of `jobs` on one device of `kind`; returns True when a check failed."""
    failed = False
    with Device(kind, size_bytes(a.device_size)) as dev:
        print("device %s (%s, %s), %d s per run, %d ABBA pairs" % (
            dev.path, kind, a.device_size, a.runtime, a.pairs))
        print("%-34s %12s %12s %8s  %s" % ("job file[:workload]", "storqual", "fio", "diff",
                                            "per core storqual / fio; device requests per "
                                            "I/O and KiB per request storqual / fio; CPU "
                                            "steal"))
        for name in jobs:
            job = name if os.path.sep in name else os.path.join(EXAMPLES, name)
            suite, fio_job, pool = prepare(storqual, job, tmp, dev.path, a.runtime, a.size,
                                           a.fio_options)
            workloads = ET.parse(suite).getroot().findall("workload")
            traced = any(w.get("bssplit") or w.get("random_distribution", "random") != "random"
                         for w in workloads)
            trace = BlockTrace(dev.path) if traced else None
            if trace:
                trace.__enter__()
            sq, fi, sq_ios, fi_ios = [], [], [], []
            cpu_before = cpu_times()
            huge = HugePages(pool)
            huge.__enter__()
            try:
                # --warmup pairs first, not counted: the first runs on a device were the slowest
                # of each job file (a fresh device's first pass), and pair 0 starts with storqual.
                for pair in range(-a.warmup, a.pairs):
                    order = ("storqual", "fio") if pair % 2 == 0 else ("fio", "storqual")
                    for side in order:
                        # Buffered jobs (direct=0) read through the page cache: each run starts
                        # with this device's cache empty (BLKFLSBUF, this device only).
                        check(["blockdev", "--flushbufs", dev.path])
                        if trace:
                            trace.start()
                        if side == "storqual":
                            r = storqual_iops(storqual, suite, dev.path, tmp)
                        else:
                            r = fio_iops(fio_job, a.runtime)
                        ios = trace.stop() if trace else None
                        if pair >= 0:
                            (sq if side == "storqual" else fi).append(r)
                            if trace:
                                (sq_ios if side == "storqual" else fi_ios).append(ios)
            finally:
                huge.__exit__(None, None, None)
                if trace:
                    trace.__exit__(None, None, None)
            if pool and not huge.ok:
                print("  (no hugetlb pool: fio ran on 4 KiB pages, storqual on huge pages)")
            cpu_after = cpu_times()
            steal = 100.0 * (cpu_after[1] - cpu_before[1]) / max(1, cpu_after[0] - cpu_before[0])
            med = lambda runs, k: statistics.median(r[k] for r in runs)
            ids = [w.get("id") for w in workloads]
            stem = os.path.basename(job)
            for i, wid in enumerate(ids):
                if any(len(r["workloads"]) != len(ids) for r in sq + fi):
                    print("%s: storqual or fio reported another number of workloads than "
                          "the suite's %d" % (stem, len(ids)))
                    failed = True
                    break
                s_runs = [r["workloads"][i] for r in sq]
                f_runs = [r["workloads"][i] for r in fi]
                s, f = statistics.median(s_runs), statistics.median(f_runs)
                diff = 100.0 * (s - f) / f if f else float("inf")
                # A paced job's IOPS are the rate's (checked below), not a race between the tools.
                paced = workloads[i].get("rate_iops") or workloads[i].get("rate")
                ok = paced or abs(diff) <= a.tolerance
                failed |= not ok
                label = stem if len(ids) == 1 else "%s:%s" % (stem, wid)
                extra = ""
                if i == 0:  # the whole file's process and device figures, once
                    extra = "%s / %s; %.3f / %.3f; %.1f / %.1f" % (
                        "%.0fk" % (med(sq, "per_core") / 1e3),
                        "%.0fk" % (med(fi, "per_core") / 1e3),
                        med(sq, "requests_per_io"), med(fi, "requests_per_io"),
                        med(sq, "kib_per_request"), med(fi, "kib_per_request"))
                    extra += "; steal %.1f%%" % steal
                print("%-34s %12.0f %12.0f %+7.1f%% %s %s" % (
                    label, s, f, diff, "  " if ok else "OVER", extra), flush=True)
                report.append({"job": stem, "workload": wid, "storqual_iops": s_runs,
                               "fio_iops": f_runs, "median_diff_pct": diff,
                               "steal_pct": steal, "device": kind})
            bad, rows = fidelity(stem, workloads, sq, fi, sq_ios, fi_ios, a)
            failed |= bad
            report.extend(rows)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1,
                    help="ABBA pairs run first and not counted, per job file")
    ap.add_argument("--device", choices=("zram", "loop", "loop-tmpfs"), default="zram",
                    help="zram (memory: CPU-bound), a loop device with direct I/O over a file "
                         "in /var/tmp (bound by the disk under it), or one over a file in "
                         "/dev/shm (memory, 512-byte sectors)")
    ap.add_argument("--device-size", default="2g")
    ap.add_argument("--size", default="1g")
    ap.add_argument("--jobs", default=",".join(DEFAULT_JOBS))
    ap.add_argument("--fidelity", action="store_true",
                    help="the fidelity set (FIDELITY: a device per group of job files) instead "
                         "of --device and --jobs")
    ap.add_argument("--tolerance", type=float, default=5.0)
    ap.add_argument("--rate-tolerance", type=float, default=2.0)
    ap.add_argument("--fio-options", default="",
                    help="OPT=V,... added to the [global] of fio's job file only, e.g. "
                         "scramble_buffers=0 (fio's default stamps one time into every "
                         "512-byte sector of a write, which a compressing device works on)")
    ap.add_argument("--json")
    a = ap.parse_args()
    if skip := zram_bench_skip():
        print("skip: " + skip)
        return 77
    storqual = storqual_binary()
    report, failed = [], False
    tmp = tempfile.mkdtemp(prefix="storqual-fio-jobs.")
    # fio writes files into its working folder (a verify job's *-verify.state)
    json_out = os.path.abspath(a.json) if a.json else None
    os.chdir(tmp)
    groups = FIDELITY if a.fidelity else [(a.device, a.jobs.split(","))]
    try:
        for kind, jobs in groups:
            failed |= bench_device(a, storqual, kind, jobs, tmp, report)
    finally:
        os.chdir("/")
        shutil.rmtree(tmp)
    if json_out:
        with open(json_out, "w") as out:
            json.dump(report, out, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
