// SPDX-License-Identifier: Apache-2.0
// The psync engine: pread/pwrite straight from queue(), as fio's psync. It is the baseline every
// other engine is compared with, so it does nothing else: one syscall per I/O, a short transfer is
// reported as is (the contract leaves requeueing to the caller), EINTR is retried.
#include "engines/psync_engine.hpp"

#include <unistd.h>

#include <cerrno>

namespace storqual::engines {

void PsyncEngine::open(const EngineConfig& config) {
  target_.open(config);
}

QueueStatus PsyncEngine::queue(IoRequest& req) noexcept {
  const auto offset = static_cast<off_t>(req.offset);
  ssize_t n;
  do {
    n = req.dir == Direction::Read ? ::pread(target_.fd(), req.buf, req.length, offset)
                                   : ::pwrite(target_.fd(), req.buf, req.length, offset);
  } while (n < 0 && errno == EINTR);
  req.res = n < 0 ? -static_cast<std::int64_t>(errno) : static_cast<std::int64_t>(n);
  return QueueStatus::Completed;
}

int PsyncEngine::reap(unsigned /*min*/, unsigned /*max*/, IoRequest** /*out*/,
                      std::chrono::nanoseconds /*timeout*/) noexcept {
  return 0;  // everything completed in queue()
}

}  // namespace storqual::engines
