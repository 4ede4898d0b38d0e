// SPDX-License-Identifier: Apache-2.0
// TSC-based nanosecond clock with a clock_gettime fallback (see clock.hpp).
#include "runner/measure/clock.hpp"

#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

namespace storqual::runner {
namespace {

__extension__ typedef unsigned __int128 U128;

struct TscCalibration {
  bool usable = false;
  std::uint64_t base_tsc = 0;
  std::uint64_t base_ns = 0;
  std::uint64_t mult = 0;  // ns per tick, as a 32.32 fixed-point number
  char description[96] = "clock_gettime(CLOCK_MONOTONIC)";
};

bool kernel_trusts_tsc() {
  std::ifstream cs("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  if (!(cs >> source) || source != "tsc") return false;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) == 0)
      return line.find(" constant_tsc") != std::string::npos &&
             line.find(" nonstop_tsc") != std::string::npos;
  }
  return false;
}

const TscCalibration& calibration() {
  static TscCalibration cal;
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__x86_64__)
    if (!kernel_trusts_tsc()) return;
    std::uint64_t ns0 = monotonic_now_ns(), tsc0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::uint64_t ns1 = monotonic_now_ns(), tsc1 = __rdtsc();
    if (tsc1 <= tsc0 || ns1 <= ns0) return;
    cal.mult = static_cast<std::uint64_t>((static_cast<U128>(ns1 - ns0) << 32) / (tsc1 - tsc0));
    cal.base_tsc = tsc1;
    cal.base_ns = ns1;
    cal.usable = cal.mult != 0;
    double ghz = static_cast<double>(tsc1 - tsc0) / static_cast<double>(ns1 - ns0);
    std::snprintf(cal.description, sizeof cal.description, "tsc (%.2f GHz, calibrated)", ghz);
#endif
  });
  return cal;
}

}  // namespace

std::optional<std::uint64_t> clock_now_ns(clockid_t clock) noexcept {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t monotonic_now_ns() noexcept {
  return clock_now_ns(CLOCK_MONOTONIC).value_or(0);
}

bool tsc_clock_usable() noexcept {
  return calibration().usable;
}

std::uint64_t fast_now_ns() noexcept {
#if defined(__x86_64__)
  static const TscCalibration& cal = calibration();
  if (cal.usable) {
    std::uint64_t delta = __rdtsc() - cal.base_tsc;
    return cal.base_ns + static_cast<std::uint64_t>((static_cast<U128>(delta) * cal.mult) >> 32);
  }
#endif
  return monotonic_now_ns();
}

const char* clock_description() noexcept {
  return calibration().description;
}

}  // namespace storqual::runner
