// SPDX-License-Identifier: Apache-2.0
// Signals during a run: the first SIGINT, SIGTERM or SIGHUP asks the run to stop (the current
// workload ends as interrupted, reports of what finished are written, exit 128+signal); a second
// one removes scratch files and a report's temporary file, then exits at once.
#pragma once

#include <atomic>

namespace storqual::runner {

// Installs the handlers (idempotent) and returns the flag the job threads watch.
std::atomic<bool>& install_stop_handlers();
// The signal that asked to stop, or 0.
[[nodiscard]] int stop_signal() noexcept;
// 128 + the signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), or 0 when none came.
[[nodiscard]] int interrupted_exit_code() noexcept;

}  // namespace storqual::runner
