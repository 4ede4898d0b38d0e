#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""storqual side by side with fio: the same workloads, alternating runs, medians and ratios.

The ratio columns are the median of the per-pair ratios (storqual run / the fio run next to it);
the JSON also keeps the ratio of the medians.

  bench/vs-fio.sh TARGET|loop|zram [--pairs N] [--runtime S] [--cases a,b,...]
                  [--fidelity] [--memory] [--json OUT] [--batch N]
                  [--storqual-args S] [--fio-args S]

TARGET is a file or block device (writes need a device or file you may destroy). `loop` makes a
loop device (--direct-io=on) over a file on the root filesystem, `zram` a zram device; both are
filled with random data first (reads of never-written extents do not reach the medium) and
removed, by name, at the end.

Runs go in ABBA order after one warm-up of each tool, so drift on a shared disk hits both alike.
On a block device every run is also seen from the device's counters: its mean service time per
request and, by Little's law, how many requests the tool kept inside the device ("depth"), which
tells a tool that measures the device differently from one that drives it differently.
--fidelity also checks, for each storqual run: (a) bytes counted against the device's own sector
counters in /sys/block/DEV/stat, (b) mean clat against the kernel's mean service time from the
same counters, (c) percentiles against exact ones from the per-I/O log.
--memory measures the peak RSS of `bench --numjobs 16 --iodepth 128` at 10 s and 60 s.
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CASES = {
    # name: (engine, rw, bs, iodepth)
    "randread-4k-qd32": ("io_uring", "randread", "4k", 32),
    "randwrite-4k-qd32": ("io_uring", "randwrite", "4k", 32),
    "read-1m-qd32": ("io_uring", "read", "1m", 32),
    "write-1m-qd32": ("io_uring", "write", "1m", 32),
    "psync-randread-4k-qd1": ("psync", "randread", "4k", 1),
    "libaio-randread-4k-qd32": ("libaio", "randread", "4k", 32),
    "null-qd1": ("null", "randread", "4k", 1),
    "null-qd32": ("null", "randread", "4k", 32),
    # fio at its defaults (its random map: every block once per pass) against storqual's default
    # random map (runner/random_map.hpp); the cases above draw with replacement on both sides.
    "randwrite-4k-qd32-map": ("io_uring", "randwrite", "4k", 32),
    "randread-4k-qd32-map": ("io_uring", "randread", "4k", 32),
}
# Cases run with the random map on both sides (fio's default, storqual's default); every other
# random case passes --norandommap to both.
RANDOM_MAP = {"randwrite-4k-qd32-map", "randread-4k-qd32-map"}
CORNERS = ["randread-4k-qd32", "randwrite-4k-qd32", "read-1m-qd32", "write-1m-qd32"]


def storqual_binary():
    for cand in (os.environ.get("STORQUAL"), os.path.join(ROOT, "build/app/storqual")):
        if cand and os.access(cand, os.X_OK):
            return cand
    sys.exit("vs-fio: build storqual first (make build) or set STORQUAL")


def run(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def sh(cmd):
    return run(["/bin/sh", "-c", cmd]).stdout.strip()


class Device:
    """A loop or zram device made for the benchmark and removed by its own name."""

    def __init__(self, kind, size):
        self.kind, self.size, self.path, self.backing = kind, size, None, None

    def __enter__(self):
        if self.kind == "loop":
            fd, self.backing = tempfile.mkstemp(prefix="storqual-bench-", dir="/var/tmp")
            os.close(fd)
            sh(f"head -c {self.size} /dev/urandom > {self.backing}")
            self.path = sh(f"losetup --find --show --direct-io=on {self.backing}")
        else:
            with open("/sys/class/zram-control/hot_add") as f:
                self.id = int(f.read())
            self.path = f"/dev/zram{self.id}"
            with open(f"/sys/block/zram{self.id}/disksize", "w") as f:
                f.write(str(self.size))
            sh(f"head -c {self.size} /dev/urandom | dd of={self.path} bs=1M oflag=direct status=none")
        return self

    def __exit__(self, *exc):
        if self.kind == "loop":
            for _ in range(50):
                if subprocess.run(["losetup", "-d", self.path]).returncode == 0:
                    break
                time.sleep(0.1)
            os.unlink(self.backing)
        else:
            # A device just closed by a child can be busy for a moment (udev probing): retry.
            for _ in range(100):
                try:
                    with open(f"/sys/block/zram{self.id}/reset", "w") as f:
                        f.write("1")
                    with open("/sys/class/zram-control/hot_remove", "w") as f:
                        f.write(str(self.id))
                    break
                except OSError:
                    time.sleep(0.1)


def disk_stat(dev):
    name = os.path.basename(os.path.realpath(dev))
    path = f"/sys/block/{name}/stat"
    if not os.path.exists(path):
        return None
    f = [int(x) for x in open(path).read().split()]
    # reads, merges, sectors, ticks(ms), writes, merges, sectors, ticks(ms), in_flight, ...
    return {"r_ios": f[0], "r_sect": f[2], "r_ticks": f[3], "w_ios": f[4], "w_sect": f[6],
            "w_ticks": f[7]}


def device_view(target, side, before, after, iops):
    """What the block device saw during one run, from its own counters: the mean service time
    of a request and, by Little's law (IOPS x service time), how many were inside it on average."""
    if not before or not after:
        return {}
    pre = "r" if side == "read" else "w"
    ios = after[f"{pre}_ios"] - before[f"{pre}_ios"]
    if ios <= 0:
        return {}
    svc_ns = (after[f"{pre}_ticks"] - before[f"{pre}_ticks"]) / ios * 1e6
    return {"dev_svc_ns": svc_ns, "dev_depth": iops * svc_ns / 1e9}


def storqual_run(binary, target, case, runtime, lat_log=None, size=None, extra=()):
    engine, rw, bs, qd = CASES[case]
    out = tempfile.mktemp(suffix=".json")
    opts = {"--target": target, "--ioengine": engine, "--rw": rw, "--bs": bs,
            "--iodepth": str(qd), "--runtime": f"{runtime}s", "--json": out,
            "--norandommap": "0" if case in RANDOM_MAP else "1"}
    # An option in `extra` replaces the bench's own (storqual refuses an option given twice).
    argv = [binary, "bench"]
    for k, v in opts.items():
        if k not in extra or k in ("--target", "--json"):
            argv += [k, v]
    argv += list(extra)
    if size:
        argv += ["--size", size]
    if rw in ("write", "randwrite") and engine != "null":
        argv += ["--allow-destructive", "--force"]
    if lat_log:
        argv += ["--lat-log", lat_log]
    before = disk_stat(target) if engine != "null" else None
    run(argv)
    after = disk_stat(target) if engine != "null" else None
    w = json.load(open(out))["workloads"][0]
    os.unlink(out)
    d = w.get("read") or w.get("write")
    if w.get("read") and w.get("write"):
        d = w["read"]
    side = "read" if "read" in w else "write"
    return {"iops": d["iops"], "bw": d["bw_bytes"], "bytes": d["bytes"], "ios": d["ios"],
            "p50": d["clat_ns"]["percentiles"].get("50.000000", 0),
            "p99": d["clat_ns"]["percentiles"].get("99.000000", 0),
            "clat_mean": d["clat_ns"]["mean"], "side": side,
            "cpu": w["cpu"]["usr_pct"] + w["cpu"]["sys_pct"], "raw": w,
            **device_view(target, side, before, after, d["iops"])}


HUGE_PAGE = 2 << 20
BS_BYTES = {"4k": 4096, "1m": 1 << 20}


def pool_bytes(case):
    """The I/O buffers a case needs: storqual puts a pool of 2 MiB or more on huge pages."""
    engine, rw, bs, qd = CASES[case]
    return 0 if engine == "null" else BS_BYTES[bs] * qd


class HugePages:
    """Reserves hugetlb pages for fio's buffers (--iomem=shmhuge) so that fio's large-block
    requests are physically contiguous as storqual's are; the old reservation comes back at the
    end. Without them (not root, no memory) fio runs on 4 KiB pages and the bench says so."""

    PATH = "/proc/sys/vm/nr_hugepages"

    def __init__(self, pool):
        self.want, self.old, self.ok = (-(-pool // HUGE_PAGE) + 2 if pool else 0), None, False

    def __enter__(self):
        if not self.want:
            return self
        try:
            with open(self.PATH) as f:
                self.old = int(f.read())
            with open(self.PATH, "w") as f:
                f.write(str(self.old + self.want))
            with open(self.PATH) as f:
                self.ok = int(f.read()) >= self.old + self.want
        except OSError:
            self.ok = False
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            try:
                with open(self.PATH, "w") as f:
                    f.write(str(self.old))
            except OSError:
                pass


def fio_run(target, case, runtime, size=None, extra=(), huge=False):
    engine, rw, bs, qd = CASES[case]
    argv = ["fio", "--name=vs", f"--ioengine={engine}", f"--rw={rw}", f"--bs={bs}",
            f"--iodepth={qd}", "--direct=1", "--time_based", f"--runtime={runtime}",
            "--output-format=json"]
    if case not in RANDOM_MAP:
        argv += ["--randrepeat=0", "--norandommap"]  # else fio's defaults: its random map
    if engine == "null":
        argv += ["--size=1g"]
    else:
        argv += [f"--filename={target}"]
        if size:
            argv += [f"--size={size}"]
    if engine == "io_uring":
        argv += ["--fixedbufs", "--registerfiles", "--iodepth_batch_submit=8"]
    if huge and pool_bytes(case) >= HUGE_PAGE:
        argv += ["--iomem=shmhuge"]
    argv += list(extra)  # last wins in fio's command line
    before = disk_stat(target) if engine != "null" else None
    j = json.loads(run(argv).stdout)["jobs"][0]
    after = disk_stat(target) if engine != "null" else None
    side = "read" if rw in ("read", "randread") else "write"
    d = j[side]
    return {"iops": d["iops"], "bw": d["bw_bytes"],
            "p50": d["clat_ns"]["percentile"].get("50.000000", 0),
            "p99": d["clat_ns"]["percentile"].get("99.000000", 0),
            "cpu": j["usr_cpu"] + j["sys_cpu"],
            **device_view(target, side, before, after, d["iops"])}


def fidelity_checks(binary, target, case, runtime, size):
    """(a) bytes vs device counters, (b) clat vs kernel service time, (c) percentiles vs lat log."""
    log = tempfile.mktemp(suffix=".csv")
    before = disk_stat(target)
    s = storqual_run(binary, target, case, runtime, lat_log=log, size=size)
    after = disk_stat(target)
    res = {"case": case}
    engine, rw, bs, qd = CASES[case]
    side = s["side"]
    if before and after:
        pre = "r" if side == "read" else "w"
        dev_bytes = (after[f"{pre}_sect"] - before[f"{pre}_sect"]) * 512
        dev_ios = after[f"{pre}_ios"] - before[f"{pre}_ios"]
        ticks = after[f"{pre}_ticks"] - before[f"{pre}_ticks"]
        bs_bytes = {"4k": 4096, "1m": 1 << 20}[bs]
        inflight_bytes = qd * bs_bytes
        res["bytes_storqual"] = s["bytes"]
        res["bytes_device"] = dev_bytes
        res["a_ok"] = s["bytes"] <= dev_bytes <= s["bytes"] + inflight_bytes
        svc_ns = ticks / dev_ios * 1e6 if dev_ios else 0
        res["clat_mean_ns"] = s["clat_mean"]
        res["kernel_service_ns"] = svc_ns
        res["b_ok"] = s["clat_mean"] >= svc_ns * 0.999
    clats = []
    with open(log) as f:
        for line in f:
            clats.append(int(line.split(",")[1]))
    os.unlink(log)
    clats.sort()
    worst = 0.0
    pct = s["raw"][side]["clat_ns"]["percentiles"]
    for key, value in pct.items():
        p = float(key)
        rank = max(1, min(len(clats), math.ceil(p / 100.0 * len(clats))))
        exact = clats[rank - 1]
        err = abs(value - exact) / exact if exact else 0
        worst = max(worst, err)
    res["lat_log_lines"] = len(clats)
    res["ios_counted"] = s["ios"]
    res["worst_percentile_error"] = worst
    res["c_ok"] = worst <= 1 / 128 + 1e-9 and len(clats) == s["ios"]
    return res


def peak_rss_kib(argv):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    return usage.ru_maxrss, status


def fmt(n):
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if abs(n) >= div:
            return f"{n / div:.2f}{unit}"
    return f"{n:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target")
    ap.add_argument("--pairs", type=int, default=3, help="ABBA pairs per case (>= 3)")
    ap.add_argument("--runtime", type=float, default=5)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--size", default=None, help="region size for file/device cases, e.g. 1g")
    ap.add_argument("--device-size", default="2g", help="size of a made loop/zram device")
    ap.add_argument("--fidelity", action="store_true")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--storqual-args", default="",
                    help="extra options for every storqual run (they replace the bench's), e.g. "
                         "'--iodepth_batch_submit 8'")
    ap.add_argument("--batch", type=int, default=None,
                    help="iodepth_batch_submit for both tools; without it fio's io_uring runs get 8 "
                         "and storqual its default (every free slot per submit call)")
    ap.add_argument("--fio-args", default="",
                    help="extra options for every fio run (they win over the bench's), e.g. "
                         "'--scramble_buffers=0'")
    a = ap.parse_args()
    binary = storqual_binary()
    if not shutil.which("fio"):
        sys.exit("vs-fio: fio is not installed (apt-get install fio)")
    extra = a.storqual_args.split()
    fio_extra = a.fio_args.split()
    if a.batch is not None:
        # The same submission pattern for both: how many requests go to the kernel per submit
        # call changes what a device like the loop device does (it serves bursts faster).
        extra += ["--iodepth_batch_submit", str(a.batch)]
        fio_extra += [f"--iodepth_batch_submit={a.batch}"]
    cases = [c for c in a.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            sys.exit(f"vs-fio: unknown case {c} (known: {', '.join(CASES)})")

    def body(target):
        report = {"target": a.target, "runtime_s": a.runtime, "pairs": a.pairs, "cases": []}
        rt = int(a.runtime) if a.runtime >= 1 else 1
        print(f"target {target} ({a.target}), runtime {rt}s, {a.pairs} ABBA pairs per case")
        if any(pool_bytes(c) >= HUGE_PAGE for c in cases):
            print("buffers of 2 MiB or more: storqual on transparent huge pages, fio "
                  + ("on hugetlb pages (--iomem=shmhuge)" if huge.ok else
                     "on 4 KiB pages (no hugetlb pages could be reserved): large-block rows "
                     "compare differently laid out memory"))
        hdr = (f"{'case':26} {'storqual':>9} {'fio':>9} {'ratio':>6} {'p50 sq':>8} {'p50 fio':>8}"
               f" {'ratio':>6} {'p99 sq':>8} {'p99 fio':>8} {'cpu sq':>7} {'cpu fio':>7}  fio range")
        print(hdr)
        for case in cases:
            storqual_run(binary, target, case, 1, size=a.size, extra=extra)  # warm-up of each
            fio_run(target, case, 1, size=a.size, extra=fio_extra, huge=huge.ok)
            sq, fi = [], []
            order = []
            for i in range(a.pairs):
                order += ["sq", "fio"] if i % 2 == 0 else ["fio", "sq"]
            for who in order:
                if who == "sq":
                    sq.append(storqual_run(binary, target, case, rt, size=a.size, extra=extra))
                else:
                    fi.append(fio_run(target, case, rt, size=a.size, extra=fio_extra,
                                      huge=huge.ok))
            med = lambda runs, k: statistics.median(r[k] for r in runs)

            # The ratio of each pair (the two runs next to each other in time, so the disk's drift
            # hits both), then the median of those: what the table calls the ratio.
            def pair_ratio(k):
                rs = [s[k] / f[k] for s, f in zip(sq, fi) if f[k]]
                return statistics.median(rs) if rs else None

            row = {"case": case,
                   "storqual_iops": [r["iops"] for r in sq], "fio_iops": [r["iops"] for r in fi],
                   "iops_ratio": pair_ratio("iops"),
                   "iops_ratio_of_medians": med(sq, "iops") / med(fi, "iops"),
                   "p50_ratio": pair_ratio("p50"),
                   "storqual_p50": med(sq, "p50"), "fio_p50": med(fi, "p50"),
                   "storqual_p99": med(sq, "p99"), "fio_p99": med(fi, "p99"),
                   "storqual_cpu": med(sq, "cpu"), "fio_cpu": med(fi, "cpu")}
            lo, hi = min(r["iops"] for r in fi), max(r["iops"] for r in fi)
            row["storqual_median_in_fio_range"] = lo <= med(sq, "iops") <= hi
            # Issue 2 (d): ratio within 5% and p50 within 10%, or storqual inside fio's range.
            row["parity_ok"] = row["storqual_median_in_fio_range"] or (
                abs(row["iops_ratio"] - 1) <= 0.05 and row["p50_ratio"] is not None
                and abs(row["p50_ratio"] - 1) <= 0.10)
            device = all("dev_depth" in r for r in sq + fi)
            if device:
                for who, runs in (("storqual", sq), ("fio", fi)):
                    row[f"{who}_device_depth"] = med(runs, "dev_depth")
                    row[f"{who}_device_svc_ns"] = med(runs, "dev_svc_ns")
                row["device_svc_ratio"] = pair_ratio("dev_svc_ns")
            report["cases"].append(row)
            p50r = f"{row['p50_ratio']:.2f}" if row["p50_ratio"] else "-"
            print(f"{case:26} {fmt(med(sq, 'iops')):>9} {fmt(med(fi, 'iops')):>9} "
                  f"{row['iops_ratio']:>6.2f} {fmt(row['storqual_p50']):>8} {fmt(row['fio_p50']):>8} "
                  f"{p50r:>6} {fmt(row['storqual_p99']):>8} {fmt(row['fio_p99']):>8} "
                  f"{row['storqual_cpu']:>6.0f}% {row['fio_cpu']:>6.0f}%  {fmt(lo)}..{fmt(hi)}"
                  + (f"  parity {'ok' if row['parity_ok'] else 'no'}" if case in CORNERS else ""),
                  flush=True)
            if device:
                # The device's side, from its own counters: how many requests each tool kept
                # inside it and how long the device took per request.
                print(f"{'':26} device: depth {row['storqual_device_depth']:.1f} vs"
                      f" {row['fio_device_depth']:.1f} of {CASES[case][3]}, service time"
                      f" {row['storqual_device_svc_ns'] / 1e3:.0f} vs"
                      f" {row['fio_device_svc_ns'] / 1e3:.0f} us (ratio {row['device_svc_ratio']:.2f})",
                      flush=True)
        if a.fidelity:
            print("\nfidelity (storqual alone, ramp 0):")
            report["fidelity"] = []
            for case in [c for c in cases if c in CORNERS]:
                f = fidelity_checks(binary, target, case, rt, a.size)
                report["fidelity"].append(f)
                print(f"  {case:22} (a) bytes {f.get('bytes_storqual')} vs device {f.get('bytes_device')}"
                      f" {'ok' if f.get('a_ok') else 'FAIL'};"
                      f" (b) clat mean {f.get('clat_mean_ns', 0):.0f} ns >= kernel"
                      f" {f.get('kernel_service_ns', 0):.0f} ns {'ok' if f.get('b_ok') else 'FAIL'};"
                      f" (c) worst pct error {f['worst_percentile_error'] * 100:.3f}% over"
                      f" {f['lat_log_lines']} I/Os {'ok' if f['c_ok'] else 'FAIL'}", flush=True)
        if a.memory:
            report["memory"] = []
            print("\nmemory: peak RSS of bench --numjobs 16 --iodepth 128 (randread 4k)")
            for rt_mem in (10, 60):
                rss, status = peak_rss_kib([binary, "bench", "--target", target, "--rw", "randread",
                                            "--bs", "4k", "--numjobs", "16", "--iodepth", "128",
                                            "--runtime", f"{rt_mem}s"])
                report["memory"].append({"runtime_s": rt_mem, "peak_rss_kib": rss, "status": status})
                print(f"  runtime {rt_mem:>3}s: {rss / 1024:.1f} MiB (exit {status >> 8})", flush=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(report, f, indent=2)

    pool = max([pool_bytes(c) for c in cases] + [0])
    with HugePages(pool if pool >= HUGE_PAGE else 0) as huge:
        if a.target in ("loop", "zram"):
            size = {"g": 1 << 30, "m": 1 << 20}[a.device_size[-1]] * int(a.device_size[:-1])
            with Device(a.target, size) as dev:
                body(dev.path)
        else:
            body(a.target)


if __name__ == "__main__":
    main()
