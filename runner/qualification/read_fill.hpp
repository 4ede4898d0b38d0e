// SPDX-License-Identifier: Apache-2.0
// Reads of written data (docs/measurement.md, "Reads of written data"). A new drive, or a thin or
// trimmed one, answers a read of a block nobody wrote from the controller, without the media: on a
// loop device over a never-written file 4k random reads measured 518k-609k IOPS against 95k on
// written data. So before a read workload the region it reads must hold data this run wrote: a
// sequential write earlier in the run that covered it, the workload-independent preconditioning,
// the scratch file's layout, or a fill pass (sequential 1 MiB writes, outside the measured time).
// A purge before the workload deallocates its region again.
//
// `WrittenRegions` is the run's ledger of what holds its data; `fill_read_region` fills what a
// read workload is missing; `zero_sample` reads a sample of a span to say whether it is all zeros.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/result.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/preconditioning/preconditioning.hpp"

namespace storqual::runner {

// The byte spans of the target that hold data this run wrote, kept sorted and merged.
class WrittenRegions {
 public:
  void add(std::uint64_t offset, std::uint64_t size);
  void remove(std::uint64_t offset, std::uint64_t size);  // a purge deallocates
  // The parts of [offset, offset+size) not yet written, in offset order.
  [[nodiscard]] std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps(std::uint64_t offset,
                                                                          std::uint64_t size) const;
  [[nodiscard]] bool covers(std::uint64_t offset, std::uint64_t size) const {
    return gaps(offset, size).empty();
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans_;  // [begin, end)
};

// The spans a workload reads (each member job's of a group), empty for one that only writes or
// runs on the null engine.
[[nodiscard]] std::vector<std::pair<std::uint64_t, std::uint64_t>> read_spans(
    const WorkloadSpec& w);

// What a measured workload leaves written: a sequential write that wrote its whole region (each
// member job's). Random writes are not counted: their coverage of the region is not known.
void note_written(const WorkloadSpec& w, const reporting::WorkloadResult& r,
                  WrittenRegions& written);

// Reads `blocks` blocks of 4 KiB (the device's logical block when larger) spread evenly over
// [offset, offset+size) of `path`, until one is not all zeros; true when every byte was zero,
// nullopt when it could not read. Adds the bytes it read to `*bytes_read` when given.
[[nodiscard]] std::optional<bool> zero_sample(const std::string& path, std::uint64_t offset,
                                              std::uint64_t size, unsigned blocks = 64,
                                              std::uint64_t* bytes_read = nullptr);

// Fills the spans of read workload `w` that `written` lacks with sequential 1 MiB writes at
// iodepth 8 (1 on psync) through `measure`, after a zero sample of each; adds them to `written`.
// Throws UnitError when a fill pass fails (its error) or is interrupted.
[[nodiscard]] std::vector<reporting::FillReport> fill_read_region(const WorkloadSpec& w,
                                                                  WrittenRegions& written,
                                                                  const RunWorkload& measure);

// The bytes fill passes will write over the plan: each read workload's spans that no sequential
// write or preconditioning before it covers (an estimate made before measuring: a sequential
// write that stops early leaves a fill the estimate did not count).
[[nodiscard]] std::uint64_t planned_fill_bytes(const std::vector<WorkloadSpec>& plan,
                                               WrittenRegions written,
                                               const std::vector<bool>& preconditioned);

// "4.00 GiB by fill passes (1 workload), ..." for the run's header, or "" when the plan writes
// nothing; `preconditioning` the bytes its preconditioning writes.
[[nodiscard]] std::string planned_writes_text(const std::vector<WorkloadSpec>& plan,
                                              std::uint64_t fill_bytes,
                                              std::uint64_t preconditioning);

// How a run gives its read workloads written data: it fills them (`storqual run`, writes
// admitted), the target is a scratch file the run laid out itself, the fill was turned off
// (--no-fill), or the run may not write (a block device or file without --allow-destructive).
enum class FillPolicy { Fill, LaidOut, NoFill, MayNotWrite };

// The run's side of it, workload by workload: what preconditioning left, the fills (or what each
// read workload read instead), and the deviations that makes.
class ReadPreparation {
 public:
  // `why_not` (MayNotWrite): why the run cannot fill, for the deviation ("the run may not write
  // (--allow-destructive)", "the device is read-only").
  explicit ReadPreparation(FillPolicy policy, std::uint64_t laid_out_bytes = 0,
                           std::string why_not = {});
  // A <precondition> ran over `region`: a purge deallocates it, the workload-independent pass
  // writes it (once or twice: precondition_independent).
  void preconditioned(const WorkloadSpec& region, const Precondition& p);
  // Before read workload `w` is measured: its fills (FillPolicy::Fill), or a zero sample of what it
  // will read without one. Throws UnitError when a fill fails.
  [[nodiscard]] std::vector<reporting::FillReport> before(const WorkloadSpec& w,
                                                          const RunWorkload& measure);
  // After a workload: what it wrote.
  void after(const WorkloadSpec& w, const reporting::WorkloadResult& r) {
    note_written(w, r, written_);
  }
  // unwritten-reads (the verdict is about the controller, not the media: changes the subject) for
  // the workloads that read blocks this run did not write and that sampled as zeros, or all such
  // with --no-fill; unfilled-reads (weakens) for those whose blocks held data.
  [[nodiscard]] std::vector<reporting::Deviation> deviations() const;

 private:
  FillPolicy policy_;
  std::string why_not_;
  WrittenRegions written_;
  std::vector<std::string> zero_reads_, data_reads_;  // workload ids
  std::uint64_t sampled_bytes_ = 0;
  std::vector<std::string> fill_errors_;  // fills that failed, why
};

}  // namespace storqual::runner
