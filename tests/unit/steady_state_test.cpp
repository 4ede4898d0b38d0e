// SPDX-License-Identifier: Apache-2.0
// The SNIA PTS steady-state detector on synthetic series (flat, slow drift, step, noisy, cliff),
// rounds driven by a fake measurement, the suite attributes that ask for rounds, and the verdict
// of a claim that requires steady state.
#include "runner/methods/steady_state/steady_state.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runner/base/xml_file.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace {

struct SeriesCase {
  const char* name;
  std::vector<double> series;
  bool steady;
};

std::vector<double> drift(double start, double per_round, int n) {
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(start * (1 + per_round * i));
  return s;
}

// Noise that is deterministic: +a, -a, +a, -a ...
std::vector<double> noisy(double mean, double amplitude, int n) {
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(mean * (1 + (i % 2 ? -amplitude : amplitude)));
  return s;
}

TEST(SteadyStateDetector, TableOfSeries) {
  const std::vector<SeriesCase> cases = {
      {"flat", {1000, 1000, 1000, 1000, 1000}, true},
      {"fewer rounds than the window", {1000, 1000, 1000, 1000}, false},
      // 1% per round: excursion of the fit 4% of the mean, range 4%: steady.
      {"slow drift", drift(1000, 0.01, 5), true},
      // 3% per round: excursion 12% > 10% while the range (12%) is within 20%: slope decides.
      {"drift too fast for the slope rule", drift(1000, -0.03, 5), false},
      // A step inside the window: the range (25%) fails.
      {"step in the window", {1000, 1000, 1000, 750, 750}, false},
      // The step is older than the window: the last five are flat.
      {"step before the window", {1000, 1000, 750, 750, 750, 750, 750}, true},
      // +-5%: range 10%, slope small: steady.
      {"mild noise", noisy(1000, 0.05, 5), true},
      // +-15%: range 30% > 20%.
      {"heavy noise", noisy(1000, 0.15, 5), false},
      // A write cliff: fast rounds, then a fall to a third in the window.
      {"cliff", {90000, 90000, 90000, 90000, 30000}, false},
      {"nothing measured", {0, 0, 0, 0, 0}, false},
  };
  SteadyStateConfig config;
  for (const auto& c : cases) {
    auto r = evaluate_window(c.series, config);
    EXPECT_EQ(r.steady, c.steady) << c.name << ": range " << r.range_pct << "%, slope "
                                  << r.slope_pct << "%";
  }
}

TEST(SteadyStateDetector, WindowFigures) {
  std::vector<double> s = {500, 100, 102, 104, 106, 108};
  auto r = evaluate_window(s, SteadyStateConfig{});
  EXPECT_EQ(r.window_first, 1u);
  EXPECT_EQ(r.window_last, 5u);
  EXPECT_DOUBLE_EQ(r.mean, 104);
  EXPECT_DOUBLE_EQ(r.range, 8);
  EXPECT_NEAR(r.slope, 2.0, 1e-12);
  EXPECT_NEAR(r.range_pct, 8.0 / 104 * 100, 1e-9);
  EXPECT_NEAR(r.slope_pct, 2.0 * 4 / 104 * 100, 1e-9);
  EXPECT_TRUE(r.steady);
}

reporting::WorkloadResult fake_round(const WorkloadSpec& w, double iops) {
  reporting::WorkloadResult r;
  r.id = w.id;
  r.params = w.params;
  r.elapsed_s = w.params.runtime_s;
  reporting::DirectionResult d;
  d.iops = iops;
  d.ios = static_cast<std::uint64_t>(iops * r.elapsed_s);
  r.write = d;
  r.timeline.push_back({.t_s = r.elapsed_s / 2, .write_iops = iops});
  r.timeline.push_back({.t_s = r.elapsed_s, .write_iops = iops});
  return r;
}

TEST(SteadyStateRounds, StopsAtTheFirstSteadyWindow) {
  // A drive that falls from 90k to 30k over its first rounds, then settles.
  std::vector<double> iops = {90000, 70000, 50000, 35000, 30500, 30200,
                              30000, 30100, 29900, 30000, 30000, 30000};
  WorkloadSpec w;
  w.id = "randwrite-4k";
  w.params.runtime_s = 60;
  SteadyStateConfig c;
  c.round_time_s = 2;
  unsigned calls = 0;
  auto r = run_rounds(w, c, [&](const WorkloadSpec& s) {
    EXPECT_EQ(s.id, w.id + " (round " + std::to_string(++calls) + ")");
    EXPECT_DOUBLE_EQ(s.params.runtime_s, 2);
    return fake_round(s, iops[calls - 1]);
  });
  ASSERT_TRUE(steady_state_of(r));
  const auto& ss = *steady_state_of(r);
  EXPECT_TRUE(ss.steady);
  ASSERT_TRUE(r.method && r.method->steady().has_value());
  EXPECT_TRUE(*r.method->steady());
  // Rounds 4..8 (35000 .. 30100) have a range of 16% but the slope fails; 5..9 is steady.
  EXPECT_EQ(ss.rounds.size(), 9u);
  EXPECT_EQ(ss.window_first, 4u);
  EXPECT_EQ(ss.window_last, 8u);
  for (std::size_t i = 0; i + 1 < ss.rounds.size(); ++i) EXPECT_FALSE(ss.rounds[i].steady) << i;
  EXPECT_TRUE(ss.rounds.back().steady);
  EXPECT_DOUBLE_EQ(r.elapsed_s, 18);
  ASSERT_EQ(r.timeline.size(), 18u);  // two points a round, one after the other
  EXPECT_DOUBLE_EQ(r.timeline.back().t_s, 18);
  EXPECT_DOUBLE_EQ(r.write->iops, 29900);  // the last round's result
  EXPECT_EQ(describe(ss).rfind("steady after 9 rounds (window mean 30.1k IOPS, range ", 0), 0u)
      << describe(ss);
}

TEST(SteadyStateRounds, GivesUpAfterTheBound) {
  WorkloadSpec w;
  w.id = "w";
  w.params.runtime_s = 1;
  SteadyStateConfig c;
  c.max_rounds = 8;
  unsigned calls = 0;
  auto r = run_rounds(w, c, [&](const WorkloadSpec& s) {
    ++calls;
    return fake_round(s, calls % 2 ? 1000 : 500);  // never settles
  });
  EXPECT_EQ(calls, 8u);
  ASSERT_TRUE(steady_state_of(r));
  EXPECT_FALSE(steady_state_of(r)->steady);
  EXPECT_FALSE(r.method->steady().value_or(true));
  EXPECT_EQ(describe(*steady_state_of(r)).rfind("not steady after 8 rounds (window mean ", 0), 0u);
}

TEST(SteadyStateRounds, StopsAtARoundWithErrors) {
  WorkloadSpec w;
  w.params.runtime_s = 1;
  unsigned calls = 0;
  auto r = run_rounds(w, SteadyStateConfig{}, [&](const WorkloadSpec& s) {
    auto res = fake_round(s, 1000);
    if (++calls == 3) res.errors.push_back("EIO at offset 0");
    return res;
  });
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(steady_state_of(r)->rounds.size(), 2u);
  EXPECT_FALSE(steady_state_of(r)->steady);
}

TEST(SteadyStateSuite, RoundsAttributesAndErrors) {
  Suite s = Suite::parse(R"(<suite name="t">
  <defaults runtime="60s" size="64m"/>
  <workload id="rw4k" rw="randwrite" bs="4k" iodepth="32" rounds="25" round_time="60s"/>
  <workload id="bw" rw="write" bs="128k" rounds="10" steady_metric="bw"/>
  <workload id="plain" rw="randread"/>
</suite>)",
                         "t.xml");
  auto rounds = [&](std::size_t i) { return s.workloads[i].method_as<SteadyStateRounds>(); };
  ASSERT_TRUE(rounds(0));
  ASSERT_TRUE(rounds(1));
  EXPECT_EQ(rounds(0)->config().max_rounds, 25u);
  EXPECT_DOUBLE_EQ(rounds(0)->config().round_time_s, 60);
  EXPECT_EQ(rounds(1)->config().metric, "bw");
  EXPECT_DOUBLE_EQ(rounds(1)->config().round_time_s, 0);
  EXPECT_FALSE(rounds(2));
  auto error_of = [](const char* text) {
    try {
      (void)Suite::parse(text, "bad.xml");
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"(<suite name="t"><workload id="a" rounds="3"/></suite>)"),
            "bad.xml:1:42: rounds: expected a whole number 5..1000, got '3'");
  EXPECT_EQ(error_of(R"(<suite name="t"><workload id="a" steady_metric="p99"/></suite>)"),
            "bad.xml:1:49: steady_metric: expected iops, bw or lat.mean, got 'p99'");
}

TEST(SteadyStateVerdict, RequiredButNotSteadyIsInconclusive) {
  Suite suite = Suite::parse(
      R"(<suite name="t"><workload id="rw" rw="randwrite" rounds="25"/><workload id="plain" rw="randwrite"/></suite>)",
      "s.xml");
  SpecSheet sheet = SpecSheet::parse(R"(<spec-sheet name="x" suite="t"><match model="*"/><claims>
    <claim workload="rw" metric="iops" value="40k" steady="required"/>
    <claim workload="plain" metric="iops" value="40k" steady="required"/>
  </claims></spec-sheet>)",
                                     "x.xml");
  ASSERT_TRUE(sheet.claims[0].steady_required);
  WorkloadSpec w;
  w.id = "rw";
  w.params.runtime_s = 1;
  unsigned calls = 0;
  auto rw = run_rounds(w, SteadyStateConfig{}, [&](const WorkloadSpec& s) {
    return fake_round(s, ++calls <= 3 ? 90000 : 30000);  // a cliff in round 4: never steady
  });
  reporting::WorkloadResult plain = fake_round(w, 50000);
  plain.id = "plain";
  auto v = judge(sheet, suite, {rw, plain});
  ASSERT_EQ(v.size(), 2u);
  // The cliff is older than the window by round 8 (rounds 4..8 are flat at 30k): it settled, so
  // the claim is judged, and fails (30k is 25% below 40k).
  ASSERT_TRUE(steady_state_of(rw)->steady);
  EXPECT_EQ(steady_state_of(rw)->rounds.size(), 8u);
  EXPECT_EQ(v[0].status, reporting::VerdictStatus::Fail) << v[0].message;
  EXPECT_EQ(v[0].message, "measured 30k IOPS, 25.0% below the claimed 40k (tolerance 10%)");
  EXPECT_EQ(v[1].status, reporting::VerdictStatus::Error);
  EXPECT_EQ(v[1].message.rfind("inconclusive: steady state was not measured (workload 'plain' "
                               "does not run in rounds)",
                               0),
            0u)
      << v[1].message;
}

TEST(SteadyStateVerdict, NeverSettlingGivesTheWindowsNumbers) {
  Suite suite = Suite::parse(
      R"(<suite name="t"><workload id="rw" rw="randwrite" rounds="6"/></suite>)", "s.xml");
  SpecSheet sheet = SpecSheet::parse(R"(<spec-sheet name="x" suite="t"><match model="*"/><claims>
    <claim workload="rw" metric="iops" value="40k" steady="required"/>
  </claims></spec-sheet>)",
                                     "x.xml");
  WorkloadSpec w;
  w.id = "rw";
  w.params.runtime_s = 1;
  SteadyStateConfig c;
  c.max_rounds = 6;
  const std::vector<double> iops = {90000, 80000, 70000, 60000, 50000, 40000};
  auto rw = run_rounds(w, c, [&, round = 0u](const WorkloadSpec& s) mutable {
    return fake_round(s, iops[round++]);
  });
  auto v = judge(sheet, suite, {rw});
  EXPECT_EQ(v[0].status, reporting::VerdictStatus::Error);
  // Window 80k..40k: mean 60k, range 40k = 66.7%, slope -10k/round x 4 = 66.7%.
  EXPECT_EQ(v[0].message.rfind("inconclusive: not steady after 6 rounds (window mean 60k IOPS, "
                               "range 66.7% of mean, slope 66.7% of mean); measured 40k IOPS",
                               0),
            0u)
      << v[0].message;
}

}  // namespace
}  // namespace storqual::runner
