// SPDX-License-Identifier: Apache-2.0
// Read-only view of a sysfs tree whose root is a constructor parameter, and resolution of a target
// path (file, directory, block device node, /dev/disk/by-* symlink, or device name) to the block
// device behind it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/errors.hpp"

namespace storqual::devices {

// Thrown when a target cannot be resolved to a block device; the message names the target and why.
class ResolveError : public storqual::Error {
 public:
  explicit ResolveError(const std::string& what) : Error(what, kExitUsage) {}
};

// What a target turned out to be.
enum class TargetKind {
  BlockDevice,       // a block device node (or, with a captured tree, a device name)
  FileOnDevice,      // a regular file on a filesystem backed by a block device
  DirectoryOnDevice  // a directory on such a filesystem
};

struct ResolvedTarget {
  std::string target;  // as given
  TargetKind kind = TargetKind::BlockDevice;
  std::string device;  // the block device the I/O reaches: "sda1", "nvme0n1", "loop3"
  std::string disk;    // its whole disk: "sda" (equal to device when it is not a partition)
  bool is_partition = false;
  std::string devnode;  // "/dev/<device>"
};

// A view of /sys (or a captured copy of it). Paths given to its methods are relative to the root.
// The tree is read through the same symlinks a real kernel has: block/<disk>, class/block/<name>
// and dev/block/MAJ:MIN all point into devices/...; all links are relative, so a captured tree
// resolves inside itself. Not thread-safe only in the sense that sysfs itself may change under it.
class Sysfs {
 public:
  explicit Sysfs(std::filesystem::path root = "/sys");

  [[nodiscard]] const std::filesystem::path& root() const { return root_; }
  // True when this is the live /sys of this machine (udev, mount tables and device numbers of
  // the running system then describe the same devices).
  [[nodiscard]] bool is_live() const;

  // Contents of a text attribute with the trailing newline removed; nullopt when absent or
  // unreadable. Raw bytes: callers sanitize before showing them.
  [[nodiscard]] std::optional<std::string> read(const std::filesystem::path& relative) const;
  [[nodiscard]] bool exists(const std::filesystem::path& relative) const;

  // The device directory of a block device (disk or partition), symlinks resolved:
  // <root>/devices/.../block/sda[/sda1]. Throws ResolveError when no such device exists.
  [[nodiscard]] std::filesystem::path block_dir(const std::string& name) const;
  // block_dir() relative to the root ("devices/pci0000:00/.../block/sda").
  [[nodiscard]] std::filesystem::path block_dir_relative(const std::string& name) const;
  [[nodiscard]] bool has_block_device(const std::string& name) const;
  // Every whole disk (class/block entries that are not partitions), sorted by name; hidden NVMe
  // path devices (nvme0c0n1) included: they are real disks in sysfs, without a device node.
  [[nodiscard]] std::vector<std::string> disks() const;
  // Partitions of a disk ("sda" -> {"sda1", "sda2"}), sorted.
  [[nodiscard]] std::vector<std::string> partitions(const std::string& disk) const;
  // Names in <device>/holders/ (device mapper, MD, ... that sit on top of it).
  [[nodiscard]] std::vector<std::string> holders(const std::string& name) const;
  // Device number "MAJ:MIN" of a block device, from its dev attribute.
  [[nodiscard]] std::optional<std::string> devnum(const std::string& name) const;
  // Block device name for a device number through dev/block/MAJ:MIN; nullopt if none.
  [[nodiscard]] std::optional<std::string> name_of_devnum(unsigned major, unsigned minor) const;

  // Resolves a target to its block device (see docs/identity-and-safety.md):
  //  - live tree: the path is stat()ed (symlinks followed); a block device node maps through its
  //    st_rdev, a regular file or directory through the st_dev of its filesystem, both via
  //    dev/block/MAJ:MIN. A name that is not an existing path but names a block device ("sda",
  //    "/dev/sda" when /dev is not populated) is accepted as such.
  //  - captured tree: device numbers of real paths mean nothing there, so the target must be a
  //    device name, optionally written "/dev/<name>".
  // Throws ResolveError naming the target and the reason.
  [[nodiscard]] ResolvedTarget resolve(const std::string& target) const;

 private:
  [[nodiscard]] ResolvedTarget resolve_name(const std::string& target, const std::string& name,
                                            TargetKind kind) const;
  std::filesystem::path root_;
};

}  // namespace storqual::devices
