#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fio's own parser as the reference for storqual's import of fio job files (docs/fio-files.md).

--examples: every job file of Debian's fio-examples package (/usr/share/doc/fio/examples) is
either imported by `storqual suites import FILE` with the same workloads, option by option, as
storqual's import of the command line `fio --showcmd FILE` prints (fio's own reading of the file:
its includes, ${VAR}, keywords and [global] inheritance), or refused naming the option; a file
that fio itself cannot read must be refused. Prints the table of docs/fio-files.md (--table FILE
writes it there too).

--export: every imported example and every standard suite of plain workloads, exported with
`storqual suites export --fio`, is accepted by `fio --parse-only` and imports back to the same
workloads.

Exits 1 on any mismatch, and without fio or without the examples (a check that cannot run
fails, naming what is missing).
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

EXAMPLES = "/usr/share/doc/fio/examples"


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def workloads(xml_text):
    """The workloads of a suite XML, each as (id, {option: value}), in file order (a method's
    element adds "element"); a group's
    <job>s add "job N NAME" and "job N NAME.OPTION" entries (N: its place in the group)."""
    root = ET.fromstring(xml_text)
    out = []
    for w in root:  # <workload>, or a method's element (a <latency-search> from latency_target)
        if w.get("id") is None:
            continue
        options = {k: v for k, v in w.attrib.items() if k != "id"}
        if w.tag != "workload":
            options["element"] = w.tag
        for n, j in enumerate(w.findall("job")):
            options["job %d" % n] = j.get("name")
            for k, v in j.attrib.items():
                if k != "name":
                    options["job %d %s.%s" % (n, j.get("name"), k)] = v
        out.append((w.get("id"), options))
    return out


def global_names(path):
    """name= values inside [global] sections: fio --showcmd prints them as --name=, which starts a
    job on fio's command line (init.c __parse_jobs_ini dumps a global section's options with no
    section marker), so they are dropped from the command line before it is compared."""
    names, in_global = [], False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s = line.strip()
            if s.startswith("["):
                in_global = s.startswith("[global")
            elif in_global and s.startswith("name="):
                names.append(s[5:].strip())
    return names


def refused_options(stderr):
    """Every option a refusal names, in its order, each once (one refusal names them all)."""
    out = []
    for m in re.finditer(r"option '([^'=]+)", stderr):
        if m.group(1) not in out:
            out.append(m.group(1))
    return out


def refused_option(stderr):
    """What a refusal names: its options ("a, b"), or what else it names: jobs fio runs
    together, a job's combination of options."""
    options = refused_options(stderr)
    if options:
        return ", ".join(options)
    if "runs at the same time as" in stderr:
        return "(jobs run together)"
    m = re.search(r"job '[^']+': ([a-z_]+)", stderr)
    if m:
        return m.group(1)
    return None


def compare(a, b):
    """The differences between two workload lists, option by option."""
    diffs = []
    if len(a) != len(b):
        return ["%d workloads against %d" % (len(a), len(b))]
    for (ida, oa), (idb, ob) in zip(a, b):
        if ida != idb:
            diffs.append("workload %s against %s" % (ida, idb))
        for k in sorted(set(oa) | set(ob)):
            if oa.get(k) != ob.get(k):
                diffs.append("%s: %s=%s against %s" % (ida, k, oa.get(k), ob.get(k)))
    return diffs


def short_reason(stderr):
    """The reasons of a refusal without their file:line, one per refusal (a refusal of several
    things has a line for each after its first)."""
    lines = stderr.strip().splitlines() if stderr.strip() else [""]
    if len(lines) > 1:
        lines = lines[1:]
    reasons, seen = [], set()
    for line in lines:
        line = re.sub(r"^storqual suites import: ", "", line)
        reason = re.sub(r"^[^ ]*?:\d+: ", "", line)
        # One reason per option: the same option at other lines (one per job) adds its values.
        key = re.sub(r"^option '([^'=]+)=?[^']*'", r"\1", reason)
        if key not in seen:
            seen.add(key)
            reasons.append(reason)
    return "; ".join(reasons).replace("|", "\\|")


def examples(storqual, table_out):
    files = sorted(glob.glob(os.path.join(EXAMPLES, "*.fio")))
    failures, rows, imported, refused = [], [], 0, 0
    firsts, fio_refuses = [], 0  # each refused file's first refused option; files fio refuses
    for path in files:
        name = os.path.basename(path)
        rc, show, _ = run(["fio", "--showcmd", path], cwd=EXAMPLES)
        fio_ok = rc == 0 and show.startswith("fio ")
        frc, fxml, ferr = run([storqual, "suites", "import", path], cwd=EXAMPLES)
        cmdline = show.strip()
        for n in global_names(path):
            cmdline = cmdline.replace("--name=%s " % n, "", 1)
        crc, cxml, cerr = (run([storqual, "suites", "import", "--fio-cmd", cmdline], cwd=EXAMPLES)
                           if fio_ok else (None, "", ""))
        if frc == 0:
            imported += 1
            if not fio_ok:
                failures.append("%s: storqual imports a file fio refuses" % name)
            elif crc != 0:
                failures.append("%s: the file imports, fio's command line does not: %s" %
                                (name, cerr.strip()))
            else:
                diffs = compare(workloads(fxml), workloads(cxml))
                if diffs:
                    failures.append("%s: %s" % (name, "; ".join(diffs)))
            rows.append((name, "imported (%d workloads)" % len(workloads(fxml)), ""))
            continue
        refused += 1
        option = refused_option(ferr)
        if option is None:
            failures.append("%s: refused without naming an option: %s" % (name, ferr.strip()))
        if fio_ok and crc == 0:
            failures.append("%s: fio's command line imports, the file does not: %s" %
                            (name, ferr.strip()))
        elif fio_ok and set(refused_options(cerr)) != set(refused_options(ferr)):
            # Both refuse; fio --showcmd prints the options under their canonical names
            # (ratemin as rate_min) and values with spaces unquoted, so the command line's
            # refusal may name other options.
            print("note: %s: the file is refused for '%s', fio's command line for '%s'" %
                  (name, option, refused_option(cerr)))
        why = short_reason(ferr) if fio_ok else "fio 3.33 itself refuses the file; " + short_reason(ferr)
        named = (option if option is None or option.startswith("(") else
                 ", ".join("`%s`" % o for o in refused_options(ferr)))
        rows.append((name, "refused: %s" % named, why))
        firsts.append((refused_options(ferr) or [option or "(none)"])[0])
        fio_refuses += 0 if fio_ok else 1
    table = ["| job file | storqual | why |", "| --- | --- | --- |"]
    table += ["| %s | %s | %s |" % r for r in rows]
    table.append("")
    table.append("%d files: %d imported, %d refused (fio 3.33 itself refuses %d of them)." %
                 (len(files), imported, refused, fio_refuses))
    counts = collections.Counter(firsts)
    table.append("")
    table.append("By the first option each refusal names: %s." % ", ".join(
        "`%s` %d" % kv for kv in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))))
    # A floor: Debian's fio-examples of fio 3.33 import 30 files today (docs/fio-files.md: the
    # block-size mixes and skewed distributions took iometer-file-access-server, jesd219,
    # rand-zones and zipf; the notes on fio's process options cmdprio-bssplit,
    # cmdprio-percentage and numa; loops took fsx; rate control, startdelay and the note on
    # io_submit_mode took 1mbs_clients, fixed-rate-submission and poisson-rate-submission, the
    # offset modifier backwards-read: 25; fio's flow control took butterfly and flow, exitall
    # and exit_what exitwhat: 28; fio's compressible and deduplicable
    # buffers dedupe-global: 29; fio's strided zones disk-zone-profile: 30);
    # fewer is a regression, however politely each refusal names
    # its options.
    if files and imported < MIN_IMPORTED:
        failures.append("only %d of %d example files imported (at least %d expected)" %
                        (imported, len(files), MIN_IMPORTED))
    text = "\n".join(table) + "\n"
    print(text)
    if table_out:
        with open(table_out, "w", encoding="utf-8") as f:
            f.write(text)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def export_one(storqual, suite_path, tmp, label):
    """Exports one suite, runs fio --parse-only on it and imports it back; a list of failures."""
    job = os.path.join(tmp, label + ".fio")
    rc, _, err = run([storqual, "suites", "export", suite_path, "--fio", "--target",
                      os.path.join(tmp, "target"), "--out", job])
    if rc != 0:
        return None, err.strip()
    prc, pout, perr = run(["fio", "--parse-only", job])
    fails = []
    if prc != 0:
        fails.append("%s: fio --parse-only refuses the export: %s %s" % (label, pout, perr))
    rc2, xml2, err2 = run([storqual, "suites", "import", job])
    if rc2 != 0:
        return fails + ["%s: the export does not import: %s" % (label, err2.strip())], None
    return fails, xml2


def export(storqual, source_dir):
    failures, checked, refused = [], 0, 0
    tmp = tempfile.mkdtemp(prefix="storqual-fio-export.")
    try:
        sources = []
        for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.fio"))):
            rc, xml, _ = run([storqual, "suites", "import", path], cwd=EXAMPLES)
            if rc == 0:
                x = os.path.join(tmp, "import-" + os.path.basename(path) + ".xml")
                with open(x, "w", encoding="utf-8") as f:
                    f.write(xml)
                sources.append((os.path.basename(path), x, xml))
        for path in sorted(glob.glob(os.path.join(source_dir, "suites", "*.xml"))):
            with open(path, encoding="utf-8") as f:
                sources.append((os.path.basename(path), path, None))
        for label, path, xml in sources:
            fails, back = export_one(storqual, path, tmp, label)
            if fails is None:  # refused: only an imported example may be (docs/fio-files.md)
                refused += 1
                print("%s: not exported: %s" % (label, back))
                if xml is None:
                    failures.append("%s: a standard suite does not export: %s" % (label, back))
                continue
            checked += 1
            failures += fails
            if back is not None and xml is not None:  # an imported example: the same workloads
                diffs = compare(workloads(xml), workloads(back))
                if diffs:
                    failures.append("%s: import(export) differs: %s" % (label, "; ".join(diffs)))
            elif back is not None and "; storqual: " in read_text(os.path.join(tmp, label + ".fio")):
                # What fio cannot do is a comment, and the job runs without it: the import of
                # the export is fio's part of the suite, not the suite.
                pass
            elif back is not None:  # a standard suite: export(import(export)) == export
                again = os.path.join(tmp, label + ".again.xml")
                with open(again, "w", encoding="utf-8") as f:
                    f.write(back)
                first = os.path.join(tmp, label + ".fio")
                _, job1, _ = run(["sed", "1d", first])
                _, job2, _ = run([storqual, "suites", "export", again, "--fio", "--target",
                                  os.path.join(tmp, "target")])
                if job1 != "\n".join(job2.split("\n")[1:]):
                    failures.append("%s: the export of its import differs:\n%s\n%s" %
                                    (label, job1, job2))
            print("%s: exported, fio --parse-only accepts it, imports back" % label)
    finally:
        shutil.rmtree(tmp)
    print("%d suites exported and checked, %d refused" % (checked, refused))
    for f in failures:
        print("FAIL " + f)
    if checked == 0:
        print("FAIL nothing was exported")
        return 1
    return 1 if failures else 0


MIN_IMPORTED = 34


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("storqual")
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--export", action="store_true")
    ap.add_argument("--table")
    ap.add_argument("--source-dir", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    a = ap.parse_args()
    a.storqual = os.path.abspath(a.storqual)
    if not shutil.which("fio"):
        print("FAILED: fio is not installed (apt-get install fio): fio's parser is the reference")
        return 1
    if not glob.glob(os.path.join(EXAMPLES, "*.fio")):
        print("FAILED: no job files in %s (apt-get install fio-examples)" % EXAMPLES)
        return 1
    rc = 0
    if a.examples:
        rc |= examples(a.storqual, a.table)
    if a.export:
        rc |= export(a.storqual, a.source_dir)
    return rc


if __name__ == "__main__":
    sys.exit(main())
