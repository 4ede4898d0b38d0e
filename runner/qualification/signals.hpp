// SPDX-License-Identifier: Apache-2.0
// Signals during a run: the first SIGINT, SIGTERM or SIGHUP asks the run to stop (the current
// workload ends as interrupted, reports of what finished are written, exit 128+signal); a second
// one removes scratch files and a report's temporary file, then exits at once. SIGPIPE is ignored:
// a console piped into `head` that exits early must not kill the run before its reports are
// written; the console's writes after that fail with EPIPE and are dropped.
#pragma once

#include <atomic>

namespace storqual::runner {

// SIGPIPE ignored (idempotent): a write to a closed pipe fails with EPIPE instead of killing the
// process. Every command does this first (cli_main); install_stop_handlers does it too.
void ignore_broken_pipe() noexcept;
// Installs the handlers and ignores SIGPIPE (idempotent) and returns the flag the job threads
// watch.
std::atomic<bool>& install_stop_handlers();
// The signal that asked to stop, or 0.
[[nodiscard]] int stop_signal() noexcept;
// 128 + the signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), or 0 when none came.
[[nodiscard]] int interrupted_exit_code() noexcept;

}  // namespace storqual::runner
