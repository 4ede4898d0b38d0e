#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The runner libraries' direction, read from the include lines (docs/architecture.md).

usage: check_layers.py SOURCE_ROOT LAYER...      (LAYER: lowest first, as runner/CMakeLists.txt)
       check_layers.py --self-test

Fails (exit 1, one line per problem) when a file in runner/<layer>/ includes a header of a higher
layer, names a runner header that does not exist, or when headers include each other in a cycle;
also when a runner source lies outside a layer's folder or a layer folder has no CMake library.
The build enforces the same direction by visibility (runner_layers_build_refuses_upward); this
check names every offending line at once and also sees cycles inside one library.

runner/methods/ is the one layer with sub-folders: the method interface and registry at its top,
one folder per method and gates/ (what the run checks beside the methods). A method's folder
includes the top, gates/ and its own files, another method's folder only where METHODS_BUILD_ON
says it builds on it; gates/ includes the top and itself; the top's headers include no folder
below them (no back-arrow: the registry, a .cpp, names every method).
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"(runner/[^"]+)"', re.M)
# The method folders that a method's own folder may include: the PTS tests run their passes as the
# steady-state rounds and the sustained write do.
METHODS_BUILD_ON = {"pts": {"steady_state", "sustained_write"}}


def in_layer(parts):
    """runner/LAYER/FILE, or runner/methods/FOLDER/FILE."""
    return len(parts) == 3 or (len(parts) == 4 and parts[1] == "methods")


def method_problem(rel, parts, ip):
    """A back-arrow or a sideways include inside runner/methods/, else None."""
    here = parts[2] if len(parts) == 4 else None
    there = ip[2] if len(ip) == 4 else None
    inc = "/".join(ip)
    if here is None:
        if there is not None and rel.endswith(".hpp"):
            return f"includes {inc}: the top of runner/methods/ (the method interface) is below " \
                   f"the method folders"
        return None
    if there is None or there == here or there == "gates" and here != "gates":
        return None
    if there in METHODS_BUILD_ON.get(here, ()):
        return None
    return f"includes {inc}: runner/methods/{here}/ sees the top of runner/methods/, gates/ and " \
           f"its own files (METHODS_BUILD_ON names what a method builds on)"


def check(root, layers):
    problems = []
    rank = {name: i for i, name in enumerate(layers)}
    runner = os.path.join(root, "runner")
    graph = {}
    for dirpath, _, files in os.walk(runner):
        for f in sorted(files):
            if not f.endswith((".hpp", ".cpp")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            parts = rel.split(os.sep)
            if not in_layer(parts) or parts[1] not in rank:
                problems.append(f"{rel}: not in a runner layer folder ({', '.join(layers)})")
                continue
            here = parts[1]
            text = open(path, encoding="utf-8", errors="replace").read()
            graph[rel] = []
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                ip = inc.split("/")
                if not in_layer(ip) or ip[1] not in rank:
                    problems.append(f"{rel}:{line}: includes {inc}, which is in no runner layer")
                    continue
                if not os.path.exists(os.path.join(root, inc)) and not inc.endswith("version.hpp"):
                    problems.append(f"{rel}:{line}: includes {inc}, which does not exist")
                if rank[ip[1]] > rank[here]:
                    problems.append(f"{rel}:{line}: includes {inc}: runner/{here} is below "
                                    f"runner/{ip[1]} (order: {' < '.join(layers)})")
                if here == "methods" and ip[1] == "methods":
                    problem = method_problem(rel, parts, ip)
                    if problem:
                        problems.append(f"{rel}:{line}: {problem}")
                graph[rel].append(inc)
    for name in layers:
        if not os.path.isdir(os.path.join(runner, name)):
            problems.append(f"runner/{name}: a layer without its folder")
    # Cycles between files (a cycle across layers is already an upward include above).
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cyc = stack[stack.index(nxt):] + [nxt]
                problems.append("include cycle: " + " -> ".join(cyc))
            elif nxt in graph and not state.get(nxt):
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if not state.get(node):
            visit(node, [])
    return problems


def self_test():
    """The check must fail on an upward include and on a cycle, and pass on a clean tree."""
    layers = ["low", "high"]
    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write(text)
        put("runner/low/a.hpp", "#pragma once\n")
        put("runner/high/b.hpp", '#include "runner/low/a.hpp"\n')
        clean = check(root, layers)
        put("runner/low/up.cpp", '#include "runner/high/b.hpp"\n')
        upward = check(root, layers)
        os.remove(os.path.join(root, "runner/low/up.cpp"))
        put("runner/high/c.hpp", '#include "runner/high/d.hpp"\n')
        put("runner/high/d.hpp", '#include "runner/high/c.hpp"\n')
        cycle = check(root, layers)
        os.remove(os.path.join(root, "runner/high/d.hpp"))
        os.remove(os.path.join(root, "runner/high/c.hpp"))
        put("runner/stray.cpp", "\n")
        stray = check(root, layers)
        os.remove(os.path.join(root, "runner/stray.cpp"))
    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write(text)
        mlayers = ["methods"]
        put("runner/methods/method.hpp", "#pragma once\n")
        put("runner/methods/gates/gate.hpp", '#include "runner/methods/method.hpp"\n')
        put("runner/methods/a/a.hpp", '#include "runner/methods/method.hpp"\n'
            '#include "runner/methods/gates/gate.hpp"\n')
        put("runner/methods/registry.cpp", '#include "runner/methods/a/a.hpp"\n')
        put("runner/methods/pts/pts.cpp", '#include "runner/methods/steady_state/s.hpp"\n')
        put("runner/methods/steady_state/s.hpp", '#include "runner/methods/method.hpp"\n')
        methods_clean = check(root, mlayers)
        put("runner/methods/b/b.cpp", '#include "runner/methods/a/a.hpp"\n')
        sideways = check(root, mlayers)
        os.remove(os.path.join(root, "runner/methods/b/b.cpp"))
        put("runner/methods/method_base.hpp", '#include "runner/methods/a/a.hpp"\n')
        back = check(root, mlayers)
    ok = True
    for name, got, want in (("clean tree", clean, None), ("upward include", upward, "is below"),
                            ("cycle", cycle, "include cycle"), ("stray file", stray, "not in a"),
                            ("method folders", methods_clean, None),
                            ("one method's folder including another's", sideways, "sees the top"),
                            ("back-include into a method folder", back, "is below the method")):
        if want is None and got:
            print(f"self-test: {name}: unexpected {got}")
            ok = False
        if want is not None and not any(want in p for p in got):
            print(f"self-test: {name}: not detected ({got})")
            ok = False
    print("self-test:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 3:
        print(__doc__)
        return 2
    problems = check(argv[1], argv[2:])
    for p in problems:
        print(p)
    print(f"runner layers {' < '.join(argv[2:])}: "
          + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
