// SPDX-License-Identifier: Apache-2.0
// `storqual identify [--target PATH] [--json] [--specs DIR]`: without a target, one line per
// block device (name, transport, model, serial, firmware, capacity, what uses it); with one, the
// full identity with sources, NVMe health where readable, and the spec sheets whose <match> fits.
// The hidden --sysfs-root DIR reads a captured tree instead of /sys (targets are device names);
// the hidden --ata-capture DIR writes an ATA drive's SMART pages there (tests/data/ata).
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "devices/device_identity.hpp"
#include "devices/device_users.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/sanitize.hpp"
#include "devices/sysfs.hpp"
#include "runner/base/units.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using devices::IdentityRow;

struct IdentifyOptions {
  std::optional<std::string> target;
  bool json = false;
  std::string sysfs_root = "/sys";
  std::optional<std::string> specs_dir;
  std::optional<std::string> nvme_pages;   // hidden: captured NVMe pages instead of libnvme
  std::optional<std::string> ata_capture;  // hidden: write the ATA drive's pages there
};

std::string value_of(const std::vector<IdentityRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return "";
}

nlohmann::json rows_json(const std::vector<IdentityRow>& rows) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({{"field", r.field}, {"value", r.value}, {"source", r.source}});
  return out;
}

std::string dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Users of a device on the live system; with a captured tree only its sysfs holders are known.
std::vector<std::string> users_of(const devices::Sysfs& sysfs, const std::string& device) {
  std::vector<std::string> out;
  for (const auto& u : devices::find_device_users(sysfs, device)) out.push_back(u.description);
  return out;
}

// Identity plus, for an NVMe namespace on the live system, what the controller itself says and
// its health log; for an ATA drive (SATA, a SAT USB bridge) its SMART reading, for a SCSI disk its
// log pages, or why none.
// Failures (not root, not a real controller) become notes, not errors.
struct FullIdentity {
  devices::DeviceIdentity identity;
  std::vector<IdentityRow> health;
  std::vector<std::string> notes;
};

// The identity through the one identification path of `run` and `identify`
// (runner/qualification/device_identification.hpp), then the health log when NVMe identify worked.
FullIdentity identify(const IdentifyOptions& opt, const devices::Sysfs& sysfs,
                      const std::string& device) {
  NvmeAccess access;  // a look: what the device reports now
  if (opt.nvme_pages) access.captured = *opt.nvme_pages;
  DeviceIdentification d = read_full_identity(sysfs, device, access);
  FullIdentity full{std::move(d.identity), {}, {}};
  if (!d.health_gap.empty()) full.notes.push_back(d.health_gap);
  if (d.scsi) {
    try {
      full.health = devices::health_rows(devices::take_health_snapshot(*d.scsi));
    } catch (const devices::ScsiError& e) {
      full.notes.push_back(std::string("health not readable: ") + e.what());
    }
    return full;
  }
  if (d.ata) {
    try {
      if (opt.ata_capture) devices::capture_ata_pages(*d.ata, *opt.ata_capture, "now");
      full.health = devices::health_rows(devices::take_health_snapshot(*d.ata));
    } catch (const devices::AtaError& e) {
      full.notes.push_back(std::string("health not readable: ") + e.what());
    }
    return full;
  }
  const std::string failed = !d.admin_error.empty() ? d.admin_error : d.identify_error;
  if (!failed.empty()) {
    full.notes.push_back("NVMe admin commands unavailable: " + failed);
    return full;
  }
  if (!d.admin) return full;
  try {
    full.health = devices::health_rows(devices::take_health_snapshot(*d.admin));
  } catch (const devices::NvmeError& e) {
    full.notes.push_back(std::string("NVMe admin commands unavailable: ") + e.what());
  }
  return full;
}

struct SpecMatches {
  std::vector<std::pair<std::string, std::string>> matching;  // (name, path)
  std::vector<std::string> problems;                          // sheets that failed to load
};

SpecMatches find_matching_specs(const std::string& dir, const devices::DeviceIdentity& identity,
                                devices::TargetKind kind) {
  SpecMatches out;
  auto fields = match_fields(identity, kind);
  for (const auto& f : spec_sheet_files(dir)) {
    try {
      SpecSheet sheet = SpecSheet::load(f);
      if (sheet.matches(fields)) out.matching.emplace_back(sheet.name, f.string());
    } catch (const std::exception& e) {
      out.problems.push_back(e.what());
    }
  }
  return out;
}

const char* kind_name(devices::TargetKind k) {
  switch (k) {
    case devices::TargetKind::BlockDevice:
      return "block device";
    case devices::TargetKind::FileOnDevice:
      return "file";
    case devices::TargetKind::DirectoryOnDevice:
      return "directory";
  }
  return "?";
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

int list_devices(const IdentifyOptions& opt, const devices::Sysfs& sysfs) {
  struct Line {
    std::string name, transport, model, serial, firmware, capacity, in_use, backing;
    std::vector<IdentityRow> rows, health;
    std::vector<std::string> users, notes;
    std::uint64_t capacity_bytes = 0;
    std::optional<SpecMatches> specs;  // with --specs: the sheets that match the whole device
  };
  std::vector<Line> lines;
  for (const auto& disk : sysfs.disks()) {
    FullIdentity full = identify(opt, sysfs, disk);
    // Hidden NVMe path devices (nvme0c1n1: no device node) are paths of a multipath head, which
    // names them in its nvme_paths row; they are not devices of their own.
    if (full.identity.devnode.empty() && full.identity.transport == devices::Transport::Nvme)
      continue;
    Line l;
    l.rows = devices::identity_rows(full.identity);
    l.health = full.health;
    l.notes = full.notes;
    l.name = disk;
    l.transport = value_of(l.rows, "transport");
    l.model = value_of(l.rows, "model");
    l.serial = value_of(l.rows, "serial");
    l.firmware = value_of(l.rows, "firmware");
    l.backing = value_of(l.rows, "backing");
    l.capacity_bytes = std::strtoull(value_of(l.rows, "capacity_bytes").c_str(), nullptr, 10);
    // Unbound loop devices and unset zram devices have no capacity and nothing to say.
    if (l.capacity_bytes == 0 && (l.transport == "loop" || l.transport == "zram")) continue;
    l.capacity = format_bytes_iec(static_cast<double>(l.capacity_bytes));
    l.users = users_of(sysfs, disk);
    for (const auto& u : l.users) l.in_use += (l.in_use.empty() ? "" : "; ") + u;
    if (l.in_use.empty()) l.in_use = sysfs.is_live() ? "no" : "unknown (captured tree)";
    if (opt.specs_dir)
      l.specs =
          find_matching_specs(*opt.specs_dir, full.identity, devices::TargetKind::BlockDevice);
    lines.push_back(std::move(l));
  }
  if (opt.json) {
    nlohmann::json j;
    j["sysfs_root"] = sysfs.root().string();
    j["devices"] = nlohmann::json::array();
    for (const auto& l : lines) {
      j["devices"].push_back({{"name", l.name},
                              {"transport", l.transport},
                              {"model", l.model},
                              {"serial", l.serial},
                              {"firmware", l.firmware},
                              {"capacity_bytes", l.capacity_bytes},
                              {"in_use", l.users},
                              {"identity", rows_json(l.rows)},
                              {"health", rows_json(l.health)},
                              {"notes", l.notes}});
      if (l.specs) {
        auto m = nlohmann::json::array();
        for (const auto& [name, path] : l.specs->matching)
          m.push_back({{"name", name}, {"path", path}});
        j["devices"].back()["spec_matches"] = m;
      }
    }
    std::cout << dump(j) << "\n";
    return kExitPass;
  }
  std::printf("%-12s %-9s %-28s %-22s %-10s %-11s %s\n", "NAME", "TRANSPORT", "MODEL", "SERIAL",
              "FIRMWARE", "CAPACITY", "IN USE");
  for (const auto& l : lines) {
    std::string model = l.model.empty() && !l.backing.empty() ? "(" + l.backing + ")" : l.model;
    std::printf("%-12s %-9s %-28s %-22s %-10s %-11s %s\n", l.name.c_str(), l.transport.c_str(),
                or_dash(model).c_str(), or_dash(l.serial).c_str(), or_dash(l.firmware).c_str(),
                l.capacity.c_str(), l.in_use.c_str());
  }
  if (opt.specs_dir) {
    // Which sheet `storqual run --specs DIR --target /dev/<name>` would pick for each device.
    std::printf("\nspec sheets in %s:\n", opt.specs_dir->c_str());
    for (const auto& l : lines) {
      std::string which;
      for (const auto& [name, path] : l.specs->matching)
        which += (which.empty() ? "" : ", ") + name + " (" + path + ")";
      if (l.specs->matching.empty()) which = "none matches: measured only";
      if (l.specs->matching.size() > 1) which += ": more than one matches, run refuses";
      std::printf("  %-12s %s\n", l.name.c_str(), which.c_str());
    }
    if (!lines.empty())
      for (const auto& p : lines.front().specs->problems) std::printf("warning: %s\n", p.c_str());
  }
  return kExitPass;
}

int identify_target(const IdentifyOptions& opt, const devices::Sysfs& sysfs) {
  devices::ResolvedTarget resolved;
  resolved = sysfs.resolve(*opt.target);
  FullIdentity full = identify(opt, sysfs, resolved.device);
  auto rows = devices::identity_rows(full.identity);
  auto users = users_of(sysfs, resolved.device);
  std::optional<SpecMatches> specs;
  if (opt.specs_dir) specs = find_matching_specs(*opt.specs_dir, full.identity, resolved.kind);
  const std::string target = devices::sanitize_device_string(*opt.target);

  if (opt.json) {
    nlohmann::json j;
    j["target"] = target;
    j["sysfs_root"] = sysfs.root().string();
    j["resolved"] = {{"kind", kind_name(resolved.kind)},
                     {"device", resolved.device},
                     {"disk", resolved.disk},
                     {"is_partition", resolved.is_partition}};
    j["identity"] = rows_json(rows);
    j["health"] = rows_json(full.health);
    j["in_use"] = users;
    j["notes"] = full.notes;
    if (specs) {
      auto m = nlohmann::json::array();
      for (const auto& [name, path] : specs->matching)
        m.push_back({{"name", name}, {"path", path}});
      j["spec_matches"] = m;
      j["spec_problems"] = specs->problems;
    }
    std::cout << dump(j) << "\n";
    return kExitPass;
  }
  std::printf("%s: %s on %s%s\n\n", target.c_str(), kind_name(resolved.kind),
              resolved.devnode.c_str(),
              resolved.is_partition ? (" (partition of /dev/" + resolved.disk + ")").c_str() : "");
  auto table = [](const std::vector<IdentityRow>& r) {
    for (const auto& row : r)
      std::printf("  %-30s %-40s %s\n", row.field.c_str(), row.value.c_str(), row.source.c_str());
  };
  table(rows);
  if (!full.health.empty()) {
    std::printf("\nhealth (SMART / health log):\n");
    table(full.health);
  }
  std::printf("\nin use: %s\n",
              users.empty() ? (sysfs.is_live() ? "no" : "unknown (captured tree)") : "");
  for (const auto& u : users) std::printf("  %s\n", u.c_str());
  for (const auto& n : full.notes) std::printf("note: %s\n", n.c_str());
  if (specs) {
    if (specs->matching.empty())
      std::printf("spec sheets in %s: none matches\n", opt.specs_dir->c_str());
    for (const auto& [name, path] : specs->matching)
      std::printf("spec sheet: %s (%s)\n", name.c_str(), path.c_str());
    for (const auto& p : specs->problems) std::printf("warning: %s\n", p.c_str());
  }
  return kExitPass;
}

}  // namespace

int cmd_identify(const Args& args) {
  IdentifyOptions opt;
  po::options_description visible("storqual identify [--target PATH] [--json] [--specs DIR]");
  visible.add_options()("help,h", "show this help")(
      "target", po::value<std::string>(),
      "block device, partition, /dev/disk/by-* link, file or directory to identify; without it, "
      "list every block device")("json", po::bool_switch(&opt.json), "print JSON")(
      "specs", po::value<std::string>(), "directory of spec sheets: show which one matches");
  po::options_description hidden;
  hidden.add_options()("sysfs-root", po::value<std::string>(&opt.sysfs_root),
                       "read a captured sysfs tree instead of /sys (targets are device names)")(
      "nvme-pages", po::value<std::string>(),
      "answer NVMe admin commands from captured pages (identify-ctrl.bin, identify-ns.bin, "
      "smart-log.bin) in this directory")(
      "ata-capture", po::value<std::string>(),
      "write the ATA drive's pages into this directory as CapturedAtaAdmin reads them (reading "
      "'now'), for tests");
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm)) return kExitPass;
  if (vm.count("target")) opt.target = vm["target"].as<std::string>();
  if (vm.count("specs")) opt.specs_dir = vm["specs"].as<std::string>();
  if (vm.count("nvme-pages")) opt.nvme_pages = vm["nvme-pages"].as<std::string>();
  if (vm.count("ata-capture")) opt.ata_capture = vm["ata-capture"].as<std::string>();
  std::error_code ec;
  if (!fs::is_directory(opt.sysfs_root, ec))
    throw UsageError("--sysfs-root " + opt.sysfs_root + ": not a directory");
  devices::Sysfs sysfs(opt.sysfs_root);
  return opt.target ? identify_target(opt, sysfs) : list_devices(opt, sysfs);
}

}  // namespace storqual::runner
