#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# After ctest: every skipped or not-run test against tests/expected-skips. Prints the skips (each
# with its message and, when listed, the reason it is allowed), then the ten slowest tests; exits 1
# when a skip is not listed (its name and message said), 2 when the JUnit file or the list cannot
# be read. A test that cannot run for a missing tool, package, module, service or fetch is not an
# allowed skip: it fails.
#   check-skips.py CTEST_JUNIT.xml [--expected tests/expected-skips] [--slowest N]
#   check-skips.py --list-only     (reads the list alone: exit 2 naming a bad line)
#   check-skips.py --self-test
import argparse
import fnmatch
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LIST = os.path.join(HERE, "..", "tests", "expected-skips")


def read_expected(path):
    """[(glob, regex, why)] from the list; raises ValueError naming the line of a bad entry."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            parts = [p.strip() for p in text.split(" :: ")]
            if len(parts) != 3 or not all(parts):
                raise ValueError("%s:%d: want 'name glob :: message regex :: why', got: %s"
                                 % (path, n, text))
            try:
                entries.append((parts[0], re.compile(parts[1]), parts[2]))
            except re.error as e:
                raise ValueError("%s:%d: bad regular expression %r: %s" % (path, n, parts[1], e))
    return entries


def skip_message(case):
    """The reason a skipped case gives: GoogleTest's 'Skipped' text, else what ctest said."""
    out = case.findtext("system-out") or ""
    m = re.search(r": Skipped\n(.*?)(?:\n\[  SKIPPED \]|\Z)", out, re.S)
    if m and m.group(1).strip():
        return " ".join(m.group(1).split())
    skipped = case.find("skipped")
    message = skipped.get("message", "") if skipped is not None else ""
    tail = [l for l in out.strip().splitlines() if l.strip()][-3:]
    return " ".join((message + " " + " / ".join(tail)).split()) or "(no message)"


def read_junit(path):
    """[(name, seconds, status, skip message or None)] from ctest's --output-junit file."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "run")
        skipped = case.find("skipped") is not None or status in ("notrun", "disabled")
        if case.find("failure") is not None or status == "fail":
            skipped = False
        cases.append((case.get("name", "?"), float(case.get("time", "0") or 0), status,
                      skip_message(case) if skipped else None))
    return cases


def judge(cases, entries):
    """(lines to print, the unlisted skips)."""
    lines, unlisted = [], []
    skips = [(name, msg) for name, _, _, msg in cases if msg is not None]
    lines.append("skips: %d of %d tests" % (len(skips), len(cases)))
    for name, msg in skips:
        allowed = next((why for glob, rx, why in entries
                        if fnmatch.fnmatchcase(name, glob) and rx.search(msg)), None)
        if allowed:
            lines.append("  %s: %s (allowed: %s)" % (name, msg, allowed))
        else:
            lines.append("  %s: %s (NOT in tests/expected-skips: a test that cannot run fails)"
                         % (name, msg))
            unlisted.append(name)
    return lines, unlisted


def slowest(cases, n):
    rows = sorted(cases, key=lambda c: -c[1])[:n]
    return ["slowest %d:" % len(rows)] + ["  %7.1f s  %s" % (t, name) for name, t, _, _ in rows]


def self_test():
    """Fails (exit 1) unless an unlisted skip is caught, a listed one allowed, a bad line named."""
    junit = """<testsuite>
<testcase name="A.Listed" time="1.5" status="run"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
<system-out>x.cpp:3: Skipped
timing-dependent: set STORQUAL_TIMING_TESTS=1

[  SKIPPED ] A.Listed (0 ms)</system-out></testcase>
<testcase name="B.Missing" time="0.2" status="run"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
<system-out>y.cpp:9: Skipped
chromium is not installed
[  SKIPPED ] B.Missing (0 ms)</system-out></testcase>
<testcase name="C.WrongReason" time="0.1" status="run"><skipped message="x"/>
<system-out>z.cpp:1: Skipped
no zram
[  SKIPPED ] C.WrongReason (0 ms)</system-out></testcase>
<testcase name="D.Ran" time="9" status="run"><system-out>ok</system-out></testcase>
<testcase name="E.NotRun" time="0" status="notrun"><skipped message="Unable to find executable"/></testcase>
</testsuite>"""
    with tempfile.TemporaryDirectory() as d:
        jp, lp, bad = (os.path.join(d, n) for n in ("j.xml", "list", "bad"))
        open(jp, "w").write(junit)
        open(lp, "w").write("# c\nA.* :: STORQUAL_TIMING_TESTS :: opt-in\nC.* :: busy :: host\n")
        open(bad, "w").write("A.* :: only two fields\n")
        lines, unlisted = judge(read_junit(jp), read_expected(lp))
        ok = unlisted == ["B.Missing", "C.WrongReason", "E.NotRun"]
        ok = ok and any("A.Listed" in l and "allowed: opt-in" in l for l in lines)
        ok = ok and any("chromium is not installed" in l for l in lines)
        ok = ok and slowest(read_junit(jp), 1)[1].endswith("D.Ran")
        try:
            read_expected(bad)
            ok = False
        except ValueError as e:
            ok = ok and ":1:" in str(e)
    print("check-skips self-test: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("junit", nargs="?")
    ap.add_argument("--expected", default=DEFAULT_LIST)
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--list-only", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if args.list_only:
        try:
            print("%s: %d allowed skips" % (args.expected, len(read_expected(args.expected))))
            return 0
        except (OSError, ValueError) as e:
            print("check-skips: %s" % e, file=sys.stderr)
            return 2
    if not args.junit:
        ap.error("the ctest JUnit file (ctest --output-junit FILE) is required")
    try:
        entries = read_expected(args.expected)
        cases = read_junit(args.junit)
    except (OSError, ET.ParseError, ValueError) as e:
        print("check-skips: %s" % e, file=sys.stderr)
        return 2
    lines, unlisted = judge(cases, entries)
    print("\n".join(slowest(cases, args.slowest) + lines))
    if unlisted:
        print("check-skips: %d skip(s) not in %s: %s" % (len(unlisted), args.expected,
                                                         ", ".join(unlisted)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
