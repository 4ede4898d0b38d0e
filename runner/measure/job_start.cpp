// SPDX-License-Identifier: Apache-2.0
// The start line of a workload's jobs (run_jobs): each job opens its engine in its own thread
// (Job::open), the regions and ledgers are checked, then all go at t0. The job loop (job_loop.hpp)
// is compiled here.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/disk_stats.hpp"
#include "runner/measure/job_loop.hpp"
#include "runner/measure/job_plan.hpp"
#include "runner/measure/zbd_zones.hpp"

namespace storqual::runner::jobs {

namespace {

// The io_uring poll budget (engines::EngineConfig::spin_wait_ns). Automatic: 20 us, about ten
// completions of a fast NVMe or zram device, and only while the host's poll budget lets it
// (runner/measure/poll_budget.hpp: a CPU really spare, over every job of every target).
std::uint32_t spin_wait_ns(const WorkloadSpec& spec) {
  if (spec.spin_wait_s >= 0) return static_cast<std::uint32_t>(spec.spin_wait_s * 1e9);
  return 20000u;
}

// User + system time of the whole process, every thread of it.
double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Why the jobs cannot start, when they cannot: `usage` for a workload that does not fit the target
// (UnitError), else the engine's errno (EngineError).
struct SetupProblem {
  std::string what;
  bool usage = false;
  int error = 0;
  [[nodiscard]] bool any() const noexcept { return !what.empty(); }
};

// Once every job opened its engine: the first that could not, else the region against the target
// (offset and size inside it, aligned under O_DIRECT, at least one block); sets plan.region_size.
SetupProblem check_region(std::span<const JobOutcome> outcomes, MemberPlan& plan) {
  const auto& p = plan.spec->params;
  for (const auto& o : outcomes)
    if (!o.opened) return {o.setup_error, false, o.setup_errno};
  const JobOutcome& first = outcomes.front();
  const bool sized = p.ioengine != "null";
  std::uint64_t target_size = sized ? first.target_size : (1ull << 40);
  if (p.offset >= target_size && sized)
    return {"offset " + std::to_string(p.offset) + " is past the end of " + p.target + " (" +
                std::to_string(target_size) + " bytes)",
            true};
  plan.region_size = p.size ? p.size : target_size - p.offset;
  plan.target_size = target_size;
  if (sized && p.offset + plan.region_size > target_size)
    return {"size " + format_size_fio(p.size) + " at offset " + std::to_string(p.offset) +
                " reaches past the end of " + p.target + " (" + std::to_string(target_size) +
                " bytes)",
            true};
  std::uint32_t lbs = first.logical_block;
  if (p.direct && plan.spec->mixed_block_sizes())
    for (unsigned d = 0; d < 3; ++d)
      for (std::uint64_t b : d == 2 ? std::vector<std::uint64_t>{offset_granule(*plan.spec)}
                                    : block_sizes_of(plan.spec->block_sizes(d)))
        if (b % lbs != 0)
          return {"block size " + std::to_string(b) +
                      " of the mix must be a multiple of the "
                      "logical block size " +
                      std::to_string(lbs) + " of " + p.target + " under direct=1",
                  true};
  if (p.direct && (p.bs % lbs != 0 || p.offset % lbs != 0))
    return {"workload '" + plan.spec->id + "': bs " + std::to_string(p.bs) + " and offset " +
                std::to_string(p.offset) + " must be multiples of the logical block size " +
                std::to_string(lbs) + " of " + p.target +
                " under direct=1 (as fio's O_DIRECT; bs need not divide the offset)",
            true};
  // offset_increment moves each job's region: its start too must be aligned.
  if (p.direct && plan.spec->offset_increment % lbs != 0)
    return {"workload '" + plan.spec->id + "': offset_increment " +
                std::to_string(plan.spec->offset_increment) +
                " is not a multiple of the logical block size " + std::to_string(lbs) + " of " +
                p.target + " under direct=1",
            true};
  // offset_increment: the last job's region lies furthest in.
  const std::uint64_t last_start = p.offset + (p.numjobs - 1) * plan.spec->offset_increment;
  if (sized && plan.spec->offset_increment && last_start + plan.region_size > target_size)
    return {"job " + std::to_string(p.numjobs - 1) + "'s region at offset " +
                std::to_string(last_start) + " (offset_increment " +
                format_size_fio(plan.spec->offset_increment) + ") reaches past the end of " +
                p.target + " (" + std::to_string(target_size) + " bytes)",
            true};
  if (plan.region_size < p.bs)
    return {"the region (" + std::to_string(plan.region_size) + " bytes) is smaller than bs", true};
  return {};
}

// fio's strided zones for job `job` of the member (runner/measure/strided_zones.hpp).
StridedWalk::Setup zone_setup(const MemberPlan& plan, unsigned job, bool time_based) {
  const WorkloadSpec& spec = *plan.spec;
  const std::uint64_t start = plan.region_offset + job * spec.offset_increment;
  const RwMode mode = plan.mode;
  return {.zones = spec.zones,
          .region_bytes = plan.region_size,
          .target_bytes = plan.target_size - std::min(plan.target_size, start),
          .block_size = spec.params.bs,
          .random = rw_random(mode),
          .randommap = spec.params.randommap,
          .time_based = time_based};
}

// Strided zones against the target: a zone inside the region, and a walk that fio would end at
// the target's end only where storqual ends it the same way (one sequential direction, size
// based: after as many I/Os as fio); else the zone that fio cuts is refused.
SetupProblem check_zones(const MemberPlan& plan) {
  const WorkloadSpec& spec = *plan.spec;
  if (!spec.zones.active()) return {};
  const auto& p = spec.params;
  if (spec.zones.extent() > plan.region_size)
    return {"zonerange " + format_size_fio(spec.zones.extent()) + " is larger than the region (" +
                std::to_string(plan.region_size) + " bytes)",
            true};
  const bool time_based = p.runtime_s > 0;
  const bool exact = !rw_random(plan.mode) && !(rw_reads(plan.mode) && rw_writes(plan.mode)) &&
                     !time_based && !spec.io_limit;
  for (unsigned k = 0; k < p.numjobs; ++k) {
    const StridedWalk::Setup setup = zone_setup(plan, k, time_based);
    const auto cut = strided_cut(setup);
    std::uint64_t budget = plan.region_size / p.bs;
    if (spec.io_limit) budget = (spec.io_limit / p.bs + p.numjobs - 1) / p.numjobs;
    if (spec.number_ios) budget = std::min(budget, spec.number_ios);
    if (!cut || exact || (!time_based && budget <= cut->ios_before)) continue;
    const char* why = rw_random(plan.mode) ? "its random offsets"
                      : !exact && !time_based && !spec.io_limit
                          ? "its random choice of direction"
                          : "where its next loop starts (fio's loops, io_size or runtime)";
    return {"zonemode=strided: job " + std::to_string(k) + "'s zone at offset " +
                std::to_string(plan.region_offset + k * spec.offset_increment + cut->zone_start) +
                " (zonerange " + format_size_fio(spec.zones.extent()) +
                ") reaches past the end of " + p.target + " (" + std::to_string(plan.target_size) +
                " bytes), and where fio then ends the job depends on " + why +
                ": give a size that ends before that zone, or a zoneskip that wraps before it",
            true};
  }
  return {};
}

// zonemode=zbd (runner/measure/zbd_zones.hpp): reads only, on a zoned block device whose zone
// size is the workload's zonesize (fio's zbd_verify_sizes); with read_beyond_wp=0 a sequential
// read, and the zone report gives each job's runs (plan.zbd_runs).
SetupProblem check_zbd(MemberPlan& plan) {
  const WorkloadSpec& spec = *plan.spec;
  if (!spec.zones.zbd()) return {};
  const auto& p = spec.params;
  const std::string head = "workload '" + spec.id + "': zonemode=zbd: ";
  if (rw_writes(plan.mode))
    return {head +
                "writes under zonemode=zbd (at each zone's write pointer, zone resets, "
                "max_open_zones) are not built yet; storqual runs zbd reads only",
            true};
  const ZbdReport report =
      read_zone_report(p.target, plan.region_offset, plan.region_offset + plan.region_size);
  if (!report.error.empty()) return {head + report.error, false, EIO};
  if (report.model.empty() || report.model == "none" || report.zone_bytes == 0)
    return {head + p.target + " is not a zoned block device (queue/zoned \"" +
                (report.model.empty() ? std::string("none") : report.model) +
                "\"): zonemode=zbd needs one (fio emulates zones on other targets; storqual "
                "does not)",
            true};
  if (spec.zones.size && spec.zones.size != report.zone_bytes)
    return {head + "zonesize " + format_size_fio(spec.zones.size) + " does not match the zone " +
                "size " + format_size_fio(report.zone_bytes) + " of " + p.target +
                " (fio refuses the job the same way)",
            true};
  if (spec.zones.read_beyond_wp) return {};
  if (rw_random(plan.mode))
    return {head + "random reads with read_beyond_wp=0 are not built yet (sequential reads are)",
            true};
  plan.zbd_runs = zbd_read_runs(report.zones, plan.region_offset, plan.region_size, p.bs);
  if (plan.zbd_runs.empty())
    return {head + "no zone of " + p.target + " from offset " + std::to_string(p.offset) +
                " holds a block of bs " + format_size_fio(p.bs) +
                " below its write pointer: nothing to read with read_beyond_wp=0 (fio ends "
                "such a job at once)",
            true};
  return {};
}

// With verify: the caller's ledger (checked to cover this region at this bs) or one of our own.
SetupProblem prepare_ledger(const WorkloadSpec& spec, const RunOptions& options, MemberPlan& plan,
                            std::optional<VerifyLedger>& own_ledger) {
  const auto& p = spec.params;
  try {
    if (options.verify_ledger) {
      const VerifyLedger& l = *options.verify_ledger;
      if (l.region_offset() != p.offset ||
          l.region_size() / l.block_size() != plan.region_size / p.bs || l.block_size() != p.bs)
        throw UnitError("the verify ledger covers another region or bs than the workload");
      plan.ledger = options.verify_ledger;
    } else {
      own_ledger.emplace(p.offset, plan.region_size, p.bs, spec.verify);
      plan.ledger = &*own_ledger;
    }
    plan.ledger->prepare_jobs(p.numjobs);
  } catch (const UnitError& e) {
    return {e.what(), true};
  }
  return {};
}

// Once every job opened its engine: each member's region (check_region) and verify ledger; a
// group's problem names its job.
SetupProblem check_members(const RunOptions& options, std::span<MemberPlan> members,
                           std::span<const JobOutcome> outcomes,
                           std::optional<VerifyLedger>& own_ledger) {
  for (MemberPlan& m : members) {
    SetupProblem problem = check_region(outcomes.subspan(m.first, m.spec->params.numjobs), m);
    if (!problem.any()) problem = check_zones(m);
    if (!problem.any()) problem = check_zbd(m);
    if (!problem.any() && m.spec->distribution.kind == DistributionKind::Zipf)
      m.zipf_zetan = zipf_zetan(m.spec->distribution.value, skew_ranges(*m.spec, m.region_size));
    if (!problem.any() && m.spec->verify != VerifyAlgorithm::None)
      problem = prepare_ledger(*m.spec, options, m, own_ledger);
    if (problem.any()) {
      if (members.size() > 1 || !m.spec->jobs.empty())
        problem.what = "job '" + m.spec->id + "': " + problem.what;
      return problem;
    }
  }
  return {};
}

}  // namespace

// Phase 1: open the engine (in the job's own thread).
void Job::open() {
  const auto& spec = *member_.spec;
  const auto& p = spec.params;
  try {
    engine_ = engines::make_engine(p.ioengine);
    if (plan_.options->wrap_engine) engine_ = plan_.options->wrap_engine(std::move(engine_));
    depth_ = engine_->caps().async ? p.iodepth : 1u;
    allocate_buffers();
    engines::EngineConfig cfg;
    cfg.path = p.target;
    cfg.write = rw_writes(member_.mode);
    cfg.direct = p.direct;
    cfg.exclusive = plan_.options->exclusive;
    cfg.iodepth = depth_;
    cfg.fixed_buffers = spec.fixedbufs;
    cfg.registered_files = spec.registerfiles;
    cfg.sqpoll = spec.sqpoll;
    cfg.iopoll = spec.iopoll;
    cfg.batch_submit = spec.iodepth_batch;
    cfg.spin_wait_ns = spin_wait_ns(spec);
    if (spec.spin_wait_s < 0) cfg.poll_gate = plan_.poll_gate;
    for (unsigned i = 0; i < depth_; ++i) cfg.buffers.push_back({buffer(i), largest_block(spec)});
    engine_->open(cfg);
    out_.target_size = engine_->target_size();
    out_.logical_block = engine_->logical_block_size();
    out_.opened = true;
  } catch (const engines::EngineError& e) {
    out_.setup_error = e.what();
    out_.setup_errno = e.error();
  } catch (const std::exception& e) {
    out_.setup_error = e.what();
    out_.setup_errno = EINVAL;
  }
}

// The pacing of the job (runner/measure/workload_pacing.cpp): its start after startdelay (a
// range drawn as fio's rand_between from its delay_state), the rate's process, think time and the
// minimum rate. fio's seeds (fio.h FIO_RAND_*_OFF): 13 the start delay, 15 and 17 the poisson
// gaps of reads and writes; `thread_number` as fio numbers the job.
void Job::prepare_pacing(const WorkloadSpec& spec, unsigned thread_number) {
  std::uint64_t delay_us = static_cast<std::uint64_t>(std::llround(spec.startdelay_s * 1e6));
  if (spec.startdelay_max_s > spec.startdelay_s) {
    const bool use64 = spec.distribution.use64;
    FioRandom delay(fio_seed(static_cast<FioSeed>(13), kFioDefaultRandseed, thread_number), use64);
    const auto hi = static_cast<std::uint64_t>(std::llround(spec.startdelay_max_s * 1e6));
    // fio's rand32_upto / rand64_upto: (end + 1) x next / (max + 1)
    const double u =
        static_cast<double>(delay.next()) / (use64 ? 18446744073709551616.0 : 4294967296.0);
    delay_us += static_cast<std::uint64_t>(static_cast<double>(hi - delay_us + 1) * u);
  }
  start_ns_ = plan_.t0 + delay_us * 1000;
  next_due_ = start_ns_;
  if (spec.rate_poisson && rate_ >= 1) {
    const unsigned purpose =
        member_.mode == RwMode::Write || member_.mode == RwMode::RandWrite ? 17u : 15u;
    poisson_.emplace(fio_seed(static_cast<FioSeed>(purpose), kFioDefaultRandseed, thread_number),
                     false);
  }
  think_ns_ = static_cast<std::uint64_t>(std::llround(spec.thinktime_s * 1e9));
  think_spin_ns_ = static_cast<std::uint64_t>(std::llround(spec.thinktime_spin_s * 1e9));
  think_blocks_ = std::max(1u, spec.thinktime_blocks);
  paced_ = rate_ > 0 || think_ns_ > 0;
  if (spec.flow) {
    for (FlowCounter& f : plan_.flows)
      if (f.id == spec.flow_id) flow_ = &f;
    flow_weight_ = spec.flow;
    flow_sleep_ns_ = spec.flow_sleep_us * 1000;
  }
  gated_ = paced_ || flow_;
  end_ = plan_.exit_groups.empty() ? &plan_.end : &plan_.exit_groups[spec.exit_group];
  min_iops_ = spec.rate_iops_min;
  min_bytes_ = spec.rate_min_bytes;
  min_rate_ = min_iops_ > 0 || min_bytes_ > 0;
  cycle_ns_ = static_cast<std::uint64_t>(std::llround(spec.rate_cycle_s * 1e9));
}

// fio's compressible and deduplicable writes (runner/measure/write_buffers.hpp): every buffer
// filled once as fio fills its io_u buffers at start, then each write refilled (fio's
// refill_buffers), from generators seeded as fio seeds job `thread_number` of the workload's.
void Job::prepare_buffers(const WorkloadSpec& spec, unsigned thread_number) {
  unsigned threads = plan_.spec->params.numjobs;
  if (!plan_.spec->jobs.empty()) {
    threads = 0;
    for (const WorkloadSpec& m : group_members(*plan_.spec)) threads += m.params.numjobs;
  }
  const std::uint64_t min_write = spec.bs_mix[1].min_bs ? spec.bs_mix[1].min_bs : spec.params.bs;
  fill_.emplace(spec.buffers, FioBufferFill::Job{
                                  .size = spec.params.size ? spec.params.size : member_.region_size,
                                  .min_write = static_cast<std::uint32_t>(min_write),
                                  .thread_number = thread_number,
                                  .threads = std::max(1u, threads),
                                  .use64 = spec.distribution.use64});
  const auto largest = static_cast<std::uint32_t>(largest_block(spec));
  for (unsigned i = 0; i < depth_; ++i) fill_->fill(buffer(i), largest);
  contents_ = WriteContents::Refill;
}

void Job::prepare_loop() {
  const auto& spec = *member_.spec;
  const auto& p = spec.params;
  now_fn_ = plan_.options->now;
  live_ = plan_.options->live;
  stop_ = plan_.options->stop;
  bs_ = static_cast<std::uint32_t>(p.bs);
  // Requests per submit: iodepth_batch_submit, or everything that is ready.
  batch_ = spec.iodepth_batch ? spec.iodepth_batch : UINT_MAX;
  time_based_ = p.runtime_s > 0;
  io_timeout_ns_ = static_cast<std::uint64_t>(spec.io_timeout_s * 1e9);
  // How long a request may keep coming back with EAGAIN or short before it is an error.
  retry_limit_ns_ = io_timeout_ns_ ? io_timeout_ns_ : kDrainLimitNs;
  rate_ = spec.effective_rate_iops();
  advise(spec.fadvise_hint);
  contents_ = spec.write_contents;
  // Each job of the workload its own sequence: a group's members are numbered on from the first.
  const std::uint64_t seq = member_.first + index_;
  prepare_pacing(spec, static_cast<unsigned>(seq) + 1);
  if (spec.buffers.active() && rw_writes(member_.mode))
    prepare_buffers(spec, static_cast<unsigned>(seq) + 1);
  rng_.emplace(0x5354525155414cull ^ (seq << 32) ^ plan_.t0);
  // With a mix, random offsets are blocks of blockalign (fio's ba, by default the smallest size
  // in use), as many as start an I/O of the smallest size inside the region (io_u.c last_block).
  const bool mixed = spec.mixed_block_sizes();
  const bool skewed = spec.distribution.skewed();
  const std::uint64_t granule = mixed || skewed ? offset_granule(spec) : p.bs;
  const std::uint64_t smallest = mixed || skewed ? smallest_block(spec) : p.bs;
  const std::uint64_t span =
      member_.region_size -
      std::min(member_.region_size, smallest > granule ? smallest - granule : 0);
  offsets_.emplace(
      OffsetGenerator::Layout{
          .mode = member_.mode,
          .randommap = p.randommap,  // io_limit may pass over the region more than once
          .region_offset = member_.region_offset + index_ * spec.offset_increment,
          .region_blocks = span / granule,
          .block_size = granule,
          .jobs = member_.ledger ? p.numjobs : 1u,
          .job = member_.ledger ? index_ : 0u,
          .seq_add_blocks = spec.seq_add / static_cast<std::int64_t>(granule)},
      *rng_);
  if (skewed) {
    skew_.emplace(
        spec.distribution,
        SkewedBlocks::Setup{offsets_->blocks(), skew_ranges(spec, member_.region_size), granule,
                            p.target, static_cast<unsigned>(seq) + 1, member_.zipf_zetan});
    offsets_->skew(&*skew_);
  }
  std::optional<StridedCut> zone_cut;
  if (spec.zones.active()) {
    const StridedWalk::Setup setup = zone_setup(member_, index_, time_based_);
    zones_.emplace(setup, *rng_);
    offsets_->stride(&*zones_);
    zone_cut = strided_cut(setup);  // check_zones let through only the cut fio ends exactly
  }
  if (!member_.zbd_runs.empty()) {  // zonemode=zbd reads below the write pointers (check_zbd)
    zbd_.emplace(member_.zbd_runs, member_.region_offset, p.bs);
    offsets_->zbd(&*zbd_);
  }
  if (spec.distribution.lfsr && rw_random(member_.mode) && offsets_->blocks()) {
    lfsr_.emplace(offsets_->blocks(), fio_block_seed(static_cast<unsigned>(seq) + 1));
    if (lfsr_->valid()) {
      offsets_->lfsr(&*lfsr_);
    } else {  // fio refuses the job the same way
      out_.setup_error = "random_generator=lfsr: fio's LFSR has no start for " +
                         std::to_string(offsets_->blocks()) + " blocks from this job's seed";
      out_.setup_errno = EINVAL;
    }
  }
  total_ios_ = time_based_ ? UINT64_MAX : offsets_->blocks();
  if (spec.io_limit)  // this job's share of the bytes, in whole I/Os
    total_ios_ = std::max<std::uint64_t>(1, (spec.io_limit / p.bs + p.numjobs - 1) / p.numjobs);
  if (mixed) {
    mix_.emplace(spec.block_sizes(0), spec.block_sizes(1),
                 MixedIoPlacement::Region{member_.region_offset, member_.region_size, granule,
                                          rw_random(member_.mode)},
                 static_cast<unsigned>(seq) + 1);
    // A size-based run ends at its bytes: the region, or its share of io_limit (as above).
    if (!time_based_) mix_budget_ = spec.io_limit ? total_ios_ * p.bs : member_.region_size;
    total_ios_ = UINT64_MAX;
  }
  if (spec.number_ios) total_ios_ = std::min(total_ios_, spec.number_ios);  // fio's number_ios
  if (zone_cut && !time_based_) total_ios_ = std::min(total_ios_, zone_cut->ios_before);
  if (zbd_ && !time_based_) total_ios_ = std::min(total_ios_, zbd_->blocks());  // then fio's eof
  // Holes (fio's rw=MODE:N forward): fio ends the job when an I/O ends exactly at the region's
  // end (get_next_seq_offset finds no next offset), after (blocks - 1) / (1 + N) + 1 I/Os; other
  // strides wrap to the start and run the region's bytes. A time-based run goes on wrapping.
  if (spec.seq_add > 0 && !time_based_ && offsets_->blocks() > 0) {
    const auto stride = 1 + static_cast<std::uint64_t>(spec.seq_add) / granule;
    if ((offsets_->blocks() - 1) % stride == 0)
      total_ios_ = std::min(total_ios_, (offsets_->blocks() - 1) / stride + 1);
  }
  issuing_ = offsets_->blocks() > 0;

  slots_.reqs.resize(depth_);
  slots_.start_ns.assign(depth_, 0);
  slots_.issue_ns.assign(depth_, 0);
  slots_.busy.assign(depth_, 0);
  slots_.free.resize(depth_);
  std::iota(slots_.free.rbegin(), slots_.free.rend(), 0u);
  for (unsigned i = 0; i < depth_; ++i) {
    slots_.reqs[i].buf = buffer(i);
    slots_.reqs[i].buf_index = static_cast<int>(i);
    slots_.reqs[i].cookie = reinterpret_cast<void*>(static_cast<std::uintptr_t>(i));
  }
  staged_.resize(depth_);
  reaped_.resize(depth_);
  retries_.emplace(depth_);
  errors_.emplace(out_, spec.continue_on_error);
  accounting_.emplace(out_, plan_, *member_.spec, engine_->caps().async, *engine_);
  if (member_.ledger) verify_.emplace(*member_.ledger, spec, index_, depth_, out_);
  shaped_issue_ = rate_ > 0 || think_ns_ > 0 || mix_.has_value() || flow_;
  shaped_prepare_ = verify_.has_value() || mix_.has_value();
}

void Job::allocate_buffers() {
  // Align each buffer to 4 KiB (the largest common logical block), round its stride up too.
  stride_ = (largest_block(*member_.spec) + 4095) / 4096 * 4096;
  // A pool of 2 MiB or more goes on transparent huge pages where the kernel has them. A
  // request's memory is one segment per physically contiguous run; pool pages faulted one by
  // one come back scattered (2 of 8,193 adjacent in a 1M x 32 pool here), so a 1M request
  // was 256 segments, which a device with max_segments 128 (loop; AHCI has 168) splits in
  // two, and a virtual disk passes to the host as 256 pieces: the device then sees another
  // workload than the one asked for, and how much so depends on the allocator's luck.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t len = stride_ * depth_;
  const bool huge = len >= kHuge;
  if (huge) len = (len + kHuge - 1) / kHuge * kHuge;
  buffers_ = static_cast<unsigned char*>(std::aligned_alloc(huge ? kHuge : 4096, len));
  if (!buffers_) throw std::bad_alloc();
  if (huge) (void)::madvise(buffers_, len, MADV_HUGEPAGE);  // a hint: no THP, 4 KiB pages
  // Incompressible contents: compressing devices (zram, SandForce) report fantasy numbers on
  // zeros.
  Random fill(0xB0FFE125ull + member_.first + index_);
  for (std::size_t off = 0; off < stride_ * depth_; off += 8) {
    std::uint64_t v = fill.next();
    std::memcpy(buffers_ + off, &v, 8);
  }
}

void run_jobs(const RunOptions& options, SharedPlan& plan, std::span<MemberPlan> members,
              std::vector<JobOutcome>& outcomes, std::optional<VerifyLedger>& own_ledger,
              WorkloadMonitor& monitor) {
  const auto& p = plan.spec->params;
  std::vector<std::unique_ptr<Job>> jobs;
  for (const MemberPlan& m : members)
    for (unsigned i = 0; i < m.spec->params.numjobs; ++i)
      jobs.push_back(std::make_unique<Job>(i, plan, m, outcomes[m.first + i]));
  for (const MemberPlan& m : members)  // fio's flow_init_job, for every job before any starts
    if (m.spec->flow) {
      auto f = std::find_if(plan.flows.begin(), plan.flows.end(),
                            [&](const FlowCounter& c) { return c.id == m.spec->flow_id; });
      FlowCounter& flow = f != plan.flows.end() ? *f : plan.flows.emplace_back();
      flow.id = m.spec->flow_id;
      flow.total_weight += std::uint64_t{m.spec->flow} * m.spec->params.numjobs;
    }
  if (std::any_of(members.begin(), members.end(),
                  [](const MemberPlan& m) { return m.spec->exitall != ExitScope::None; }))
    for (const MemberPlan& m : members)
      while (plan.exit_groups.size() <= m.spec->exit_group) plan.exit_groups.emplace_back(0);
  const auto count = static_cast<std::ptrdiff_t>(jobs.size());
  std::barrier opened(count + 1);
  std::barrier go(count + 1);
  std::vector<std::thread> threads;
  threads.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    threads.emplace_back([&, i] {
      std::optional<PollBudget::Lease::Watch> watch;
      if (plan.poll_lease) watch.emplace(plan.poll_lease->watch_this_thread());
      jobs[i]->open();
      opened.arrive_and_wait();
      go.arrive_and_wait();
      if (!plan.abort) jobs[i]->run();
    });
  }
  opened.arrive_and_wait();
  SetupProblem problem = check_members(options, members, outcomes, own_ledger);
  plan.abort = problem.any();
  // Everything slow (the device's counters, a file read) comes before t0: at t0 the time runs, and
  // on a starved host a 0.3 s workload must not spend it here (docs/robustness.md, "A stall").
  const std::optional<DiskCounters> disk_before =
      p.ioengine == "null" || plan.abort ? std::nullopt : read_disk_counters(p.target);
  plan.t0 = options.now();
  plan.measure_start = plan.t0 + static_cast<std::uint64_t>(p.ramp_time_s * 1e9);
  plan.end = p.runtime_s > 0 ? plan.measure_start + static_cast<std::uint64_t>(p.runtime_s * 1e9)
                             : UINT64_MAX;
  for (auto& g : plan.exit_groups) g = plan.end.load();
  if (options.live) {
    options.live->ios = 0;
    options.live->bytes = 0;
    options.live->measuring = false;
  }
  // The sampler beside the jobs: busy host, and early stop by moving plan.end forward.
  if (!plan.abort)
    monitor.start(
        plan.t0, plan.measure_start, plan.end, members.front().region_size,
        [&](std::uint64_t& ios, std::uint64_t& bytes, std::uint64_t& written) {
          for (const auto& o : outcomes) {
            ios += o.progress_ios.load(std::memory_order_relaxed);
            bytes += o.progress_bytes.load(std::memory_order_relaxed);
            written += o.progress_written.load(std::memory_order_relaxed);
          }
        },
        [&](std::uint64_t t) {
          plan.end.store(t);
          for (auto& g : plan.exit_groups) end_at(g, t);
        });
  const double process_cpu_before = process_cpu_seconds();
  const auto process_wall_before = std::chrono::steady_clock::now();
  go.arrive_and_wait();
  for (auto& t : threads) t.join();
  plan.process_cpu_s = process_cpu_seconds() - process_cpu_before;
  plan.process_wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - process_wall_before).count();
  if (disk_before)
    if (const auto disk_after = read_disk_counters(p.target))
      plan.disk_stats = disk_stats_between(*disk_before, *disk_after);
  monitor.finish();
  plan.limit_s = monitor.stopped_early() || plan.exited
                     ? static_cast<double>(plan.end - plan.measure_start) / 1e9
                     : p.runtime_s;
  jobs.clear();  // closes engines
  if (problem.usage) throw UnitError(problem.what);
  if (problem.any()) throw engines::EngineError(problem.what, problem.error);
}

}  // namespace storqual::runner::jobs
