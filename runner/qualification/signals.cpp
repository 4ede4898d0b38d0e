// SPDX-License-Identifier: Apache-2.0
// Stop handlers (see signals.hpp). The handler only touches lock-free atomics and calls
// async-signal-safe cleanup (unlink) before _exit.
#include "runner/qualification/signals.hpp"

#include <signal.h>
#include <unistd.h>

#include "archive/sql_connection.hpp"
#include "devices/scratch_file.hpp"
#include "reporting/atomic_file.hpp"

namespace storqual::runner {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

void on_signal(int sig) {
  int expected = 0;
  if (g_signal.compare_exchange_strong(expected, sig)) {
    g_stop.store(true);
    return;
  }
  // Second signal: leave nothing behind and go.
  devices::remove_scratch_files_now();
  reporting::remove_pending_temp_file();
  _exit(128 + sig);
}

}  // namespace

void ignore_broken_pipe() noexcept {
  struct sigaction sa {};
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPIPE, &sa, nullptr);
}

std::atomic<bool>& install_stop_handlers() {
  ignore_broken_pipe();
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking waits return EINTR and notice the stop
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  // A run that waits for the archive's writer lock after its reports are written stops waiting.
  reporting::set_archive_stop_flag(&g_stop);
  return g_stop;
}

int stop_signal() noexcept {
  return g_signal.load();
}

int interrupted_exit_code() noexcept {
  int s = g_signal.load();
  return s ? 128 + s : 0;
}

}  // namespace storqual::runner
