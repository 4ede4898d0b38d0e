#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Functions in the product folders longer than a limit (docs/architecture.md: the loop, the run
and every report are named steps, not one scope).

usage: check_function_length.py SOURCE_ROOT [--limit N] [--report]
       check_function_length.py --self-test

Reads every *.cpp and *.hpp under the product folders (FOLDERS: model/, engines/, devices/,
reporting/, archive/, runner/, app/), follows braces (comments and string literals stripped), and lists each function or
member function whose body is longer than N lines (default 120). Exit 1 when any is, unless it is
in ALLOWED or --report is given (then it only lists them, longest first). Lambdas count as part of
the function that holds them. --self-test proves the check fails on a long function and passes on
short ones and on an allowed one.
"""
import os
import re
import sys
import tempfile

# The product folders: every library and the main program (docs/architecture.md).
FOLDERS = ("model", "engines", "devices", "reporting", "archive", "runner", "app")

# Functions allowed over the limit for now, each with its reason: (path from SOURCE_ROOT, name).
# An entry that no longer is over the limit is reported, so the list only shrinks.
ALLOWED: dict = {}

STRIP = re.compile(r'^\s*#.*?$|//.*?$|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'',
                   re.S | re.M)


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def functions(path):
    text = STRIP.sub(blank, open(path, encoding="utf-8", errors="replace").read())
    lines = text.split("\n")
    stack = []  # (kind, start_line, name)
    pending = ""  # text since the last ; { or }
    found = []
    for no, line in enumerate(lines, 1):
        for ch in line:
            if ch == "{":
                head = pending.strip()
                outer = stack[-1][0] if stack else "namespace"
                if outer in ("namespace", "class"):
                    if re.match(r"^(namespace|extern)\b", head) or not head or head == "{":
                        kind = "namespace"
                    elif re.search(r"\b(class|struct|union|enum)\b[^()]*$", head):
                        kind = "class"
                    elif "(" in head and not head.endswith("="):
                        kind = "function"
                    else:
                        kind = "other"
                else:
                    kind = "block"
                name = ""
                if kind == "function":
                    m = re.search(r"([~\w:<>]+)\s*\(", head)
                    name = m.group(1) if m else head[:40]
                stack.append((kind, no, name))
                pending = ""
            elif ch == "}":
                if stack:
                    kind, start, name = stack.pop()
                    if kind == "function":
                        found.append((no - start + 1, name, start))
                pending = ""
            elif ch == ";":
                pending = ""
            else:
                pending += ch
        pending += " "
    return found


def long_functions(root, limit):
    """(length, path, line, name) of each function over limit lines, longest first."""
    found = []
    for folder in FOLDERS:
        for dirpath, dirs, files in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".cpp", ".hpp")):
                    path = os.path.join(dirpath, f)
                    rel = os.path.relpath(path, root).replace(os.sep, "/")
                    for length, name, start in functions(path):
                        if length > limit:
                            found.append((length, rel, start, name))
    return sorted(found, reverse=True)


def check(root, limit, allowed):
    """Lines to print and whether the tree passes."""
    lines = []
    failing = 0
    seen = set()
    for length, rel, start, name in long_functions(root, limit):
        reason = allowed.get((rel, name))
        if reason is not None:
            seen.add((rel, name))
            lines.append(f"{rel}:{start}: {name}: {length} lines (limit {limit}; allowed: {reason})")
        else:
            failing += 1
            lines.append(f"{rel}:{start}: {name}: {length} lines (limit {limit})")
    stale = sorted(set(allowed) - seen)
    for rel, name in stale:
        lines.append(f"{rel}: {name}: in the allow-list but not over {limit} lines: remove it")
    lines.append(f"functions in {', '.join(f + '/' for f in FOLDERS)} over {limit} lines: "
                 f"{failing} (allowed: {len(seen)})")
    return lines, failing == 0 and not stale


def self_test():
    """The check must fail on a long function (in any product folder), pass on short ones, accept
    an allowed one and name an allow-list entry that is no longer long."""
    def body(name, n):
        return f"int {name}(int x) {{\n" + "    x += 1;\n" * (n - 2) + "}\n"

    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write(text)
        put("runner/a/short.cpp", body("fine", 120) + "namespace n {\nstruct S {\n"
            + body("member", 30) + "};\n}\n")
        clean = check(root, 120, {})
        put("reporting/long.cpp", "namespace storqual {\n" + body("too_long", 121) + "}\n")
        long_one = check(root, 120, {})
        allowed = check(root, 120, {("reporting/long.cpp", "too_long"): "test"})
        stale = check(root, 120, {("reporting/long.cpp", "too_long"): "test",
                                  ("app/gone.cpp", "gone"): "test"})
        put("app/main.cpp", body("main", 200))
        app = check(root, 120, {("reporting/long.cpp", "too_long"): "test"})
    ok = True
    for name, (lines, passed), want_pass, want in (
            ("short functions", clean, True, "over 120 lines: 0"),
            ("a long function", long_one, False, "reporting/long.cpp:2: too_long: 121 lines"),
            ("an allowed one", allowed, True, "allowed: test"),
            ("a stale allow-list entry", stale, False, "app/gone.cpp: gone: in the allow-list"),
            ("a long function in app/", app, False, "app/main.cpp:1: main: 200 lines")):
        if passed != want_pass or not any(want in line for line in lines):
            print(f"self-test: {name}: expected {'pass' if want_pass else 'fail'} with "
                  f"'{want}', got {'pass' if passed else 'fail'}: {lines}")
            ok = False
    print("self-test:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 120
    report = "--report" in argv
    lines, passed = check(root, limit, ALLOWED)
    for line in lines:
        print(line)
    return 0 if report or passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
