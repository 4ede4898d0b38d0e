// SPDX-License-Identifier: Apache-2.0
// Thermal sampling and throttling attribution (see thermal_watch.hpp).
#include "runner/methods/gates/thermal_watch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace storqual::runner {

using reporting::ThermalSample;
using reporting::ThrottleInterval;

devices::IdentifyPage SerializedNvmeAdmin::identify_controller() {
  std::lock_guard lock(mutex_);
  return inner_.identify_controller();
}
devices::IdentifyPage SerializedNvmeAdmin::identify_namespace() {
  std::lock_guard lock(mutex_);
  return inner_.identify_namespace();
}
devices::SmartLogPage SerializedNvmeAdmin::smart_log() {
  std::lock_guard lock(mutex_);
  return inner_.smart_log();
}
void SerializedNvmeAdmin::format_namespace(std::uint8_t secure_erase) {
  std::lock_guard lock(mutex_);
  inner_.format_namespace(secure_erase);
}
void SerializedNvmeAdmin::start_sanitize(devices::SanitizeAction action) {
  std::lock_guard lock(mutex_);
  inner_.start_sanitize(action);
}
devices::SanitizeLogPage SerializedNvmeAdmin::sanitize_log() {
  std::lock_guard lock(mutex_);
  return inner_.sanitize_log();
}
devices::OcpSmartLogPage SerializedNvmeAdmin::ocp_smart_log() {
  std::lock_guard lock(mutex_);
  return inner_.ocp_smart_log();
}

void SerializedNvmeAdmin::device_self_test(std::uint8_t stc) {
  std::lock_guard lock(mutex_);
  inner_.device_self_test(stc);
}

devices::SelfTestLogPage SerializedNvmeAdmin::self_test_log() {
  std::lock_guard lock(mutex_);
  return inner_.self_test_log();
}

ThermalSample thermal_sample(devices::NvmeAdmin& admin, double t_s) {
  const devices::NvmeSmartLog l = devices::parse_smart_log(admin.smart_log());
  ThermalSample s;
  s.t_s = t_s;
  s.temperature_c = l.temperature_celsius();
  s.tmt1_transitions = l.tmt1_transitions;
  s.tmt2_transitions = l.tmt2_transitions;
  s.tmt1_seconds = l.tmt1_seconds;
  s.tmt2_seconds = l.tmt2_seconds;
  return s;
}

std::vector<ThrottleInterval> throttled_intervals(const std::vector<ThermalSample>& samples) {
  std::vector<ThrottleInterval> out;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const ThermalSample& a = samples[i - 1];
    const ThermalSample& b = samples[i];
    const bool t1 = b.tmt1_transitions > a.tmt1_transitions || b.tmt1_seconds > a.tmt1_seconds;
    const bool t2 = b.tmt2_transitions > a.tmt2_transitions || b.tmt2_seconds > a.tmt2_seconds;
    if (!t1 && !t2) continue;
    const std::uint32_t secs =
        (b.tmt1_seconds > a.tmt1_seconds ? b.tmt1_seconds - a.tmt1_seconds : 0) +
        (b.tmt2_seconds > a.tmt2_seconds ? b.tmt2_seconds - a.tmt2_seconds : 0);
    const std::string level = t1 && t2 ? "TMT1+TMT2" : t1 ? "TMT1" : "TMT2";
    if (!out.empty() && out.back().end_s == a.t_s) {
      out.back().end_s = b.t_s;
      out.back().seconds += secs;
      if (out.back().level != level) out.back().level = "TMT1+TMT2";
      continue;
    }
    out.push_back({a.t_s, b.t_s, level, secs});
  }
  return out;
}

void apply_throttling(reporting::WorkloadResult& r) {
  r.throttled = throttled_intervals(r.thermal);
  if (r.method)
    if (auto again = r.method->after_throttling(r)) r.method = std::move(again);
}

void attach_thermal(reporting::WorkloadResult& r, std::vector<ThermalSample> readings,
                    double total_s) {
  const double shift = std::max(0.0, total_s - r.elapsed_s);
  for (auto& s : readings) s.t_s -= shift;
  r.thermal = std::move(readings);
  apply_throttling(r);
}

std::string describe_throttling(const reporting::WorkloadResult& r) {
  if (r.throttled.empty()) return "";
  std::string out = "thermal throttling during the measurement (";
  char buf[128];
  for (std::size_t i = 0; i < r.throttled.size(); ++i) {
    const auto& t = r.throttled[i];
    std::snprintf(buf, sizeof buf, "%s%s %u s between %.1f s and %.1f s", i ? "; " : "",
                  t.level.c_str(), t.seconds, t.start_s, t.end_s);
    out += buf;
  }
  return out + ")";
}

ThermalSampler::ThermalSampler(devices::NvmeAdmin& admin, double interval_s)
    : admin_(admin), interval_s_(interval_s), start_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

double ThermalSampler::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

ThermalSampler::~ThermalSampler() {
  if (thread_.joinable()) (void)stop();
}

void ThermalSampler::loop() {
  // A reading at the start, one per interval, and a last one when stopped: at least two, so a
  // workload shorter than the interval still has a before and an after.
  std::unique_lock lock(mutex_);
  bool last = false;
  for (;;) {
    lock.unlock();
    bool ok = true;
    ThermalSample s;
    try {
      s = thermal_sample(admin_, elapsed_s());
    } catch (const std::exception&) {
      ok = false;  // the run goes on without thermal data
    }
    lock.lock();
    if (ok) samples_.push_back(s);
    if (last || !ok) return;
    wake_.wait_for(lock, std::chrono::duration<double>(interval_s_), [&] { return stopping_; });
    last = stopping_;
  }
}

std::vector<ThermalSample> ThermalSampler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return samples_;
}

}  // namespace storqual::runner
