// SPDX-License-Identifier: Apache-2.0
// Preconditioning before a measurement (SNIA SSS PTS): purge the tested range, write it
// sequentially with 128 KiB blocks twice over (workload-independent), and run the test workload
// itself until steady (workload-dependent: the caller runs it in rounds,
// runner/methods/steady_state/steady_state.hpp). Everything done, and everything that could not be
// done, comes back as a line for the report.
//
// Purge: on a block device, BLKDISCARD of [offset, offset+size) when the device supports discard
// (queue/discard_max_bytes > 0 in sysfs); on a regular file, fallocate(PUNCH_HOLE|KEEP_SIZE) over
// the range. A device without discard is reported ("not purged: ..."), not an error. NVMe format
// and sanitize erase the whole namespace (sanitize: the whole subsystem), not the range: they are
// refused unless explicitly allowed (--allow-nvme-purge), and then issued through the device's
// NVMe admin interface (devices/nvme_purge.hpp), which checks that the controller supports them.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "devices/nvme_purge.hpp"
#include "model/result.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

enum class PurgeMethod { None, Discard, NvmeFormat, NvmeSanitize };

// <precondition purge="none|discard|format|sanitize" independent="0|1" dependent="0|1"/>
struct Precondition {
  PurgeMethod purge = PurgeMethod::None;
  bool independent = false;  // sequential 128 KiB writes over 2x the range
  bool dependent = false;    // the workload itself until steady
  std::string location;      // file:line:column of the element
};

[[nodiscard]] PurgeMethod parse_purge(std::string_view text);  // throws UnitError
[[nodiscard]] std::string_view to_string(PurgeMethod m) noexcept;

// A purge (or preconditioning) that must not or could not run; the workload is in error with it.
class PreconditionRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What an NVMe format/sanitize purge may use: the explicit permission and the device's admin
// interface (null: the target is not an NVMe device, or its admin interface could not be opened).
struct NvmePurgeAccess {
  bool allowed = false;
  devices::NvmeAdmin* admin = nullptr;
  devices::NvmePurgeTiming timing{};
};

// Purges [offset, offset+size) of `path` as above; returns the report line. Throws
// PreconditionRefused for a format/sanitize that is not allowed, not possible or failed, and for a
// discard the kernel refuses with an error.
[[nodiscard]] std::string purge_range(const std::string& path, std::uint64_t offset,
                                      std::uint64_t size, PurgeMethod method,
                                      const NvmePurgeAccess& nvme = {},
                                      const std::string& sysfs_root = "/sys");

// The workload-independent preconditioning of `workload`'s range: two passes of rw=write bs=128k
// iodepth=32 over [offset, offset+size) with `measure`; returns the report line. A volume, not a
// time: `scale` (--runtime-scale) below 1 only makes the line say it was not scaled (one pass, or a
// share of the two, left a loop device over a file stalling in the rounds after it).
[[nodiscard]] std::string precondition_independent(const WorkloadSpec& workload,
                                                   const RunWorkload& measure, double scale = 1);

// The bytes the workload-independent preconditioning of `workload` writes at `scale`.
[[nodiscard]] std::uint64_t precondition_bytes(const WorkloadSpec& workload, double scale = 1);

// What `p` will do over `workload`'s range, said before it starts: "purge (discard), then 2 x
// 10.00 GiB sequential 128 KiB writes (20.00 GiB)".
[[nodiscard]] std::string precondition_plan_text(const WorkloadSpec& workload,
                                                 const Precondition& p, double scale = 1);

// Purge then independent preconditioning as `p` asks, over `workload`'s range; one line each,
// plus a line for `dependent` (which the caller carries out with rounds).
[[nodiscard]] std::vector<std::string> run_preconditioning(
    const WorkloadSpec& workload, const Precondition& p, const NvmePurgeAccess& nvme,
    const RunWorkload& measure, const std::string& sysfs_root = "/sys", double scale = 1);

}  // namespace storqual::runner
