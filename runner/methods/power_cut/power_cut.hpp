// SPDX-License-Identifier: Apache-2.0
// The power-cut method (docs/power-cut.md), its face: a method whose phases are steps run apart,
// each a command of its own (`storqual powercut STEP`), on a machine and at a moment of its own:
//  - arm: the write workload before the cut, every acknowledgement journalled off the device
//    (powercut_arm.hpp);
//  - listen: the journal kept for another machine (powercut_listener.hpp);
//  - check: after the device is back, every acknowledged record classified (powercut_check.hpp);
//  - summary: N cuts' check results added up, the device's verdict (powercut_summary.hpp);
//  - indicators: what tells of a volatile cache without a cut (powercut_indicators.hpp).
// Not a suite element: the registry (method_registry.cpp) lists it among the stepped methods
// (method.hpp SteppedMethodEntry), one line, and its steps are the table below. The command line
// parses a step's options and runs the phase declared here for it; what a phase needs from above
// runner/methods/ (the device's identity and health through runner/qualification) it gets through
// PowercutSeams.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "devices/health.hpp"
#include "devices/safety_guard.hpp"
#include "model/result.hpp"
#include "runner/measure/powercut_journal.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/power_cut/powercut_arm.hpp"
#include "runner/methods/power_cut/powercut_check.hpp"
#include "runner/methods/power_cut/powercut_indicators.hpp"
#include "runner/methods/power_cut/powercut_listener.hpp"
#include "runner/methods/power_cut/powercut_summary.hpp"

namespace storqual::runner {

// The registry's entry: the command "powercut", its steps arm, check, listen, indicators, summary.
[[nodiscard]] SteppedMethodEntry power_cut_method_entry() noexcept;

// A drive's health read once through the seam it has, or why none answered.
struct HealthReading {
  std::optional<devices::HealthSnapshot> snapshot;
  std::string gap;  // why there is no snapshot
};

// What a phase reads through the layers above runner/methods/ (the command line fills them from
// runner/qualification's identification path, device_identification.hpp).
struct PowercutSeams {
  // The health of the block device `device` ("sda", "nvme0n1") through the seam it has (NVMe SMART
  // log and OCP C0h, ATA SMART, SCSI log pages); may throw.
  std::function<HealthReading(const std::string& device)> read_health;
  // NVMe identify's cache fields for the block device `device`: nullopt for a device that is not
  // NVMe; throws when identify cannot be read.
  std::function<std::optional<NvmeCacheIdentity>(const std::string& device)> nvme_cache;
  // Installs the stop handlers (SIGINT, SIGTERM) and returns their flag: called by a phase at the
  // moment its long work starts (arm's workload, listen's sessions), so that a signal before that
  // ends the process as it would any command. Null: no stop flag.
  std::function<const std::atomic<bool>*()> stop;
};

// The drive's unsafe-shutdown count now, through `seams.read_health`; not readable, with the
// reason, for a file, a device without such a counter or a seam that does not answer. Never throws.
[[nodiscard]] JournalShutdowns read_unsafe_shutdowns(const std::string& target,
                                                     const PowercutSeams& seams);
// "unsafe-shutdown count 7 (nvme:smart-log), OCP incomplete shutdowns 0", or why not readable.
[[nodiscard]] std::string describe_shutdowns(const JournalShutdowns& s);

// ---- arm ----

// Where arm's journal goes: a new file on another device, or a listener (unix:/path or HOST:PORT)
// with the run's token.
struct JournalDestination {
  std::optional<std::string> file;
  std::string listener, token;
};

// The journal must not live on the device it journals (the cut would take both): throws
// UsageError naming both when the journal file's folder is on the whole disk of `target`.
void refuse_journal_on_target(const std::string& journal, const std::string& target);

// Arm: the shutdown count before (journalled after the header), every option checked and the
// target opened before the journal exists (a refused run leaves no empty journal behind), then
// the workload until the cut or its runtime; the start said on `log`, the end on `out`.
[[nodiscard]] PowercutArmOutcome arm_power_cut(PowercutArmOptions options,
                                               const JournalDestination& journal,
                                               const PowercutSeams& seams, std::ostream& out,
                                               std::ostream& log);

// ---- check ----

// Check: the cut's testcases for `target` after the power came back (a device that did not come
// back or shrank below the journal's region fails as missing; else the cut's verdict and its class
// counts), then the unsafe-shutdown count's testcase; each testcase's line on `out` ("NAME:
// message"). `plp`: judged as a drive with power-loss protection.
[[nodiscard]] std::vector<reporting::ClaimVerdict> check_power_cut(
    const std::string& target, const JournalContents& journal, bool plp, const std::string& name,
    const PowercutSeams& seams, std::ostream& out);

// ---- summary ----

// Summary: the check results in `files` read (reporting/result_json.hpp) and added up against
// `claimed` cycles; the table on `out`; `device` gets the first result's device.
[[nodiscard]] PowercutSummary summarize_power_cuts(const std::vector<std::string>& files,
                                                   std::optional<unsigned> claimed,
                                                   reporting::DeviceReport& device,
                                                   std::ostream& out);

// ---- listen ----

// Listen: keeps the journal of clients at `address` until the stop flag (seams.stop) or `sessions`
// sessions ended (0: no bound), each session's end on `log`; refuses a journal that is not whole
// before binding.
void listen_for_journal(const ListenerOptions& options, const std::string& address,
                        unsigned sessions, const PowercutSeams& seams, std::ostream& log);

// ---- indicators ----

// Indicators: the block layer's cache setting, NVMe identify's, the timed flushes after `dirty`
// bytes each and the QD1 sync latencies (`sync_writes` each) on the admitted region (written!),
// judged; an NVMe identify that cannot be read is said on `log`.
[[nodiscard]] PowercutIndicators measure_power_cut_indicators(
    const devices::AdmittedTarget& admitted, const std::vector<std::uint64_t>& dirty,
    unsigned sync_writes, const PowercutSeams& seams, std::ostream& log);

}  // namespace storqual::runner
