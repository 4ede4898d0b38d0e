// SPDX-License-Identifier: Apache-2.0
// The burn-in surface scan (<surface-scan> in a suite; the suite `burn-in`, docs/burn-in.md): the
// whole region written once, block after block, each block with a verify header
// (runner/measure/verify.hpp), then read back in order and checked: the integrity classes
// (corrupted, misplaced, stale, foreign = lost) are the run's integrity testcase, as for any
// verified workload.
//
// What it measures, as surface scanners (MHDD, Victoria) do:
//  - the time of every block read, in latency classes: under 5, 20, 50, 150, 500 ms, 500 ms and
//    over, and errors (a read that failed) - kScanClassBoundsMs;
//  - MB/s along the LBA range: the region cut into `points` bins of whole blocks (the last one
//    shorter), each bin's bytes over the time its I/Os took (at iodepth 1 that is its wall time),
//    read and write: the zone curve of an HDD, the cliff of an SSD;
//  - slow regions: runs of bins whose read rate is below half the median bin's, named by LBA range
//    (logical blocks of the device); the slowest blocks (150 ms and over, or failed) by LBA.
// Figures: scan.read_bw, scan.write_bw (each pass's bytes over its time), scan.min_read_bw (the
// slowest bin): measured-only verdicts of their own (lists_figures), so that a fleet flags a unit
// much slower than its lot's median the way it flags a claim outlier (reporting/fleet_report.hpp).
//
// Long runs: with a checkpoint path (MethodContext::checkpoint) the scan keeps its progress in a
// checkpoint file (scan_checkpoint.hpp) beside the reports, written atomically after every chunk
// of at most 30 s and when stopped; the run's stop flag (SIGINT) ends the pass at a chunk's I/O
// in flight and saves it; `storqual run --resume` continues from it: nothing done twice, nothing
// skipped, the counts and classes those of an uninterrupted scan. A scan that finishes removes its
// checkpoint. Progress and ETA on the console go through RunOptions::live (bytes of both passes).
//
// Destructive: it writes the whole region; the caller admits the target as for any write workload.
// Throws UnitError for a bad configuration, UsageError for a checkpoint it cannot take (naming the
// file) and engines::EngineError when the target cannot be opened; I/O errors are counted.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/metric.hpp"
#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/surface_scan/scan_report.hpp"

namespace storqual::runner {

// The scan's report in the result (model/method_report.hpp): kind "surface-scan", the JSON key
// "surface_scan" (after "integrity"), the HTML box (class table, LBA chart, slow regions), the
// console block (class table), its figures listed (surface_scan_report.cpp).
class SurfaceScanMethodReport final : public reporting::MethodReport {
 public:
  std::optional<SurfaceScanReport> scan;

  [[nodiscard]] std::string_view kind() const noexcept override { return "surface-scan"; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::AfterIntegrity;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::string console_block(const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::string claim_note(std::string_view metric) const override;
  [[nodiscard]] bool lists_figures() const noexcept override { return scan.has_value(); }
  [[nodiscard]] bool checked_for_stalls() const noexcept override { return !scan; }
};

[[nodiscard]] const SurfaceScanReport* surface_scan_report_of(
    const reporting::WorkloadResult& w) noexcept;
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_surface_scan_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

struct SurfaceScan {
  std::string id = "surface-scan";
  std::string target;
  std::string ioengine = "io_uring";
  bool direct = true;
  std::uint64_t bs = 128 * 1024;       // MHDD's and Victoria's block of 256 sectors
  unsigned iodepth = 1;                // one block at a time: the read time is the block's own
  unsigned points = 200;               // bins of the LBA chart
  std::uint64_t offset = 0, size = 0;  // the region (size 0: to the end of the target)
  VerifyAlgorithm algorithm = VerifyAlgorithm::Xxh3;
};

// Applies one attribute of <surface-scan> (bs, iodepth, points, ioengine, direct, verify, offset,
// size); throws UnitError naming what was expected.
void set_surface_scan_option(SurfaceScan& scan, std::string_view name, std::string_view value);

// Runs the scan; `checkpoint` as MethodContext gives it (path "" = none: no resume, no file).
[[nodiscard]] reporting::WorkloadResult run_surface_scan(const SurfaceScan& scan,
                                                         const RunOptions& options,
                                                         const MethodCheckpoint& checkpoint = {});

// <surface-scan>: drives the engine itself (BlockIoDriver) with the run's stop flag.
class SurfaceScanMethod final : public Method {
 public:
  explicit SurfaceScanMethod(SurfaceScan scan) : scan_(std::move(scan)) {}
  [[nodiscard]] std::string_view element() const noexcept override { return "surface-scan"; }
  [[nodiscard]] bool runs_workloads() const noexcept override { return false; }
  [[nodiscard]] bool takes_early_stop() const noexcept override { return false; }
  [[nodiscard]] bool prints_fio_summary(const reporting::WorkloadResult& result) const override {
    return !surface_scan_report_of(result);
  }
  [[nodiscard]] std::string fio_command_as_run(
      const WorkloadSpec& as_run, const reporting::WorkloadResult& result) const override;
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override;
  [[nodiscard]] std::string fio_equivalent(const WorkloadSpec& spec) const override;
  [[nodiscard]] std::string summary_line(const WorkloadSpec& spec) const override;

 private:
  SurfaceScan scan_;
};

// The registry's entry for <surface-scan> (it takes no <precondition>).
[[nodiscard]] MethodEntry surface_scan_method_entry();

// Its figures (model/metric.hpp figure_table()): scan.read_bw, scan.write_bw, scan.min_read_bw.
[[nodiscard]] std::span<const reporting::FigureInfo> surface_scan_figure_rows() noexcept;

}  // namespace storqual::runner
