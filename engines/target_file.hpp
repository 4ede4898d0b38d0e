// SPDX-License-Identifier: Apache-2.0
// Opening an engine's target (regular file or block device) with the flags EngineConfig asks for.
//
// Contract: TargetFile::open() opens config.path O_RDONLY or O_RDWR (config.write), with O_DIRECT
// (config.direct), O_CREAT for a file that may not exist yet (config.create), O_EXCL on a block
// device (config.exclusive) and always O_CLOEXEC. It accepts regular files and block devices only
// and throws EngineError naming the path, the access asked for and strerror otherwise, e.g.
// "cannot open /dev/loop3 read-write with O_DIRECT: Read-only file system". Shared by the
// io_uring, libaio and psync engines; not used on the hot path.
#pragma once

#include <cstdint>
#include <string>

#include "engines/engine.hpp"

namespace storqual::engines {

class TargetFile {
 public:
  TargetFile() = default;
  ~TargetFile() { close(); }
  TargetFile(const TargetFile&) = delete;
  TargetFile& operator=(const TargetFile&) = delete;

  // Opens (after closing what was open). Throws EngineError.
  void open(const EngineConfig& config);
  void close() noexcept;

  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] bool is_block_device() const noexcept { return block_device_; }
  // Bytes: BLKGETSIZE64 for a block device, st_size for a file (as it was at open()).
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  // BLKSSZGET for a block device; for a file opened O_DIRECT the alignment direct I/O needs (see
  // target_file.cpp), for a buffered file 512.
  [[nodiscard]] std::uint32_t logical_block_size() const noexcept { return block_size_; }

 private:
  int fd_ = -1;
  bool block_device_ = false;
  std::uint64_t size_ = 0;
  std::uint32_t block_size_ = 512;
};

// "read-only" or "read-write", plus " with O_DIRECT" when direct: the words error messages use.
[[nodiscard]] std::string describe_access(const EngineConfig& config);

}  // namespace storqual::engines
