// SPDX-License-Identifier: Apache-2.0
// JobRunner: runs one workload: `numjobs` threads, each with its own descriptor and engine,
// keeping `iodepth` I/Os in flight, timing each I/O (slat, clat, lat) into log-linear histograms,
// a per-interval timeline and CPU usage, and returns the measured WorkloadResult.
//
// Contract:
// - Offsets are multiples of bs inside [offset, offset+size). Random offsets follow fio's random
//   map by default (params.randommap): each job visits every block of its region once per pass in
//   a random order (runner/measure/random_map.hpp), so a size-based run writes each block exactly
//   once; with norandommap each offset is drawn uniformly with replacement. Sequential wraps at the
//   end of the region. Nothing is issued outside the region.
// - ramp_time is run but not counted. With a runtime, completions after the end are drained and
//   not counted (so bytes counted <= bytes the device saw, short by at most the I/Os in flight).
// - Memory is fixed per job (buffers, histograms) plus the timeline, which is coarsened (adjacent
//   intervals merged) past kMaxTimelinePoints so that it stays bounded too.
// - I/O errors end the job (or are counted and skipped with continue_on_error) and are reported
//   per direction with the first errno and offset; a request outstanding past io_timeout is an
//   error.
// - `stop` (set by a signal handler) ends every job at its next loop turn; the result is marked
//   interrupted.
// Its parts (offset generator, verify tracking, completion accounting, retries, error policy):
// docs/architecture.md, "Inside run_workload".
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engines/engine.hpp"
#include "model/result.hpp"
#include "runner/measure/clock.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/workload.hpp"
#include "runner/measure/workload_monitor.hpp"

namespace storqual::runner {

using NowFunction = std::uint64_t (*)() noexcept;  // nanoseconds on a monotonic clock

// Live figures for a progress line, updated by the job threads (relaxed atomics).
struct LiveCounters {
  std::atomic<std::uint64_t> ios{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<bool> measuring{false};  // past the ramp
  // The bytes the workload moves in all, when it knows (a surface scan: both passes; `bytes` then
  // starts at what an earlier session did): the progress line shows done % and an ETA. 0: unknown.
  std::atomic<std::uint64_t> total_bytes{0};
};

struct RunOptions {
  std::atomic<bool>* stop = nullptr;  // may be null
  LiveCounters* live = nullptr;       // may be null
  std::string lat_log_path;           // per-I/O CSV log, empty = off
  NowFunction now = fast_now_ns;      // runner/measure/clock.hpp: TSC when the kernel trusts it
  bool exclusive = false;             // open block devices O_EXCL (the safety guard holds one too)
  // Wraps each job's engine (fault injection in tests); may be empty.
  std::function<std::unique_ptr<engines::Engine>(std::unique_ptr<engines::Engine>)> wrap_engine;
  // With spec.verify: the ledger of what was written where, kept by the caller across calls (to
  // verify later with verify_written_blocks, e.g. after changing the device underneath); it must
  // cover the workload's region at its bs. Null: run_workload makes its own.
  VerifyLedger* verify_ledger = nullptr;
  // Where the busy-host sampler reads the host (runner/measure/host_load.hpp); tests point it
  // elsewhere.
  std::string proc_root = "/proc";
  // How the sampler beside the jobs waits for its ticks (workload_monitor.hpp): tests on a manual
  // clock pace it.
  MonitorPacing monitor_pacing;
};

inline constexpr std::size_t kMaxTimelinePoints = 100000;

// Runs `spec` against spec.params.target. Throws UnitError for a workload that does not fit the
// target (alignment under O_DIRECT, region past the end) and engines::EngineError when the target
// cannot be opened; I/O errors during the run are reported in the result, not thrown.
[[nodiscard]] reporting::WorkloadResult run_workload(const WorkloadSpec& spec,
                                                     const RunOptions& options = {});

// With spec.verify, run_workload also fills result.integrity: inline read-backs (verify_backlog)
// and, when spec.do_verify, every written block read back after the jobs end (one job, at the
// workload's iodepth, through `options.wrap_engine` too).

// Reads back every block `ledger` records as written (blocks never written are not read) through
// the workload's engine and classifies each; the report's verified_at_end counts them. Throws
// engines::EngineError when the target cannot be opened.
[[nodiscard]] reporting::IntegrityReport verify_written_blocks(const WorkloadSpec& spec,
                                                               const VerifyLedger& ledger,
                                                               const RunOptions& options = {});

}  // namespace storqual::runner
