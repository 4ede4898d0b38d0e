// SPDX-License-Identifier: Apache-2.0
// The drive's own self-test as a method (<self-test type="short|extended|conveyance"> in a suite,
// where the suite wants it: before its workloads, between them or after): started through the
// target's health seam (devices/self_test.hpp: ATA SMART EXECUTE OFF-LINE IMMEDIATE, SCSI SEND
// DIAGNOSTIC, NVMe Device Self-test), polled with its progress and remaining time on the console,
// and its result read from the drive's self-test log. The result is a testcase of its own
// ("health: ID self-test.short"): passed, failed (the log's words: "completed: read failure at
// LBA 7"), skipped when the drive or transport has no such test or the run was not given
// --allow-self-test, an error when the drive aborted it or its log shows no new entry. A stop of
// the run (SIGINT) aborts the test on the drive. docs/formats.md, "<self-test>";
// docs/identity-and-safety.md, "Self-tests".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "devices/self_test.hpp"
#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/methods/method.hpp"

namespace storqual::runner {

// What the self-test did, as the result carries it.
struct SelfTestReport {
  std::string type;       // "short", "extended", "conveyance"
  std::string transport;  // "ata", "scsi", "nvme"; "" when no test could be made
  // "passed", "failed", "aborted", "unknown" (devices::SelfTestOutcome), "not supported",
  // "not allowed" (no --allow-self-test), "interrupted" (the run's stop; aborted on the drive),
  // "timed out" (aborted on the drive).
  std::string outcome;
  std::string status_text;  // the log's words, or why the test did not run
  std::optional<std::uint64_t> failing_lba, power_on_hours;
  std::optional<double> expected_s;  // the drive's estimate
  std::optional<double> last_percent_done;
  unsigned polls = 0;
};

// Its report in the result: kind "self-test", the JSON key "self_test", an HTML box, its verdict.
class SelfTestMethodReport final : public reporting::MethodReport {
 public:
  SelfTestReport self_test;

  [[nodiscard]] std::string_view kind() const noexcept override { return "self-test"; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::AfterIntegrity;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  [[nodiscard]] bool checked_for_stalls() const noexcept override { return false; }
  [[nodiscard]] bool own_verdict(const reporting::WorkloadResult& w,
                                 reporting::ClaimVerdict& out) const override;
};

[[nodiscard]] const SelfTestReport* self_test_report_of(
    const reporting::WorkloadResult& w) noexcept;
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_self_test_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

// The verdict of a self-test's report: kind health, workload `id`, metric "self-test.TYPE";
// Pass for passed, Fail for failed, Skipped for not supported or not allowed, Error otherwise.
[[nodiscard]] reporting::ClaimVerdict self_test_verdict(const std::string& id,
                                                        const SelfTestReport& r, double time_s);

struct SelfTestSettings {
  devices::SelfTestType type = devices::SelfTestType::Short;
  double poll_s = 10;  // between polls
  // How long to wait at most (0: twice the drive's estimate plus 10 minutes, else 24 h); then the
  // test is aborted on the drive and the result is "timed out".
  double timeout_s = 0;
};

// Runs one self-test through `test` (null: `gap` says why there is none, the result "not
// allowed" or "not supported"), printing progress to `console`; `wait` sleeps between polls
// (returning early on a stop), `stop` (may be null) is the run's stop flag.
struct SelfTestRun {
  devices::DeviceSelfTest* test = nullptr;
  std::string gap;
  bool gap_is_consent = false;  // the gap is the missing --allow-self-test
  std::FILE* console = nullptr;
  std::function<void(double seconds)> wait;
  const std::atomic<bool>* stop = nullptr;
};
[[nodiscard]] SelfTestReport run_self_test(const std::string& id, const SelfTestSettings& s,
                                           const SelfTestRun& run, double& elapsed_s);

// <self-test>: drives the device's own test, not the engine (no workload passes).
class SelfTestMethod final : public Method {
 public:
  explicit SelfTestMethod(SelfTestSettings s) : settings_(s) {}
  [[nodiscard]] const SelfTestSettings& settings() const noexcept { return settings_; }
  [[nodiscard]] std::string_view element() const noexcept override { return "self-test"; }
  [[nodiscard]] bool takes_early_stop() const noexcept override { return false; }
  [[nodiscard]] bool runs_workloads() const noexcept override { return false; }
  [[nodiscard]] bool shows_progress_line() const noexcept override { return false; }
  [[nodiscard]] bool claimable() const noexcept override { return false; }
  [[nodiscard]] bool prints_fio_summary(const reporting::WorkloadResult&) const override {
    return false;
  }
  [[nodiscard]] std::string fio_command_as_run(const WorkloadSpec& as_run,
                                               const reporting::WorkloadResult&) const override {
    return fio_equivalent(as_run);
  }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override;
  [[nodiscard]] std::string fio_equivalent(const WorkloadSpec& spec) const override;
  [[nodiscard]] std::string summary_line(const WorkloadSpec& spec) const override;

 private:
  SelfTestSettings settings_;
};

// The registry's entry for <self-test> (no <precondition>, no figures).
[[nodiscard]] MethodEntry self_test_method_entry();

}  // namespace storqual::runner
