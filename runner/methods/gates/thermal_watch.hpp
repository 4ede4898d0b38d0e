// SPDX-License-Identifier: Apache-2.0
// Thermal throttling during a workload (docs/measurement.md, "Throttling"): a background sampler
// reads the NVMe SMART log through the admin seam at a modest interval (default 5 s; the log is a
// cheap admin command, but not free on every controller) and records the composite temperature and
// the thermal management counters (TMT1/TMT2 transition counts and total times). A span between
// two readings whose counts or times rose is a throttled interval; timeline points that overlap it
// are marked, claims on the workload say so, and a sustained-write drop that lines up with one is
// attributed to throttling rather than to the write cache running out.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "devices/nvme_admin.hpp"
#include "model/result.hpp"

namespace storqual::runner {

inline constexpr double kDefaultThermalIntervalS = 5;

// An NvmeAdmin whose calls are serialized, so that the sampler's thread and the run's own admin
// commands (purge, health snapshots) never overlap on one handle.
class SerializedNvmeAdmin final : public devices::NvmeAdmin {
 public:
  explicit SerializedNvmeAdmin(devices::NvmeAdmin& inner) : inner_(inner) {}
  devices::IdentifyPage identify_controller() override;
  devices::IdentifyPage identify_namespace() override;
  devices::SmartLogPage smart_log() override;
  void format_namespace(std::uint8_t secure_erase) override;
  void start_sanitize(devices::SanitizeAction action) override;
  devices::SanitizeLogPage sanitize_log() override;
  devices::OcpSmartLogPage ocp_smart_log() override;
  void device_self_test(std::uint8_t stc) override;
  devices::SelfTestLogPage self_test_log() override;

 private:
  devices::NvmeAdmin& inner_;
  std::mutex mutex_;
};

// One reading taken at `t_s` (seconds on the workload's timeline).
[[nodiscard]] reporting::ThermalSample thermal_sample(devices::NvmeAdmin& admin, double t_s);

// Spans between consecutive readings in which the TMT counts or total times rose; adjacent spans
// merge.
[[nodiscard]] std::vector<reporting::ThrottleInterval> throttled_intervals(
    const std::vector<reporting::ThermalSample>& samples);

// Sets r.throttled from r.thermal (the spans on the timeline's axis) and the sustained write's
// drop_cause ("thermal throttling" when a throttled interval begins before the drop plus one
// timeline interval and ends after the cache-filled part began; else "cache cliff").
void apply_throttling(reporting::WorkloadResult& r);

// Puts readings taken over a whole workload (t_s since it started, `total_s` long) on its timeline:
// the measured part is its last r.elapsed_s seconds (preconditioning and ramp come first), then
// apply_throttling.
void attach_thermal(reporting::WorkloadResult& r, std::vector<reporting::ThermalSample> readings,
                    double total_s);

// A one-line summary for verdict messages: "thermal throttling during the measurement (TMT1 30 s
// between 12.0 s and 18.0 s)"; "" when the workload did not throttle.
[[nodiscard]] std::string describe_throttling(const reporting::WorkloadResult& r);

// Samples on its own thread every `interval_s` from construction until stop(); times are seconds
// since construction. Failures of the SMART read end the sampling quietly (the run does not depend
// on it).
class ThermalSampler {
 public:
  ThermalSampler(devices::NvmeAdmin& admin, double interval_s);
  ~ThermalSampler();
  ThermalSampler(const ThermalSampler&) = delete;
  ThermalSampler& operator=(const ThermalSampler&) = delete;
  // Stops the thread (one last reading) and returns the readings in time order.
  std::vector<reporting::ThermalSample> stop();
  [[nodiscard]] double elapsed_s() const;  // since construction

 private:
  void loop();
  devices::NvmeAdmin& admin_;
  double interval_s_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<reporting::ThermalSample> samples_;
  std::thread thread_;
};

}  // namespace storqual::runner
