// SPDX-License-Identifier: Apache-2.0
// Reading a device's identity from sysfs and udev (see device_identity.hpp).
#include "devices/device_identity.hpp"

#include <libudev.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include "devices/nvme_admin.hpp"
#include "devices/sanitize.hpp"

namespace storqual::devices {
namespace fs = std::filesystem;
namespace {

using Properties = std::map<std::string, std::string>;

// The udev database's view of a device (ID_MODEL_ENC, ID_SERIAL_SHORT, ...). libudev reads the
// live /run/udev, so this is asked only for the live /sys; empty when udev has no record.
Properties udev_properties(const fs::path& syspath) {
  Properties out;
  std::unique_ptr<udev, decltype(&udev_unref)> ctx(udev_new(), udev_unref);
  if (!ctx) return out;
  std::unique_ptr<udev_device, decltype(&udev_device_unref)> dev(
      udev_device_new_from_syspath(ctx.get(), syspath.c_str()), udev_device_unref);
  if (!dev) return out;
  for (auto* e = udev_device_get_properties_list_entry(dev.get()); e;
       e = udev_list_entry_get_next(e)) {
    const char* value = udev_list_entry_get_value(e);
    out[udev_list_entry_get_name(e)] = value ? value : "";
  }
  return out;
}

// A captured udev record next to a captured tree: <root>/../udev/<disk>.properties, one KEY=VALUE
// a line (what `udevadm info --query=property` prints). Empty when there is none.
Properties captured_udev_properties(const Sysfs& sysfs, const std::string& disk) {
  Properties out;
  std::ifstream in(sysfs.root().parent_path() / "udev" / (disk + ".properties"));
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos && eq > 0) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// udev's *_ENC properties escape bytes as \xNN (blkid_encode_string); decode before sanitizing.
std::string decode_udev_escapes(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 3]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

class Reader {
 public:
  Reader(const Sysfs& sysfs, fs::path dir) : sysfs_(sysfs), dir_(std::move(dir)) {}
  // An attribute relative to the device directory, sanitized, with source "sysfs:<relative>".
  Sourced attr(const std::string& relative) const {
    auto raw = sysfs_.read(dir_ / relative);
    if (!raw) return {};
    std::string v = sanitize_device_string(*raw);
    if (v.empty()) return {};
    return {v, "sysfs:" + relative};
  }
  // A 512-byte sector count converted to bytes.
  Sourced sectors_as_bytes(const std::string& relative) const {
    Sourced s = attr(relative);
    if (!s.known()) return s;
    try {
      s.value = std::to_string(std::stoull(s.value) * 512);
    } catch (const std::exception&) {
      return {};
    }
    return s;
  }
  bool has(const std::string& relative) const { return sysfs_.exists(dir_ / relative); }
  fs::path absolute() const { return sysfs_.root() / dir_; }

 private:
  const Sysfs& sysfs_;
  fs::path dir_;
};

Sourced with_source(std::string value, std::string source) {
  value = sanitize_device_string(value);
  if (value.empty()) return {};
  return {std::move(value), std::move(source)};
}

// A name shown to people (vendor, model): each run of spaces inside becomes one. SCSI INQUIRY and
// ATA IDENTIFY fields are fixed-width and space-padded, so a value of two words can hold the
// padding between them ("HP      INC"). Identifiers (serial, WWID, NQN) keep every byte.
void collapse_spaces(Sourced& s) {
  std::string out;
  for (char c : s.value)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  s.value = std::move(out);
}

// "none [mq-deadline] kyber" -> "mq-deadline"; a lone "none" stays "none".
Sourced active_scheduler(Sourced s) {
  auto open = s.value.find('[');
  auto close = s.value.find(']');
  if (open != std::string::npos && close != std::string::npos && close > open)
    s.value = s.value.substr(open + 1, close - open - 1);
  return s;
}

Sourced yes_no(Sourced s) {
  if (s.value == "1")
    s.value = "yes";
  else if (s.value == "0")
    s.value = "no";
  return s;
}

bool path_contains(const fs::path& p, std::string_view piece) {
  return p.generic_string().find(piece) != std::string::npos;
}

// A sysfs VPD page (device/vpd_pgXX: the raw INQUIRY response) when it is the page asked for;
// nullopt otherwise. Byte 1 is the page code, bytes 2-3 the length of what follows the header.
std::optional<std::string> vpd_page(const Sysfs& sysfs, const fs::path& dir, unsigned code) {
  char name[16];
  std::snprintf(name, sizeof name, "vpd_pg%02x", code);
  auto raw = sysfs.read(dir / "device" / name);
  if (!raw || raw->size() < 4 || static_cast<unsigned char>((*raw)[1]) != code) return std::nullopt;
  std::size_t len =
      (static_cast<unsigned char>((*raw)[2]) << 8) | static_cast<unsigned char>((*raw)[3]);
  return raw->substr(4, len);
}

// SCSI INQUIRY VPD page 0x80 (unit serial number): 4-byte header, then the serial in ASCII.
Sourced serial_from_vpd80(const Sysfs& sysfs, const fs::path& dir) {
  auto page = vpd_page(sysfs, dir, 0x80);
  return page ? with_source(*page, "sysfs:device/vpd_pg80") : Sourced{};
}

std::string hex_of(std::string_view bytes) {
  std::string out;
  char b[3];
  for (unsigned char c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    out += b;
  }
  return out;
}

// SCSI VPD page 0x83 (device identification, SPC-4 7.8.6): the logical unit's designator, in
// the form the kernel's device/wwid uses. Preference as in the kernel's scsi_vpd_lun_id: NAA,
// then EUI-64, then SCSI name string, then T10 vendor id; only designators of the logical unit
// (association 0), not of the target port.
Sourced wwid_from_vpd83(const Sysfs& sysfs, const fs::path& dir) {
  auto page = vpd_page(sysfs, dir, 0x83);
  if (!page) return {};
  std::string best;
  int best_rank = 0;
  for (std::size_t i = 0; i + 4 <= page->size();) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>((*page)[k]); };
    const unsigned assoc = (b(i + 1) >> 4) & 3, type = b(i + 1) & 0xf, len = b(i + 3);
    if (i + 4 + len > page->size()) break;
    std::string_view d(page->data() + i + 4, len);
    i += 4 + len;
    if (assoc != 0 || d.empty()) continue;
    int rank = 0;
    std::string v;
    if (type == 3) {
      rank = 4, v = "naa." + hex_of(d);
    } else if (type == 2) {
      rank = 3, v = "eui." + hex_of(d);
    } else if (type == 8) {
      rank = 2, v = sanitize_device_string(std::string(d));
    } else if (type == 1) {
      rank = 1, v = "t10." + sanitize_device_string(std::string(d));
    }
    if (rank > best_rank && !v.empty()) best = v, best_rank = rank;
  }
  return with_source(best, "sysfs:device/vpd_pg83");
}

// The ATA IDENTIFY DEVICE data a SCSI-ATA translation layer (libata, SAT-3 12.4.2) puts into VPD
// page 0x89 at byte 60 of the page (56 after the header). Strings are ATA strings: 16-bit words
// whose first character is the high byte, so each pair is swapped. Words 10-19 serial, 23-26
// firmware, 27-46 model, 108-111 world wide name.
struct AtaIdentify {
  Sourced model, serial, firmware, wwn;
};
AtaIdentify ata_identify_from_vpd89(const Sysfs& sysfs, const fs::path& dir) {
  auto page = vpd_page(sysfs, dir, 0x89);
  constexpr std::size_t kIdentify = 56;  // byte 60 of the page, after the 4-byte header
  if (!page || page->size() < kIdentify + 512) return {};
  const std::string_view id(page->data() + kIdentify, 512);
  const std::string source = "ata:identify (sysfs:device/vpd_pg89)";
  auto ata_string = [&](std::size_t first_word, std::size_t last_word) {
    std::string s;
    for (std::size_t w = first_word; w <= last_word; ++w) {
      s.push_back(id[2 * w + 1]);
      s.push_back(id[2 * w]);
    }
    return with_source(s, source);
  };
  AtaIdentify out{ata_string(27, 46), ata_string(10, 19), ata_string(23, 26), {}};
  // Word 87 bit 8 (with bits 15:14 = 01b) says words 108-111 hold a WWN; each word big-endian.
  auto word = [&](std::size_t w) {
    return static_cast<unsigned>(static_cast<unsigned char>(id[2 * w])) |
           (static_cast<unsigned>(static_cast<unsigned char>(id[2 * w + 1])) << 8);
  };
  if ((word(87) & 0xc100) == 0x4100) {
    std::string wwn;
    for (std::size_t w = 108; w <= 111; ++w) {
      char b[5];
      std::snprintf(b, sizeof b, "%04x", word(w));
      wwn += b;
    }
    if (wwn != std::string(16, '0')) out.wwn = {"naa." + wwn, source};
  }
  return out;
}

// The SCSI host adapter's driver ("virtio_scsi", "sym53c8xx", "ahci", "usb-storage"): the
// hostN ancestor's scsi_host/hostN/proc_name.
Sourced scsi_host_driver(const Sysfs& sysfs, const fs::path& dir) {
  for (fs::path p = dir; !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    const std::string name = p.filename().string();
    if (name.size() > 4 && name.starts_with("host") &&
        std::all_of(name.begin() + 4, name.end(), [](char c) { return std::isdigit(c); })) {
      fs::path rel = p / "scsi_host" / name / "proc_name";
      auto raw = sysfs.read(rel);
      return raw ? with_source(*raw, "sysfs:" + rel.generic_string()) : Sourced{};
    }
  }
  return {};
}

// How specific a source is: VPD pages, ATA IDENTIFY and NVMe identify (what the device says)
// over udev's derived database over plain sysfs attributes (what a driver cached, often cut).
int source_rank(const Sourced& s) {
  if (!s.known()) return 0;
  if (s.source.starts_with("sysfs:device/vpd_pg") || s.source.starts_with("ata:") ||
      s.source.starts_with("nvme:"))
    return 3;
  if (s.source.starts_with("udev:")) return 2;
  return 1;
}

std::vector<std::string> hidden_nvme_paths(const Sysfs& sysfs, const std::string& head) {
  std::vector<std::string> out;
  auto n = head.rfind('n');
  if (!head.starts_with("nvme") || n == std::string::npos || n <= 4) return out;
  const std::string subsys = head.substr(4, n - 4), nsid = head.substr(n + 1);
  for (const auto& disk : sysfs.disks()) {
    if (!disk.starts_with("nvme" + subsys + "c")) continue;
    const std::size_t c = 5 + subsys.size(), dn = disk.rfind('n');
    if (dn == std::string::npos || dn <= c || disk.substr(dn + 1) != nsid) continue;
    const std::string ctrl = disk.substr(c, dn - c);
    if (!std::all_of(ctrl.begin(), ctrl.end(), [](char ch) { return std::isdigit(ch); })) continue;
    out.push_back(disk);
  }
  return out;
}

void read_nvme(const Sysfs& sysfs, const fs::path& dir, DeviceIdentity& id) {
  Reader r(sysfs, dir);
  // Without native multipath (and for the hidden path devices nvme0c0n1), device/ is the
  // controller; with it, the head disk's device/ is the nvme-subsystem, which carries the same
  // model/serial/firmware_rev attributes, and multipath/ links the path devices.
  id.model = r.attr("device/model");
  id.serial = r.attr("device/serial");
  id.firmware = r.attr("device/firmware_rev");
  id.wwid = r.attr("wwid");
  bool multipath = path_contains(sysfs.root() / dir, "/nvme-subsystem/");
  // Where the controller's attributes are read from: the namespace's own device/ without
  // multipath, the first path's device/ with it (named from the sysfs root then).
  std::optional<Reader> path_reader;
  std::string path_prefix;
  std::string controller_rel = "device";
  if (multipath) {
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(r.absolute() / "multipath", ec))
      paths.push_back(e.path().filename().string());
    // Kernels before 6.x's multipath/ links (6.1 has none): the path devices are the hidden
    // disks nvme<S>c<C>n<N> of this head nvme<S>n<N>, one per controller.
    if (paths.empty()) paths = hidden_nvme_paths(sysfs, id.disk);
    std::sort(paths.begin(), paths.end());
    id.details.push_back({"nvme_multipath", "native", "derived:device path"});
    std::string joined;
    for (const auto& p : paths) joined += (joined.empty() ? "" : " ") + p;
    const bool linked = r.has("multipath");
    if (!joined.empty())
      id.details.push_back(
          {"nvme_paths", joined, linked ? "sysfs:multipath/" : "sysfs:class/block (hidden paths)"});
    if (!paths.empty()) {
      if (linked) {
        controller_rel = "multipath/" + paths.front() + "/device";
      } else {
        // The head's device/ is the subsystem; the path's device/ is its controller.
        path_reader.emplace(sysfs, sysfs.block_dir_relative(paths.front()));
        path_prefix = "block/" + paths.front() + "/";
      }
    }
    Sourced subsys =
        with_source(fs::canonical(r.absolute() / "device", ec).filename().string(), "sysfs:device");
    if (subsys.known()) id.details.push_back({"nvme_subsystem", subsys.value, subsys.source});
  } else {
    std::error_code ec;
    Sourced ctrl =
        with_source(fs::canonical(r.absolute() / "device", ec).filename().string(), "sysfs:device");
    if (ctrl.known()) id.details.push_back({"nvme_controller", ctrl.value, ctrl.source});
  }
  auto controller_attr = [&](const std::string& name) {
    if (!path_reader) return r.attr(controller_rel + "/" + name);
    Sourced v = path_reader->attr("device/" + name);
    if (v.known()) v.source = "sysfs:" + path_prefix + v.source.substr(6);
    return v;
  };
  Sourced vendor = controller_attr("device/vendor");
  if (vendor.known()) id.vendor = {pci_vendor_name(vendor.value), vendor.source};
  if (Sourced t = controller_attr("transport"); t.known())
    id.details.push_back({"nvme_transport", t.value, t.source});
  if (Sourced nsid = r.attr("nsid"); nsid.known())
    id.details.push_back({"nvme_nsid", nsid.value, nsid.source});
  if (Sourced nqn = r.attr("device/subsysnqn"); nqn.known())
    id.details.push_back({"nvme_subsysnqn", nqn.value, nqn.source});
}

// The USB device (the ancestor with idVendor) above a USB mass-storage disk.
std::optional<fs::path> usb_ancestor(const Sysfs& sysfs, const fs::path& dir) {
  for (fs::path p = dir.parent_path(); !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    if (sysfs.exists(p / "idVendor")) return p;
  }
  return std::nullopt;
}

void read_scsi(const Sysfs& sysfs, const fs::path& dir, DeviceIdentity& id) {
  Reader r(sysfs, dir);
  id.vendor = r.attr("device/vendor");
  id.model = r.attr("device/model");
  id.firmware = r.attr("device/rev");
  id.wwid = wwid_from_vpd83(sysfs, dir);
  if (!id.wwid.known()) id.wwid = r.attr("device/wwid");
  id.serial = serial_from_vpd80(sysfs, dir);
  if (id.transport == Transport::Sata) {
    // The full 40-character model and 8-character firmware revision, which sysfs cuts to the
    // 16 and 4 characters of a SCSI INQUIRY.
    AtaIdentify ata = ata_identify_from_vpd89(sysfs, dir);
    if (ata.model.known()) id.model = ata.model;
    if (ata.serial.known()) id.serial = ata.serial;
    if (ata.firmware.known()) id.firmware = ata.firmware;
    if (!id.wwid.known() && ata.wwn.known()) id.wwid = ata.wwn;
  }
  if (Sourced host = scsi_host_driver(sysfs, dir); host.known())
    id.details.push_back({"scsi_host", host.value, host.source});
  if (id.transport == Transport::Usb) {
    if (auto usb = usb_ancestor(sysfs, dir)) {
      std::string rel = usb->generic_string();
      auto get = [&](const char* name) {
        auto raw = sysfs.read(*usb / name);
        return raw ? with_source(*raw, "sysfs:" + rel + "/" + name) : Sourced{};
      };
      if (!id.serial.known()) id.serial = get("serial");
      Sourced vid = get("idVendor"), pid = get("idProduct");
      if (vid.known() && pid.known())
        id.details.push_back({"usb_id", vid.value + ":" + pid.value, vid.source});
      if (Sourced m = get("manufacturer"); m.known())
        id.details.push_back({"usb_manufacturer", m.value, m.source});
      if (Sourced p = get("product"); p.known())
        id.details.push_back({"usb_product", p.value, p.source});
    }
  }
}

// udev's values (ata_id for SATA: the full IDENTIFY strings; scsi_id for SCSI) fill what no more
// specific source gave, and replace plain sysfs attributes (a SATA model cut to 16 characters).
// A SCSI disk's serial is its unit serial number (ID_SCSI_SERIAL, VPD page 0x80), never
// ID_SERIAL_SHORT, which scsi_id builds from the WWN when page 0x83 has one.
void apply_udev(const Properties& p, DeviceIdentity& id) {
  auto take = [&](Sourced& field, std::initializer_list<const char*> keys) {
    if (source_rank(field) >= 2) return;
    for (const char* key : keys) {
      auto it = p.find(key);
      if (it == p.end()) continue;
      std::string v =
          std::string(key).ends_with("_ENC") ? decode_udev_escapes(it->second) : it->second;
      Sourced s = with_source(v, std::string("udev:") + key);
      if (s.known()) {
        field = s;
        return;
      }
    }
  };
  take(id.model, {"ID_MODEL_ENC", "ID_MODEL"});
  if (id.transport == Transport::Scsi)
    take(id.serial, {"ID_SCSI_SERIAL"});
  else
    take(id.serial, {"ID_SERIAL_SHORT"});
  take(id.firmware, {"ID_REVISION"});
  if (id.transport != Transport::Sata) take(id.vendor, {"ID_VENDOR_ENC", "ID_VENDOR"});
  if (!id.wwid.known()) take(id.wwid, {"ID_WWN_WITH_EXTENSION", "ID_WWN"});
}

Transport classify(const std::string& disk, const fs::path& dir, const Reader& r,
                   std::string& source) {
  source = "derived:device path";
  if (disk.starts_with("nvme") || path_contains(dir, "/nvme")) return Transport::Nvme;
  if (disk.starts_with("loop")) return (source = "derived:device name", Transport::Loop);
  if (disk.starts_with("zram")) return (source = "derived:device name", Transport::Zram);
  // A SCSI disk behind virtio-scsi sits below a virtioN device too; its scsi_device (vendor and
  // model attributes) makes it SCSI. Only virtio-blk disks are virtio.
  const bool scsi_device = r.has("device/vendor") && r.has("device/model");
  if (path_contains(dir, "/virtio") && !scsi_device) return Transport::Virtio;
  if (path_contains(dir, "/mmc_host/") || disk.starts_with("mmcblk")) return Transport::Mmc;
  if (path_contains(dir, "/usb")) return Transport::Usb;
  if (scsi_device) {
    if (r.attr("device/vendor").value == "ATA" || path_contains(dir, "/ata")) {
      if (!path_contains(dir, "/ata")) source = "sysfs:device/vendor";
      return Transport::Sata;
    }
    return Transport::Scsi;
  }
  return Transport::Other;
}

}  // namespace

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::Nvme:
      return "nvme";
    case Transport::Sata:
      return "sata";
    case Transport::Scsi:
      return "scsi";
    case Transport::Virtio:
      return "virtio";
    case Transport::Mmc:
      return "mmc";
    case Transport::Usb:
      return "usb";
    case Transport::Loop:
      return "loop";
    case Transport::Zram:
      return "zram";
    case Transport::Other:
      return "other";
  }
  return "other";
}

std::string pci_vendor_name(std::string_view id) {
  static const std::map<std::string, std::string, std::less<>> kVendors = {
      {"0x1022", "AMD"},        {"0x1344", "Micron"},       {"0x144d", "Samsung"},
      {"0x15b7", "SanDisk/WD"}, {"0x1179", "Toshiba"},      {"0x1b4b", "Marvell"},
      {"0x1bb1", "Seagate"},    {"0x1c5c", "SK hynix"},     {"0x1cc1", "ADATA"},
      {"0x1987", "Phison"},     {"0x1e0f", "KIOXIA"},       {"0x126f", "Silicon Motion"},
      {"0x1af4", "Red Hat"},    {"0x1b36", "Red Hat/QEMU"}, {"0x2646", "Kingston"},
      {"0x8086", "Intel"},      {"0x1e4b", "MAXIO"},        {"0x1d79", "Transcend"},
      {"0x1c58", "HGST/WD"}};
  auto it = kVendors.find(id);
  if (it == kVendors.end()) return std::string(id);
  return it->second + " (" + std::string(id) + ")";
}

DeviceIdentity read_identity(const Sysfs& sysfs, const std::string& device) {
  fs::path dir = sysfs.block_dir_relative(device);
  DeviceIdentity id;
  if (sysfs.exists(dir / "partition")) {
    Reader pr(sysfs, dir);
    id.partition = PartitionInfo{device, pr.attr("partition"), pr.sectors_as_bytes("start"),
                                 pr.sectors_as_bytes("size")};
    dir = dir.parent_path();
  }
  id.disk = dir.filename().string();
  Reader r(sysfs, dir);
  id.devnode = r.has("dev") ? "/dev/" + id.disk : "";
  id.transport = classify(id.disk, dir, r, id.transport_source);

  id.capacity_bytes = r.sectors_as_bytes("size");
  id.logical_block_size = r.attr("queue/logical_block_size");
  id.physical_block_size = r.attr("queue/physical_block_size");
  id.rotational = yes_no(r.attr("queue/rotational"));
  id.scheduler = active_scheduler(r.attr("queue/scheduler"));
  id.nr_requests = r.attr("queue/nr_requests");
  id.write_cache = r.attr("queue/write_cache");
  id.zones.model = r.attr("queue/zoned");
  if (id.zones.zoned()) {
    id.zones.zone_size_bytes = r.sectors_as_bytes("queue/chunk_sectors");
    id.zones.zones = r.attr("queue/nr_zones");
    id.zones.max_open_zones = r.attr("queue/max_open_zones");
    id.zones.max_active_zones = r.attr("queue/max_active_zones");
    id.zones.zone_append_max_bytes = r.attr("queue/zone_append_max_bytes");
  }

  auto detail = [&](const char* field, const Sourced& s) {
    if (s.known()) id.details.push_back({field, s.value, s.source});
  };
  switch (id.transport) {
    case Transport::Nvme:
      read_nvme(sysfs, dir, id);
      break;
    case Transport::Sata:
    case Transport::Scsi:
    case Transport::Usb:
      read_scsi(sysfs, dir, id);
      apply_udev(sysfs.is_live() ? udev_properties(sysfs.root() / dir)
                                 : captured_udev_properties(sysfs, id.disk),
                 id);
      break;
    case Transport::Virtio: {
      id.serial = r.attr("serial");
      Sourced vendor = r.attr("device/vendor");
      if (vendor.known()) id.vendor = {pci_vendor_name(vendor.value), vendor.source};
      break;
    }
    case Transport::Mmc: {
      id.model = r.attr("device/name");
      id.serial = r.attr("device/serial");
      id.firmware = r.attr("device/fwrev");
      Sourced manfid = r.attr("device/manfid");
      Sourced oemid = r.attr("device/oemid");
      if (manfid.known())
        id.vendor = {"manfid " + manfid.value + (oemid.known() ? ", oemid " + oemid.value : ""),
                     manfid.source};
      detail("mmc_type", r.attr("device/type"));
      detail("mmc_hwrev", r.attr("device/hwrev"));
      detail("mmc_date", r.attr("device/date"));
      break;
    }
    case Transport::Loop:
      id.backing = r.attr("loop/backing_file");
      detail("loop_offset", r.attr("loop/offset"));
      detail("loop_sizelimit", r.attr("loop/sizelimit"));
      detail("loop_direct_io", yes_no(r.attr("loop/dio")));
      detail("read_only", yes_no(r.attr("ro")));
      break;
    case Transport::Zram:
      id.backing = active_scheduler(r.attr("comp_algorithm"));
      if (id.backing.known()) id.backing.value = "compressed RAM (" + id.backing.value + ")";
      detail("zram_disksize", r.attr("disksize"));
      detail("zram_backing_dev", r.attr("backing_dev"));
      break;
    case Transport::Other:
      break;
  }
  collapse_spaces(id.vendor);
  collapse_spaces(id.model);
  return id;
}

void apply_nvme_identity(DeviceIdentity& identity, const NvmeControllerIdentity& ctrl,
                         const NvmeNamespaceIdentity* ns) {
  auto set = [](Sourced& field, const std::string& value) {
    if (!value.empty()) field = {value, "nvme:identify-ctrl"};
  };
  set(identity.model, ctrl.model);
  collapse_spaces(identity.model);
  set(identity.serial, ctrl.serial);
  set(identity.firmware, ctrl.firmware);
  char vid[8];
  std::snprintf(vid, sizeof vid, "0x%04x", ctrl.vid);
  identity.vendor = {pci_vendor_name(vid), "nvme:identify-ctrl"};
  if (!ctrl.version.empty())
    identity.details.push_back({"nvme_version", ctrl.version, "nvme:identify-ctrl"});
  if (ns) {
    identity.details.push_back(
        {"nvme_ns_size_bytes", std::to_string(ns->size_bytes()), "nvme:identify-ns"});
    identity.details.push_back({"nvme_lba_format",
                                std::to_string(ns->lba_format) + " (" +
                                    std::to_string(ns->lba_size) + " bytes + " +
                                    std::to_string(ns->metadata_size) + " metadata)",
                                "nvme:identify-ns"});
    // What the controller answers for a block nobody wrote (a new or trimmed drive).
    identity.details.push_back({"deallocated_reads",
                                ns->deallocated_read == 1   ? "zeros (DLFEAT)"
                                : ns->deallocated_read == 2 ? "0xFF bytes (DLFEAT)"
                                                            : "not reported (DLFEAT 0)",
                                "nvme:identify-ns"});
  }
}

void apply_zns_identity(DeviceIdentity& identity, const NvmeZnsNamespaceIdentity& zns) {
  constexpr const char* kSource = "nvme:zns-identify-ns";
  ZoneGeometry& z = identity.zones;
  if (zns.zone_size_bytes) z.zone_size_bytes = {std::to_string(zns.zone_size_bytes), kSource};
  // MOR / MAR are 0's based, FFFFFFFFh for no limit: the kernel's 0.
  auto limit = [&](Sourced& field, std::uint32_t zero_based) {
    field = {zero_based == 0xffffffffu ? "0" : std::to_string(std::uint64_t{zero_based} + 1),
             kSource};
  };
  limit(z.max_open_zones, zns.max_open_resources);
  limit(z.max_active_zones, zns.max_active_resources);
}

std::vector<IdentityRow> identity_rows(const DeviceIdentity& id) {
  std::vector<IdentityRow> rows;
  auto add = [&](const char* field, const Sourced& s) {
    if (s.known()) rows.push_back({field, s.value, s.source});
  };
  rows.push_back({"device", id.disk, "sysfs:class/block"});
  if (!id.devnode.empty()) rows.push_back({"devnode", id.devnode, "derived:device name"});
  rows.push_back({"transport", std::string(to_string(id.transport)), id.transport_source});
  add("vendor", id.vendor);
  add("model", id.model);
  add("serial", id.serial);
  add("firmware", id.firmware);
  add("wwid", id.wwid);
  add("capacity_bytes", id.capacity_bytes);
  add("logical_block_size", id.logical_block_size);
  add("physical_block_size", id.physical_block_size);
  add("rotational", id.rotational);
  add("scheduler", id.scheduler);
  add("nr_requests", id.nr_requests);
  add("write_cache", id.write_cache);
  add("backing", id.backing);
  if (id.zones.zoned()) {
    add("zone_model", id.zones.model);
    add("zone_size_bytes", id.zones.zone_size_bytes);
    add("zones", id.zones.zones);
    // 0 is the kernel's (and ZNS's FFFFFFFFh) "no limit": said as such.
    auto limit = [&](const char* field, const Sourced& s) {
      if (s.known()) rows.push_back({field, s.value == "0" ? "no limit" : s.value, s.source});
    };
    limit("max_open_zones", id.zones.max_open_zones);
    limit("max_active_zones", id.zones.max_active_zones);
    add("zone_append_max_bytes", id.zones.zone_append_max_bytes);
  }
  rows.insert(rows.end(), id.details.begin(), id.details.end());
  if (id.partition) {
    rows.push_back({"partition", id.partition->name, "sysfs:class/block"});
    add("partition_number", id.partition->number);
    add("partition_start_bytes", id.partition->start_bytes);
    add("partition_size_bytes", id.partition->size_bytes);
  }
  return rows;
}

}  // namespace storqual::devices
