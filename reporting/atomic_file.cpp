// SPDX-License-Identifier: Apache-2.0
// write(2) to a temporary, fsync, rename(2): the POSIX way to replace a file atomically.
#include "reporting/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace storqual::reporting {
namespace {

// The temporary in flight, for remove_pending_temp_file(). Plain bytes plus an atomic flag: a
// signal handler reads them without locks or allocation.
char g_pending_temp[PATH_MAX];
std::atomic<bool> g_pending{false};

[[noreturn]] void fail(int err, const std::string& what, const std::string& path) {
  throw std::system_error(err, std::generic_category(), what + " " + path);
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::string temp_name_for(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

void remove_pending_temp_file() noexcept {
  if (g_pending.load(std::memory_order_acquire)) ::unlink(g_pending_temp);
}

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temp = temp_name_for(path);
  if (temp.size() >= sizeof g_pending_temp) fail(ENAMETOOLONG, "cannot write", path);

  // Record the name before the file exists, so that there is no moment in which a temporary
  // exists that the signal handler does not know about.
  g_pending.store(false, std::memory_order_release);
  std::memcpy(g_pending_temp, temp.c_str(), temp.size() + 1);
  g_pending.store(true, std::memory_order_release);

  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    g_pending.store(false, std::memory_order_release);
    fail(err, "cannot create", temp);
  }
  auto give_up = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    g_pending.store(false, std::memory_order_release);
    fail(err, what, temp);
  };
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
  if (::fsync(fd) != 0) give_up("cannot fsync");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    g_pending.store(false, std::memory_order_release);
    fail(err, "cannot close", temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    g_pending.store(false, std::memory_order_release);
    fail(err, "cannot rename " + temp + " to", path);
  }
  g_pending.store(false, std::memory_order_release);
  // Make the rename durable; a directory that cannot be opened or synced is not worth an error.
  const int dir = ::open(parent_directory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
}

}  // namespace storqual::reporting
