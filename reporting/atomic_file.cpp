// SPDX-License-Identifier: Apache-2.0
// write(2) to a temporary, fsync, rename(2): the POSIX way to replace a file atomically.
#include "reporting/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <system_error>

namespace storqual::reporting {
namespace {

// The temporaries in flight, for remove_pending_temp_file(): one slot per concurrent writer (the
// per-device reports of a parallel fleet run are written from several threads). Plain bytes plus
// an atomic state: a signal handler reads them without locks or allocation.
struct PendingTemp {
  enum : int { kFree = 0, kClaimed = 1, kActive = 2 };
  std::atomic<int> state{kFree};
  char name[PATH_MAX];
};
constexpr int kPendingSlots = 32;
PendingTemp g_pending[kPendingSlots];

// Records `temp` in a free slot (waiting for one if every slot is busy) and releases it on
// destruction.
class PendingRecord {
 public:
  explicit PendingRecord(const std::string& temp) {
    while (true) {
      for (auto& slot : g_pending) {
        int expected = PendingTemp::kFree;
        if (slot.state.compare_exchange_strong(expected, PendingTemp::kClaimed,
                                               std::memory_order_acquire)) {
          std::memcpy(slot.name, temp.c_str(), temp.size() + 1);
          slot.state.store(PendingTemp::kActive, std::memory_order_release);
          slot_ = &slot;
          return;
        }
      }
      ::sched_yield();
    }
  }
  ~PendingRecord() { slot_->state.store(PendingTemp::kFree, std::memory_order_release); }
  PendingRecord(const PendingRecord&) = delete;
  PendingRecord& operator=(const PendingRecord&) = delete;

 private:
  PendingTemp* slot_ = nullptr;
};

[[noreturn]] void fail(int err, const std::string& what, const std::string& path) {
  throw std::system_error(err, std::generic_category(), what + " " + path);
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes all of `content`; `give_up` (which throws) on an error.
void write_all(int fd, std::string_view content, const std::function<void(const char*)>& give_up) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      give_up("cannot write");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string temp_name_for(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

void remove_pending_temp_file() noexcept {
  for (auto& slot : g_pending)
    if (slot.state.load(std::memory_order_acquire) == PendingTemp::kActive) ::unlink(slot.name);
}

void write_file_atomically(const std::string& path, std::string_view content) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A device, FIFO or socket (`--json /dev/null`, /dev/stdout): written in place, never
    // renamed over.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      fail(err, "cannot open", path);
    }
    write_all(fd, content, [&](const char* what) {
      const int err = errno;
      ::close(fd);
      fail(err, what, path);
    });
    if (::close(fd) != 0) {
      const int err = errno;
      fail(err, "cannot close", path);
    }
    return;
  }
  const std::string temp = temp_name_for(path);
  if (temp.size() >= PATH_MAX) fail(ENAMETOOLONG, "cannot write", path);

  // Record the name before the file exists, so that there is no moment in which a temporary
  // exists that the signal handler does not know about; released when this function returns.
  PendingRecord pending(temp);

  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    fail(err, "cannot create", temp);
  }
  auto give_up = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    fail(err, what, temp);
  };
  write_all(fd, content, give_up);
  if (::fsync(fd) != 0) give_up("cannot fsync");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(err, "cannot close", temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(err, "cannot rename " + temp + " to", path);
  }
  // Make the rename durable; a directory that cannot be opened or synced is not worth an error.
  const int dir = ::open(parent_directory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
}

}  // namespace storqual::reporting
