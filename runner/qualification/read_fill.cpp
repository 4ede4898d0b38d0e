// SPDX-License-Identifier: Apache-2.0
// Reads of written data: the run's ledger, the zero sample and the fill pass (see read_fill.hpp).
#include "runner/qualification/read_fill.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kFillBlock = 1024 * 1024;

// One job spec per member of a group, or the workload itself.
std::vector<WorkloadSpec> jobs_of(const WorkloadSpec& w) {
  return w.jobs.empty() ? std::vector<WorkloadSpec>{w} : group_members(w);
}

bool on_a_device(const WorkloadSpec& w) {
  return w.params.ioengine != "null";
}

// Whether a measured job leaves its region written: it wrote at least the region's bytes in an
// order that visits every block (sequentially, or randomly with the random map).
bool covered_its_region(const WorkloadSpec& job, const reporting::DirectionResult* write) {
  if (!write || !on_a_device(job) || job.params.size == 0) return false;
  const RwMode mode = parse_rw(job.params.rw);
  const bool visits_every_block =
      mode == RwMode::Write || (mode == RwMode::RandWrite && job.params.randommap);
  return visits_every_block && write->bytes >= job.params.size && write->errors == 0;
}

}  // namespace

void WrittenRegions::add(std::uint64_t offset, std::uint64_t size) {
  if (size == 0) return;
  std::uint64_t begin = offset, end = offset + size;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& [b, e] : spans_) {
    if (e < begin || b > end) {
      out.emplace_back(b, e);
    } else {
      begin = std::min(begin, b);
      end = std::max(end, e);
    }
  }
  out.emplace_back(begin, end);
  std::sort(out.begin(), out.end());
  spans_ = std::move(out);
}

void WrittenRegions::remove(std::uint64_t offset, std::uint64_t size) {
  const std::uint64_t begin = offset, end = offset + size;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& [b, e] : spans_) {
    if (e <= begin || b >= end) {
      out.emplace_back(b, e);
      continue;
    }
    if (b < begin) out.emplace_back(b, begin);
    if (e > end) out.emplace_back(end, e);
  }
  spans_ = std::move(out);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> WrittenRegions::gaps(
    std::uint64_t offset, std::uint64_t size) const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::uint64_t at = offset;
  const std::uint64_t end = offset + size;
  for (const auto& [b, e] : spans_) {
    if (e <= at) continue;
    if (b >= end) break;
    if (b > at) out.emplace_back(at, b - at);
    at = std::max(at, e);
    if (at >= end) break;
  }
  if (at < end) out.emplace_back(at, end - at);
  return out;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> read_spans(const WorkloadSpec& w) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const WorkloadSpec& job : jobs_of(w))
    if (on_a_device(job) && rw_reads(parse_rw(job.params.rw)) && job.params.size > 0)
      out.emplace_back(job.params.offset, job.params.size);
  return out;
}

void note_written(const WorkloadSpec& w, const reporting::WorkloadResult& r,
                  WrittenRegions& written) {
  if (w.jobs.empty()) {
    if (covered_its_region(w, r.write ? &*r.write : nullptr))
      written.add(w.params.offset, w.params.size);
    return;
  }
  for (const WorkloadSpec& job : group_members(w))
    for (const auto& jr : r.jobs)
      if (jr.id == job.id && covered_its_region(job, jr.write ? &*jr.write : nullptr))
        written.add(job.params.offset, job.params.size);
}

std::optional<bool> zero_sample(const std::string& path, std::uint64_t offset, std::uint64_t size,
                                unsigned blocks, std::uint64_t* bytes_read) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // a filesystem without O_DIRECT
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::uint64_t block = 4096;
  int lbs = 0;
  if (::fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && ::ioctl(fd, BLKSSZGET, &lbs) == 0 &&
      static_cast<std::uint64_t>(lbs) > block)
    block = static_cast<std::uint64_t>(lbs);
  void* raw = nullptr;
  if (::posix_memalign(&raw, 4096, block) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  std::unique_ptr<unsigned char, decltype(&std::free)> buf(static_cast<unsigned char*>(raw),
                                                           &std::free);
  const std::uint64_t first = (offset + block - 1) / block * block;
  const std::uint64_t usable = offset + size > first ? (offset + size - first) / block : 0;
  bool all_zero = true, read_any = false;
  for (unsigned i = 0; i < blocks && usable > 0; ++i) {
    const std::uint64_t at = first + usable * i / blocks * block;
    if (::pread(fd, buf.get(), block, static_cast<off_t>(at)) != static_cast<ssize_t>(block))
      continue;
    read_any = true;
    if (bytes_read) *bytes_read += block;
    if (std::any_of(buf.get(), buf.get() + block, [](unsigned char c) { return c != 0; })) {
      all_zero = false;
      break;
    }
  }
  ::close(fd);
  if (!read_any) return std::nullopt;
  return all_zero;
}

std::vector<reporting::FillReport> fill_read_region(const WorkloadSpec& w, WrittenRegions& written,
                                                    const RunWorkload& measure) {
  std::vector<reporting::FillReport> out;
  for (const auto& [offset, size] : read_spans(w)) {
    for (const auto& [gap_offset, gap_size] : written.gaps(offset, size)) {
      reporting::FillReport f;
      f.offset = gap_offset;
      f.sampled_blocks = 64;
      const auto zeros =
          zero_sample(w.params.target, gap_offset, gap_size, f.sampled_blocks, &f.sample_bytes);
      f.sample_all_zero = zeros.value_or(false);
      if (!zeros) f.sampled_blocks = 0;
      WorkloadSpec fill = jobs_of(w).front();
      fill.id = w.id + " (fill)";
      fill.jobs.clear();
      fill.params.rw = "write";
      fill.params.offset = gap_offset;
      fill.params.size = gap_size;
      fill.params.bs = std::min<std::uint64_t>(kFillBlock, gap_size);
      fill.params.iodepth = fill.params.ioengine == "psync" ? 1 : 8;
      fill.params.numjobs = 1;
      fill.params.runtime_s = 0;
      fill.params.ramp_time_s = 0;
      fill.params.direct = w.params.direct;
      fill.verify = VerifyAlgorithm::None;
      fill.early_stop.clear();
      fill.rate_iops = 0;
      fill.rate_bytes = 0;
      fill.io_limit = 0;  // the whole span, whatever the read's own limit
      fill.zones = {};    // contiguous writes over the span, not the read's strided zones
      fill.seq_add = 0;   // nor its holes
      const reporting::WorkloadResult r = measure(fill);
      if (!r.errors.empty() || r.interrupted)
        throw UnitError("the fill of '" + w.id + "' before it reads failed: " +
                        (r.errors.empty() ? std::string("interrupted") : r.errors.front()));
      f.bytes = r.write ? r.write->bytes : 0;
      f.block = fill.params.bs;
      f.iodepth = fill.params.iodepth;
      f.seconds = r.elapsed_s;
      f.bytes_per_s = r.elapsed_s > 0 ? static_cast<double>(f.bytes) / r.elapsed_s : 0;
      if (f.bytes < gap_size)
        throw UnitError("the fill of '" + w.id + "' wrote " + format_bytes_iec(f.bytes) + " of " +
                        format_bytes_iec(static_cast<double>(gap_size)));
      written.add(gap_offset, gap_size);
      out.push_back(f);
    }
  }
  return out;
}

std::uint64_t planned_fill_bytes(const std::vector<WorkloadSpec>& plan, WrittenRegions written,
                                 const std::vector<bool>& preconditioned) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const WorkloadSpec& w = plan[i];
    if (i < preconditioned.size() && preconditioned[i]) written.add(w.params.offset, w.params.size);
    for (const auto& [offset, size] : read_spans(w))
      for (const auto& [gap_offset, gap_size] : written.gaps(offset, size)) {
        bytes += gap_size;
        written.add(gap_offset, gap_size);
      }
    // A sequential write is expected to cover its region (a time-bound one may not: then a fill
    // follows that this estimate did not count).
    for (const WorkloadSpec& job : jobs_of(w))
      if (on_a_device(job) && (parse_rw(job.params.rw) == RwMode::Write ||
                               (parse_rw(job.params.rw) == RwMode::RandWrite &&
                                job.params.randommap && job.params.runtime_s == 0)))
        written.add(job.params.offset, job.params.size);
  }
  return bytes;
}

std::string planned_writes_text(const std::vector<WorkloadSpec>& plan, std::uint64_t fill_bytes,
                                std::uint64_t preconditioning) {
  std::uint64_t sized = 0;
  unsigned timed = 0;
  double timed_s = 0;
  for (const WorkloadSpec& w : plan)
    if (writes(w) && on_a_device(w)) {
      if (w.params.runtime_s > 0) {
        ++timed;
        timed_s += w.params.runtime_s + w.params.ramp_time_s;
      } else {
        for (const WorkloadSpec& job : jobs_of(w))
          if (rw_writes(parse_rw(job.params.rw)))
            sized += job.params.size * std::max(1u, job.params.numjobs);
      }
    }
  std::vector<std::string> parts;
  if (fill_bytes)
    parts.push_back(format_bytes_iec(static_cast<double>(fill_bytes)) + " in fill passes");
  if (preconditioning)
    parts.push_back(format_bytes_iec(static_cast<double>(preconditioning)) + " preconditioning");
  if (sized) parts.push_back(format_bytes_iec(static_cast<double>(sized)) + " by sized workloads");
  if (timed)
    parts.push_back("what " + std::to_string(timed) + " timed write workload" +
                    (timed == 1 ? "" : "s") + " write in " + format_duration_fio(timed_s));
  if (parts.empty()) return "";
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

ReadPreparation::ReadPreparation(FillPolicy policy, std::uint64_t laid_out_bytes,
                                 std::string why_not)
    : policy_(policy), why_not_(std::move(why_not)) {
  if (policy == FillPolicy::LaidOut) written_.add(0, laid_out_bytes);
}

void ReadPreparation::preconditioned(const WorkloadSpec& region, const Precondition& p) {
  if (p.purge != PurgeMethod::None) written_.remove(region.params.offset, region.params.size);
  if (p.independent) written_.add(region.params.offset, region.params.size);
}

std::vector<reporting::FillReport> ReadPreparation::before(const WorkloadSpec& w,
                                                           const RunWorkload& measure) {
  if (policy_ == FillPolicy::Fill) {
    // A fill that fails (a file on a full filesystem: ENOSPC) does not cost the workload: it is
    // measured on what is there, and its read claims are inconclusive with the reason.
    try {
      return fill_read_region(w, written_, measure);
    } catch (const UnitError& e) {
      zero_reads_.push_back(w.id);
      fill_errors_.push_back(e.what());
      return {};
    }
  }
  bool unwritten = false, zeros = false;
  for (const auto& [offset, size] : read_spans(w))
    for (const auto& [gap_offset, gap_size] : written_.gaps(offset, size)) {
      unwritten = true;
      zeros =
          zeros ||
          zero_sample(w.params.target, gap_offset, gap_size, 64, &sampled_bytes_).value_or(false);
    }
  if (unwritten) {
    if (zeros || policy_ == FillPolicy::NoFill)
      zero_reads_.push_back(w.id);
    else
      data_reads_.push_back(w.id);
  }
  return {};
}

std::vector<reporting::Deviation> ReadPreparation::deviations() const {
  std::vector<reporting::Deviation> out;
  if (!zero_reads_.empty()) {
    reporting::Deviation d;
    d.kind = "unwritten-reads";
    d.text = !fill_errors_.empty()
                 ? "reads of blocks this run did not write: " + fill_errors_.front() +
                       "; a new or trimmed drive answers them from the controller, not the media"
             : policy_ == FillPolicy::NoFill
                 ? "reads of blocks this run did not write (--no-fill): a new or trimmed drive "
                   "answers them from the controller, not the media"
                 : "reads of never-written blocks: a sample (" +
                       format_bytes_iec(static_cast<double>(sampled_bytes_)) +
                       " read) came back all zeros and " +
                       (why_not_.empty() ? std::string("the run cannot fill them") : why_not_) +
                       "; the controller answers such reads, not the media";
    d.workloads = zero_reads_;
    d.changes_subject = true;
    out.push_back(std::move(d));
  }
  if (!data_reads_.empty()) {
    reporting::Deviation d;
    d.kind = "unfilled-reads";
    d.text = "reads of data this run did not write (" +
             (why_not_.empty() ? std::string("it cannot fill them") : why_not_) +
             "): what is there, and whether the drive keeps it mapped, is not known";
    d.workloads = data_reads_;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace storqual::runner
