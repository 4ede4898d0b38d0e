// SPDX-License-Identifier: Apache-2.0
// <self-test>: the drive's own test, started, polled and read back (see self_test.hpp).
#include "runner/methods/self_test/self_test.hpp"

#include <chrono>
#include <thread>

#include "reporting/run_console.hpp"
#include "runner/base/units.hpp"

namespace storqual::runner {

namespace {

using Clock = std::chrono::steady_clock;

std::string what_of(const SelfTestSettings& s, std::string_view transport) {
  std::string w = std::string(devices::to_string(s.type)) + " self-test";
  if (!transport.empty()) w += " (" + std::string(transport) + ")";
  return w;
}

bool stopped(const SelfTestRun& run) {
  return run.stop && run.stop->load();
}

// Sleeps `seconds` in slices, returning early when the run is stopped.
void sleep_unless_stopped(double seconds, const std::atomic<bool>* stop) {
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    if (stop && stop->load()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// The remaining time: from the percent done and the time so far, else the drive's estimate.
std::optional<double> remaining_of(std::optional<double> percent, double elapsed,
                                   std::optional<double> expected) {
  if (percent && *percent > 0 && *percent < 100) return elapsed * (100 - *percent) / *percent;
  if (expected && *expected > elapsed) return *expected - elapsed;
  return std::nullopt;
}

void print(std::FILE* console, const std::string& line) {
  if (console) std::fputs(line.c_str(), console);
}

// Aborts the running test on the drive; a refusal is added to the text, not thrown.
void abort_on_drive(devices::DeviceSelfTest& test, SelfTestReport& r) {
  try {
    test.abort();
    r.status_text += "; aborted on the drive";
  } catch (const std::exception& e) {
    r.status_text += std::string("; the abort failed: ") + e.what();
  }
}

// Polls until the test ends, the run stops or the time runs out; false when it did not end.
bool poll_until_done(const std::string& id, const SelfTestSettings& s, const SelfTestRun& run,
                     Clock::time_point t0, SelfTestReport& r) {
  devices::DeviceSelfTest& test = *run.test;
  const double limit =
      s.timeout_s > 0 ? s.timeout_s : (r.expected_s ? 2 * *r.expected_s + 600 : 24 * 3600.0);
  const std::string what = what_of(s, r.transport);
  // The first poll comes soon after the start (an emulated drive finishes at once).
  run.wait(std::min(1.0, s.poll_s));
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (stopped(run)) {
      r.outcome = "interrupted";
      r.status_text = "the run was stopped during the test";
      abort_on_drive(test, r);
      return false;
    }
    const devices::SelfTestProgress p = test.poll();
    ++r.polls;
    if (p.percent_done) r.last_percent_done = p.percent_done;
    if (!p.running) return true;
    if (elapsed > limit) {
      r.outcome = "timed out";
      r.status_text = "still running after " + reporting::format_duration_words(elapsed);
      abort_on_drive(test, r);
      return false;
    }
    print(run.console,
          reporting::format_self_test_progress(
              id, what, p.percent_done, remaining_of(p.percent_done, elapsed, r.expected_s)));
    run.wait(s.poll_s);
  }
}

}  // namespace

SelfTestReport run_self_test(const std::string& id, const SelfTestSettings& s,
                             const SelfTestRun& given, double& elapsed_s) {
  SelfTestRun run = given;
  if (!run.wait) run.wait = [stop = run.stop](double t) { sleep_unless_stopped(t, stop); };
  SelfTestReport r;
  r.type = devices::to_string(s.type);
  const auto t0 = Clock::now();
  auto finish = [&] {
    elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    print(run.console,
          reporting::format_self_test_end(id, what_of(s, r.transport), r.outcome, r.status_text));
    return r;
  };
  if (!run.test) {
    r.outcome = run.gap_is_consent ? "not allowed" : "not supported";
    r.status_text = run.gap;
    return finish();
  }
  r.transport = std::string(run.test->transport());
  try {
    r.expected_s = run.test->expected_seconds(s.type);
  } catch (const std::exception&) {
    // The estimate is a nicety: the test runs without it.
  }
  try {
    run.test->start(s.type);
  } catch (const devices::SelfTestNotSupported& e) {
    r.outcome = "not supported";
    r.status_text = e.what();
    return finish();
  }
  print(run.console,
        reporting::format_self_test_progress(id, what_of(s, r.transport), 0.0, r.expected_s));
  if (!poll_until_done(id, s, run, t0, r)) return finish();
  const devices::SelfTestResult res = run.test->result();
  r.outcome = devices::to_string(res.outcome);
  r.status_text = res.status_text;
  r.failing_lba = res.failing_lba;
  r.power_on_hours = res.power_on_hours;
  return finish();
}

reporting::WorkloadResult SelfTestMethod::run(const WorkloadSpec& w,
                                              const MethodContext& context) const {
  reporting::WorkloadResult result;
  result.id = w.id;
  result.params = w.params;
  SelfTestRun run{context.self_test, context.self_test_gap, context.self_test_gap_is_consent,
                  context.console,   context.wait,          context.direct.stop};
  auto report = std::make_shared<SelfTestMethodReport>();
  try {
    report->self_test = run_self_test(w.id, settings_, run, result.elapsed_s);
  } catch (const std::exception& e) {
    // The seam failed (the device stopped answering): the result is in error, the drive's test
    // aborted if it still runs.
    report->self_test.type = devices::to_string(settings_.type);
    report->self_test.outcome = "error";
    report->self_test.status_text = e.what();
    if (context.self_test) abort_on_drive(*context.self_test, report->self_test);
  }
  result.interrupted = report->self_test.outcome == "interrupted";
  result.method = std::move(report);
  return result;
}

std::string SelfTestMethod::fio_equivalent(const WorkloadSpec& /*spec*/) const {
  return std::string("the drive's ") + devices::to_string(settings_.type) +
         " self-test (smartctl -t " +
         (settings_.type == devices::SelfTestType::Extended ? "long"
                                                            : devices::to_string(settings_.type)) +
         "; no fio equivalent)";
}

std::string SelfTestMethod::summary_line(const WorkloadSpec& /*spec*/) const {
  return std::string("self-test ") + devices::to_string(settings_.type) + ", polled every " +
         reporting::format_duration_words(settings_.poll_s);
}

namespace {

// <self-test id=... type="short|extended|conveyance" [poll="10s"] [timeout="2h"]>: the spec is a
// read of the target's first block (what the safety guard admits; a scratch directory needs no
// --size for it), though nothing is read or written through the engine.
std::shared_ptr<const Method> load_self_test(const XmlFile& file, pugi::xml_node node,
                                             WorkloadSpec& spec) {
  SelfTestSettings s;
  bool typed = false;
  for (pugi::xml_attribute a : node.attributes()) {
    const std::string_view name = a.name();
    if (name == "id") continue;
    if (name == "type") {
      auto t = devices::parse_self_test_type(a.value());
      if (!t) throw file.error_value(a, "expected short, extended or conveyance");
      s.type = *t;
      typed = true;
    } else if (name == "poll" || name == "timeout") {
      double seconds = 0;
      try {
        seconds = parse_duration(a.value());
      } catch (const UnitError& e) {
        throw file.error_value(a, e.what());
      }
      if (seconds <= 0) throw file.error_value(a, "expected a time above 0 (\"10s\", \"2h\")");
      (name == "poll" ? s.poll_s : s.timeout_s) = seconds;
    } else {
      throw file.error(node, std::string("<self-test> has no attribute '") + a.name() +
                                 "' (it takes id, type, poll, timeout)");
    }
  }
  if (!typed) throw file.error(node, "<self-test> needs type=\"short|extended|conveyance\"");
  spec.params.rw = "read";
  spec.params.size = spec.params.bs;
  spec.params.offset = 0;
  spec.params.runtime_s = 0;
  return std::make_shared<const SelfTestMethod>(s);
}

}  // namespace

MethodEntry self_test_method_entry() {
  return {"self-test", false, &load_self_test, nullptr, &read_self_test_report, nullptr};
}

}  // namespace storqual::runner
