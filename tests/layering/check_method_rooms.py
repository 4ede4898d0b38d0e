#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A method is one room (docs/architecture.md, "Where to add": a method).

For every method, the product files (model/, engines/, devices/, reporting/, archive/, runner/, app/)
outside the method's own files (its folder under runner/methods/) that name one of its types,
functions or its suite element, comments left out. A method may be named by at most two others: the registry (runner/methods/
method_registry.cpp) and, for the rounds and the plain run, the other half of the <workload>
element or a method that builds on it. More fails the check.

A method's folder has one header as its face (FACES; by default the folder's own name, e.g.
surface_scan/surface_scan.hpp): the registry and the rest of the runner include it, and it includes
the folder's other headers, its pieces (a report's structs, a checkpoint, a JSON codec). A piece
that includes the face is a back-include (an arrow from a room back up to its door, and a cycle
once the face includes the piece): the check fails on it. The .cpp files of the folder implement
the face and may include it.

  check_method_rooms.py ROOT            the check (ctest method_rooms)
  check_method_rooms.py ROOT --report   the table, without failing
  check_method_rooms.py --self-test     proves the check fails on a method named from three files
"""
import os
import re
import sys
import tempfile

PRODUCT = ["model", "engines", "devices", "reporting", "archive", "runner", "app"]
MAX_OUTSIDE = 2

# name: (its own files, or its folder ending in "/", what names it). SteadyStateConfig and SteadyStateReport are the SNIA
# steady-state criteria (runner/measure/steady_criteria.hpp) and their result in the model, which
# early stop and the PTS tests use too: not the rounds method's own. The string "capacity" names the
# check's element, kind and figure but also a device's capacity (a row of the PTS header): what
# counts is a comparison with it or a lookup of the figure by that name.
METHODS = {
    "plain run": (
        ["runner/methods/method.hpp", "runner/methods/method.cpp"],
        [r"\bPlainRun\b", r"\bplain_method\b"],
    ),
    "steady state": (
        ["runner/methods/steady_state/"],
        [r"\bSteadyStateRounds\w*\b", r"\bsteady_state_of\b", r"\bread_steady_state_report\b",
         r"\bworkload_method_entry\b", r"\brun_rounds\b", r'"steady_metric"'],
    ),
    "latency search": (
        ["runner/methods/latency_search/"],
        [r"\bLatencySearch\w*\b", r"\bLatencyCurvePoint\b", r"\bsearch_latency_bound\b",
         r"\bread_latency_search_report\b", r"\blatency_search_method_entry\b",
         r'"latency-search"'],
    ),
    "sustained write": (
        ["runner/methods/sustained_write/"],
        [r"\bSustainedWrite\w*\b", r"\bsustained_write_\w+\b", r"\brun_sustained_write\b",
         r"\bread_sustained_write_report\b", r'"sustained-write"'],
    ),
    "capacity check": (
        ["runner/methods/capacity/"],
        [r"\bCapacity(Check|Method|MethodReport|Report)\b",
         r"\bcapacity_(report_of|summary|verdict|method_entry|figure_rows)\b",
         r"\brun_capacity_check\b", r"\bread_capacity_report\b",
         r'(kind|element|metric|name)(\(\))?\s*[!=]=\s*"capacity"', r'parse_metric\("capacity"\)'],
    ),
    "surface scan": (
        ["runner/methods/surface_scan/"],
        [r"\bSurfaceScan\w*\b", r"\bsurface_scan_\w+\b", r"\brun_surface_scan\b",
         r"\bScanCheckpoint\b", r"\b\w*scan_checkpoint\b", r'"surface-scan"'],
    ),
    "SNIA PTS tests": (
        ["runner/methods/pts/"],
        [r"\bPts[A-Z]\w*\b", r"\bpts_[a-z_]+\b", r"\brun_pts_test\b", r'"(wsat|dirth|xsr|hir)"',
         r'"pts-'],
    ),
    "power cut": (
        ["runner/methods/power_cut/"],
        [r"\bPowercut(Arm|Indicators|Summary|Seams)\w*\b", r"\bCut(Check|Cycle|Class|Finding)\b",
         r"\bJournalListener\b",
         r"\b(power_cut_method_entry|arm_power_cut|check_power_cut|summarize_power_cuts)\b",
         r"\b(listen_for_journal|measure_power_cut_indicators|classify_cut|summarize_cuts)\b"],
    ),
    "self-test": (
        ["runner/methods/self_test/"],
        [r"\bSelfTest(Method|MethodReport|Report|Settings|Run)\b",
         r"\b(run_self_test|self_test_verdict|self_test_report_of|read_self_test_report)\b",
         r"\bself_test_method_entry\b", r'"self-test"'],
    ),
}


# A method folder's face, where it is not FOLDER/FOLDER.hpp. gates/ holds three gates, not one
# method, and has no face.
FACES = {"capacity": "capacity_check.hpp", "pts": "pts_tests.hpp", "gates": None}
METHODS_DIR = os.path.join("runner", "methods")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include\s+"([^"]+)"', re.M)


def back_includes(root):
    """Every piece header of a method folder that includes the folder's face."""
    problems = []
    base = os.path.join(root, METHODS_DIR)
    if not os.path.isdir(base):
        return problems
    for folder in sorted(os.listdir(base)):
        path = os.path.join(base, folder)
        if not os.path.isdir(path):
            continue
        face = FACES.get(folder, folder + ".hpp")
        if face is None:
            continue
        face_path = f"runner/methods/{folder}/{face}"
        for name in sorted(os.listdir(path)):
            if not name.endswith(".hpp") or name == face:
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                text = strip_comments(f.read())
            for m in INCLUDE.finditer(text):
                if m.group(1) == face_path:
                    problems.append(f"runner/methods/{folder}/{name}: includes {face_path}, the "
                                    "folder's face: a piece of a method is below its face (move "
                                    "what it needs into the piece, or into a piece of its own)")
    return problems


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def product_files(root):
    out = {}
    for folder in PRODUCT:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                if name.endswith((".cpp", ".hpp")):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        out[os.path.relpath(path, root)] = strip_comments(f.read())
    return out


def rooms(root, methods=METHODS):
    files = product_files(root)
    table = {}
    for name, (own, patterns) in methods.items():
        outside = []
        for path, text in sorted(files.items()):
            # A method's own: its files, or its folder (an entry ending in "/").
            if path in own or any(o.endswith("/") and path.startswith(o) for o in own):
                continue
            found = sorted({m.group(0) for p in patterns for m in re.finditer(p, text)})
            if found:
                outside.append((path, found))
        table[name] = outside
    return table


def report(table):
    for name, outside in table.items():
        print(f"{name}: {len(outside)} product file(s) outside its own name it")
        for path, found in outside:
            print(f"    {path}: {', '.join(found[:5])}")


def check(root):
    table = rooms(root)
    bad = {n: o for n, o in table.items() if len(o) > MAX_OUTSIDE}
    back = back_includes(root)
    for p in back:
        print(p)
    if back:
        print("method_rooms: a back-include inside a method folder", file=sys.stderr)
        return 1
    if bad:
        report(bad)
        print(f"method_rooms: a method is named by more than {MAX_OUTSIDE} files outside its own "
              "(docs/architecture.md, \"Where to add\": a method)", file=sys.stderr)
        return 1
    print(f"method_rooms: {len(table)} methods, each named by at most {MAX_OUTSIDE} files outside "
          "its own; no piece of a method folder includes its face")
    return 0


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "runner", "methods", "sustained_write"))
        os.makedirs(os.path.join(tmp, "reporting"))

        def write(rel, text):
            with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
                f.write(text)

        write("runner/methods/sustained_write/sustained_write.hpp",
              "struct SustainedWriteReport {};\n")
        write("runner/methods/method_registry.cpp", "auto e = sustained_write_method_entry();\n")
        write("reporting/a.cpp", "// SustainedWriteReport in a comment does not count\n")
        if check(tmp) != 0:
            print("self-test: a method named from one file outside failed the check", file=sys.stderr)
            return 1
        write("reporting/b.cpp", "const SustainedWriteReport* r;\n")
        write("reporting/c.cpp", 'if (kind == "sustained-write") {}\n')
        if check(tmp) == 0:
            print("self-test: a method named from three files outside passed", file=sys.stderr)
            return 1
        os.remove(os.path.join(tmp, "reporting/c.cpp"))
        face = "runner/methods/sustained_write/sustained_write.hpp"
        write("runner/methods/sustained_write/sustained_write_json.hpp",
              '#include "runner/methods/sustained_write/sustained_write_parts.hpp"\n'
              f'// #include "{face}" in a comment does not count\n')
        write("runner/methods/sustained_write/sustained_write.cpp", f'#include "{face}"\n')
        if check(tmp) != 0 or back_includes(tmp):
            print("self-test: a folder without a back-include failed the check", file=sys.stderr)
            return 1
        write("runner/methods/sustained_write/sustained_write_parts.hpp", f'#include "{face}"\n')
        got = back_includes(tmp)
        if check(tmp) == 0 or len(got) != 1 or not got[0].startswith(
                "runner/methods/sustained_write/sustained_write_parts.hpp: includes " + face):
            print(f"self-test: a back-include into the face passed: {got}", file=sys.stderr)
            return 1
    print("method_rooms self-test: the check fails when it should (a method named from three "
          "files outside, a piece that includes its folder's face)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if "--report" in argv[2:]:
        report(rooms(argv[1]))
        return 0
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
