#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""storqual side by side with fio: the same workloads, alternating runs, medians and ratios.

The ratio columns are the median of the per-pair ratios (storqual run / the fio run next to it);
the JSON also keeps the ratio of the medians.

  bench/vs-fio.sh TARGET|loop|zram [--pairs N] [--runtime S] [--cases a,b,...]
                  [--fidelity] [--memory] [--json OUT] [--batch N]
                  [--storqual-args S] [--fio-args S] [--devices N]

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
--devices N (loop or zram) makes N devices and runs each case on all of them at once: storqual
`run --parallel`, one fio process with a job per device, t/io_uring -nN (bench/vs_fio_fleet.py).
--memory measures the peak RSS of `bench --numjobs 16 --iodepth 128` at 10 s and 60 s.

t/io_uring (fio's per-core peak-IOPS probe, the one the kernel's io_uring maintainers report
against) is a third column for the cases it can run (random reads): it is built once from Debian's
fio source package into build/t-io_uring/ (a private apt configuration with a deb-src line for the
mirror this machine already uses; nothing in the machine's apt setup changes). Where the source
cannot be had, the bench says why and leaves the column out. On those cases all three tools run
at the same depth and batch: t/io_uring -d32 -s8 -c8 -p0 (no polling; fixed buffers, registered
file and ring as its defaults), storqual --iodepth 32 --iodepth_batch_submit 8
--iodepth_batch_complete_min 8 and fio the same (--iodepth_batch_complete_min=8), unless --batch
says otherwise. Each run's CPU time (user + system of the whole process and its threads, the
kernel's io-wq workers included, from wait4) gives "per core": IOPS / (CPU seconds / seconds).
"""
import argparse
import contextlib
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# A benchmark's runs are not acceptance records: none goes into the archive (docs/archive.md).
os.environ.setdefault("STORQUAL_ARCHIVE", "off")

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
    # random map (runner/measure/random_map.hpp); the cases above draw with replacement on both sides.
    "randwrite-4k-qd32-map": ("io_uring", "randwrite", "4k", 32),
    "randread-4k-qd32-map": ("io_uring", "randread", "4k", 32),
}
# Cases run with the random map on both sides (fio's default, storqual's default); every other
# random case passes --norandommap to both.
RANDOM_MAP = {"randwrite-4k-qd32-map", "randread-4k-qd32-map"}
CORNERS = ["randread-4k-qd32", "randwrite-4k-qd32", "read-1m-qd32", "write-1m-qd32"]
# The cases t/io_uring runs too (it does random reads only), at its -s/-c batch for all three.
TIU_CASES = {"randread-4k-qd32"}
TIU_BATCH = 8


def storqual_binary():
    for cand in (os.environ.get("STORQUAL"), os.path.join(ROOT, "build/app/storqual")):
        if cand and os.access(cand, os.X_OK):
            return cand
    sys.exit("vs-fio: build storqual first (make build) or set STORQUAL")


def run(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def run_timed(argv, ok=(0,)):
    """Runs argv; returns (stdout, CPU seconds of the process and every thread it had). An exit
    code outside `ok` raises."""
    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) not in ok:
            raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), argv,
                                                out.read(), err.read())
        return out.read(), usage.ru_utime + usage.ru_stime


def sh(cmd):
    return run(["/bin/sh", "-c", cmd]).stdout.strip()


class Device:
    """A loop or zram device made for the benchmark and removed by its own name."""

    def __init__(self, kind, size):
        self.kind, self.size, self.path, self.backing = kind, size, None, None

    def __enter__(self):
        if self.kind in ("loop", "loop-tmpfs"):  # loop-tmpfs: the file in memory (/dev/shm)
            fd, self.backing = tempfile.mkstemp(
                prefix="storqual-bench-", dir="/dev/shm" if self.kind == "loop-tmpfs" else "/var/tmp")
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
        if self.kind in ("loop", "loop-tmpfs"):
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
    _, cpu_s = run_timed(argv)
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
            "per_core": per_core(d["iops"], runtime, cpu_s),
            **device_view(target, side, before, after, d["iops"])}


def per_core(iops, runtime, cpu_s):
    """IOPS per CPU busy: I/Os done per CPU-second the tool spent (the whole process)."""
    return iops * runtime / cpu_s if cpu_s > 0 else 0


HUGE_PAGE = 2 << 20
BS_BYTES = {"4k": 4096, "1m": 1 << 20}


def size_bytes(text):
    """A size as the benches take it: bytes, or a number with k, m or g (binary)."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    unit = text[-1].lower()
    return int(text[:-1]) * units[unit] if unit in units else int(text)


def zram_bench_skip():
    """Why a bench that makes a zram device and runs fio cannot run here; "" when it can."""
    if os.geteuid() != 0:
        return "needs root (a zram device)"
    if not shutil.which("fio"):
        return "fio is not installed"
    return ""


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
    text, cpu_s = run_timed(argv)
    j = json.loads(text)["jobs"][0]
    after = disk_stat(target) if engine != "null" else None
    side = "read" if rw in ("read", "randread") else "write"
    d = j[side]
    return {"iops": d["iops"], "bw": d["bw_bytes"],
            "p50": d["clat_ns"]["percentile"].get("50.000000", 0),
            "p99": d["clat_ns"]["percentile"].get("99.000000", 0),
            "cpu": j["usr_cpu"] + j["sys_cpu"], "per_core": per_core(d["iops"], runtime, cpu_s),
            **device_view(target, side, before, after, d["iops"])}


def build_t_io_uring():
    """Builds fio's t/io_uring once into build/t-io_uring/ from Debian's fio source package.
    Returns (path, None) or (None, why not). The machine's apt setup is left as it is: a private
    apt configuration adds a deb-src line for the mirror the machine already uses."""
    dest = os.path.join(ROOT, "build", "t-io_uring")
    binary = os.path.join(dest, "io_uring")
    if os.access(binary, os.X_OK):
        return binary, None
    os.makedirs(dest, exist_ok=True)
    work = tempfile.mkdtemp(prefix="storqual-fio-src-")
    try:
        # The mirror the machine's apt sources already use (scripts/apt_mirror.py): no host is
        # written here.
        found = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "apt_mirror.py")],
                               capture_output=True, text=True)
        if found.returncode != 0 or len(found.stdout.split()) != 2:
            return None, "no Debian mirror to fetch fio's source from: " + found.stderr.strip()
        mirror, suite = found.stdout.split()
        for d in ("state/lists/partial", "cache/archives/partial", "src"):
            os.makedirs(os.path.join(work, d), exist_ok=True)
        with open(os.path.join(work, "sources.list"), "w") as f:
            f.write(f"deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {mirror} "
                    f"{suite} main\n")
        with open(os.path.join(work, "apt.conf"), "w") as f:
            f.write(f'Dir::State "{work}/state";\nDir::Cache "{work}/cache";\n'
                    f'Dir::Etc::SourceList "{work}/sources.list";\n'
                    f'Dir::Etc::SourceParts "{work}/none";\n')
        env = dict(os.environ, APT_CONFIG=os.path.join(work, "apt.conf"))
        for argv, cwd in ((["apt-get", "-q", "update"], work),
                          (["apt-get", "-q", "source", "--download-only", "fio"],
                           os.path.join(work, "src"))):
            r = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=600)
            if r.returncode != 0:
                return None, (f"fio's source package is not reachable ({' '.join(argv)}: "
                              f"{r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.returncode})")
        tars = glob.glob(os.path.join(work, "src", "fio_*.orig.tar.*"))
        if not tars:
            return None, "apt-get source fio gave no fio_*.orig.tar.* to build from"
        subprocess.run(["tar", "xf", tars[0], "-C", os.path.join(work, "src")], check=True)
        tree = [d for d in glob.glob(os.path.join(work, "src", "fio-*")) if os.path.isdir(d)][0]
        for argv in (["./configure"], ["make", "-j2", "t/io_uring"]):
            r = subprocess.run(argv, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if r.returncode != 0:
                return None, f"building t/io_uring failed ({' '.join(argv)}): {r.stdout[-300:]}"
        shutil.copy2(os.path.join(tree, "t", "io_uring"), binary)
        with open(os.path.join(dest, "VERSION"), "w") as f:
            f.write(os.path.basename(tars[0]) + "\n")
        return binary, None
    except (OSError, subprocess.SubprocessError, IndexError) as e:
        return None, f"t/io_uring could not be built: {e}"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tiu_run(binary, target, case, runtime, batch, threads=1):
    """t/io_uring at the case's depth, `batch` per submit and per reap, no polling, on `target`
    (a path, or a list of them: a submitter thread each with threads = their number). Its own
    per-second IOPS lines, the first one (start-up) dropped, averaged."""
    engine, rw, bs, qd = CASES[case]
    targets = target if isinstance(target, list) else [target]
    argv = [binary, f"-d{qd}", f"-s{batch}", f"-c{batch}", "-p0", f"-b{BS_BYTES[bs]}", "-R1",
            "-B1", "-F1", f"-n{threads}", f"-r{runtime + 1}"] + targets
    text, cpu_s = run_timed(argv)
    def number(t):  # "311.97K", "1.02M", "98765"
        scale = {"K": 1e3, "M": 1e6, "G": 1e9}.get(t[-1:].upper(), 1)
        return float(t[:-1] if scale != 1 else t) * scale
    iops = [number(line.split("IOPS=")[1].split(",")[0]) for line in text.splitlines()
            if line.startswith("IOPS=")]
    if not iops:
        raise RuntimeError(f"t/io_uring printed no IOPS line: {text[-300:]}")
    counted = iops[1:] if len(iops) > 1 else iops
    mean = sum(counted) / len(counted)
    return {"iops": mean, "per_core": per_core(mean, runtime + 1, cpu_s)}


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


def fleet_body(a, binary, cases, tiu, tiu_why, extra, fio_extra):
    """--devices N: the cases over N devices made at once (bench/vs_fio_fleet.py)."""
    import vs_fio_fleet  # it imports this module's helpers
    rt = int(a.runtime) if a.runtime >= 1 else 1
    batch = a.batch if a.batch is not None else TIU_BATCH
    report = {"target": a.target, "devices": a.devices, "runtime_s": rt, "pairs": a.pairs,
              "cases": [], "t_io_uring": tiu, "t_io_uring_skipped": tiu_why}
    with contextlib.ExitStack() as stack:
        devs = [stack.enter_context(Device(a.target, size_bytes(a.device_size))).path
                for _ in range(a.devices)]
        print(f"{a.devices} {a.target} devices {', '.join(devs)}, runtime {rt}s, {a.pairs} ABC "
              f"CBA pairs per case, all at -s/-c {batch}")
        if tiu is None:
            print(f"t/io_uring column left out: {tiu_why}")
        for case in cases:
            if CASES[case][0] != "io_uring":
                print(f"{case}: left out (the multi-device case runs io_uring cases)")
                continue
            row = vs_fio_fleet.fleet_case(binary, tiu if case in TIU_CASES else None, devs, case,
                                          rt, a.pairs, batch, extra, fio_extra)
            report["cases"].append(row)
            vs_fio_fleet.print_row(row, fmt)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)


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
    ap.add_argument("--devices", type=int, default=1,
                    help="with loop or zram: make N devices and qualify them at once (storqual "
                         "run --parallel, one fio process with a job per device, t/io_uring -nN; "
                         "bench/vs_fio_fleet.py)")
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
        if tiu is None:
            print(f"t/io_uring column left out: {tiu_why}")
        else:
            print(f"t/io_uring: {tiu} (cases {', '.join(sorted(TIU_CASES))}; all three at -s/-c "
                  f"{a.batch if a.batch is not None else TIU_BATCH})")
            report["t_io_uring"] = tiu
        report["t_io_uring_skipped"] = tiu_why
        hdr = (f"{'case':26} {'storqual':>9} {'fio':>9} {'ratio':>6} {'p50 sq':>8} {'p50 fio':>8}"
               f" {'ratio':>6} {'p99 sq':>8} {'p99 fio':>8} {'cpu sq':>7} {'cpu fio':>7}  fio range")
        print(hdr)
        for case in cases:
            tiu_case = case in TIU_CASES and tiu is not None
            c_extra, c_fio = list(extra), list(fio_extra)
            if case in TIU_CASES and a.batch is None:
                # t/io_uring's -s8 -c8 for all three tools: the same submit and reap pattern.
                c_extra += ["--iodepth_batch_submit", str(TIU_BATCH),
                            "--iodepth_batch_complete_min", str(TIU_BATCH)]
                c_fio += [f"--iodepth_batch_submit={TIU_BATCH}",
                          f"--iodepth_batch_complete_min={TIU_BATCH}"]
            batch = a.batch if a.batch is not None else TIU_BATCH
            # --storqual-args '--numjobs N': t/io_uring gets N submitter threads (-nN) too.
            threads = int(extra[extra.index("--numjobs") + 1]) if "--numjobs" in extra else 1
            storqual_run(binary, target, case, 1, size=a.size, extra=c_extra)  # warm-up of each
            fio_run(target, case, 1, size=a.size, extra=c_fio, huge=huge.ok)
            if tiu_case:
                tiu_run(tiu, target, case, 1, batch, threads)
            sq, fi, ti = [], [], []
            order = []
            tools = ["sq", "fio"] + (["tiu"] if tiu_case else [])
            for i in range(a.pairs):
                order += tools if i % 2 == 0 else tools[::-1]  # ABC CBA: drift hits all alike
            for who in order:
                if who == "sq":
                    sq.append(storqual_run(binary, target, case, rt, size=a.size, extra=c_extra))
                elif who == "fio":
                    fi.append(fio_run(target, case, rt, size=a.size, extra=c_fio,
                                      huge=huge.ok))
                else:
                    ti.append(tiu_run(tiu, target, case, rt, batch, threads))
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
                   "storqual_cpu": med(sq, "cpu"), "fio_cpu": med(fi, "cpu"),
                   "storqual_per_core": med(sq, "per_core"), "fio_per_core": med(fi, "per_core")}
            if ti:
                rs = [s_["iops"] / t_["iops"] for s_, t_ in zip(sq, ti) if t_["iops"]]
                pc = [s_["per_core"] / t_["per_core"] for s_, t_ in zip(sq, ti) if t_["per_core"]]
                row.update({"t_io_uring_iops": [r["iops"] for r in ti],
                            "t_io_uring_ratio": statistics.median(rs),
                            "t_io_uring_per_core": med(ti, "per_core"),
                            "per_core_ratio_t_io_uring": statistics.median(pc),
                            "t_io_uring_args": f"-d{CASES[case][3]} -s{batch} -c{batch} -p0 -n{threads}"})
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
            # Per core: I/Os per CPU-second of the whole process (threads and io-wq workers).
            line = (f"{'':26} per core: storqual {fmt(row['storqual_per_core'])}, fio "
                    f"{fmt(row['fio_per_core'])}")
            if ti:
                line += (f"; t/io_uring {row['t_io_uring_args']} {fmt(med(ti, 'iops'))} IOPS "
                         f"(storqual/t/io_uring {row['t_io_uring_ratio']:.2f}, range "
                         f"{fmt(min(r['iops'] for r in ti))}..{fmt(max(r['iops'] for r in ti))}),"
                         f" per core {fmt(row['t_io_uring_per_core'])}"
                         f" (ratio {row['per_core_ratio_t_io_uring']:.2f})")
            elif case in TIU_CASES:
                line += "; t/io_uring: left out (see above)"
            print(line, flush=True)
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

    tiu, tiu_why = None, "no case it runs"
    if any(c in TIU_CASES for c in cases):
        tiu, tiu_why = build_t_io_uring()
    pool = max([pool_bytes(c) for c in cases] + [0])
    if a.devices > 1:
        if a.target not in ("loop", "zram"):
            sys.exit("vs-fio: --devices needs loop or zram (the bench makes the devices)")
        fleet_body(a, binary, cases, tiu, tiu_why, extra, fio_extra)
        return
    with HugePages(pool if pool >= HUGE_PAGE else 0) as huge:
        if a.target in ("loop", "zram"):
            with Device(a.target, size_bytes(a.device_size)) as dev:
                body(dev.path)
        else:
            body(a.target)


if __name__ == "__main__":
    main()
