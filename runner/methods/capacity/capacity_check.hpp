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
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/metric.hpp"
#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "runner/methods/method.hpp"

namespace storqual::runner {

// The real-capacity check (<capacity>): sample blocks spread over the device, written with
// distinct headers (highest offset first) and read back.
struct CapacityReport {
  std::uint64_t reported_bytes = 0;   // what the device says it holds
  std::uint64_t usable_bytes = 0;     // below the first sample that did not read back its own data
  std::uint64_t sample_interval = 0;  // bytes between samples: the precision of usable_bytes
  std::uint64_t samples = 0, samples_good = 0;
  std::uint64_t block_size = 0;
  std::optional<std::uint64_t> aliasing_start;  // first sample offset showing another's header
  std::optional<std::uint64_t> aliased_to;      // the offset whose header it showed
  std::uint64_t corrupted = 0, misplaced = 0, stale = 0, foreign = 0, read_errors = 0;
  std::vector<reporting::IntegrityFinding> findings;  // the first bad samples, in offset order
};

// The check's report in the result (model/method_report.hpp): kind "capacity", the JSON key
// "capacity" (after "integrity"; empty when the check did not finish), the HTML box, the words a
// capacity verdict adds (capacity_report.cpp).
class CapacityMethodReport final : public reporting::MethodReport {
 public:
  std::optional<CapacityReport> capacity;

  [[nodiscard]] std::string_view kind() const noexcept override { return "capacity"; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::AfterIntegrity;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::string claim_note(std::string_view metric) const override;
  // Its counts are its own two passes, not a workload's.
  [[nodiscard]] bool checked_for_stalls() const noexcept override { return !capacity; }
};

// The check's report of a result, or null when `w` is not a finished capacity check.
[[nodiscard]] const CapacityReport* capacity_report_of(const reporting::WorkloadResult& w) noexcept;
// Reads it back from a result's JSON (reporting/method_reports.hpp).
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_capacity_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

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
[[nodiscard]] std::string capacity_summary(const CapacityReport& r);

// A capacity claim (bytes) judged against the check: pass when usable >= claimed * (1 - tol).
[[nodiscard]] reporting::ClaimVerdict capacity_verdict(const reporting::WorkloadResult& result,
                                                       double claimed_bytes, double tolerance_pct);

// <capacity>: drives the engine itself (BlockIoDriver) with the run's stop flag and engine
// wrapper, not through RunWorkload passes.
class CapacityMethod final : public Method {
 public:
  explicit CapacityMethod(CapacityCheck check) : check_(std::move(check)) {}
  [[nodiscard]] const CapacityCheck& check() const noexcept { return check_; }
  [[nodiscard]] std::string_view element() const noexcept override { return "capacity"; }
  [[nodiscard]] bool runs_workloads() const noexcept override { return false; }
  // A check that ran names its own procedure; one that did not (an error) the workload's command.
  [[nodiscard]] bool prints_fio_summary(const reporting::WorkloadResult& result) const override {
    return !capacity_report_of(result);
  }
  [[nodiscard]] std::string fio_command_as_run(
      const WorkloadSpec& as_run, const reporting::WorkloadResult& result) const override {
    return capacity_report_of(result) ? result.fio_command : fio_command(as_run);
  }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override {
    CapacityCheck check = check_;
    check.target = w.params.target;
    return run_capacity_check(check, context.direct);
  }
  [[nodiscard]] std::string fio_equivalent(const WorkloadSpec& /*spec*/) const override {
    const std::string density =
        check_.interval ? "one every " + format_size_fio(check_.interval)
                        : std::to_string(check_.samples) + " samples spread over the target";
    return "capacity check: " + format_size_fio(check_.bs) + " blocks, " + density +
           ", written with distinct headers then read back (f3probe-like; no fio equivalent)";
  }
  [[nodiscard]] std::string summary_line(const WorkloadSpec& /*spec*/) const override {
    const std::string density = check_.interval ? "every " + format_size_fio(check_.interval)
                                                : std::to_string(check_.samples) + " samples";
    char line[256];
    std::snprintf(line, sizeof line, "%-9s %-5s QD%u, %s", "capacity",
                  format_size_fio(check_.bs).c_str(), check_.iodepth, density.c_str());
    return line;
  }

 private:
  CapacityCheck check_;
};

// The registry's entry for <capacity>: the check as a method (it takes no <precondition>).
[[nodiscard]] MethodEntry capacity_method_entry();

// The figure it publishes (model/metric.hpp figure_table()): capacity, the usable bytes.
[[nodiscard]] std::span<const reporting::FigureInfo> capacity_figure_rows() noexcept;

}  // namespace storqual::runner
