# SPDX-License-Identifier: Apache-2.0
"""Reads storqual JUnit files the way a CI reader does (Debian's python3-junitparser) and checks
what docs/reports.md promises of them: every testcase unique by (suite, classname, name) and by
(classname, name) (GitLab's key), named after its device, the message led by the device and the
claim, classnames with exactly the two dots of "storqual.<spec>.<device run>", zoned timestamps.

Usage: junit_check.py FILE...   Prints one line of counts per file and "total ..."; exit 1 with
the problems on stderr."""
import re
import sys

import junitparser

ZONED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$")


def result_text(result):
    """The message attribute, else the element text (the default form's <skipped>)."""
    message = result.message
    if message:
        return message
    return result.text or ""


def check(path, problems):
    xml = junitparser.JUnitXml.fromfile(path)
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    seen_full, seen_key = set(), set()
    counts = dict(suites=0, testcases=0, failures=0, errors=0, skipped=0, passed=0)
    for suite in suites:
        counts["suites"] += 1
        props = {p.name: p.value for p in suite.properties()}
        label = props.get("device.label", "")
        if not label:
            problems.append(f"{path}: suite '{suite.name}' has no device.label property")
        if not ZONED.match(suite.timestamp or ""):
            problems.append(f"{path}: suite '{suite.name}' timestamp '{suite.timestamp}' has no zone")
        for case in suite:
            counts["testcases"] += 1
            full = (suite.name, case.classname, case.name)
            key = (case.classname, case.name)
            if full in seen_full:
                problems.append(f"{path}: duplicate (suite, classname, name) {full}")
            if key in seen_key:
                problems.append(f"{path}: duplicate (classname, name) {key}")
            seen_full.add(full)
            seen_key.add(key)
            if label and not case.name.startswith(label + " "):
                problems.append(f"{path}: testcase '{case.name}' does not start with its device '{label}'")
            if case.classname.count(".") != 2 or not case.classname.startswith("storqual."):
                problems.append(f"{path}: classname '{case.classname}' is not storqual.<spec>.<device run>")
            elif label and label.replace(".", "_") not in case.classname.split(".")[2]:
                problems.append(f"{path}: classname '{case.classname}' does not name '{label}'")
            if not case.result:
                counts["passed"] += 1
            for r in case.result:
                kind = {junitparser.Failure: "failures", junitparser.Error: "errors",
                        junitparser.Skipped: "skipped"}.get(type(r))
                if kind is None:
                    continue
                counts[kind] += 1
                text = result_text(r)
                if not text.startswith(label + " "):
                    problems.append(f"{path}: {kind} message of '{case.name}' does not start "
                                    f"with the device: {text!r}")
                if kind == "failures" and r.type == "claim-not-met":
                    for word in ("measured", "claimed", "tolerance"):
                        if word not in text:
                            problems.append(f"{path}: failure message of '{case.name}' lacks "
                                            f"'{word}': {text!r}")
    return counts


def main():
    problems = []
    total = {}
    for path in sys.argv[1:]:
        before = len(problems)
        counts = check(path, problems)
        unique = not any(": duplicate " in p for p in problems[before:])
        print(f"{path}: " + " ".join(f"{k}={v}" for k, v in counts.items()) +
              (" unique=yes" if unique else " unique=NO"))
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    print(f"total files={len(sys.argv) - 1} " + " ".join(f"{k}={v}" for k, v in total.items()))
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
