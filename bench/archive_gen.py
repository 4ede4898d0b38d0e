#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic fleet files for bench/archive.sh: N runs made from one real result, each its own unit,
time and figures, written as fleet JSON files of CHUNK runs each ({"fleet": [...]}).

usage: archive_gen.py TEMPLATE.json N CHUNK OUTDIR

Unit i is serial BENCH<i // 4> (four runs per unit), one of three models, started i seconds after
2026-01-01T00:00:00Z; its IOPS vary by a fixed pseudo-random factor so that no two results are alike.
"""
import copy
import datetime
import json
import os
import random
import sys


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    template = json.load(open(argv[1]))
    n, chunk, out = int(argv[2]), int(argv[3]), argv[4]
    for w in template.get("workloads", []):
        w["timeline"] = []
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    rng = random.Random(29)
    os.makedirs(out, exist_ok=True)
    for first in range(0, n, chunk):
        runs = []
        for i in range(first, min(n, first + chunk)):
            r = copy.deepcopy(template)
            t = (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            r["environment"]["start_utc"] = t
            r["environment"]["end_utc"] = t
            ident = [row for row in r["device"]["identity"]
                     if row["field"] not in ("serial", "model")]
            ident.append({"field": "serial", "value": "BENCH%06d" % (i // 4), "source": "bench"})
            ident.append({"field": "model", "value": "Bench SSD %d" % (i % 3), "source": "bench"})
            r["device"]["identity"] = ident
            for w in r.get("workloads", []):
                for d in ("read", "write"):
                    if d in w and isinstance(w[d], dict) and "iops" in w[d]:
                        w[d]["iops"] = round(w[d]["iops"] * (0.9 + 0.2 * rng.random()), 3)
            runs.append(r)
        with open(os.path.join(out, "fleet-%06d.json" % (first // chunk)), "w") as f:
            json.dump({"fleet": runs}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
