#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Early stop against the full runtime: the same suite on the same device, once to its time limits
and twice with --early-stop, total wall time, every workload's figure and verdict side by side.

  bench/early-stop.sh zram|loop [--suites quick,sata-ssd] [--rule ci:1%@95] [--size 1g]

1. An early-stop run (the rule), whose figures give a spec sheet: for each workload an IOPS claim
   at half its figure (a pass) and, for the first workload (a reader), a read.iops claim at twice (a fail), tolerance 0.
2. The full-length run with that sheet. It carries the same rule with a minimum longer than any
   runtime ("min=100000s"), so it never stops early but reports the confidence interval of each
   figure at its time limit, from the same per-interval samples.
3. The early-stop run again, with the sheet.
It then checks: total time of run 3 <= a third of run 2's; every figure of run 3 inside run 2's
interval; every verdict the same. The "at 1/3" column is run 2's interval times sqrt(3): the
narrowest a stop at a third of the time can reach on this host if its noise is stationary; a rule
tighter than that cannot stop there. The device is made (loop over a file in /var/tmp, or zram),
filled with random data and removed, by name, at the end. Needs root.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vs_fio import Device, storqual_binary  # noqa: E402

# A benchmark's runs are not acceptance records: none goes into the archive (docs/archive.md).
os.environ.setdefault("STORQUAL_ARCHIVE", "off")


def run_suite(binary, target, suite, size, out, early=None, sheet=None):
    argv = [binary, "run", "--target", target, "--suite", suite, "--out", out,
            "--allow-destructive", "--force"]
    if size:
        argv += ["--size", size]
    if early:
        argv += ["--early-stop", early]
    if sheet:
        argv += ["--spec", sheet]
    t = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t
    path = os.path.join(out, "storqual-result.json")
    if not os.path.exists(path):
        sys.exit(f"early-stop: {' '.join(argv)} wrote no result (exit {r.returncode}):\n{r.stderr}")
    return wall, json.load(open(path)), r.returncode


def figures(result):
    out = {}
    for w in result["workloads"]:
        iops = sum(w[d]["iops"] for d in ("read", "write") if w.get(d))
        out[w["id"]] = {"iops": iops, "elapsed": w["elapsed_s"], "es": w.get("early_stop"),
                        "busy": (w.get("host_busy") or {}).get("busy", False)}
    return out


def verdicts(result):
    return {(v["workload"], v["metric"], v.get("kind", "claim")): v["status"]
            for v in result["verdicts"]}


def sheet_for(suite, figs, path):
    ids = list(figs)
    lines = ['<?xml version="1.0"?>',
             f'<spec-sheet name="early-stop bench" vendor="bench" suite="{suite}" source="bench">',
             '  <match model="*"/>', '  <claims tolerance="0%">']
    for i, wid in enumerate(ids):
        lines.append(f'    <claim workload="{wid}" metric="iops" value="{int(figs[wid]["iops"] * 0.5)}"/>')
    lines.append(f'    <claim workload="{ids[0]}" metric="read.iops" value="{int(figs[ids[0]]["iops"] * 2)}"/>')
    lines += ["  </claims>", "</spec-sheet>"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", choices=["zram", "loop"])
    ap.add_argument("--suites", default="quick,sata-ssd")
    ap.add_argument("--rule", default="ci:1%@95")
    ap.add_argument("--size", default="1g", help="--size for every workload (the made device is "
                                                 "this plus 256 MiB)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    binary = storqual_binary()
    size_b = {"g": 1 << 30, "m": 1 << 20}[a.size[-1]] * int(a.size[:-1])
    report = {"target": a.target, "rule": a.rule, "size": a.size, "suites": []}
    ok_all = True
    with Device(a.target, size_b + (256 << 20)) as dev, tempfile.TemporaryDirectory() as tmp:
        for suite in a.suites.split(","):
            sheet = os.path.join(tmp, f"{suite}-sheet.xml")
            w1, r1, _ = run_suite(binary, dev.path, suite, a.size, os.path.join(tmp, suite + "-1"),
                                  early=a.rule)
            sheet_for(suite, figures(r1), sheet)
            wf, rf, cf = run_suite(binary, dev.path, suite, a.size, os.path.join(tmp, suite + "-f"),
                                   early=a.rule + ",min=100000s", sheet=sheet)
            we, re_, ce = run_suite(binary, dev.path, suite, a.size,
                                    os.path.join(tmp, suite + "-e"), early=a.rule, sheet=sheet)
            ff, fe = figures(rf), figures(re_)
            vf, ve = verdicts(rf), verdicts(re_)
            print(f"\n{suite} on {a.target} ({dev.path}, --size {a.size}), rule {a.rule}")
            print(f"  total wall time: full {wf:.1f} s, early stop {we:.1f} s "
                  f"({we / wf:.2f} of full; at most 0.33 asked)")
            # With stationary noise an interval narrows as 1/sqrt(time): a third of the run can
            # reach no better than sqrt(3) times the full run's own interval.
            print(f"  {'workload':22} {'full IOPS':>11} {'+-95% CI':>9} {'at 1/3':>7} {'meas s':>6}   "
                  f"{'early IOPS':>11} {'meas s':>6} {'in CI':>5}  stop reason")
            rows = []
            inside_all = True
            for wid in ff:
                f, e = ff[wid], fe[wid]
                hw = f["es"]["half_width"] if f["es"] else 0
                inside = abs(e["iops"] - f["iops"]) <= hw
                inside_all &= inside
                why = e["es"]["reason"] if e["es"] else "-"
                hw_pct = hw / f["iops"] * 100 if f["iops"] else 0
                print(f"  {wid:22} {f['iops']:11.0f} {hw_pct:8.2f}% {hw_pct * 3 ** 0.5:6.2f}% "
                      f"{f['elapsed']:6.1f}   {e['iops']:11.0f} {e['elapsed']:6.1f} "
                      f"{'yes' if inside else 'NO':>5}  {why}"
                      + ("  [host busy]" if e["busy"] or f["busy"] else ""))
                rows.append({"workload": wid, "full_iops": f["iops"], "full_ci_half_width": hw,
                             "third_reachable_pct": hw_pct * 3 ** 0.5,
                             "full_elapsed_s": f["elapsed"], "early_iops": e["iops"],
                             "early_elapsed_s": e["elapsed"], "inside": inside,
                             "early_reason": why, "host_busy": e["busy"] or f["busy"]})
            same = vf == ve
            print("  verdicts: " + ("the same: " if same else "DIFFER: ") +
                  ", ".join(f"{k[0]} {k[1]}: {vf[k]}" + ("" if vf[k] == ve.get(k) else f" vs {ve.get(k)}")
                            for k in vf))
            ok = we <= wf / 3 and inside_all and same
            ok_all &= ok
            print(f"  {'OK' if ok else 'NOT MET'}: time {'<=' if we <= wf / 3 else '>'} a third, "
                  f"figures {'all' if inside_all else 'not all'} inside, verdicts "
                  f"{'same' if same else 'differ'} (exit codes {cf} / {ce})", flush=True)
            report["suites"].append({"suite": suite, "full_wall_s": wf, "early_wall_s": we,
                                     "rows": rows, "verdicts_same": same, "ok": ok})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
