// SPDX-License-Identifier: Apache-2.0
// The real-capacity check (<capacity> in a suite; claim metric="capacity"): finds fake flash, the
// counterfeit card that reports 64 GB and stores 8 GB, by writing sample blocks with distinct
// verified headers (runner/measure/verify.hpp) spread evenly over the whole device and reading them
// back.
//
// Method (as f3, in one pass): samples sit at 0, interval, 2*interval, ... below the reported
// size; they are written from the highest offset down, so on a device that wraps (stores offset
// x at x mod real) the low, real part holds its own samples last, and every sample above the real
// size reads back another sample's header (misplaced) or nothing of ours (foreign). Then:
//  - usable_bytes = the offset of the lowest sample that did not read back its own block (the
//    reported size when all did): the real capacity lies in (usable - interval, usable], so the
//    precision is one sample interval;
//  - aliasing_start = the lowest sample that showed another sample's header, aliased_to = that
//    header's offset (the wrap: aliasing_start - aliased_to is the real size on a wrapping device).
// Density: about `samples` blocks of `bs` (default 4096 x 4 KiB: 16 MiB written whatever the
// size), at an interval of bs times a power of two (the largest not above size / samples, so
// between `samples` and twice as many); `interval` instead fixes the distance. Both are reported.
// Limit: a wrap is seen when a high sample lands exactly on a low one, i.e. when the real size is
// a multiple of the interval (every power-of-two size >= interval: what fake flash does, it drops
// address bits). A device that wraps at an odd size is missed unless `interval` divides it.
//
// Destructive: it writes the whole device's sample; the caller admits the target as for any
// write workload. Throws UnitError for a bad configuration and engines::EngineError when the
// target cannot be opened; I/O errors are counted as read/write errors in the report.
#pragma once

#include <cstdint>
#include <string>

#include "model/result.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"

namespace storqual::runner {

struct CapacityCheck {
  std::string id = "capacity";
  std::string target;
  std::string ioengine = "io_uring";
  bool direct = true;
  std::uint64_t bs = 4096;
  std::uint64_t samples = 4096;  // used when interval is 0
  std::uint64_t interval = 0;    // bytes between samples (a multiple of bs); 0 = from samples
  unsigned iodepth = 32;
  VerifyAlgorithm algorithm = VerifyAlgorithm::Xxh3;
  std::string location;  // "file:line:column" of the <capacity> element, for messages
};

// Applies one attribute of <capacity> (samples, interval, bs, iodepth, ioengine, direct, verify);
// throws UnitError naming what was expected.
void set_capacity_option(CapacityCheck& check, std::string_view name, std::string_view value);

// Runs the check; the result has kind "capacity", `capacity` set, write and read figures of the
// two passes, and an error when any I/O failed.
[[nodiscard]] reporting::WorkloadResult run_capacity_check(const CapacityCheck& check,
                                                           const RunOptions& options = {});

// "usable 1 GiB of 8 GiB reported (12.5%, 4096 samples every 2 MiB); aliasing from offset
// 1073741824 (holds offset 0)".
[[nodiscard]] std::string capacity_summary(const reporting::CapacityReport& r);

// A capacity claim (bytes) judged against the check: pass when usable >= claimed * (1 - tol).
[[nodiscard]] reporting::ClaimVerdict capacity_verdict(const reporting::WorkloadResult& result,
                                                       double claimed_bytes, double tolerance_pct);

}  // namespace storqual::runner
