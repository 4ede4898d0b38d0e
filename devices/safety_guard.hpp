// SPDX-License-Identifier: Apache-2.0
// The safety guard (docs/identity-and-safety.md, "The safety guard"): decides whether a workload
// may touch a target and holds what makes that decision stick for the whole run (an O_EXCL
// descriptor on a block device, the scratch file of a directory target). Every refusal is a
// SafetyRefusal whose message names the device, what was found, and the flag that would override it
// (or that none does).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/scratch_file.hpp"
#include "devices/sysfs.hpp"
#include "model/errors.hpp"

namespace storqual::devices {

class SafetyRefusal : public storqual::Error {
 public:
  explicit SafetyRefusal(const std::string& what) : Error(what, kExitUsage, "refused") {}
};

struct GuardRequest {
  std::string target;              // block device, existing regular file, or directory
  bool writes = false;             // the workload writes (write, randwrite, rw, randrw)
  bool allow_destructive = false;  // --allow-destructive
  bool force = false;              // --force: overrides the signature check only
  std::uint64_t offset = 0;        // I/O stays inside [offset, offset + size)
  std::uint64_t size = 0;          // 0: to the end of the device or file; required for directories
};

enum class AdmittedKind { BlockDevice, ExistingFile, ScratchFile };

// What the guard admitted. Move-only; keeps the exclusive claim (block device), the udev lock on
// its whole disk, or the scratch file alive until destroyed. Job threads open path() themselves,
// without O_EXCL (the claim is per-open-file, so ordinary opens of the claimed device still
// succeed).
class AdmittedTarget {
 public:
  AdmittedTarget() = default;
  ~AdmittedTarget();
  AdmittedTarget(AdmittedTarget&& other) noexcept;
  AdmittedTarget& operator=(AdmittedTarget&& other) noexcept;
  AdmittedTarget(const AdmittedTarget&) = delete;
  AdmittedTarget& operator=(const AdmittedTarget&) = delete;

  AdmittedKind kind = AdmittedKind::BlockDevice;
  std::string path;            // what to open for I/O: the device node, the file, the scratch file
  std::string device;          // the block device underneath ("loop3", "vda2"); empty if none
  std::uint64_t capacity = 0;  // bytes of the device or file
  std::uint64_t offset = 0;    // the admitted range
  std::uint64_t size = 0;      // never 0 after admission
  bool exclusive = false;      // fd() holds an O_EXCL claim
  // A write admission holds a BSD lock (flock LOCK_EX) on the whole disk, systemd's block-device
  // locking: udev leaves the device alone (no probe reads inside the run's health window) until
  // the claim is released, then sees the close and probes once. False when not taken (a read, a
  // file, or another process kept its lock: a note says so).
  bool udev_locked = false;
  std::vector<std::string> notes;  // things the report should say (e.g. a read of a mounted device)

  [[nodiscard]] int fd() const { return fd_; }  // the held descriptor (-1 for files)

 private:
  friend class SafetyGuard;
  int fd_ = -1;
  int lock_fd_ = -1;  // the whole disk's descriptor holding the lock, when fd_ is a partition's
  std::unique_ptr<ScratchFile> scratch_;
};

// Rules (docs/identity-and-safety.md has the full table):
//  block device, write: needs allow_destructive; refused whatever the flags when the device or a
//    partition of it is mounted, is active swap, has holders, or is busy (O_EXCL -> EBUSY);
//    refused when libblkid finds a filesystem, RAID/LVM member or partition-table signature
//    unless force.
//  block device, write: refused on a host-managed zoned disk (queue/zoned), whatever the flags.
//  block device, write: holds flock(LOCK_EX) on the whole disk while admitted (udev's lock).
//  block device, read: allowed, also on signed devices; a mounted or busy device is read without
//    the exclusive claim and a note says so.
//  directory: a ScratchFile of offset+size bytes (size required); reads and writes allowed.
//  existing regular file: read allowed; write needs allow_destructive.
//  always: offset+size must lie within the device or file.
// EACCES/EPERM on a block device: "permission denied: run as root or use a file target".
class SafetyGuard {
 public:
  explicit SafetyGuard(Sysfs sysfs = Sysfs{});
  // Throws SafetyRefusal (refused or impossible) or ScratchFileError.
  [[nodiscard]] AdmittedTarget admit(const GuardRequest& request) const;

 private:
  [[nodiscard]] AdmittedTarget admit_block_device(const GuardRequest& request) const;
  [[nodiscard]] AdmittedTarget admit_file(const GuardRequest& request) const;
  [[nodiscard]] AdmittedTarget admit_directory(const GuardRequest& request) const;
  void lock_whole_disk(const ResolvedTarget& resolved, AdmittedTarget& admitted) const;
  Sysfs sysfs_;
};

// What libblkid finds at the start of a block device (open fd): "ext4 signature, label 'data'",
// "dos partition table", "LVM2_member signature"; empty when the device looks blank.
[[nodiscard]] std::vector<std::string> probe_signatures(int fd);

}  // namespace storqual::devices
