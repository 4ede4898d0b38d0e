// SPDX-License-Identifier: Apache-2.0
// Opening an engine's target: one place for the open flags, the size and the block size, so the
// three real engines agree on them and every failure reads the same way to the user.
#include "engines/target_file.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

namespace storqual::engines {
namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

// What a user should know beyond strerror for the errors people actually meet here.
std::string hint(int err, const EngineConfig& config) {
  switch (err) {
    case EROFS:
      return " (the target is read-only)";
    case EBUSY:
      return config.exclusive ? " (the device is in use: mounted, swap or held by another program;"
                                " it is opened O_EXCL)"
                              : " (the device is in use)";
    case EINVAL:
      return config.direct ? " (the filesystem may not support O_DIRECT)" : "";
    case EACCES:
    case EPERM:
      return config.write ? " (writing needs write permission on the target)" : "";
    default:
      return "";
  }
}

[[noreturn]] void fail_open(const EngineConfig& config, int err, const std::string& extra = {}) {
  throw EngineError("cannot open " + config.path + " " + describe_access(config) + ": " +
                        errno_text(err) + (extra.empty() ? hint(err, config) : extra),
                    err);
}

// Reads one unsigned number from a sysfs file; 0 when it cannot.
std::uint32_t read_sysfs_number(const std::string& file) {
  std::ifstream in(file);
  std::uint64_t value = 0;
  if (!(in >> value)) return 0;
  return static_cast<std::uint32_t>(value);
}

// The logical block size of the device holding a file: the disk's queue (a partition has none of
// its own, its parent has).
std::uint32_t backing_device_block_size(dev_t dev) {
  std::string base =
      "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  if (auto n = read_sysfs_number(base + "/queue/logical_block_size")) return n;
  return read_sysfs_number(base + "/../queue/logical_block_size");
}

// Direct I/O alignment of a regular file. Not st_blksize: that is the "preferred" I/O size (often
// 4096 on a 512-byte disk) and says nothing about what O_DIRECT accepts. We use, in order: statx's
// STATX_DIOALIGN offset alignment (Linux 6.1+, exact and per file), else the logical block size
// of the device under the filesystem (what the block layer enforces for a plain filesystem),
// else 512.
std::uint32_t file_dio_alignment(int fd, dev_t dev) {
#ifdef STATX_DIOALIGN
  struct statx stx {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN) &&
      stx.stx_dio_offset_align > 0)
    return stx.stx_dio_offset_align;
#endif
  if (auto n = backing_device_block_size(dev)) return n;
  return 512;
}

}  // namespace

std::string describe_access(const EngineConfig& config) {
  std::string s = config.write ? "read-write" : "read-only";
  if (config.direct) s += " with O_DIRECT";
  return s;
}

void TargetFile::open(const EngineConfig& config) {
  close();
  if (config.path.empty()) throw EngineError("no target given (empty path)", EINVAL);

  // Look before opening: O_EXCL means "claim" on a block device but "must not exist" with O_CREAT
  // on a file, and a directory opens fine read-only.
  struct stat before {};
  bool exists = ::stat(config.path.c_str(), &before) == 0;
  if (!exists && errno != ENOENT) fail_open(config, errno);
  if (exists && S_ISDIR(before.st_mode))
    throw EngineError(config.path + " is a directory, not a file or block device", EISDIR);

  int flags = (config.write ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  if (config.direct) flags |= O_DIRECT;
  bool block = exists && S_ISBLK(before.st_mode);
  if (block && config.exclusive) flags |= O_EXCL;
  if (!block && config.create) flags |= O_CREAT;
  if (!exists && !config.create) fail_open(config, ENOENT);

  int fd = ::open(config.path.c_str(), flags, 0644);
  // udev probes a device that just appeared (or was just closed after writing) and holds it
  // exclusively for a moment: an exclusive open retries EBUSY for up to a second before it
  // reports the device as in use.
  for (int retry = 0; fd < 0 && errno == EBUSY && (flags & O_EXCL) && retry < 10; ++retry) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    fd = ::open(config.path.c_str(), flags, 0644);
  }
  if (fd < 0) fail_open(config, errno);

  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    fail_open(config, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw EngineError(config.path + " is a directory, not a file or block device", EISDIR);
  }
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
    ::close(fd);
    throw EngineError(config.path + " is neither a regular file nor a block device", EINVAL);
  }

  // Linux lets a read-only block device be opened read-write and fails each write with EPERM
  // later; say it now, the way a read-only file would be refused.
  int read_only = 0;
  if (S_ISBLK(st.st_mode) && config.write && ::ioctl(fd, BLKROGET, &read_only) == 0 && read_only) {
    ::close(fd);
    fail_open(config, EROFS, " (the block device is set read-only)");
  }

  fd_ = fd;
  block_device_ = S_ISBLK(st.st_mode);
  if (block_device_) {
    std::uint64_t bytes = 0;
    int sector = 0;
    if (::ioctl(fd, BLKGETSIZE64, &bytes) != 0 || ::ioctl(fd, BLKSSZGET, &sector) != 0) {
      int err = errno;
      close();
      throw EngineError(
          "cannot read the size of block device " + config.path + ": " + errno_text(err), err);
    }
    size_ = bytes;
    block_size_ = sector > 0 ? static_cast<std::uint32_t>(sector) : 512;
  } else {
    size_ = static_cast<std::uint64_t>(st.st_size);
    block_size_ = config.direct ? file_dio_alignment(fd, st.st_dev) : 512;
  }
}

void TargetFile::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  block_device_ = false;
  size_ = 0;
  block_size_ = 512;
}

}  // namespace storqual::engines
