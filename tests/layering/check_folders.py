#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The top-level libraries' direction, read from the include lines (docs/architecture.md).

usage: check_folders.py SOURCE_ROOT
       check_folders.py --self-test

model/ is the bottom (the result model, metric and figure definitions, quantities, the error base)
and includes no other project folder; engines/, devices/ and reporting/ each see model/ and
nothing else of the project (not each other, not archive/, not runner/); archive/ (the record: the
results-store seam, the files and the acceptance archive) sees model/ and reporting/, whose
renders it keeps; runner/ sees all five; app/ sees everything. Fails (exit 1, one line per offending include) otherwise. The build refuses the same
includes by visibility (each library's include tree holds only what it links); this check names
every one at once, in `make test` (ctest folder_layers).

Also fails on a source file in a product folder longer than MAX_LINES: a file that large holds
more than one room (split it where its sections already are).
"""
import os
import re
import sys
import tempfile

MAX_LINES = 800
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include\s+"([a-z_]+)/[^"]+"', re.M)
# What each folder may include, besides itself.
ALLOWED = {
    "model": set(),
    "engines": {"model"},
    "devices": {"model"},
    "reporting": {"model"},
    "archive": {"model", "reporting"},
    "runner": {"model", "engines", "devices", "reporting", "archive"},
    "app": {"model", "engines", "devices", "reporting", "archive", "runner"},
}


def check(root):
    problems = []
    for folder, allowed in ALLOWED.items():
        base = os.path.join(root, folder)
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                if not f.endswith((".hpp", ".cpp", ".hpp.in")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8", errors="replace").read()
                lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
                if lines > MAX_LINES:
                    problems.append(f"{rel}: {lines} lines, over {MAX_LINES}: split it into "
                                    "files of one room each")
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    if target == folder or target not in ALLOWED or target in allowed:
                        continue
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: includes {target}/: {folder}/ may include "
                                    f"only {', '.join(sorted(allowed)) or 'itself'}")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        write("model/result.hpp", "#include <vector>\n")
        write("reporting/json.cpp", '#include "model/result.hpp"\n#include "reporting/json.hpp"\n')
        write("archive/store.cpp", '#include "model/result.hpp"\n#include "reporting/json.hpp"\n')
        write("runner/base/x.cpp", '#include "reporting/json.hpp"\n#include "archive/store.hpp"\n')
        assert check(root) == [], check(root)
        write("reporting/bad.cpp", '\n#include "runner/base/errors.hpp"\n')
        write("model/worse.hpp", '#include "engines/engine.hpp"\n')
        write("engines/sideways.cpp", '#include "devices/sysfs.hpp"\n')
        write("reporting/down.cpp", '#include "archive/store.hpp"\n')
        write("archive/up.cpp", '#include "runner/base/errors.hpp"\n')
        got = check(root)
        assert len(got) == 5, got
        assert got[0].startswith("model/worse.hpp:1: includes engines/"), got
        assert got[1].startswith("engines/sideways.cpp:1: includes devices/"), got
        assert got[2].startswith("reporting/bad.cpp:2: includes runner/"), got
        assert got[3].startswith("reporting/down.cpp:1: includes archive/: reporting/ may include "
                                 "only model"), got
        assert got[4].startswith("archive/up.cpp:1: includes runner/"), got
        for bad in ("reporting/bad.cpp", "model/worse.hpp", "engines/sideways.cpp",
                    "reporting/down.cpp", "archive/up.cpp"):
            os.remove(os.path.join(root, bad))
        write("runner/base/long.cpp", "//\n" * MAX_LINES)
        assert check(root) == [], check(root)
        write("runner/base/long.cpp", "//\n" * (MAX_LINES + 1))
        got = check(root)
        assert got == [f"runner/base/long.cpp: {MAX_LINES + 1} lines, over {MAX_LINES}: split it "
                       "into files of one room each"], got
    print("check_folders self-test: ok")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if not problems:
        print("folder layers: model < engines, devices, reporting < archive < runner < app, "
              f"no file over {MAX_LINES} lines: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
