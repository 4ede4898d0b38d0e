// SPDX-License-Identifier: Apache-2.0
// A scratch file for a directory target: created with a unique name inside the directory, sized
// with fallocate, removed by its destructor, and registered so that a signal handler can remove
// every live scratch file with remove_scratch_files_now() (async-signal-safe).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "model/errors.hpp"

namespace storqual::devices {

class ScratchFileError : public storqual::Error {
 public:
  explicit ScratchFileError(const std::string& what) : Error(what, kExitUsage) {}
};

class ScratchFile {
 public:
  // Creates <dir>/storqual-scratch-<pid>-<random>.tmp (O_EXCL, mode 0600) and allocates `size`
  // bytes (fallocate; ftruncate where the filesystem cannot preallocate). The blocks are
  // unwritten: a read workload should fill the file first. Throws ScratchFileError naming the
  // directory and the reason (no space, read-only filesystem, permissions, 32 files already live).
  ScratchFile(const std::filesystem::path& dir, std::uint64_t size);
  ~ScratchFile();  // unlinks the file
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::uint64_t size() const { return size_; }
  void remove() noexcept;  // early removal (idempotent)

 private:
  std::filesystem::path path_;
  std::uint64_t size_ = 0;
  int slot_ = -1;
};

// Unlinks every scratch file still registered. Only async-signal-safe calls (unlink, atomics on
// lock-free integers): call it from a SIGINT/SIGTERM handler before re-raising the signal.
void remove_scratch_files_now() noexcept;

}  // namespace storqual::devices
