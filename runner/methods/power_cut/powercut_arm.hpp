// SPDX-License-Identifier: Apache-2.0
// `storqual powercut arm` (docs/power-cut.md, "Arm"): the write workload before a power cut. Every
// request carries a power-cut record in each sector (runner/measure/powercut_record.hpp); every
// completion the drive acknowledges, every completed flush and FUA write goes to the journal
// (runner/measure/powercut_journal.hpp), which is kept off the device.
//
// The workload, in phases of `flush_every` requests until `runtime_s` (or the stop flag, or the
// process dies at the cut): random writes of `random_bs` and sequential writes of
// `sequential_bs`, alternating, each at the depths of `depths` in turn, through the engine
// `ioengine`. Every `fua_every`-th request is a FUA write (pwritev2 with RWF_DSYNC on the engine's
// descriptor, at once, beside the queue). A phase ends with a flush: every request in flight is
// reaped and journalled first, then fdatasync (the block layer's flush to the device), then the
// Flush entry with the next epoch. Requests in flight never overlap. Records and requests are
// aligned to `atomic_unit`.
//
// The cut: at a uniformly random moment in [cut_min_s, cut_max_s] (kept by a thread of its own,
// tied to no issue or completion, so that it lands on requests in flight at every depth)
// `power_cut_cmd` runs through
// /bin/sh -c (not waited for; STORQUAL_ARM_PID in its environment names this process), or with
// `prompt` a line on `log` asks the operator to cut the power now. The writes go on until the
// power goes (the process dies) or `runtime_s` ends: then a last flush and an End entry.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "runner/measure/powercut_journal.hpp"

namespace storqual::runner {

struct PowercutArmOptions {
  std::string target;  // the admitted path
  std::uint64_t region_offset = 0;
  std::uint64_t region_size = 0;
  std::string ioengine = "io_uring";
  std::vector<unsigned> depths{1, 4, 16};
  std::uint32_t random_bs = 4096;
  std::uint32_t sequential_bs = 65536;
  std::uint32_t atomic_unit = 4096;
  unsigned flush_every = 64;
  unsigned fua_every = 16;  // 0: no FUA writes
  double runtime_s = 60;
  double cut_min_s = 2;
  double cut_max_s = 10;
  std::string power_cut_cmd;
  bool prompt = false;
  std::uint64_t run_id = 0;  // 0: a random one
  std::uint64_t seed = 0;    // 0: a random one
  // The drive's unsafe-shutdown count read before the run, journalled after the header.
  JournalShutdowns shutdowns_before;
};

struct PowercutArmOutcome {
  std::uint64_t run_id = 0;
  std::uint64_t acknowledged = 0;  // writes journalled
  std::uint64_t flushes = 0;
  std::uint64_t fua = 0;
  std::uint64_t errors = 0;  // writes or flushes that failed (not journalled)
  int first_errno = 0;
  bool cut_started = false;
  double seconds = 0;
};

// The workload ready to start: every option checked and the target opened, nothing written and
// no journal yet, so that `arm` creates its journal only once the run is known to start. Throws
// UsageError for options that cannot work (region too small or beyond the target, sizes not
// multiples of the atomic unit, an atomic unit that is not a power-of-two multiple of 512 up to
// 64 MiB), engines::EngineError when the target cannot be opened.
class PowercutArmRun;
struct PowercutArmRunDeleter {
  void operator()(PowercutArmRun* run) const;
};
using PreparedPowercutArm = std::unique_ptr<PowercutArmRun, PowercutArmRunDeleter>;
[[nodiscard]] PreparedPowercutArm prepare_powercut_arm(const PowercutArmOptions& options);
// Runs a prepared workload once; throws JournalError when the journal cannot be kept (the
// workload stops at once: nothing unjournalled is written after).
[[nodiscard]] PowercutArmOutcome run_prepared_powercut_arm(PowercutArmRun& run,
                                                           JournalSink& journal,
                                                           const std::atomic<bool>* stop,
                                                           std::ostream& log);
// prepare_powercut_arm, then run_prepared_powercut_arm.
[[nodiscard]] PowercutArmOutcome run_powercut_arm(const PowercutArmOptions& options,
                                                  JournalSink& journal,
                                                  const std::atomic<bool>* stop, std::ostream& log);

}  // namespace storqual::runner
