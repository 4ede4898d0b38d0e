// SPDX-License-Identifier: Apache-2.0
// The time source of the measurement loop, in nanoseconds on a monotonic scale.
//
// Like fio's default clocksource=cpu, it reads the CPU's time-stamp counter when that is safe: the
// kernel itself uses the TSC as its clocksource (so it is synchronised across CPUs and runs at a
// constant rate, also in idle states) and /proc/cpuinfo lists constant_tsc and nonstop_tsc. The
// TSC rate is calibrated once per process against CLOCK_MONOTONIC over 20 ms (error below 1e-5
// of any interval). Otherwise it falls back to clock_gettime(CLOCK_MONOTONIC). Reading the TSC
// costs a few nanoseconds against 15-25 ns for the vDSO call, which matters at millions of I/Os
// per second (the null engine), and not at all for real devices.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>

namespace storqual::runner {

// clock_gettime(CLOCK_MONOTONIC) in nanoseconds: the reference the TSC is calibrated against.
[[nodiscard]] std::uint64_t monotonic_now_ns() noexcept;
// clock_gettime(clock) in nanoseconds; nullopt where the clock cannot be read (a thread's CPU
// clock, pthread_getcpuclockid, once the thread has ended).
[[nodiscard]] std::optional<std::uint64_t> clock_now_ns(clockid_t clock) noexcept;

// Calibrates on first use (20 ms, thread-safe) and says which source is in use.
[[nodiscard]] bool tsc_clock_usable() noexcept;
// Nanoseconds from the TSC when usable, else from CLOCK_MONOTONIC. Same epoch either way is NOT
// promised: compare only values of one function.
[[nodiscard]] std::uint64_t fast_now_ns() noexcept;
// "tsc (2.10 GHz, calibrated)" or "clock_gettime(CLOCK_MONOTONIC)".
[[nodiscard]] const char* clock_description() noexcept;

}  // namespace storqual::runner
