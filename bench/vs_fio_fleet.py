# SPDX-License-Identifier: Apache-2.0
"""The multi-device case of bench/vs-fio.sh (--devices N): N devices qualified at once.

  storqual run --parallel --target D1 ... --target DN --suite (one workload) --measure-only
  fio, one process with a job per device (--name=dK --filename=DK, no group_reporting)
  t/io_uring -nN over the N devices (a submitter thread per device)

all at t/io_uring's depth and batch (-d32 -s8 -c8), in ABC CBA order per pair. Total IOPS is the
sum over the devices. Per core is the total I/Os per CPU-second of the whole process: for fio and
t/io_uring from wait4 over the run; for storqual from each workload's own cpu.process_pct (the
whole process, every target's jobs and the kernel's io-wq workers, while the jobs ran: `run`
also reads each device's identity and measures the null engine's ceiling before its workloads,
CPU that wait4 would count and the others do not spend), with the wait4 figure beside it.
"""
import json
import os
import statistics
import tempfile

from vs_fio import CASES, run_timed, tiu_run


SUITE = """<suite name="vs-fio-fleet">
  <workload id="w" ioengine="{engine}" rw="{rw}" bs="{bs}" iodepth="{qd}" runtime="{rt}s"
            iodepth_batch_submit="{batch}" iodepth_batch_complete_min="{batch}"
            norandommap="1"/>
</suite>
"""


def storqual_fleet(binary, devices, case, runtime, batch, extra=()):
    engine, rw, bs, qd = CASES[case]
    with tempfile.TemporaryDirectory(prefix="storqual-fleet-") as d:
        suite = os.path.join(d, "suite.xml")
        with open(suite, "w") as f:
            f.write(SUITE.format(engine=engine, rw=rw, bs=bs, qd=qd, rt=runtime, batch=batch))
        argv = [binary, "run", "--parallel", "--suite", suite, "--measure-only", "--out", d]
        for dev in devices:
            argv += ["--target", dev]
        argv += list(extra)
        _, cpu_s = run_timed(argv, ok=(0, 1, 3))  # a failed claim or a host-limited error: figures
        iops, process, wait, limited, polls = 0.0, [], [], [], []
        for dev in devices:
            label = os.path.basename(dev)
            with open(os.path.join(d, f"storqual-result-{label}.json")) as f:
                w = json.load(f)["workloads"][0]
            iops += w["read"]["iops"]
            process.append(w["cpu"].get("process_pct", 0))
            wait.append(w["cpu"].get("wait_pct", -1))
            polls.append(w["cpu"].get("poll", ""))
            h = w.get("host_limit") or {}
            limited.append("; ".join(h.get("reasons", [])) if h.get("limited") else "")
        proc_cpus = statistics.median(process) / 100
        return {"iops": iops,
                "per_core": iops / proc_cpus if proc_cpus > 0 else 0,
                "per_core_wait4": iops * runtime / cpu_s if cpu_s > 0 else 0,
                "process_cpus": proc_cpus, "wait_pct": wait, "host_limited": limited,
                "poll": polls}


def fio_fleet(devices, case, runtime, batch, extra=()):
    engine, rw, bs, qd = CASES[case]
    argv = ["fio", f"--ioengine={engine}", f"--rw={rw}", f"--bs={bs}", f"--iodepth={qd}",
            "--direct=1", "--time_based", f"--runtime={runtime}", "--output-format=json",
            "--randrepeat=0", "--norandommap", "--fixedbufs", "--registerfiles",
            f"--iodepth_batch_submit={batch}", f"--iodepth_batch_complete_min={batch}"]
    argv += list(extra)
    for i, dev in enumerate(devices):
        argv += [f"--name=d{i}", f"--filename={dev}"]
    text, cpu_s = run_timed(argv)
    side = "read" if rw in ("read", "randread") else "write"
    iops = sum(j[side]["iops"] for j in json.loads(text)["jobs"])
    return {"iops": iops, "per_core": iops * runtime / cpu_s if cpu_s > 0 else 0}


def fleet_case(binary, tiu, devices, case, runtime, pairs, batch, extra=(), fio_extra=()):
    """One case over `devices`: warm-ups, ABC CBA pairs, medians of the pair ratios."""
    storqual_fleet(binary, devices, case, 1, batch, extra)
    fio_fleet(devices, case, 1, batch, fio_extra)
    if tiu:
        tiu_run(tiu, list(devices), case, 1, batch, len(devices))
    tools = ["sq", "fio"] + (["tiu"] if tiu else [])
    order = []
    for i in range(pairs):
        order += tools if i % 2 == 0 else tools[::-1]
    runs = {"sq": [], "fio": [], "tiu": []}
    for who in order:
        if who == "sq":
            runs["sq"].append(storqual_fleet(binary, devices, case, runtime, batch, extra))
        elif who == "fio":
            runs["fio"].append(fio_fleet(devices, case, runtime, batch, fio_extra))
        else:
            runs["tiu"].append(tiu_run(tiu, list(devices), case, runtime, batch, len(devices)))
    sq, fi, ti = runs["sq"], runs["fio"], runs["tiu"]
    ratio = lambda a, b, k: statistics.median(x[k] / y[k] for x, y in zip(a, b) if y[k])
    med = lambda rs, k: statistics.median(r[k] for r in rs)
    row = {"case": case, "devices": len(devices),
           "storqual_iops": [r["iops"] for r in sq], "fio_iops": [r["iops"] for r in fi],
           "iops_ratio_fio": ratio(sq, fi, "iops"),
           "storqual_per_core": med(sq, "per_core"),
           "storqual_per_core_wait4": med(sq, "per_core_wait4"),
           "fio_per_core": med(fi, "per_core"),
           "per_core_ratio_fio": ratio(sq, fi, "per_core"),
           "storqual_wait_pct": [r["wait_pct"] for r in sq],
           "storqual_host_limited": [r["host_limited"] for r in sq],
           "storqual_poll": sq[-1]["poll"]}
    if ti:
        row.update({"t_io_uring_iops": [r["iops"] for r in ti],
                    "iops_ratio_t_io_uring": ratio(sq, ti, "iops"),
                    "t_io_uring_per_core": med(ti, "per_core"),
                    "per_core_ratio_t_io_uring": ratio(sq, ti, "per_core"),
                    "t_io_uring_args": f"-d{CASES[case][3]} -s{batch} -c{batch} -p0 "
                                       f"-n{len(devices)}"})
    return row


def print_row(row, fmt):
    line = (f"{row['case'] + ' x' + str(row['devices']):26} total IOPS storqual "
            f"{fmt(statistics.median(row['storqual_iops']))} (run --parallel), fio "
            f"{fmt(statistics.median(row['fio_iops']))} (one process, a job per device): "
            f"{row['iops_ratio_fio']:.2f}")
    if "t_io_uring_iops" in row:
        line += (f"; t/io_uring {row['t_io_uring_args']} "
                 f"{fmt(statistics.median(row['t_io_uring_iops']))}: "
                 f"{row['iops_ratio_t_io_uring']:.2f}")
    print(line, flush=True)
    line = (f"{'':26} per core: storqual {fmt(row['storqual_per_core'])} (wait4 over the whole "
            f"run {fmt(row['storqual_per_core_wait4'])}), fio {fmt(row['fio_per_core'])} "
            f"({row['per_core_ratio_fio']:.2f})")
    if "t_io_uring_per_core" in row:
        line += (f", t/io_uring {fmt(row['t_io_uring_per_core'])} "
                 f"({row['per_core_ratio_t_io_uring']:.2f})")
    print(line, flush=True)
    print(f"{'':26} storqual: job threads waited for a CPU "
          f"{', '.join('/'.join(f'{w:.0f}%' for w in ws) for ws in row['storqual_wait_pct'])}; "
          f"host-limited in "
          f"{sum(1 for ls in row['storqual_host_limited'] for l in ls if l)} of "
          f"{sum(len(ls) for ls in row['storqual_host_limited'])} unit runs; "
          f"polling: {row['storqual_poll'][0] if row['storqual_poll'] else '-'}", flush=True)
