#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The power-cut lab (docs/power-cut.md, "The lab"): the QEMU guest's disk served by nbdkit
# (Debian's package, fetched with the lab's private apt configuration) over a Unix socket as
# three devices, and `storqual powercut arm` / `check` inside the guest:
#   plp       the file plugin alone: everything acknowledged reaches the image (power-loss
#             protection: nothing acknowledged is lost when nbdkit dies);
#   volatile  the cache filter in writeback mode: unflushed writes die with nbdkit;
#   liar      the fua filter's fuamode=discard over the writeback cache: flushes and FUA never
#             reach the image, so flushed writes die too;
#   reorder   the lab's own filter (tests/lab/nbdkit-reorder-filter.c, compiled here against
#             Debian's nbdkit-plugin-dev header): a write-back cache of 4 KiB blocks destaged in
#             random order when full, flush and FUA acknowledged and ignored, so after a cut
#             later writes are on the image where earlier flushed ones are not (unserializable);
#   shorn     (--devices shorn) the blocksize filter (maxdata=512) with the delay filter: each
#             request reaches the image in delayed 512-byte pieces, so a cut lands inside one;
#   bitflip   (--devices bitflip) the lab's own filter (tests/lab/nbdkit-bitflip-filter.c): honest
#             about flushes, but one bit of every 64th write request is inverted on its way to
#             the image (bit corruption);
#   tear4k-qd1, tear4k-qd8  (--devices) the blocksize filter (maxdata=4096) with the delay filter
#             (20 ms a piece) under arm's --atomic-unit 16k --bs 16k, at depth 1 or 8 alone: a
#             request torn inside its atomic unit (shorn) at either depth;
#   misdirect (--devices misdirect) the lab's own filter (tests/lab/nbdkit-misdirect-filter.c):
#             every 64th write request lands 1 MiB away, flushes honest (misplaced only);
#   flushlag  (--devices flushlag) the lab's own filter (tests/lab/nbdkit-flushlag-filter.c) over
#             the write-back cache: a flush within 1 s of the last is acknowledged and not done
#             (lost after a flush).
# Killing nbdkit and QEMU (SIGKILL) when arm prints LAB:CUT-NOW (its --power-cut-cmd, at a random
# moment) is the power cut; both start again, the guest boots and checks. The journal is a file on
# a second disk (a plain image on the host, ext4 in the guest), not on the target and not over a
# network. Expected: plp passes with zero losses (also judged with --plp); volatile passes with its
# unflushed losses allowed and fails judged with --plp when it lost any; the liar fails with
# lost-after-flush; reorder fails with lost-after-flush and unserializable requests in every cut
# that came after a flush or FUA write.
#
#   powercut_lab.py [--build DIR] [--cuts N] [--devices plp,volatile,liar,reorder,tear4k-qd1,
#                   tear4k-qd8,misdirect,flushlag]  (also: shorn, bitflip)
#
# Exit 0 when every check held, 1 when one did not or when the lab cannot run: QEMU, the kernel or
# nbdkit cannot be had, or one of the lab's own filters does not compile (a code defect), each
# named. nbdkit is the machine's (scripts/install-deps.sh test installs nbdkit and
# nbdkit-plugin-dev); without it, it is fetched like QEMU from the machine's mirror.
import argparse
import base64
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab as baselab  # noqa: E402  (the lab's fetch, initramfs and checks)

CANNOT_RUN = 1
DEVICES = {
    "plp": {"filters": [], "params": []},
    "volatile": {"filters": ["cache"], "params": ["cache=writeback"]},
    "liar": {"filters": ["fua", "cache"], "params": ["cache=writeback", "fuamode=discard"]},
    # The paths of the lab's own filters are filled in by build_lab_filter.
    "reorder": {"filters": [None], "params": ["reorder-blocks=256"]},
    "bitflip": {"filters": [None], "params": ["bitflip-every=64"]},
    # Not in the default list: a device that writes a request in 512-byte pieces, each delayed,
    # so that a cut lands inside a request (shorn writes).
    "shorn": {"filters": ["blocksize", "delay"], "params": ["maxdata=512", "wdelay=5ms"]},
    # A device that tears at 4 KiB (20 ms a piece) inside a declared 16 KiB atomic unit, armed at
    # depth 1 alone and at depth 8 alone: the cut is taken as a request is issued, so it lands
    # inside one at either depth (shorn).
    "tear4k-qd1": {"filters": ["blocksize", "delay"], "params": ["maxdata=4096", "wdelay=200ms"],
                   "arm": {"depths": "1", "unit": "16k", "bs": "16k"}},
    "tear4k-qd8": {"filters": ["blocksize", "delay"], "params": ["maxdata=4096", "wdelay=20ms"],
                   "arm": {"depths": "8", "unit": "16k", "bs": "16k"}},
    # The lab's own filter (tests/lab/nbdkit-misdirect-filter.c): every 64th write request lands
    # 1 MiB away inside the 32 MiB region; honest about flushes. Only misplaced.
    "misdirect": {"filters": [None], "params": ["misdirect-every=64", "misdirect-shift=1048576",
                                                "misdirect-window=33554432"]},
    # The lab's own filter (tests/lab/nbdkit-flushlag-filter.c) over the write-back cache: a flush
    # within 1 s of the last is acknowledged and not done (lost after a flush). Under TCG arm
    # flushes about every 0.5 s: a 50 ms lag (the device) would never trigger here.
    "flushlag": {"filters": [None, "cache"], "params": ["cache=writeback", "flushlag-ms=1000"]},
}
OWN_FILTERS = ("reorder", "bitflip", "misdirect", "flushlag")


def fetch_nbdkit(lab):
    """The root nbdkit and its filter header are under: the machine's ("/") when both are
    installed, else Debian's packages unpacked under LAB/nbdkit (the lab's private apt
    configuration, the machine's mirror); None, said, when neither can be had."""
    if os.path.exists("/usr/bin/nbdkit") and os.path.exists("/usr/include/nbdkit-filter.h"):
        return "/"
    d = os.path.join(lab, "nbdkit")
    root = os.path.join(d, "root")
    binary = os.path.join(root, "usr/bin/nbdkit")
    if os.path.exists(binary) and os.path.exists(os.path.join(root, "usr/include/nbdkit-filter.h")):
        return root
    os.makedirs(d, exist_ok=True)
    apt = os.path.join(lab, "apt")
    opts = ["-o", "Dir::Etc::sourcelist=%s/sources.list" % apt, "-o", "Dir::Etc::sourceparts=/dev/null",
            "-o", "Dir::State=%s/state" % apt, "-o", "Dir::State::status=%s/state/status" % apt,
            "-o", "Dir::Cache=%s/cache" % apt, "-o", "APT::Get::List-Cleanup=0",
            "-o", "Debug::NoLocking=1", "-o", "APT::Sandbox::User=root"]
    # nbdkit-plugin-dev: the filter header the reorder device is compiled against.
    r = subprocess.run(["apt-get"] + opts + ["-qq", "download", "nbdkit", "nbdkit-plugin-dev"],
                       cwd=d, capture_output=True, text=True)
    debs = [f for f in os.listdir(d) if f.startswith("nbdkit") and f.endswith(".deb")]
    if r.returncode != 0 or len(debs) != 2:
        print("powercut lab: FAILED: nbdkit is not installed (apt-get install nbdkit "
              "nbdkit-plugin-dev) and could not be fetched: " + r.stdout + r.stderr)
        return None
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", os.path.join(d, deb), root], check=True)
    return root


def build_lab_filter(nbd_root, name, lab):
    """Compiles tests/lab/nbdkit-NAME-filter.c against nbdkit's header into LAB; its path, or None
    with the compiler's message (a filter that does not compile fails the lab)."""
    src = os.path.join(HERE, "nbdkit-%s-filter.c" % name)
    out = os.path.join(lab, "nbdkit-%s-filter.so" % name)
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out
    include = os.path.join(nbd_root, "usr/include")
    if not os.path.exists(os.path.join(include, "nbdkit-filter.h")):
        print("powercut lab: FAILED: no nbdkit-filter.h under %s (nbdkit-plugin-dev)" % include)
        return None
    r = subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-I", include, "-o",
                        out, src], capture_output=True, text=True)
    if r.returncode != 0:
        if os.path.exists(out):
            os.unlink(out)
        print("powercut lab: FAILED: the %s filter (%s) does not compile: %s" % (name, src, r.stderr))
        return None
    return out


def start_nbdkit(nbd_root, device, image, sock):
    lib = os.path.join(nbd_root, "usr/lib/x86_64-linux-gnu/nbdkit")
    if os.path.exists(sock):
        os.unlink(sock)
    spec = DEVICES[device]
    cmd = [os.path.join(nbd_root, "usr/bin/nbdkit"), "-f", "-U", sock]
    for f in spec["filters"]:
        cmd.append("--filter=" + (f if "/" in f else "%s/filters/nbdkit-%s-filter.so" % (lib, f)))
    cmd += ["%s/plugins/nbdkit-file-plugin.so" % lib, "file=" + image] + spec["params"]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(sock):
            return p
        time.sleep(0.05)
    p.kill()
    raise RuntimeError("nbdkit did not open %s: %s" % (sock, " ".join(cmd)))


def device_of(cut):
    return cut.rsplit("-", 1)[0]


def qemu_args(kernel, initrd, mode, cut, sock, journal):
    arm = DEVICES[device_of(cut)].get("arm", {})
    own = " ".join("pc_%s=%s" % kv for kv in sorted(arm.items()))
    plain = device_of(cut) in ("plp", "volatile", "liar", "reorder")
    return ["-accel", "tcg", "-smp", "1", "-m", "1024", "-display", "none", "-serial", "stdio",
            "-monitor", "none", "-no-reboot", "-nic", "none", "-kernel", kernel, "-initrd", initrd,
            "-append", "console=ttyS0 quiet panic=-1 no_timer_check lab=%s pc_cut=%s "
                       "pc_indicators=%d %s" % (mode, cut, 1 if plain else 0, own),
            "-device", "virtio-scsi-pci,id=vs0",
            "-blockdev", "driver=nbd,server.type=unix,server.path=%s,node-name=pct" % sock,
            "-device", "scsi-hd,drive=pct,bus=vs0.0,product=PCTARGET,serial=SQPCT0001,"
                       "write-cache=on",
            "-drive", "file=%s,if=none,id=pcj,format=raw" % journal,
            "-device", "scsi-hd,drive=pcj,bus=vs0.0,product=PCJOURNAL,serial=SQPCJ0001"]


def boot(env, mode, cut, nbdkit, log, timeout):
    """One guest boot; in arm mode nbdkit and QEMU are killed at LAB:CUT-NOW. Returns (blocks, cut
    seen)."""
    cmd = [env["qemu"], "-L", env["bios"], "-L", env["seabios"]] + qemu_args(
        env["kernel"], env["initrd"], mode, cut, env["sock"], env["journal"])
    blocks, current, buf, cut_seen = {}, None, [], False
    deadline = time.time() + timeout
    with open(log, "a") as logf:
        logf.write("=== %s %s\n" % (mode, cut))
        q = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=dict(os.environ, LD_LIBRARY_PATH=env["libs"]))
        for raw in q.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            logf.write(line + "\n")
            logf.flush()
            if line.startswith("LAB:CUT-NOW") and mode == "powercut-arm":
                # The power cut: the device (nbdkit) and the machine (QEMU) die at once.
                nbdkit.send_signal(signal.SIGKILL)
                q.send_signal(signal.SIGKILL)
                cut_seen = True
                logf.write("host: SIGKILL to nbdkit %d and QEMU %d\n" % (nbdkit.pid, q.pid))
                break
            if line.startswith("LAB:BEGIN "):
                current, buf = line[10:], []
            elif line.startswith("LAB:END ") and current:
                try:
                    blocks[current] = base64.b64decode("".join(buf)).decode(errors="replace")
                except ValueError:
                    blocks[current] = "<undecodable>"
                current = None
            elif current is not None:
                buf.append(line.strip())
            if time.time() > deadline:
                logf.write("host: the guest ran past %d s\n" % timeout)
                q.kill()
                break
        q.wait()
        if nbdkit.poll() is None:  # the guest ended without a cut: stop the device cleanly
            nbdkit.terminate()
        nbdkit.wait()
    return blocks, cut_seen


def counts(summary):
    """{class: count} of a check's summary line."""
    return {m.group(2): int(m.group(1)) for m in
            re.finditer(r"(\d+) (intact|lost-after-flush|lost-before-flush|shorn|unserializable|"
                        r"corrupted|misplaced|unreadable)", summary)}


def exit_of(text):
    m = re.search(r"^exit (\d+)$", text, re.M)
    return int(m.group(1)) if m else None


def judge(device, blocks, checks, n):
    check, plp = blocks.get("check", ""), blocks.get("check plp", "")
    line = check.splitlines()[0] if check else "(no check output)"
    c = counts(line)
    failing = sum(v for k, v in c.items() if k not in ("intact", "lost-before-flush"))
    what = "%s cut %d" % (device, n)
    checks.expect(c.get("intact", 0) > 0 or c.get("lost-after-flush", 0) > 0,
                  "%s: check read the journal's records: %s" % (what, line))
    if device == "plp":
        checks.expect(exit_of(check) == 0 and exit_of(plp) == 0 and failing == 0 and
                      c.get("lost-before-flush", 0) == 0, "%s: nothing lost: %s" % (what, line))
    elif device == "volatile":
        checks.expect(exit_of(check) == 0 and failing == 0,
                      "%s: only unflushed writes lost, allowed: %s" % (what, line))
        want_plp = 1 if c.get("lost-before-flush", 0) else 0
        checks.expect(exit_of(plp) == want_plp,
                      "%s: judged with --plp exits %d: %s" % (what, want_plp, plp.splitlines()[:1]))
    elif device == "liar":
        checks.expect(exit_of(check) == 1 and c.get("lost-after-flush", 0) > 0,
                      "%s: fails with lost-after-flush: %s" % (what, line))
    elif device == "reorder":
        m = re.search(r"\((\d+) flushes, (\d+) FUA\)", line)
        if m and int(m.group(1)) + int(m.group(2)) > 0:
            checks.expect(exit_of(check) == 1 and c.get("unserializable", 0) > 0 and
                          c.get("lost-after-flush", 0) > 0,
                          "%s: fails with unserializable requests and lost-after-flush: %s"
                          % (what, line))
        else:
            checks.expect(exit_of(check) in (0, 1),
                          "%s: no flush before the cut: %s" % (what, line))
    elif device == "flushlag":
        checks.expect(exit_of(check) == 1 and c.get("lost-after-flush", 0) > 0,
                      "%s: fails with lost-after-flush: %s" % (what, line))
    elif device == "misdirect":
        # Misplaced where a misdirected copy survived; where a later write overwrote the copy
        # before the cut no trace of it is left, and check can only see the write lost.
        checks.expect(exit_of(check) == 1 and c.get("misplaced", 0) > 0,
                      "%s: fails with misplaced sectors: %s" % (what, line))
    elif device == "bitflip":
        checks.expect(exit_of(check) == 1 and c.get("corrupted", 0) > 0 and
                      c.get("lost-after-flush", 0) == 0,
                      "%s: fails with corrupted sectors, nothing flushed lost: %s" % (what, line))
    else:
        checks.expect(exit_of(check) == 1 and c.get("shorn", 0) > 0,
                      "%s: fails with shorn writes: %s" % (what, line))
    return c


def setup(args):
    build = os.path.abspath(args.build)
    lab = os.path.join(build, "lab")
    storqual = os.path.join(build, "app", "storqual")
    if not os.path.exists(storqual):
        print("powercut lab: FAILED: no storqual binary at %s (build first)" % storqual)
        return None
    r = subprocess.run([os.path.join(HERE, "fetch.sh"), lab], capture_output=True, text=True)
    if r.returncode != 0:
        print("powercut lab: FAILED: QEMU or the guest kernel could not be fetched: " + r.stdout
              + r.stderr)
        return None
    nbd_root = fetch_nbdkit(lab)
    if not nbd_root:
        return None
    for name in OWN_FILTERS:
        if name in args.devices.split(","):
            built = build_lab_filter(nbd_root, name, lab)
            if not built:
                return None
            DEVICES[name]["filters"] = [built if f is None else f for f in DEVICES[name]["filters"]]
    with open(os.path.join(lab, "fetched")) as f:
        kernel_pkg = f.read().split()[1]
    root = os.path.join(lab, "root")
    version = kernel_pkg[len("linux-image-"):]
    work = os.path.join(lab, "powercut")
    os.makedirs(work, exist_ok=True)
    return {"lab": lab, "nbd_root": nbd_root, "work": work, "storqual": storqual, "summaries": [],
            "kernel": os.path.join(root, "boot", "vmlinuz-" + version),
            "qemu": os.path.join(root, "usr/bin/qemu-system-x86_64"),
            "bios": os.path.join(root, "usr/share/qemu"),
            "seabios": os.path.join(root, "usr/share/seabios"),
            "libs": ":".join(os.path.join(root, p) for p in
                             ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu")),
            "initrd": baselab.build_initramfs(lab, root, version, storqual),
            "sock": os.path.join(work, "nbd.sock"), "log": os.path.join(work, "serial.log")}


def run_device(env, device, cuts, checks, rows):
    image = os.path.join(env["work"], device + ".img")
    env["journal"] = os.path.join(env["work"], device + "-journal.img")
    for path, size in ((image, 128 << 20), (env["journal"], 64 << 20)):
        with open(path, "wb") as f:
            f.truncate(size)
    subprocess.run(["mkfs.ext4", "-q", "-F", env["journal"]], check=True)
    results = []
    for n in range(1, cuts + 1):
        cut = "%s-%d" % (device, n)
        t0 = time.time()
        _, seen = boot(env, "powercut-arm", cut, start_nbdkit(env["nbd_root"], device, image,
                                                              env["sock"]), env["log"], 900)
        checks.expect(seen, "%s: arm ran its power-cut command" % cut)
        blocks, _ = boot(env, "powercut-check", cut, start_nbdkit(env["nbd_root"], device, image,
                                                                  env["sock"]), env["log"], 900)
        c = judge(device, blocks, checks, n)
        rows.append((cut, c, blocks.get("cache", "").split(), blocks.get("indicators", ""),
                     time.time() - t0))
        result = os.path.join(env["work"], "%s-result.json" % cut)
        with open(result, "w") as f:
            f.write(blocks.get("check json", ""))
        results.append(result)
    summarize(env, device, results, checks)


def summarize(env, device, results, checks):
    """`storqual powercut summary` of the device's cuts on the host: the device's verdict over the
    cycles, and the unsafe-shutdown count named as not readable (nbdkit's disks have none)."""
    out = os.path.join(env["work"], device + "-summary")
    r = subprocess.run([env["storqual"], "powercut", "summary", "--out", out,
                        "--cycles", str(len(results))] + results,
                       capture_output=True, text=True)
    table = r.stdout.split("\ndevice: ")
    env["summaries"].append((device, table[0] + "\ndevice: " + table[1].split("\n")[0]
                             if len(table) > 1 else r.stdout + r.stderr))
    want = 0 if device in ("plp", "volatile") else 1  # reorder, liar, shorn, bitflip fail
    checks.expect(r.returncode == want, "%s: summary of %d cuts exits %d (got %d: %s)"
                  % (device, len(results), want, r.returncode, r.stderr.strip()))
    checks.expect("unsafe-shutdown count not readable in %d of %d" % (len(results), len(results))
                  in r.stdout, "%s: summary names the unsafe-shutdown count not readable" % device)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--cuts", type=int, default=1, help="cuts per device")
    ap.add_argument("--devices", default="plp,volatile,liar,reorder,tear4k-qd1,tear4k-qd8,"
                                         "misdirect,flushlag")
    args = ap.parse_args()
    t0 = time.time()
    env = setup(args)
    if env is None:
        return CANNOT_RUN
    if os.path.exists(env["log"]):
        os.unlink(env["log"])
    checks, rows = baselab.Checks(), []
    for device in args.devices.split(","):
        run_device(env, device, args.cuts, checks, rows)
    print("\n| cut | intact | lost-after-flush | lost-before-flush | shorn | unserializable | "
          "corrupted | misplaced | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for cut, c, _, _, secs in rows:
        print("| %s | %s | %.0f |" % (cut, " | ".join(str(c.get(k, 0)) for k in (
            "intact", "lost-after-flush", "lost-before-flush", "shorn", "unserializable",
            "corrupted", "misplaced")), secs))
    for cut, _, cache, indicators, _ in rows:
        print("\n%s: guest sees write_cache=%s fua=%s\n%s" % (cut, " ".join(cache[:-1]),
                                                           cache[-1] if cache else "?", indicators))
    for device, text in env["summaries"]:
        print("\n%s: storqual powercut summary\n%s" % (device, text))
    # The count is evidence too: at least that arm ran and one judgement per cut, and the two
    # summary checks per device (1 cut on reorder made 5); fewer means blocks went missing.
    devices = len(args.devices.split(","))
    floor = 2 * args.cuts * devices + 2 * devices
    checks.expect(checks.count >= floor, "at least %d checks: %d" % (floor, checks.count))
    print("powercut lab: %d checks, %d failed; wall time %.0f s; serial console in %s"
          % (checks.count, len(checks.failed), time.time() - t0, env["log"]))
    return 0 if not checks.failed else 1


if __name__ == "__main__":
    sys.exit(main())
