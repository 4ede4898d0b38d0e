#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fio's JSON of the example sheets' suites judged as storqual's own runs judge them (docs/fio-files.md).

For each example sheet (specs/example-*.xml) the script makes a copy of its suite that fits a zram
device (a short runtime and ramp, a region that fits, no early stop: fio has none; only the
workloads the sheet claims on) and exports it for fio (`storqual suites export --fio`, with
`group_reporting` where a workload has several jobs, and `lat_percentiles=1 clat_percentiles=1`, so
that fio's JSON carries what a `lat.*` claim needs). The sheet's claims are the vendor's, which a
zram device meets or misses by chance: a copy of the sheet takes each claim's value from a first
storqual run of the suite, FACTOR times lower or higher in turn (so that each claim passes or
fails by that factor, 3 by default, not by noise), and adds one `p99.9999` claim, which a run this short cannot decide.

Then storqual (`run --spec COPY`) and fio (the export, `--output-format=json+`, its JSON given to
`storqual judge --fio-json --spec COPY --target DEV`) alternate in ABBA order, PAIRS pairs per sheet.
Every claim's status must be the same in every run of both: exit 1 when one differs.
Needs root (a zram device made here and removed by its own name) and fio.

  bench/fio-judge-examples.sh [--pairs 1] [--runtime 4] [--device-size 3g] [--size 1g]
                              [--sheets sata-ssd,nvme-ssd,cloud-disk] [--factor 3]
                              [--json OUT]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_fio import Device, size_bytes, storqual_binary, zram_bench_skip  # noqa: E402

# A benchmark's runs are not acceptance records: none goes into the archive (docs/archive.md).
os.environ.setdefault("STORQUAL_ARCHIVE", "off")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(argv, ok=(0,), **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode not in ok:
        sys.exit("failed (%d): %s\n%s%s" % (p.returncode, " ".join(argv), p.stdout, p.stderr))
    return p


def claim_key(c):
    return (c.get("workload") or c.get("workloads")) + " " + c.get("metric")


def statuses(result_json):
    """Every claim's status in a result JSON: {"WORKLOAD(S) METRIC": status}."""
    out = {}
    for v in json.load(open(result_json))["verdicts"]:
        if "claimed" in v and v.get("kind", "claim") == "claim":
            out[v["workload"] + " " + v["metric"]] = (v["status"], v.get("measured"))
    return out


def suite_copy(sheet_root, runtime, size, tmp):
    """The sheet's suite, short and small, with only the workloads its claims name."""
    name = sheet_root.get("suite")
    root = ET.parse(os.path.join(ROOT, "suites", name + ".xml")).getroot()
    wanted = set()
    for c in sheet_root.iter("claim"):
        wanted.update((c.get("workload") or c.get("workloads")).split())
    d = root.find("defaults")
    for key in ("early_stop", "max_size"):
        d.attrib.pop(key, None)
    d.set("runtime", "%ds" % runtime)
    d.set("ramp_time", "1s")
    d.set("size", size)
    for w in list(root.findall("workload")):
        if w.get("id") not in wanted:
            root.remove(w)
        for key in ("early_stop", "max_size", "size", "runtime", "ramp_time"):
            w.attrib.pop(key, None)
    path = os.path.join(tmp, name + ".xml")
    ET.ElementTree(root).write(path)
    return path


def fio_job(storqual, suite, device, tmp):
    """The export of `suite`, with the percentiles and group reporting a judge needs."""
    path = suite[:-4] + ".fio"
    check([storqual, "suites", "export", suite, "--fio", "--target", device, "--out", path])
    text = open(path).read().replace(
        "[global]\n", "[global]\nlat_percentiles=1\nclat_percentiles=1\ngroup_reporting\n", 1)
    open(path, "w").write(text)
    return path


def sheet_copy(sheet, suite, measured, factor, path):
    """The sheet with each claim FACTOR times above or below storqual's figure, plus p99.9999."""
    tree = ET.parse(sheet)
    root = tree.getroot()
    root.set("suite", os.path.basename(suite))
    for m in root.findall("match"):
        root.remove(m)
    root.insert(0, ET.Element("match", {"model": "*"}))
    claims = root.find("claims")
    for i, c in enumerate(claims.findall("claim")):
        value = measured[claim_key(c)]
        c.set("value", "%.6g%s" % (value * (1 / factor if i % 2 else factor), unit_of(c.get("metric"))))
    first = claims.find("claim")
    deep = ET.SubElement(claims, "claim")
    deep.set("workload", (first.get("workload") or first.get("workloads")).split()[0])
    deep.set("metric", "lat.p99.9999")
    deep.set("value", "100ms")
    tree.write(path)
    return path


def unit_of(metric):
    """The unit a claim value needs: the result's figures are IOPS, B/s and ns."""
    if metric.endswith("iops"):
        return ""
    if metric.endswith("bw"):
        return "B/s"
    return "ns"


def storqual_side(storqual, suite, sheet, device, out):
    check([storqual, "run", "--target", device, "--suite", suite, "--spec", sheet,
           "--allow-destructive", "--force", "--out", out], ok=(0, 1, 3))
    return statuses(os.path.join(out, "storqual-result.json"))


def fio_side(storqual, job, sheet, device, out):
    fio_json = out + ".json"
    check(["fio", "--output-format=json+", "--output=" + fio_json, job])
    check([storqual, "judge", "--fio-json", fio_json, "--spec", sheet, "--target", device,
           "--out", out], ok=(0, 1, 3))
    return statuses(os.path.join(out, "storqual-result.json"))


def one_sheet(storqual, name, dev, a, tmp):
    sheet = os.path.join(ROOT, "specs", "example-%s.xml" % name)
    suite = suite_copy(ET.parse(sheet).getroot(), a.runtime, a.size, tmp)
    job = fio_job(storqual, suite, dev.path, tmp)
    # The calibration: the vendor's claims judged once, for what storqual measures here.
    first = storqual_side(storqual, suite, sheet, dev.path, os.path.join(tmp, name + "-calib"))
    # A claim's key in the sheet and in the result: its workload(s) and metric.
    measured = {k: m for k, (_, m) in first.items()}
    scaled = sheet_copy(sheet, suite, measured, a.factor, os.path.join(tmp, name + "-sheet.xml"))
    runs = []
    for pair in range(a.pairs):
        order = ("storqual", "fio") if pair % 2 == 0 else ("fio", "storqual")
        for side in order:
            out = os.path.join(tmp, "%s-%d-%s" % (name, pair, side))
            check(["blockdev", "--flushbufs", dev.path])
            got = (storqual_side(storqual, suite, scaled, dev.path, out) if side == "storqual"
                   else fio_side(storqual, job, scaled, dev.path, out))
            runs.append((side, got))
    return runs


def fmt(value):
    if value is None:
        return ""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= div:
            return "%.3g%s" % (value / div, suffix)
    return "%.3g" % value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--runtime", type=int, default=4)
    ap.add_argument("--device-size", default="3g")
    ap.add_argument("--size", default="1g")
    ap.add_argument("--sheets", default="sata-ssd,nvme-ssd,cloud-disk")
    ap.add_argument("--factor", type=float, default=3.0)
    ap.add_argument("--json")
    a = ap.parse_args()
    if skip := zram_bench_skip():
        print("skip: " + skip)
        return 77
    storqual = storqual_binary()
    report, failed = {}, False
    tmp = tempfile.mkdtemp(prefix="storqual-fio-judge.")
    try:
        with Device("zram", size_bytes(a.device_size)) as dev:
            print("device %s (%s), %d s per workload, %d ABBA pairs" % (dev.path, a.device_size,
                                                                      a.runtime, a.pairs))
            for name in a.sheets.split(","):
                runs = one_sheet(storqual, name, dev, a, tmp)
                print("\nexample-%s.xml (claims at %gx / 1/%gx of a first storqual run)" % (name, a.factor, a.factor))
                keys = sorted({k for _, got in runs for k in got})
                print("  %-52s %s" % ("claim", "  ".join("%-22s" % s for s, _ in runs)))
                for k in keys:
                    cells = ["%s %s" % (got[k][0], fmt(got[k][1])) if k in got else "absent"
                             for _, got in runs]
                    same = len({got.get(k, ("absent",))[0] for _, got in runs}) == 1
                    failed |= not same
                    print("  %-52s %s%s" % (k, "  ".join("%-22s" % c for c in cells),
                                            "" if same else "  DIFFERS"))
                report[name] = [{"side": s, "claims": {k: v[0] for k, v in got.items()}}
                                for s, got in runs]
    finally:
        shutil.rmtree(tmp)
    if a.json:
        with open(a.json, "w") as out:
            json.dump(report, out, indent=2)
    print("\n" + ("every claim has the same status in every run" if not failed
                  else "a claim's status differs between runs (DIFFERS above)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
