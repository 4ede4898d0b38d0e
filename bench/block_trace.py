# SPDX-License-Identifier: Apache-2.0
"""What a block device was asked to do, from the kernel's own block-layer trace (tracefs).

One tracefs instance of this process (instances/storqual-bench-PID, removed at the end) records
one event per I/O of one device: `block_rq_issue` on a device with a request queue (a loop
device: the request as the driver got it, after merges), `block_bio_queue` on a bio-based one
(zram, which has no request queue: the bio as the driver gets it). Each event gives the direction,
the sector and the size. The trace is the referee of bench/fio_jobs_vs_fio.py's fidelity checks:
it sees what reached the device, whichever tool issued it, and neither tool's own report.

  with BlockTrace("/dev/zram1") as trace:
      trace.start(); ...run a tool...; ios = trace.stop()   # [(direction, offset, bytes)]
"""
import os
import re
import subprocess

TRACEFS = "/sys/kernel/tracing"
# The ring buffer is per CPU: 1 GiB in all (about 16M events), at most 256 MiB per CPU, so that a
# 5 s run at 400k IOPS fits on a 2-CPU host and a 64-CPU one does not pin 16 GiB; an overrun fails.
BUFFER_KB = max(16384, min(262144, (1 << 20) // (os.cpu_count() or 1)))
EVENT = re.compile(r"(block_rq_issue|block_bio_queue): (\d+),(\d+) (\S+) (?:\d+ \(.*?\) )?(\d+) \+ (\d+)")


class BlockTrace:
    def __init__(self, device):
        self.device = os.path.realpath(device)
        name = os.path.basename(self.device)
        major, minor = (int(x) for x in open("/sys/block/%s/dev" % name).read().split(":"))
        self.dev_t = (major << 20) | minor  # the kernel's dev_t in the event's filter
        self.major, self.minor = major, minor
        self.event = "block_rq_issue" if os.path.isdir("/sys/block/%s/mq" % name) \
            else "block_bio_queue"
        self.instance, self.mounted = None, False

    def __enter__(self):
        if not os.path.exists(os.path.join(TRACEFS, "instances")):
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
            self.mounted = True
        self.instance = os.path.join(TRACEFS, "instances", "storqual-bench-%d" % os.getpid())
        os.mkdir(self.instance)
        self._write("buffer_size_kb", str(BUFFER_KB))
        self._write("events/block/%s/filter" % self.event, "dev == %d" % self.dev_t)
        return self

    def __exit__(self, *exc):
        if self.instance:
            self._write("events/block/%s/enable" % self.event, "0")
            os.rmdir(self.instance)
        if self.mounted:
            subprocess.run(["umount", TRACEFS])

    def _write(self, rel, text):
        with open(os.path.join(self.instance, rel), "w") as f:
            f.write(text)

    def start(self):
        self._write("trace", "")  # empty the buffers
        self._write("events/block/%s/enable" % self.event, "1")

    def stop(self):
        """The I/Os since start(): (direction "read"/"write"/"discard"/"flush", offset, bytes).
        Raises when the buffer overran: a count with events lost is no referee."""
        self._write("events/block/%s/enable" % self.event, "0")
        for cpu in os.listdir(os.path.join(self.instance, "per_cpu")):
            stats = open(os.path.join(self.instance, "per_cpu", cpu, "stats")).read()
            lost = re.search(r"^overrun: (\d+)", stats, re.M)
            if lost and int(lost.group(1)):
                raise RuntimeError("block trace of %s lost %s events on %s (buffer_size_kb %d)"
                                   % (self.device, lost.group(1), cpu, BUFFER_KB))
        ios = []
        with open(os.path.join(self.instance, "trace")) as f:
            for line in f:
                m = EVENT.search(line)
                if not m or (int(m.group(2)), int(m.group(3))) != (self.major, self.minor):
                    continue
                rwbs, sector, sectors = m.group(4), int(m.group(5)), int(m.group(6))
                if sectors == 0:
                    continue  # a flush without data
                kind = "discard" if "D" in rwbs else "write" if "W" in rwbs else \
                    "read" if "R" in rwbs else None
                if kind:
                    ios.append((kind, sector * 512, sectors * 512))
        return ios


def size_mix(ios):
    """{direction: {bytes: share of that direction's I/Os}}."""
    counts = {}
    for kind, _, size in ios:
        counts.setdefault(kind, {}).setdefault(size, 0)
        counts[kind][size] += 1
    return {k: {s: n / sum(v.values()) for s, n in v.items()} for k, v in counts.items()}


def hottest_share(ios, region_offset, region_size, block, fraction=0.1):
    """The share of the I/Os that fell on the hottest `fraction` of the region's blocks (of
    `block` bytes, by the count of I/Os starting in each; ties go to the lower block)."""
    counts = {}
    for _, offset, _ in ios:
        if region_offset <= offset < region_offset + region_size:
            b = (offset - region_offset) // block
            counts[b] = counts.get(b, 0) + 1
    total = sum(counts.values())
    if not total:
        return 0.0
    top = max(1, int(region_size // block * fraction))
    hottest = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return sum(n for _, n in hottest) / total
