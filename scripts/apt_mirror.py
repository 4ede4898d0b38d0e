#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The Debian mirror this machine's apt already uses, read from its apt sources
# (/etc/apt/sources.list one-line entries and /etc/apt/sources.list.d/*.list and *.sources, the
# deb822 form): the first `deb` entry of the distribution's own archive (a suite that is the
# release's codename, component main; security and -updates suites are not the archive). No
# project file names a mirror's host: the lab (tests/lab/fetch.sh) and bench/vs_fio.py take it
# from here. STORQUAL_APT_MIRROR=URI overrides it (a test of what happens when the mirror cannot
# be reached); the suite is then the release's codename.
#   apt_mirror.py            prints "URI SUITE", exits 1 naming the files read when none is there
#   apt_mirror.py --self-test
import glob
import os
import sys
import tempfile

SOURCES = ["/etc/apt/sources.list"] + ["/etc/apt/sources.list.d/*.list",
                                       "/etc/apt/sources.list.d/*.sources"]


def codename(os_release="/etc/os-release"):
    try:
        for line in open(os_release, encoding="utf-8"):
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return ""


def entries(files):
    """[(uri, suite, components)] of every `deb` entry, in the order apt reads them."""
    out = []
    for f in files:
        try:
            text = open(f, encoding="utf-8").read()
        except OSError:
            continue
        if f.endswith(".sources"):
            for block in text.split("\n\n"):
                fields = {}
                for line in block.splitlines():
                    if line.startswith("#") or ":" not in line:
                        continue
                    key, value = line.split(":", 1)
                    fields[key.strip()] = value.split()
                if "deb" not in fields.get("Types", []) or fields.get("Enabled") == ["no"]:
                    continue
                for uri in fields.get("URIs", []):
                    for suite in fields.get("Suites", []):
                        out.append((uri, suite, fields.get("Components", [])))
            continue
        for line in text.splitlines():
            w = line.split("#", 1)[0].split()
            if not w or w[0] != "deb":
                continue
            w = w[1:]
            if w and w[0].startswith("["):  # [arch=... signed-by=...] options
                while w and not w[0].endswith("]"):
                    w = w[1:]
                w = w[1:]
            if len(w) >= 2:
                out.append((w[0], w[1], w[2:]))
    return out


def mirror(files, release):
    """(uri, suite) of the release's own archive, or None."""
    override = os.environ.get("STORQUAL_APT_MIRROR")
    if override:
        return override, release
    for uri, suite, comps in entries(files):
        if suite == release and "main" in comps:
            return uri, suite
    return None


def source_files():
    files = []
    for pattern in SOURCES:
        files += sorted(glob.glob(pattern)) if "*" in pattern else [pattern]
    return files


def self_test():
    with tempfile.TemporaryDirectory() as d:
        one = os.path.join(d, "sources.list")
        deb822 = os.path.join(d, "debian.sources")
        open(one, "w").write("# c\ndeb [signed-by=/k.gpg] http://m.example/sec bookworm-security "
                             "main\ndeb-src http://src.example/debian bookworm main\n")
        open(deb822, "w").write("Types: deb\nURIs: http://m.example/debian\nSuites: bookworm "
                                "bookworm-updates\nComponents: main\n\nTypes: deb\nURIs: "
                                "http://other.example/d\nSuites: bookworm\nComponents: main\n")
        os.environ.pop("STORQUAL_APT_MIRROR", None)
        ok = mirror([one, deb822], "bookworm") == ("http://m.example/debian", "bookworm")
        ok = ok and mirror([one], "bookworm") is None
        os.environ["STORQUAL_APT_MIRROR"] = "http://127.0.0.1:9/none"
        ok = ok and mirror([one], "bookworm") == ("http://127.0.0.1:9/none", "bookworm")
    print("apt_mirror self-test: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    release = codename()
    found = mirror(source_files(), release)
    if not found:
        print("apt_mirror: no `deb` entry for %s main in this machine's apt sources (%s)"
              % (release or "(no VERSION_CODENAME in /etc/os-release)", ", ".join(source_files())),
              file=sys.stderr)
        return 1
    print("%s %s" % found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
