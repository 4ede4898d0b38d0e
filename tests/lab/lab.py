#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The hardware lab: boots Debian 12's kernel under QEMU (TCG, one vCPU) with emulated NVMe (two
# namespaces, two controllers in one nvme-subsys: native multipath), SATA on AHCI, SCSI on
# virtio-scsi and on an LSI 53C895A, and USB mass storage, each with a configured identity; runs
# storqual inside (tests/lab/guest_init.sh) and checks, field by field, that what storqual reports
# is what QEMU was given, with and without systemd-udevd; that a run on every disk ends with a
# verdict; that the guard refuses with exit 2; that a SMART critical warning raised from the
# host through QMP during a run fails it (exit 1), named in the console, JUnit, JSON and HTML; and
# that the OCP C0h log the NVMe controllers serve (ocp=on) is decoded as QEMU fills it, with its
# before/after diff and the write amplification of the runs that wrote; that the AHCI disk's ATA
# SMART, read through SG_IO, equals smartctl's reading in the guest field by field, and that the
# USB disk (no SAT pass-through) and the SCSI disks (no LOG SENSE either) name the gap.
#
#   lab.py [--short] [--build DIR]      (make lab: the whole lab; make test: --short)
#
# Exit 0 when every check held, 1 when one did not or when the lab cannot run (QEMU or the guest
# kernel cannot be fetched from the machine's mirror, tests/lab/fetch.sh, or QEMU does not start),
# naming what was missing: a lab that cannot run fails, it never skips.
import argparse
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CANNOT_RUN = 1
# The count is evidence too: a guest that printed fewer blocks makes fewer checks, each of which may
# pass. The short pass made 190 checks (2026-12-07, QEMU 10.0.2, kernel 6.1.0-50); the full pass
# makes those and more. Fewer fails the lab.
MIN_CHECKS = {"short": 190, "full": 190}

# What QEMU is given, and what storqual must report for it. "pci" places the controller.


def nvme_wwid(nsid):
    # What the kernel derives for a namespace without EUI-64, NGUID or UUID (nvme_init_subnqn /
    # wwid_show): PCI vendor, serial and model in hex, namespace id.
    return "nvme.1b36-%s-%s-%08x" % (b"SQNVME0001".hex(), b"QEMU NVMe Ctrl".hex(), nsid)


DISKS = [
    # The subsystem's instance (nvme0n1 or nvme1n1) is that of the controller probed first.
    {"name": "nvme ns1 (512 B)", "match": ("nsid", "1"), "image": "nvme-ns1",
     "expect": {"transport": "nvme", "model": "QEMU NVMe Ctrl", "serial": "SQNVME0001",
                "wwid": nvme_wwid(1), "logical_block_size": "512",
                "nvme_paths": r"re:nvme(\d)c\dn1 nvme\1c\dn1", "nvme_multipath": "native",
                "nvme_subsystem": r"re:nvme-subsys\d"}},
    {"name": "nvme ns2 (4 KiB)", "match": ("nsid", "2"), "image": "nvme-ns2",
     "expect": {"transport": "nvme", "model": "QEMU NVMe Ctrl", "serial": "SQNVME0001",
                "wwid": nvme_wwid(2), "logical_block_size": "4096",
                "nvme_paths": r"re:nvme(\d)c\dn2 nvme\1c\dn2"}},
    # A ZNS namespace (docs/identity-and-safety.md, "Zoned devices"): 8 zones of 8 MiB, at most
    # 4 open and 6 active; identify reads them from sysfs and the ZNS Identify Namespace.
    {"name": "nvme ns3 (zoned)", "match": ("nsid", "3"), "image": "nvme-ns3",
     "expect": {"transport": "nvme", "wwid": nvme_wwid(3), "logical_block_size": "4096",
                "zone_model": "host-managed", "zone_size_bytes": "8388608", "zones": "8",
                "max_open_zones": "4", "max_active_zones": "6",
                "zone_append_max_bytes": r"re:[1-9]\d*"}},
    {"name": "sata on ahci", "match": ("pci", "0000:00:05.0"), "image": "sata",
     "expect": {"transport": "sata", "model": "SQLAB SATA SSD 870 WITH LONG NAME",
                "serial": "SQSATA0001", "firmware": "SQFW0002", "wwid": "naa.5000c50012345678",
                "rotational": "no", "scsi_host": "ahci"}},
    {"name": "scsi on virtio-scsi", "match": ("pci", "0000:00:06.0"), "image": "vscsi",
     "expect": {"transport": "scsi", "vendor": "SQLABVND", "model": "SQLAB-VSCSI",
                "serial": "SQVSCSI001", "firmware": "SQV1", "wwid": "naa.5000c500aabbcc01",
                "rotational": "yes", "scsi_host": "virtio_scsi"}},
    {"name": "scsi on lsi53c895a", "match": ("pci", "0000:00:07.0"), "image": "lsi",
     "expect": {"transport": "scsi", "vendor": "SQLABLSI", "model": "SQLAB-LSI",
                "serial": "SQLSI00001", "firmware": "SQL1", "wwid": "naa.5000c500aabbcc02",
                "rotational": "yes", "scsi_host": "sym53c8xx"}},
    {"name": "usb mass storage", "match": ("pci", "0000:00:08.0"), "image": "usb",
     "expect": {"transport": "usb", "serial": "SQUSB00001", "model": "QEMU HARDDISK",
                "scsi_host": "usb-storage"}},
]

def disk_of(image):
    return next(disk for disk in DISKS if disk["image"] == image)


MODULES = ["nvme", "ahci", "virtio_pci", "virtio_scsi", "sd_mod", "sym53c8xx", "xhci_pci",
           "usb_storage", "ext4", "crc32c_generic"]


def qemu_args(lab, kernel, initrd, mode, qmp):
    def d(n):
        return os.path.join(lab, "disks", n + ".img")
    sata = disk_of("sata")
    return [
        "-accel", "tcg", "-smp", "1", "-m", "1024", "-display", "none", "-serial", "stdio",
        "-monitor", "none", "-no-reboot", "-nic", "none", "-qmp", "unix:%s,server=on,wait=off" % qmp,
        "-kernel", kernel, "-initrd", initrd,
        "-append", "console=ttyS0 quiet panic=-1 no_timer_check lab=%s" % mode,
        "-device", "nvme-subsys,id=subsys0,nqn=sqlab",
        # ocp=on: each controller serves the OCP SMART / Health Information Extended log (C0h).
        "-device", "nvme,id=nvme0,serial=SQNVME0001,subsys=subsys0,addr=0x4,ocp=on",
        "-device", "nvme,id=nvme1,serial=SQNVME0001,subsys=subsys0,addr=0x9,ocp=on",
        "-drive", "file=%s,if=none,id=n1,format=raw" % d("nvme-ns1"),
        "-device", "nvme-ns,drive=n1,nsid=1,logical_block_size=512",
        "-drive", "file=%s,if=none,id=n2,format=raw" % d("nvme-ns2"),
        "-device", "nvme-ns,drive=n2,nsid=2,logical_block_size=4096,physical_block_size=4096",
        "-drive", "file=%s,if=none,id=n3,format=raw" % d("nvme-ns3"),
        "-device", "nvme-ns,drive=n3,nsid=3,logical_block_size=4096,physical_block_size=4096,"
        "zoned=true,zoned.zone_size=8M,zoned.zone_capacity=8M,zoned.max_open=4,"
        "zoned.max_active=6",
        "-device", "ahci,id=ahci0,addr=0x5",
        "-drive", "file=%s,if=none,id=s1,format=raw" % d("sata"),
        "-device", "ide-hd,drive=s1,bus=ahci0.0,model=%s,serial=SQSATA0001,ver=SQFW0002,"
                   "wwn=0x5000c50012345678,rotation_rate=1" % sata["expect"]["model"],
        "-device", "virtio-scsi-pci,id=vs0,addr=0x6",
        "-drive", "file=%s,if=none,id=c1,format=raw" % d("vscsi"),
        "-device", "scsi-hd,drive=c1,bus=vs0.0,vendor=SQLABVND,product=SQLAB-VSCSI,"
                   "serial=SQVSCSI001,ver=SQV1,wwn=0x5000c500aabbcc01,rotation_rate=7200",
        "-device", "lsi53c895a,id=lsi0,addr=0x7",
        "-drive", "file=%s,if=none,id=c2,format=raw" % d("lsi"),
        "-device", "scsi-hd,drive=c2,bus=lsi0.0,vendor=SQLABLSI,product=SQLAB-LSI,"
                   "serial=SQLSI00001,ver=SQL1,wwn=0x5000c500aabbcc02,rotation_rate=7200",
        "-device", "qemu-xhci,id=xhci,addr=0x8",
        "-drive", "file=%s,if=none,id=u1,format=raw" % d("usb"),
        "-device", "usb-storage,drive=u1,bus=xhci.0,serial=SQUSB00001",
    ]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def module_deps(root, version):
    """name -> (path, [dependency names]) from each .ko's modinfo depends= string."""
    base = os.path.join(root, "lib/modules", version, "kernel")
    mods = {}
    for dirpath, _, files in os.walk(base):
        for f in files:
            if not f.endswith(".ko"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, "rb") as fh:
                data = fh.read()
            m = re.search(rb"depends=([^\0]*)\0", data)
            deps = [x for x in m.group(1).decode().split(",") if x] if m else []
            mods[f[:-3].replace("-", "_")] = (path, [x.replace("-", "_") for x in deps])
    return mods


def libraries(binary, env_path=""):
    env = dict(os.environ)
    if env_path:
        env["LD_LIBRARY_PATH"] = env_path
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, env=env).stdout
    libs, interp = [], None
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+) \(", line)
        if m:
            libs.append(m.group(2))
        elif re.match(r"\s*(/\S+ld-linux\S+) \(", line):
            interp = line.split()[0]
    return libs, interp


def build_initramfs(lab, root, version, storqual):
    ir = os.path.join(lab, "initramfs")
    shutil.rmtree(ir, ignore_errors=True)
    for d in ("bin", "sbin", "proc", "sys", "dev", "run", "tmp", "mnt", "etc", "lab/lib",
              "lab/modules", "lib64", "lib/systemd", "lib/udev"):
        os.makedirs(os.path.join(ir, d), exist_ok=True)
    shutil.copy(os.path.join(root, "bin/busybox"), os.path.join(ir, "bin/busybox"))
    shutil.copy(os.path.join(HERE, "guest_init.sh"), os.path.join(ir, "init"))
    os.chmod(os.path.join(ir, "init"), 0o755)
    # Without its debug information (tens of MB the guest would unpack for nothing).
    subprocess.run(["strip", "--strip-debug", "-o", os.path.join(ir, "bin/storqual"), storqual],
                   check=True)
    libs, interp = libraries(storqual)
    # systemd-udevd (Debian's udev package) with its helpers and rules, for the pass with udev.
    udevadm = os.path.join(root, "bin/udevadm")
    if os.path.exists(udevadm):
        shutil.copy(udevadm, os.path.join(ir, "bin/udevadm"))
        os.symlink("/bin/udevadm", os.path.join(ir, "lib/systemd/systemd-udevd"))
        libpath = ":".join(os.path.join(root, p) for p in
                           ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib/systemd",
                            "usr/lib/x86_64-linux-gnu/systemd"))
        more, _ = libraries(udevadm, libpath)
        libs += more
        for helper in ("ata_id", "scsi_id"):
            p = os.path.join(root, "lib/udev", helper)
            if os.path.exists(p):
                shutil.copy(p, os.path.join(ir, "lib/udev", helper))
                libs += libraries(p, libpath)[0]
        shutil.copytree(os.path.join(root, "lib/udev/rules.d"), os.path.join(ir, "lib/udev/rules.d"))
    # The host's smartctl (smartmontools, scripts/install-deps.sh test), to compare with in the
    # guest; without it the ATA checks compare with the captured pages' expectations only.
    smartctl = shutil.which("smartctl") or ("/usr/sbin/smartctl"
                                            if os.path.exists("/usr/sbin/smartctl") else None)
    if smartctl:
        shutil.copy(smartctl, os.path.join(ir, "bin/smartctl"))
        libs += libraries(smartctl)[0]
    for lib in set(libs):
        shutil.copy(lib, os.path.join(ir, "lab/lib", os.path.basename(lib)))
    shutil.copy(interp, os.path.join(ir, "lib64", os.path.basename(interp)))
    # Modules in load order (dependencies first).
    mods = module_deps(root, version)
    order = []

    def add(name):
        if name in order:
            return
        if name not in mods:
            raise RuntimeError("module %s not in %s" % (name, version))
        for dep in mods[name][1]:
            add(dep)
        order.append(name)

    for m in MODULES:
        add(m)
    for m in order:
        shutil.copy(mods[m][0], os.path.join(ir, "lab/modules", m + ".ko"))
    with open(os.path.join(ir, "lab/modules.order"), "w") as f:
        f.write("\n".join(m + ".ko" for m in order) + "\n")
    with open(os.path.join(ir, "lab/disk-count"), "w") as f:
        f.write("%d\n" % len(DISKS))
    for name, pci in (("sata-pci", "0000:00:05.0"), ("usb-pci", "0000:00:08.0")):
        with open(os.path.join(ir, "lab", name), "w") as f:
            f.write(pci + "\n")
    for suite in ("warn-suite.xml", "run-suite.xml", "selftest-suite.xml", "zoned-read-suite.xml",
                  "zbd-read-suite.xml", "powercut_guest.sh"):
        shutil.copy(os.path.join(HERE, suite), os.path.join(ir, "lab", suite))
    initrd = os.path.join(lab, "initrd.gz")
    busybox = os.path.join(root, "bin/busybox")
    files = subprocess.run(["find", "."], cwd=ir, capture_output=True, text=True).stdout
    cpio = subprocess.run([busybox, "cpio", "-o", "-H", "newc"], cwd=ir, input=files.encode(),
                          capture_output=True, check=True).stdout
    with open(initrd, "wb") as f:
        f.write(subprocess.run(["gzip", "-1"], input=cpio, capture_output=True, check=True).stdout)
    return initrd


def qmp_command(path, command, arguments):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    f = s.makefile("rw")
    f.readline()  # greeting
    for msg in ({"execute": "qmp_capabilities"}, {"execute": command, "arguments": arguments}):
        f.write(json.dumps(msg) + "\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if "return" in reply or "error" in reply:
                break
    s.close()
    return reply


def boot(lab, qemu, datadir, kernel, initrd, mode, log):
    qmp = os.path.join(lab, "qmp.sock")
    if os.path.exists(qmp):
        os.unlink(qmp)
    os.makedirs(os.path.join(lab, "disks"), exist_ok=True)
    for disk in DISKS:
        img = os.path.join(lab, "disks", disk["image"] + ".img")
        with open(img, "wb") as f:
            f.truncate(64 << 20)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = datadir["libs"]
    cmd = [qemu, "-L", datadir["bios"], "-L", datadir["seabios"]] + qemu_args(
        lab, kernel, initrd, mode, qmp)
    blocks, current, raised = {}, None, None
    with open(log, "w") as logf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        for raw in p.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            logf.write(line + "\n")
            if line.startswith("LAB:BEGIN "):
                current, buf = line[10:], []
            elif line.startswith("LAB:END ") and current:
                try:
                    data = base64.b64decode("".join(buf))
                    # Captured ATA pages stay bytes; everything else is text.
                    blocks[current] = data if current.startswith("ata page ") else \
                        data.decode(errors="replace")
                except ValueError:
                    blocks[current] = "<undecodable>"
                current = None
            elif current is not None:
                buf.append(line.strip())
            elif line.startswith("LAB:RAISE-WARNING"):
                # Available spare below threshold (bit 0) and reliability degraded (bit 2).
                # On both controllers: the kernel sends the namespace head's admin commands
                # down whichever path it picks.
                for ctrl in ("nvme0", "nvme1"):
                    raised = qmp_command(qmp, "qom-set", {"path": "/machine/peripheral/" + ctrl,
                                                          "property": "smart_critical_warning",
                                                          "value": 5})
                    logf.write("host: qom-set %s smart_critical_warning=5: %s\n"
                               % (ctrl, json.dumps(raised)))
        p.wait()
    return blocks, raised


def rows_of(identity_json):
    try:
        j = json.loads(identity_json)
    except ValueError:
        return None
    return {r["field"]: r["value"] for r in j.get("identity", [])}


class Checks:
    def __init__(self):
        self.failed = []
        self.count = 0

    def expect(self, ok, what):
        self.count += 1
        if not ok:
            self.failed.append(what)
            print("  FAIL: " + what)


def find_disk(blocks, passname, disk):
    kind, key = disk["match"]
    for tag, text in blocks.items():
        parts = tag.split(" ")
        if parts[0] != passname or parts[1] != "path":
            continue
        name = parts[2]
        if (kind == "nsid" and "/nvme-subsystem/" in text and re.fullmatch(r"nvme\d+n" + key, name)) \
                or (kind == "pci" and "/" + key + "/" in text):
            return name
    return None


def check_identity(blocks, passname, checks, table):
    for disk in DISKS:
        dev = find_disk(blocks, passname, disk)
        checks.expect(dev is not None, "%s: %s not found in the guest" % (passname, disk["name"]))
        if dev is None:
            continue
        rows = rows_of(blocks.get("%s json %s" % (passname, dev), "")) or {}
        text = blocks.get("%s text %s" % (passname, dev), "")
        for field, want in disk["expect"].items():
            got = rows.get(field, "<absent>")
            pattern = want[3:] if want.startswith("re:") else re.escape(want)
            checks.expect(re.fullmatch(pattern, got) is not None,
                          "%s %s (%s) %s: JSON says %r, QEMU was given %r"
                          % (passname, disk["name"], dev, field, got, want))
            line = next((l for l in text.splitlines() if l.split()[:1] == [field]), "")
            checks.expect(re.search(r"\s" + pattern + r"\s", line + " ") is not None,
                          "%s %s (%s) %s: text row %r lacks %r"
                          % (passname, disk["name"], dev, field, line.strip(), want))
            table.setdefault((disk["name"], dev, field), {"want": want})[passname] = got
    listing = blocks.get(passname + " list-json", "")
    try:
        names = [d["name"] for d in json.loads(listing)["devices"]]
    except (ValueError, KeyError):
        names = []
    checks.expect(not any(re.match(r"nvme\d+c\d+n\d+", n) for n in names) and names,
                  "%s: the device list shows hidden NVMe paths or nothing: %s" % (passname, names))


def check_zoned(blocks, passname, checks):
    """The zoned namespace's zone size and limits come from the controller (ZNS Identify
    Namespace), its model from sysfs; a run that writes is refused naming the zones and exits 2,
    a read run with --no-fill ends with a verdict."""
    disk = disk_of("nvme-ns3")
    dev = find_disk(blocks, passname, disk)
    try:
        rows = {r["field"]: r["source"] for r in
                json.loads(blocks.get("%s json %s" % (passname, dev), ""))["identity"]}
    except (ValueError, KeyError, TypeError):
        rows = {}
    for field, source in (("zone_model", "sysfs:queue/zoned"),
                          ("zone_size_bytes", "nvme:zns-identify-ns"),
                          ("max_open_zones", "nvme:zns-identify-ns"),
                          ("max_active_zones", "nvme:zns-identify-ns"),
                          ("zones", "sysfs:queue/nr_zones")):
        checks.expect(rows.get(field) == source, "%s zoned %s: %s from %r, expected %r"
                      % (passname, dev, field, rows.get(field), source))
    if passname != "noudev":
        return
    refused = blocks.get("zoned write", "")
    checks.expect("exit 2" in refused and "is a zoned block device (host-managed, 8 zones of "
                  "8.00 MiB" in refused and "randwrite-4k" in refused,
                  "a run that writes on the zoned namespace is refused naming the zones and "
                  "randwrite-4k: %s" % refused[-400:])
    bench = blocks.get("zoned bench", "")
    checks.expect("exit 2" in bench and "it is a host-managed zoned block device" in bench,
                  "storqual bench writing the zoned namespace is refused by the safety guard: %s"
                  % bench[-400:])
    reads = blocks.get("zoned read", "")
    checks.expect(re.search(r"RESULT: (PASS|MEASURED)", reads) is not None and "exit 0" in reads,
                  "a read run with --no-fill on the zoned namespace ends with a verdict: %s"
                  % reads[-400:])
    check_zbd_read(blocks, checks)


def check_zbd_read(blocks, checks):
    """fio's zbd-seq-read (tests/lab/zbd-read-suite.xml) after writes at the write pointers: 12 MiB
    from zone 0's start (zone 0 full, zone 1 to 12 MiB) and 2176 KiB from zone 3's (to 26.125
    MiB). With read_beyond_wp=0 storqual reads exactly the whole 256 KiB blocks below the write
    pointers, 14 MiB in 56 I/Os, skipping zone 1's rest, zone 2 and zone 3's half block; storqual
    bench's latency log of the same read has every offset of those blocks once and none ending
    past its zone's write pointer."""
    log = blocks.get("zbd read", "")
    checks.expect(log.count("dd exit 0") == 2 and "run exit 0" in log and "bench exit 0" in log,
                  "dd wrote at the write pointers and both zbd reads ran: %s" % log[-600:])
    try:
        workloads = json.loads(blocks.get("zbd json", ""))["workloads"]
    except (ValueError, KeyError, TypeError):
        workloads = []
    read = [w for w in workloads if w.get("id") == "dev1"]
    got = read[0].get("read", {}) if read else {}
    checks.expect(got.get("bytes") == 14 << 20 and got.get("ios") == 56 and
                  got.get("errors") == 0,
                  "zbd-seq-read read %r bytes in %r I/Os, expected 14 MiB in 56 of 256 KiB (the "
                  "whole blocks below the write pointers): %s"
                  % (got.get("bytes"), got.get("ios"), str(read)[:600]))
    mib, bs = 1 << 20, 256 << 10
    wps = {0: 8 * mib, 1: 12 * mib, 3: 24 * mib + 2176 * 1024}  # zone -> its write pointer
    want = [k * bs for k in range(48)] + [24 * mib + k * bs for k in range(8)]
    offsets = []
    for line in blocks.get("zbd lat log", "").splitlines():
        f = line.split(",")
        if len(f) >= 5 and f[4].strip().isdigit():
            offsets.append(int(f[4]))
    past = [o for o in offsets if o + bs > wps.get(o // (8 * mib), 0)]
    checks.expect(sorted(offsets) == want and not past,
                  "storqual bench's zbd read: %d I/Os at the blocks below the write pointers "
                  "(expected %d), %d past a write pointer %s"
                  % (len(offsets), len(want), len(past), past[:4]))


def check_warning_run(blocks, raised, checks):
    console = blocks.get("warn console", "")
    warning = "new critical warning 0x05: available spare below threshold, reliability degraded"
    checks.expect(raised is not None and "return" in raised,
                  "QMP qom-set smart_critical_warning answered %r" % (raised,))
    checks.expect("exit 1" in console, "the run with the raised warning exits 1: %s"
                  % console[-400:])
    checks.expect("DEVICE HEALTH FAILED" in console and warning in console,
                  "the console names the warning: %s" % console[-600:])
    checks.expect(warning in blocks.get("warn junit", "") and "device-health" in
                  blocks.get("warn junit", ""), "the JUnit has the device-health failure")
    try:
        verdicts = json.loads(blocks.get("warn json", ""))["verdicts"]
    except (ValueError, KeyError):
        verdicts = []
    health = [v for v in verdicts if v.get("kind") == "health"]
    checks.expect(health and health[0]["status"] == "fail" and warning in health[0]["message"],
                  "the JSON has the failed health verdict: %s" % health)
    checks.expect(warning in blocks.get("warn html", ""), "the HTML names the warning")


# What QEMU 10 serves as log page C0h with ocp=on (hw/nvme/ctrl.c, nvme_ocp_extended_smart_info):
# a zeroed page with the physical media bytes written and read (the sum over the controller's
# namespaces of the block layer's byte counters, the same counters its SMART log's data units
# come from), log page version 5 and the OCP GUID. Every other field stays 0.
OCP_GUID = "AFD514C97C6F4F9CA4F2BFEA2810AFC5 (OCP)"
OCP_ZERO_FIELDS = [
    "bad_user_nand_blocks", "bad_user_nand_blocks_normalized", "bad_system_nand_blocks",
    "bad_system_nand_blocks_normalized", "xor_recovery_count", "uncorrectable_read_errors",
    "soft_ecc_errors", "end_to_end_detected_errors", "end_to_end_corrected_errors",
    "system_data_used_pct", "refresh_counts", "user_data_erase_count_max",
    "user_data_erase_count_min", "thermal_throttling_events", "thermal_throttling_status",
    "pcie_correctable_errors", "incomplete_shutdowns", "percent_free_blocks",
    "capacitor_health_pct", "unaligned_io", "security_version", "nuse", "plp_start_count",
    "endurance_estimate"]
DATA_UNIT = 512 * 1000  # an NVMe SMART data unit


def qemu_data_units(byte_count):
    # QEMU's SMART log: DIV_ROUND_UP(bytes >> BDRV_SECTOR_BITS, 1000).
    return ((byte_count >> 9) + 999) // 1000


def as_int(rows, field):
    try:
        return int(rows.get(field, ""))
    except ValueError:
        return None


def check_ocp_page(rows, what, checks):
    """One health snapshot's rows (SMART and C0h) against what QEMU serves; returns the media
    bytes (written, read) or None."""
    if "ocp.c0h" in rows:
        checks.expect(False, "%s: no C0h log from a controller with ocp=on: %s"
                      % (what, rows["ocp.c0h"]))
        return None
    checks.expect(rows.get("ocp.log_page_guid") == OCP_GUID, "%s: ocp.log_page_guid %r, QEMU "
                  "serves %r" % (what, rows.get("ocp.log_page_guid"), OCP_GUID))
    checks.expect(rows.get("ocp.log_page_version") == "5", "%s: ocp.log_page_version %r, QEMU "
                  "serves 5" % (what, rows.get("ocp.log_page_version")))
    nonzero = ["%s=%s" % (f, rows.get("ocp." + f)) for f in OCP_ZERO_FIELDS
               if rows.get("ocp." + f) != "0"]
    checks.expect(not nonzero, "%s: fields QEMU leaves 0 decoded otherwise: %s" % (what, nonzero))
    written = as_int(rows, "ocp.physical_media_written_bytes")
    read = as_int(rows, "ocp.physical_media_read_bytes")
    checks.expect(written is not None and read is not None,
                  "%s: media bytes written %r, read %r" % (what, written, read))
    if written is None or read is None:
        return None
    # Both logs from one byte counter, read back to back with no I/O between them.
    for direction, media in (("written", written), ("read", read)):
        units = as_int(rows, "data_units_" + direction)
        checks.expect(units == qemu_data_units(media),
                      "%s: SMART data_units_%s %r, QEMU derives %d from C0h's %d bytes"
                      % (what, direction, units, qemu_data_units(media), media))
        checks.expect(media % 512 == 0, "%s: media bytes %s %d not whole sectors"
                      % (what, direction, media))
    return written, read


def check_ocp_identity(blocks, passname, checks, table):
    """identify --target on both namespaces: the decoded C0h page in the JSON and text rows,
    before anything wrote to the namespaces (only the kernel's partition scan read them)."""
    for disk in (disk_of("nvme-ns1"), disk_of("nvme-ns2")):
        dev = find_disk(blocks, passname, disk)
        if dev is None:
            continue  # check_identity reported it
        try:
            health = json.loads(blocks.get("%s json %s" % (passname, dev), ""))["health"]
            rows = {r["field"]: r["value"] for r in health}
        except (ValueError, KeyError, TypeError):
            rows = {}
        what = "%s %s (%s) C0h" % (passname, disk["name"], dev)
        got = check_ocp_page(rows, what, checks)
        if got:
            checks.expect(got[0] == 0, "%s: %d media bytes written before any write"
                          % (what, got[0]))
            checks.expect(got[1] > 0, "%s: no media bytes read after the kernel's partition scan"
                          % what)
            table.setdefault((disk["name"], dev, "ocp.physical_media_written/read_bytes"),
                             {"want": "0 / > 0"})[passname] = "%d / %d" % got
        text = blocks.get("%s text %s" % (passname, dev), "")
        checks.expect(re.search(r"^\s*ocp\.log_page_guid\s+" + re.escape(OCP_GUID) +
                                r"\s+nvme:ocp-c0h$", text, re.M) is not None,
                      "%s: the text output lacks the ocp.log_page_guid row" % what)
        for field in ("ocp.log_page_guid", "ocp.log_page_version"):
            table.setdefault((disk["name"], dev, field),
                             {"want": OCP_GUID if field.endswith("guid") else "5"})[passname] = \
                rows.get(field, "<absent>")


def check_ocp_run(result_json, html, what, checks):
    """A run with writes on an NVMe namespace: the C0h page before and after, its diff and the
    write amplification in the result JSON (and the HTML when given). Returns a summary line."""
    try:
        r = json.loads(result_json)
        device, workloads = r["device"], r["workloads"]
    except (ValueError, KeyError, TypeError):
        checks.expect(False, "%s: no result JSON" % what)
        return None
    snap = {}
    for when in ("before", "after"):
        rows = {x["field"]: x["value"] for x in device.get("health_" + when, [])}
        snap[when] = check_ocp_page(rows, "%s health_%s" % (what, when), checks)
        snap[when + "_units"] = as_int(rows, "data_units_written")
    if not snap["before"] or not snap["after"]:
        return None
    media_w = snap["after"][0] - snap["before"][0]
    media_r = snap["after"][1] - snap["before"][1]
    # A read workload's fill (docs/measurement.md, "Reads of written data") writes its region and
    # reads a sample of it first, outside the workload's own counts.
    fills = [f for w in workloads for f in w.get("fill", [])]
    host_w = sum(w.get("write", {}).get("bytes", 0) for w in workloads) + \
        sum(f.get("bytes", 0) for f in fills)
    host_r = sum(w.get("read", {}).get("bytes", 0) for w in workloads) + \
        sum(f.get("sample_bytes", 0) for f in fills)
    checks.expect(host_w > 0, "%s: the run wrote nothing" % what)
    # The disk's own counters: a disk that counts shows the workload's I/O; one that does not (the
    # multipath head, queue/iostats 0) has no disk_stats rather than zeros.
    for w in workloads:
        ds, moved = w.get("disk_stats"), ("read" in w) or ("write" in w)
        if ds is not None and moved:
            checks.expect(ds.get("read_ios", 0) + ds.get("write_ios", 0) > 0,
                          "%s: %s's disk_stats (%s) show no I/O" % (what, w.get("id"), ds.get("name")))
    # QEMU counts every byte the guest's commands moved; storqual's figures count the I/Os its
    # workloads completed within their runtime, so the device saw at least that much, and at most
    # the I/Os still in flight when each workload's time ran out (iodepth x numjobs x bs) more.
    for direction, media, host in (("written", media_w, host_w), ("read", media_r, host_r)):
        kind = "write" if direction == "written" else "read"
        in_flight = sum(p.get("iodepth", 1) * p.get("numjobs", 1) * p.get("bs", 0)
                        for p in (w.get("params", {}) for w in workloads if kind in w))
        checks.expect(host <= media <= host + in_flight,
                      "%s: C0h media bytes %s grew by %d over a run whose workloads %s %d bytes "
                      "(at most %d more in flight)" % (what, direction, media, direction, host,
                                                       in_flight))
    changes = device.get("health_changes", [])
    line = "ocp: media written %d bytes" % media_w
    checks.expect(line in changes, "%s: health_changes lack %r: %s" % (what, line, changes))
    wear = device.get("wear") or {}
    host_units = (snap["after_units"] or 0) - (snap["before_units"] or 0)
    checks.expect(wear.get("media_written_bytes") == media_w, "%s: wear.media_written_bytes %r, "
                  "the C0h delta is %d" % (what, wear.get("media_written_bytes"), media_w))
    checks.expect(wear.get("host_written_bytes") == host_units * DATA_UNIT,
                  "%s: wear.host_written_bytes %r, the SMART delta is %d data units"
                  % (what, wear.get("host_written_bytes"), host_units))
    waf = wear.get("waf")
    checks.expect(waf is not None and host_units > 0 and
                  abs(waf - media_w / (host_units * DATA_UNIT)) < 1e-9,
                  "%s: wear.waf %r, C0h / SMART = %d / %d" % (what, waf, media_w,
                                                             host_units * DATA_UNIT))
    # Both deltas come from one counter: they differ by the SMART log's rounding only (under
    # one data unit, plus the sector truncation at each end).
    checks.expect(abs(media_w - host_units * DATA_UNIT) < DATA_UNIT + 1024,
                  "%s: media %d and host %d bytes written differ by more than one data unit"
                  % (what, media_w, host_units * DATA_UNIT))
    # QEMU's percentage used is always 0: no endurance projection, and the report says why.
    checks.expect(wear.get("percentage_used_after") == 0 and wear.get("dwpd") is None and
                  str(wear.get("basis", "")).startswith("no projection"),
                  "%s: endurance from a drive at 0%% used: %s" % (what, wear))
    if html is not None:
        checks.expect("media writes (OCP C0h)</th><td>" in html and "no C0h log" not in html,
                      "%s: the HTML lacks the C0h media writes: %r" % (what, html[:300]))
        m = re.search(r"write amplification</th><td>([0-9.]+)", html)
        checks.expect(m is not None and waf is not None and abs(float(m.group(1)) - waf) < 0.01,
                      "%s: the HTML write amplification %r, the JSON %r"
                      % (what, m.group(1) if m else None, waf))
    return ("%s: C0h media written +%d B, read +%d B; workloads wrote %d B, read %d B; SMART "
            "+%d data units; waf %s" % (what, media_w, media_r, host_w, host_r, host_units,
                                        "%.4f" % waf if waf is not None else None))


ATTR_ROW = re.compile(r"value (\d+), worst (\d+), threshold (\S+), (Pre-fail|Old_age), "
                      r"raw (.*), when failed (\S+)$")


def check_ata_health(blocks, lab, checks):
    """The AHCI disk's SMART as storqual read it through SG_IO equals smartctl's reading in the
    guest, field by field; the USB disk names the gap. Writes the captured pages to lab/ata-pages
    (tests/data/ata/make_pages.py takes them from there)."""
    try:
        ours = json.loads(blocks.get("ata json", ""))
    except ValueError:
        checks.expect(False, "storqual identify --json on the SATA disk: %s"
                      % blocks.get("ata json", "(none)")[-300:])
        return None
    health = {r["field"]: r["value"] for r in ours.get("health", [])}
    checks.expect(len(health) > 0, "ATA health rows of the SATA disk: notes %s" % ours.get("notes"))
    pages = os.path.join(lab, "ata-pages")
    shutil.rmtree(pages, ignore_errors=True)
    os.makedirs(pages)
    for tag, text in blocks.items():
        if tag.startswith("ata page "):
            with open(os.path.join(pages, tag[len("ata page "):]), "wb") as f:
                f.write(text)
    if "ata smartctl" in blocks:
        with open(os.path.join(pages, "smartctl.json"), "w") as f:
            f.write(blocks["ata smartctl"])
    usb = blocks.get("ata usb json", "")
    checks.expect("health not readable through this bridge" in usb,
                  "the USB disk names the gap: %s" % usb[-400:])
    # QEMU's scsi-hd answers neither ATA PASS-THROUGH nor LOG SENSE: both refusals are named, and
    # so is what READ DEFECT DATA (refused: an invalid opcode there) and REQUEST SENSE answered.
    for disk in (disk_of("vscsi"), disk_of("lsi")):
        name = find_disk(blocks, "noudev", disk)
        text = blocks.get("noudev json %s" % name, "")
        checks.expect("health not readable" in text and "LOG SENSE page 0x00 refused" in text,
                      "%s names its health gap: %s" % (disk["name"], text[-400:]))
        defects = re.search(r"grown defect(s: [^;\"]+| list not readable: [^\"]*?\(10\)[^;\"]*)",
                            text)
        sense = re.search(r"REQUEST SENSE( not readable)?: [^;\"]+", text)
        checks.expect(defects is not None and sense is not None,
                      "%s names its grown defect list and REQUEST SENSE: %s"
                      % (disk["name"], text[-600:]))
        if defects and sense:
            print("lab: %s: %s; %s" % (disk["name"], defects.group(0), sense.group(0)))
    sata = find_disk(blocks, "noudev", disk_of("sata"))
    if "udev json %s" % sata in blocks:  # the full lab: the same reading with udev running
        try:
            with_udev = {r["field"]: r["value"]
                         for r in json.loads(blocks["udev json %s" % sata]).get("health", [])}
        except ValueError:
            with_udev = {}
        checks.expect(with_udev == health, "the SATA disk's health rows with udev equal those "
                      "without: %s" % sorted(set(with_udev.items()) ^ set(health.items())))
    if "run json %s" % sata in blocks:  # the full lab: the SATA run has its health testcase
        try:
            verdicts = json.loads(blocks["run json %s" % sata]).get("verdicts", [])
        except ValueError:
            verdicts = []
        health_verdicts = [v for v in verdicts if v.get("kind") == "health"]
        checks.expect(len(health_verdicts) == 1 and health_verdicts[0].get("status") == "pass",
                      "the SATA run's health testcase passes: %s" % health_verdicts)
    try:
        ref = json.loads(blocks.get("ata smartctl", ""))
    except ValueError:
        print("lab: no smartctl in the guest: ATA health compared with nothing")
        return "ata: %d health rows, smartctl not in the guest" % len(health)
    checks.expect(health.get("smart_status") == ("passed" if ref["smart_status"]["passed"]
                                                 else "failing"),
                  "SMART status: %s vs smartctl %s" % (health.get("smart_status"),
                                                       ref.get("smart_status")))
    table = ref.get("ata_smart_attributes", {}).get("table", [])
    checks.expect(len(table) > 0, "smartctl read attributes")
    compared = 0
    for a in table:
        field = "attr.%03d.%s" % (a["id"], a["name"])
        m = ATTR_ROW.match(health.get(field, ""))
        checks.expect(m is not None, "%s in storqual's rows: %s" % (field, sorted(health)))
        if not m:
            continue
        want = (str(a["value"]), str(a["worst"]), str(a["thresh"]),
                "Pre-fail" if a["flags"]["prefailure"] else "Old_age", a["raw"]["string"],
                a.get("when_failed") or "-")
        checks.expect(m.groups() == want, "%s: storqual %s, smartctl %s" % (field, m.groups(), want))
        compared += 1
    ours_attrs = [f for f in health if f.startswith("attr.")]
    checks.expect(len(ours_attrs) == len(table), "as many attributes as smartctl: %d vs %d"
                  % (len(ours_attrs), len(table)))
    if "power_on_time" in ref:
        checks.expect(health.get("power_on_hours") == str(ref["power_on_time"]["hours"]),
                      "power-on hours %s vs %s" % (health.get("power_on_hours"),
                                                   ref["power_on_time"]))
    if "temperature" in ref:
        checks.expect(health.get("temperature_c") == str(ref["temperature"]["current"]),
                      "temperature %s vs %s" % (health.get("temperature_c"), ref["temperature"]))
    errors = ref.get("ata_smart_error_log", {}).get("summary", {})
    if "count" in errors:
        checks.expect(health.get("error_log_count") == str(errors["count"]),
                      "error log count %s vs %s" % (health.get("error_log_count"), errors))
    tests = ref.get("ata_smart_self_test_log", {}).get("standard", {}).get("table", [])
    checks.expect(health.get("self_test_entries") == str(len(tests)),
                  "self-test entries %s vs %d" % (health.get("self_test_entries"), len(tests)))
    if tests:
        t = tests[0]
        want = "%s: %s at %d h" % (t["type"]["string"], t["status"]["string"], t["lifetime_hours"])
        checks.expect(health.get("self_test_last") == want,
                      "last self-test %s vs %s" % (health.get("self_test_last"), want))
    return "ata: %d attributes equal smartctl's, %d self-test entries" % (compared, len(tests))


def check_self_tests(blocks, checks):
    """A short self-test started by storqual on the AHCI disk passed and left the newest entry of
    the log smartctl reads in the guest; the conveyance test QEMU refuses is a named "not
    supported"; the NVMe namespace and a SCSI disk each end with a named outcome, never silence."""
    lines = []
    for disk in ("sata", "nvme", "scsi"):
        raw = blocks.get("selftest json " + disk)
        if raw is None:
            continue
        try:
            verdicts = {v["workload"]: v for v in json.loads(raw).get("verdicts", [])
                        if v.get("kind") == "health" and v.get("metric", "").startswith("self-test")}
        except ValueError:
            checks.expect(False, "selftest json %s reads: %s" % (disk, raw[-300:]))
            continue
        for wid, v in sorted(verdicts.items()):
            checks.expect(bool(v.get("message")), "%s %s names its outcome" % (disk, wid))
            lines.append("self-test %s %s: %s: %s" % (disk, wid, v.get("status"), v.get("message")))
        if disk == "sata":
            short = verdicts.get("short", {})
            checks.expect(short.get("status") == "pass",
                          "the AHCI disk's short self-test passed: %s" % short)
            conv = verdicts.get("conveyance", {})
            checks.expect(conv.get("status") == "skipped" and
                          "not supported" in conv.get("message", ""),
                          "the AHCI disk's conveyance test is a named not supported: %s" % conv)
            try:
                ref = json.loads(blocks.get("selftest smartctl", ""))
                table = ref["ata_smart_self_test_log"]["standard"]["table"]
            except (ValueError, KeyError) as e:
                checks.expect(False, "smartctl reads the self-test log after storqual's test: %r %s"
                              % (e, blocks.get("selftest smartctl", "")[-300:]))
                continue
            try:
                before = len(json.loads(blocks.get("selftest smartctl before", ""))
                             ["ata_smart_self_test_log"]["standard"]["table"])
            except (ValueError, KeyError):
                before = 0
            checks.expect(len(table) == before + 1,
                          "smartctl's log has one entry more after storqual's test: %d -> %d"
                          % (before, len(table)))
            newest = table[0]
            checks.expect(newest["type"]["string"] == "Short offline" and
                          newest["status"]["passed"] and
                          "Completed without error" in newest["status"]["string"],
                          "smartctl's newest entry is storqual's passed short test: %s" % newest)
            lines.append("self-test sata: smartctl's newest entry: %s, %s"
                         % (newest["type"]["string"], newest["status"]["string"]))
        else:
            for wid, v in verdicts.items():
                checks.expect(v.get("status") in ("pass", "skipped"),
                              "%s %s: passed or a named skip: %s" % (disk, wid, v))
            short = verdicts.get("short", {})
            if disk == "scsi":  # QEMU's scsi-hd: SEND DIAGNOSTIC is an invalid opcode
                checks.expect(short.get("status") == "skipped" and
                              "SEND DIAGNOSTIC" in short.get("message", "") and
                              "ILLEGAL REQUEST" in short.get("message", ""),
                              "the SCSI disk's refusal of SEND DIAGNOSTIC is named: %s" % short)
            checks.expect(bool(short), "%s has a short self-test testcase" % disk)
    checks.expect(any(l.startswith("self-test sata") for l in lines),
                  "storqual ran a self-test on the AHCI disk: %s"
                  % blocks.get("selftest console sata", "(none)")[-400:])
    return "\n".join(lines)


def check_runs_and_guards(blocks, checks):
    runs = sorted(t for t in blocks if t.startswith("run console "))
    checks.expect(len(runs) >= len(DISKS), "a run on every disk: %s" % runs)
    zoned = find_disk(blocks, "noudev", disk_of("nvme-ns3"))
    for tag in runs:
        text = blocks[tag]
        if tag == "run console %s" % zoned:  # a run that writes: refused (check_zoned)
            checks.expect("exit 2" in text and "zoned block device" in text,
                          "%s is refused as zoned: %s" % (tag, text[-300:]))
            continue
        checks.expect(re.search(r"RESULT: (PASS|FAIL|ERROR|MEASURED)", text) is not None,
                      "%s ends with a verdict: %s" % (tag, text[-300:]))
    for name in ("mounted", "signature", "no-destructive", "swap"):
        text = blocks.get("guard " + name, "")
        checks.expect("exit 2" in text, "guard %s refuses with exit 2: %s" % (name, text[-300:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--short", action="store_true", help="identity of every disk and the run "
                    "with the mid-run warning only (what make test runs)")
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    t0 = time.time()
    build = os.path.abspath(args.build)
    lab = os.path.join(build, "lab")
    storqual = os.path.join(build, "app", "storqual")
    if not os.path.exists(storqual):
        print("lab: FAILED: no storqual binary at %s (build first)" % storqual)
        return CANNOT_RUN
    r = subprocess.run([os.path.join(HERE, "fetch.sh"), lab], capture_output=True, text=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        print("lab: FAILED: QEMU or the guest kernel could not be fetched: " + r.stdout + r.stderr)
        return CANNOT_RUN
    with open(os.path.join(lab, "fetched")) as f:
        qemu_suite, kernel_pkg = f.read().split()[:2]
    root = os.path.join(lab, "root")
    version = kernel_pkg[len("linux-image-"):]
    kernel = os.path.join(root, "boot", "vmlinuz-" + version)
    qemu = os.path.join(root, "usr/bin/qemu-system-x86_64")
    datadir = {"bios": os.path.join(root, "usr/share/qemu"),
               "seabios": os.path.join(root, "usr/share/seabios"),
               "libs": ":".join(os.path.join(root, p) for p in
                                ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"))}
    version_text = subprocess.run([qemu, "--version"], capture_output=True, text=True,
                                  env=dict(os.environ, LD_LIBRARY_PATH=datadir["libs"])).stdout
    print("lab: %s; kernel %s; %s mode" % (version_text.splitlines()[0] if version_text else
                                           "QEMU does not start", version,
                                           "short" if args.short else "full"))
    if not version_text:
        print("lab: FAILED: the unpacked QEMU (%s) does not start" % qemu)
        return CANNOT_RUN
    initrd = build_initramfs(lab, root, version, storqual)
    log = os.path.join(lab, "serial.log")
    blocks, raised = boot(lab, qemu, datadir, kernel, initrd, "short" if args.short else "full",
                          log)
    checks, table = Checks(), {}
    print("lab: guest finished in %.0f s; serial console in %s" % (time.time() - t0, log))
    check_identity(blocks, "noudev", checks, table)
    check_ocp_identity(blocks, "noudev", checks, table)
    check_zoned(blocks, "noudev", checks)
    passes = ["noudev"]
    if not args.short:
        if "udev json nvme0n1" in blocks or any(t.startswith("udev json") for t in blocks):
            check_identity(blocks, "udev", checks, table)
            check_ocp_identity(blocks, "udev", checks, table)
            check_zoned(blocks, "udev", checks)
            passes.append("udev")
        else:
            print("lab: systemd-udevd did not run in the guest: %s"
                  % blocks.get("udevd log", "(no log)").strip())
            checks.expect(False, "the pass with udev ran")
        check_runs_and_guards(blocks, checks)
    check_warning_run(blocks, raised, checks)
    ata_line = check_ata_health(blocks, lab, checks)
    self_test_line = check_self_tests(blocks, checks)
    # The C0h log over runs that wrote: the warning run, and in the full lab the NVMe runs.
    ocp_runs = [check_ocp_run(blocks.get("warn json", ""), blocks.get("warn html-wear", ""),
                              "warn run", checks)]
    if not args.short:
        zoned = find_disk(blocks, "noudev", disk_of("nvme-ns3"))
        for tag in sorted(t for t in blocks if re.fullmatch(r"run json nvme\d+n\d+", t)):
            if tag != "run json %s" % zoned:  # refused: no result
                ocp_runs.append(check_ocp_run(blocks[tag], None, tag, checks))
        checks.expect(len(ocp_runs) >= 3, "a run on both NVMe namespaces: %d" % (len(ocp_runs) - 1))
    print("\n| disk | device | field | configured | " + " | ".join(passes) + " |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in passes) + " |")
    for (disk, dev, field), v in table.items():
        print("| %s | %s | %s | %s | %s |" % (disk, dev, field, v["want"],
                                             " | ".join(v.get(p, "-") for p in passes)))
    for tag in sorted(t for t in blocks if t.startswith("guard ")):
        last = blocks[tag].strip().splitlines()
        print("%s: %s" % (tag, " / ".join(l for l in last if "refus" in l or l.startswith("exit")
                                          or "storqual" in l)[:300]))
    for line in ocp_runs + [ata_line, self_test_line]:
        if line:
            print(line)
    floor = MIN_CHECKS["short" if args.short else "full"]
    checks.expect(checks.count >= floor, "at least %d checks (the guest's blocks were all there): "
                  "%d" % (floor, checks.count))
    ok = not checks.failed and "LAB:DONE" in open(log, errors="replace").read()
    print("\nlab: %d checks, %d failed; wall time %.0f s (QEMU %s from %s)"
          % (checks.count, len(checks.failed), time.time() - t0,
             version_text.split()[3] if version_text else "?", qemu_suite))
    if not qemu_suite.endswith("-backports"):
        print("lab: note: Debian 12's QEMU 7.2 stalls its emulated NVMe; runs on it may error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
