// SPDX-License-Identifier: Apache-2.0
// Scratch files and their signal-safe registry (see scratch_file.hpp).
#include "devices/scratch_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace storqual::devices {
namespace {

// A fixed table, so the signal handler walks plain memory: a slot is Free, being Filled by its
// owner, or Live (path complete, may be unlinked by anyone).
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };
constexpr int kSlots = 32;
struct Slot {
  std::atomic<int> state{kFree};
  char path[4096] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);
Slot g_slots[kSlots];

int claim_slot(const std::string& path) {
  if (path.size() >= sizeof(Slot::path)) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kLive);
    return i;
  }
  return -1;
}

}  // namespace

ScratchFile::ScratchFile(const std::filesystem::path& dir, std::uint64_t size) : size_(size) {
  std::random_device rd;
  char name[96];
  std::snprintf(name, sizeof name, "storqual-scratch-%ld-%08x%08x.tmp", static_cast<long>(getpid()),
                rd(), rd());
  path_ = dir / name;
  // Registered before it exists, so a signal at any point after creation finds it.
  slot_ = claim_slot(path_.string());
  if (slot_ < 0)
    throw ScratchFileError("cannot register scratch file " + path_.string() +
                           " (too many scratch files or path too long)");
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    g_slots[slot_].state.store(kFree);
    slot_ = -1;
    throw ScratchFileError("cannot create a scratch file in " + dir.string() + ": " +
                           std::strerror(err));
  }
  int rc = 0;
  if (size && ::fallocate(fd, 0, 0, static_cast<off_t>(size)) != 0) rc = errno;
  if (rc == EOPNOTSUPP) rc = ::ftruncate(fd, static_cast<off_t>(size)) ? errno : 0;
  ::close(fd);
  if (rc != 0) {
    remove();
    throw ScratchFileError("cannot allocate " + std::to_string(size) +
                           " bytes for a scratch file in " + dir.string() + ": " +
                           std::strerror(rc));
  }
}

ScratchFile::~ScratchFile() {
  remove();
}

void ScratchFile::remove() noexcept {
  if (slot_ < 0) return;
  ::unlink(path_.c_str());
  g_slots[slot_].state.store(kFree);
  slot_ = -1;
}

void remove_scratch_files_now() noexcept {
  for (auto& slot : g_slots)
    if (slot.state.load() == kLive) ::unlink(slot.path);
}

}  // namespace storqual::devices
