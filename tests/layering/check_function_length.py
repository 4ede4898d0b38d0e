#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Functions in runner/ longer than a limit (docs/architecture.md: the loop and the run are named
steps, not one scope).

usage: check_function_length.py SOURCE_ROOT [--limit N] [--report]

Reads every runner/**/*.cpp and *.hpp, follows braces (comments and string literals stripped), and
lists each function or member function whose body is longer than N lines (default 120). Exit 1 when
any is, unless --report (then it only lists them, longest first). Lambdas count as part of the
function that holds them.
"""
import os
import re
import sys

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


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 120
    report = "--report" in argv
    long_ones = []
    for dirpath, _, files in os.walk(os.path.join(root, "runner")):
        for f in files:
            if f.endswith((".cpp", ".hpp")):
                path = os.path.join(dirpath, f)
                for length, name, start in functions(path):
                    if length > limit:
                        long_ones.append((length, f"{os.path.relpath(path, root)}:{start}", name))
    for length, where, name in sorted(long_ones, reverse=True):
        print(f"{where}: {name}: {length} lines (limit {limit})")
    print(f"functions in runner/ over {limit} lines: {len(long_ones)}")
    return 0 if report or not long_ones else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
