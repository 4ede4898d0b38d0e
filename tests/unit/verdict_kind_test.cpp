// SPDX-License-Identifier: Apache-2.0
// Verdict kinds and error causes as types: their names round trip, the JSON keeps its text (a
// kind key only for verdicts other than claims, an aggregate's workloads as one "a b c" string),
// older files load, and JUnit takes an error's type from its cause.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <string>
#include <vector>

#include "reporting/junit_report.hpp"
#include "reporting/result_json.hpp"
#include "reporting/verdict_status.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;

TEST(VerdictKind, NamesRoundTrip) {
  for (auto k : {VerdictKind::Claim, VerdictKind::Baseline, VerdictKind::Lot, VerdictKind::Health})
    EXPECT_EQ(verdict_kind_from_string(to_string(k)), k) << to_string(k);
  EXPECT_EQ(to_string(VerdictKind::Claim), "claim");
  EXPECT_EQ(to_string(VerdictKind::Baseline), "baseline");
  EXPECT_EQ(to_string(VerdictKind::Lot), "lot");
  EXPECT_EQ(to_string(VerdictKind::Health), "health");
  EXPECT_EQ(verdict_kind_from_string(""), VerdictKind::Claim);  // no kind: a claim
  EXPECT_EQ(verdict_kind_from_string("Lot"), std::nullopt);
  EXPECT_EQ(verdict_kind_from_string("median"), std::nullopt);
}

TEST(ErrorCause, NamesRoundTrip) {
  for (auto c : {ErrorCause::WorkloadError, ErrorCause::Interrupted})
    EXPECT_EQ(error_cause_from_string(to_string(c)), c) << to_string(c);
  EXPECT_EQ(to_string(ErrorCause::WorkloadError), "workload-error");
  EXPECT_EQ(to_string(ErrorCause::Interrupted), "interrupted");
  EXPECT_EQ(error_cause_from_string("inconclusive"), std::nullopt);  // a status, not a cause
}

TEST(VerdictWorkloads, AreJoinedWithASpaceAndSplitOnWhiteSpace) {
  ClaimVerdict v;
  v.workloads = {"randrw70-4k", "randrw70-8k", "randrw70-16k"};
  v.metric = "iops";
  EXPECT_EQ(workload_text(v), "randrw70-4k randrw70-8k randrw70-16k");
  EXPECT_EQ(verdict_name(v), "randrw70-4k randrw70-8k randrw70-16k iops");
  v.kind = VerdictKind::Lot;
  EXPECT_EQ(verdict_subject(v), "lot: randrw70-4k randrw70-8k randrw70-16k");
  EXPECT_EQ(split_ids(" a \t b\nc  "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_ids("   ").empty());
  ClaimVerdict none;
  EXPECT_EQ(workload_text(none), "");
}

// One run with an aggregate claim, a baseline, a lot and a health verdict, written and read back.
RunResult run_with_kinds() {
  RunResult r = sample::run(false);
  ClaimVerdict agg = sample::verdict("randread-4k-qd32", "iops", "IOPS", 97000, 98000, 10, 60);
  agg.workloads = {"randread-4k-qd32", "randwrite-4k-qd32", "randrw70-4k"};
  agg.aggregate = "mean";
  r.verdicts.push_back(agg);
  for (auto k : {VerdictKind::Baseline, VerdictKind::Lot, VerdictKind::Health}) {
    ClaimVerdict v = sample::verdict("randread-4k-qd32", "iops", "IOPS", 97000, 98000, 10, 60);
    v.kind = k;
    r.verdicts.push_back(v);
  }
  return r;
}

TEST(VerdictJson, KeepsTheTextOfKindsAndWorkloads) {
  const RunResult r = run_with_kinds();
  const Json j = Json::parse(to_json_text(r));
  const auto& vs = j["verdicts"];
  ASSERT_EQ(vs.size(), r.verdicts.size());
  for (std::size_t i = 0; i + 4 < vs.size(); ++i)
    EXPECT_FALSE(vs[i].contains("kind")) << "a claim's JSON carries no kind: " << vs[i].dump();
  const std::size_t agg = vs.size() - 4;
  EXPECT_FALSE(vs[agg].contains("kind"));
  EXPECT_EQ(vs[agg]["workload"], "randread-4k-qd32 randwrite-4k-qd32 randrw70-4k");
  EXPECT_EQ(vs[agg + 1]["kind"], "baseline");
  EXPECT_EQ(vs[agg + 2]["kind"], "lot");
  EXPECT_EQ(vs[agg + 3]["kind"], "health");

  const RunResult back = run_result_from_json(to_json_text(r));
  ASSERT_EQ(back.verdicts.size(), r.verdicts.size());
  for (std::size_t i = 0; i < r.verdicts.size(); ++i) {
    EXPECT_EQ(back.verdicts[i].kind, r.verdicts[i].kind) << i;
    EXPECT_EQ(back.verdicts[i].workloads, r.verdicts[i].workloads) << i;
  }
  EXPECT_EQ(to_json_text(back), to_json_text(r));
}

TEST(VerdictJson, OlderAndHandWrittenKindsLoad) {
  Json j = Json::parse(to_json_text(run_with_kinds()));
  j["verdicts"][0]["kind"] = "claim";  // the default spelled out
  j["verdicts"][1]["kind"] = "";
  j["verdicts"][2]["workload"] = "  a   b ";  // any white space between ids
  const RunResult r = run_result_from_json(j.dump());
  EXPECT_EQ(r.verdicts[0].kind, VerdictKind::Claim);
  EXPECT_EQ(r.verdicts[1].kind, VerdictKind::Claim);
  EXPECT_EQ(r.verdicts[2].workloads, (std::vector<std::string>{"a", "b"}));
  const Json again = Json::parse(to_json_text(r));
  EXPECT_FALSE(again["verdicts"][0].contains("kind"));
  EXPECT_EQ(again["verdicts"][2]["workload"], "a b");

  j["verdicts"][0]["kind"] = "median";
  try {
    (void)run_result_from_json(j.dump());
    FAIL() << "an unknown kind must be refused";
  } catch (const ResultJsonError& e) {
    EXPECT_EQ(std::string(e.what()),
              "verdicts[0].kind: expected one of claim, baseline, lot, health");
  }
}

TEST(VerdictJson, AnErrorsCauseIsReadFromItsMessageAsJunitAlwaysDid) {
  RunResult r = sample::run(false);
  r.verdicts[0].status = VerdictStatus::Error;
  r.verdicts[0].message = "workload 'randread-4k-qd32' was interrupted";
  r.verdicts[0].error_cause = ErrorCause::Interrupted;
  r.verdicts[1].status = VerdictStatus::Error;
  r.verdicts[1].message = "workload 'randwrite-4k-qd32' failed: pread: Input/output error";
  r.verdicts[2].message = "interrupted, but not an error";  // a pass keeps the default
  const std::string json = to_json_text(r);
  EXPECT_EQ(json.find("error_cause"), std::string::npos);  // the JSON is unchanged
  const RunResult back = run_result_from_json(json);
  EXPECT_EQ(back.verdicts[0].error_cause, ErrorCause::Interrupted);
  EXPECT_EQ(back.verdicts[1].error_cause, ErrorCause::WorkloadError);
  EXPECT_EQ(back.verdicts[2].error_cause, ErrorCause::WorkloadError);
  EXPECT_EQ(render_junit({back}), render_junit({r}));
}

TEST(VerdictJunit, AnErrorsTypeIsItsCause) {
  RunResult r = sample::run(false);
  r.verdicts[1].status = VerdictStatus::Error;
  r.verdicts[1].message = "the run stopped";  // no "interrupted" in it: the cause decides
  r.verdicts[1].error_cause = ErrorCause::Interrupted;
  pugi::xml_document doc;
  const std::string xml = render_junit({r});
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  int interrupted = 0;
  for (auto tc : doc.child("testsuites").child("testsuite").children("testcase"))
    if (auto e = tc.child("error"); e && std::string(e.attribute("type").value()) == "interrupted")
      ++interrupted;
  EXPECT_EQ(interrupted, 1);
}

}  // namespace
}  // namespace storqual::reporting
