// SPDX-License-Identifier: Apache-2.0
// Reading a device's identity from sysfs and udev (see device_identity.hpp).
#include "devices/device_identity.hpp"

#include <libudev.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
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

// SCSI INQUIRY VPD page 0x80 (unit serial number): 4-byte header, then the serial in ASCII.
Sourced serial_from_vpd80(const Sysfs& sysfs, const fs::path& dir) {
  auto raw = sysfs.read(dir / "device/vpd_pg80");
  if (!raw || raw->size() < 4 || static_cast<unsigned char>((*raw)[1]) != 0x80) return {};
  std::size_t len =
      (static_cast<unsigned char>((*raw)[2]) << 8) | static_cast<unsigned char>((*raw)[3]);
  return with_source(raw->substr(4, len), "sysfs:device/vpd_pg80");
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
  std::string controller_rel = "device";
  if (multipath) {
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(r.absolute() / "multipath", ec))
      paths.push_back(e.path().filename().string());
    std::sort(paths.begin(), paths.end());
    id.details.push_back({"nvme_multipath", "native", "derived:device path"});
    std::string joined;
    for (const auto& p : paths) joined += (joined.empty() ? "" : " ") + p;
    if (!joined.empty()) id.details.push_back({"nvme_paths", joined, "sysfs:multipath/"});
    if (!paths.empty()) controller_rel = "multipath/" + paths.front() + "/device";
    Sourced subsys =
        with_source(fs::canonical(r.absolute() / "device", ec).filename().string(), "sysfs:device");
    if (subsys.known()) id.details.push_back({"nvme_subsystem", subsys.value, subsys.source});
  } else {
    std::error_code ec;
    Sourced ctrl =
        with_source(fs::canonical(r.absolute() / "device", ec).filename().string(), "sysfs:device");
    if (ctrl.known()) id.details.push_back({"nvme_controller", ctrl.value, ctrl.source});
  }
  Sourced vendor = r.attr(controller_rel + "/device/vendor");
  if (vendor.known()) id.vendor = {pci_vendor_name(vendor.value), vendor.source};
  if (Sourced t = r.attr(controller_rel + "/transport"); t.known())
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
  id.wwid = r.attr("device/wwid");
  id.serial = serial_from_vpd80(sysfs, dir);
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

// SATA disks appear as SCSI with vendor "ATA" and a model cut to 16 characters; udev's ata_id
// has the full strings from IDENTIFY DEVICE. Prefer them where the database has them.
void apply_udev(const Properties& p, DeviceIdentity& id) {
  auto take = [&](Sourced& field, std::initializer_list<const char*> keys) {
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
  if (path_contains(dir, "/virtio")) return Transport::Virtio;
  if (path_contains(dir, "/mmc_host/") || disk.starts_with("mmcblk")) return Transport::Mmc;
  if (path_contains(dir, "/usb")) return Transport::Usb;
  if (r.has("device/vendor") && r.has("device/model")) {
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
      {"0x1022", "AMD"},        {"0x1344", "Micron"},    {"0x144d", "Samsung"},
      {"0x15b7", "SanDisk/WD"}, {"0x1179", "Toshiba"},   {"0x1b4b", "Marvell"},
      {"0x1bb1", "Seagate"},    {"0x1c5c", "SK hynix"},  {"0x1cc1", "ADATA"},
      {"0x1987", "Phison"},     {"0x1e0f", "KIOXIA"},    {"0x126f", "Silicon Motion"},
      {"0x1af4", "Red Hat"},    {"0x2646", "Kingston"},  {"0x8086", "Intel"},
      {"0x1e4b", "MAXIO"},      {"0x1d79", "Transcend"}, {"0x1c58", "HGST/WD"}};
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
      if (sysfs.is_live()) apply_udev(udev_properties(sysfs.root() / dir), id);
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
  return id;
}

void apply_nvme_identity(DeviceIdentity& identity, const NvmeControllerIdentity& ctrl,
                         const NvmeNamespaceIdentity* ns) {
  auto set = [](Sourced& field, const std::string& value) {
    if (!value.empty()) field = {value, "nvme:identify-ctrl"};
  };
  set(identity.model, ctrl.model);
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
  }
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
