// SPDX-License-Identifier: Apache-2.0
// Who a block device is: transport, model, serial, firmware, geometry and queue settings, each
// value with the source it was read from, read from a Sysfs tree (and, on the live system, the
// udev database for SCSI-attached disks, whose sysfs model is cut to 16 characters).
// Every string value has passed sanitize_device_string: safe to print, escape-free of controls.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devices/sysfs.hpp"

namespace storqual::devices {

struct NvmeControllerIdentity;
struct NvmeNamespaceIdentity;

enum class Transport { Nvme, Sata, Scsi, Virtio, Mmc, Usb, Loop, Zram, Other };
[[nodiscard]] std::string_view to_string(Transport t);

// A value and where it came from: "sysfs:device/model", "udev:ID_SERIAL_SHORT",
// "nvme:identify-ctrl", "derived:device path". An empty value means unknown (source then empty).
struct Sourced {
  std::string value;
  std::string source;
  [[nodiscard]] bool known() const { return !value.empty(); }
};

// One output row; the runner copies these into reporting::FieldRow.
struct IdentityRow {
  std::string field;
  std::string value;
  std::string source;
  bool operator==(const IdentityRow&) const = default;
};

struct PartitionInfo {
  std::string name;  // "sda1"
  Sourced number;    // partition number
  Sourced start_bytes;
  Sourced size_bytes;
};

// A zoned block device's zones (docs/identity-and-safety.md, "Zoned devices"): the kernel's model
// (sysfs queue/zoned: host-aware or host-managed; "none" or absent: not zoned), the zone size, how
// many, and the limits on zones open or active at once (0: no limit). On an NVMe ZNS namespace the
// controller's own answer (ZNS Identify Namespace) replaces the driver's copy.
struct ZoneGeometry {
  Sourced model;  // "host-managed", "host-aware"; unknown or "none": not zoned
  Sourced zone_size_bytes, zones, max_open_zones, max_active_zones, zone_append_max_bytes;
  [[nodiscard]] bool zoned() const { return model.known() && model.value != "none"; }
  [[nodiscard]] bool host_managed() const { return model.value == "host-managed"; }
};

struct DeviceIdentity {
  std::string disk;     // whole disk name: "sda", "nvme0n1"
  std::string devnode;  // "/dev/sda" (empty for hidden NVMe path devices, which have none)
  Transport transport = Transport::Other;
  std::string transport_source;
  Sourced vendor, model, serial, firmware, wwid;
  Sourced capacity_bytes;  // of the whole disk
  Sourced logical_block_size, physical_block_size, rotational;
  Sourced scheduler, nr_requests, write_cache;
  Sourced backing;  // loop: backing file; zram: compression algorithm in use
  ZoneGeometry zones;
  // Transport-specific rows in a fixed order (nvme_subsystem, nvme_paths, loop_offset, ...).
  std::vector<IdentityRow> details;
  std::optional<PartitionInfo> partition;  // when the target is a partition of `disk`
};

// Reads the identity of `device` (a disk or a partition; for a partition, the disk's identity plus
// the partition). Uses udev properties only when `sysfs` is the live /sys. Throws ResolveError when
// the device does not exist in the tree.
[[nodiscard]] DeviceIdentity read_identity(const Sysfs& sysfs, const std::string& device);

// Overrides vendor/model/serial/firmware with what the controller itself reports (sources
// "nvme:identify-ctrl") and adds namespace rows (nvme:identify-ns): full 40-character model,
// no sysfs truncation, and what the device says rather than what a driver cached.
void apply_nvme_identity(DeviceIdentity& identity, const NvmeControllerIdentity& ctrl,
                         const NvmeNamespaceIdentity* ns);

struct NvmeZnsNamespaceIdentity;
// Overrides the zone size and the open / active limits with a ZNS namespace's own (source
// "nvme:zns-identify-ns").
void apply_zns_identity(DeviceIdentity& identity, const NvmeZnsNamespaceIdentity& zns);

// Ordered rows: device, devnode, transport, vendor, model, serial, firmware, wwid, capacity_bytes,
// logical_block_size, physical_block_size, rotational, scheduler, nr_requests, write_cache,
// backing, zone_model, zone_size_bytes, zones, max_open_zones, max_active_zones,
// zone_append_max_bytes (zoned devices only), the details, then partition, partition_number,
// partition_start_bytes, partition_size_bytes. Unknown values are left out.
[[nodiscard]] std::vector<IdentityRow> identity_rows(const DeviceIdentity& identity);

// "Samsung (0x144d)" for a PCI vendor id text such as "0x144d"; the id itself when unknown.
[[nodiscard]] std::string pci_vendor_name(std::string_view id);

}  // namespace storqual::devices
