// SPDX-License-Identifier: Apache-2.0
// The OCP Test & Validation stream (reporting/ocp_diag.hpp) of the sample results: one artifact
// per line in order with sequence numbers from 0, the DUT from the identity rows, one step per
// workload, measurements with the claims' bounds as validators, diagnoses per verdict, errors of
// a workload in error, and the four (status, result) pairs of testRunEnd. The schema itself is
// checked by tests/system/ocp_diag_run_test.cpp with python3-jsonschema.
#include "reporting/ocp_diag.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "reporting/result_json.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::json;

std::vector<Json> lines(const std::string& text) {
  std::vector<Json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(Json::parse(line));
  return out;
}

std::vector<Json> lines_of(const RunResult& run) {
  const std::string text = render_ocp_diag(run);
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  return lines(text);
}

// The step artifacts of kind `key` (testStepStart, measurement, ...), in order.
std::vector<Json> step_artifacts(const std::vector<Json>& all, const std::string& key) {
  std::vector<Json> out;
  for (const auto& l : all)
    if (l.contains("testStepArtifact") && l["testStepArtifact"].contains(key))
      out.push_back(l["testStepArtifact"]);
  return out;
}

const Json& run_end(const std::vector<Json>& all) {
  return all.back()["testRunArtifact"]["testRunEnd"];
}

TEST(OcpDiag, StartsWithTheSchemaVersionAndTheRunAndNumbersEveryLine) {
  const auto all = lines_of(sample::run(false));
  ASSERT_GT(all.size(), 3u);
  EXPECT_EQ(all[0]["schemaVersion"], Json({{"major", 2}, {"minor", 0}}));
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i]["sequenceNumber"], i);
    EXPECT_EQ(all[i]["timestamp"],
              i + 1 == all.size() ? "2026-11-29T18:06:10Z" : "2026-11-29T18:00:00Z");
  }
  const Json& start = all[1]["testRunArtifact"]["testRunStart"];
  EXPECT_EQ(start["name"], "storqual");
  EXPECT_EQ(start["version"], "storqual 0.1.0 (git 0123456789ab)");
  EXPECT_EQ(start["commandLine"], "storqual run --target /dev/sdb --specs specs/ --out reports/");
  EXPECT_EQ(start["parameters"]["suite"], "sata-ssd");
  EXPECT_EQ(start["parameters"]["specSheet"], "specs/example-sata.xml");
  EXPECT_EQ(start["parameters"]["specSheetSha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(start["parameters"]["suiteSha256"].get<std::string>().size(), 64u);
  EXPECT_TRUE(all.back()["testRunArtifact"].contains("testRunEnd"));
}

TEST(OcpDiag, TheDutIsTheIdentity) {
  const auto all = lines_of(sample::run(false));
  const Json& dut = all[1]["testRunArtifact"]["testRunStart"]["dutInfo"];
  EXPECT_EQ(dut["dutInfoId"], "S5X9NG0R123456");
  ASSERT_EQ(dut["hardwareInfos"].size(), 1u);
  const Json& hw = dut["hardwareInfos"][0];
  EXPECT_EQ(hw["hardwareInfoId"], "dut");
  EXPECT_EQ(hw["name"], "Example SSD 500GB");
  EXPECT_EQ(hw["serialNumber"], "S5X9NG0R123456");
  EXPECT_EQ(hw["location"], "/dev/sdb");
  EXPECT_FALSE(hw.contains("manufacturer")) << "the sample has no vendor row";
  ASSERT_EQ(dut["softwareInfos"].size(), 1u);
  EXPECT_EQ(dut["softwareInfos"][0]["version"], "RVT04B6Q");
  EXPECT_EQ(dut["softwareInfos"][0]["softwareType"], "FIRMWARE");
  EXPECT_EQ(dut["metadata"]["identity"].size(), 7u);
}

TEST(OcpDiag, OneStepPerWorkloadWithItsFigures) {
  const RunResult run = sample::run(false);
  const auto all = lines_of(run);
  const auto starts = step_artifacts(all, "testStepStart");
  ASSERT_GE(starts.size(), run.workloads.size());
  for (std::size_t i = 0; i < run.workloads.size(); ++i) {
    EXPECT_EQ(starts[i]["testStepStart"]["name"], run.workloads[i].id);
    EXPECT_EQ(starts[i]["testStepId"], std::to_string(i));
  }
  bool seen = false;
  for (const auto& m : step_artifacts(all, "measurement")) {
    if (m["testStepId"] != "0" || m["measurement"]["name"] != "read.lat.mean") continue;
    seen = true;
    EXPECT_EQ(m["measurement"]["unit"], "ns");
    EXPECT_DOUBLE_EQ(m["measurement"]["value"].get<double>(), run.workloads[0].read->lat.mean_ns);
  }
  EXPECT_TRUE(seen);
  for (const auto& e : step_artifacts(all, "testStepEnd"))
    EXPECT_EQ(e["testStepEnd"]["status"], "COMPLETE");
}

// The validator on the measurement named by the claim's metric in the claim's step.
Json validator_of(const std::vector<Json>& all, const std::string& step, const std::string& name) {
  for (const auto& m : step_artifacts(all, "measurement"))
    if (m["testStepId"] == step && m["measurement"]["name"] == name &&
        m["measurement"].contains("validators"))
      return m["measurement"]["validators"][0];
  return nullptr;
}

TEST(OcpDiag, ValidatorsAreTheClaimsBounds) {
  RunResult run = sample::run(false);
  run.verdicts = {sample::verdict("randread-4k-qd32", "iops", "IOPS", 100000, 98400, 5, 60),
                  sample::verdict("randread-4k-qd32", "lat.p99", "ns", 2e6, 1.5e6, 10, 60)};
  const auto all = lines_of(run);
  const Json iops = validator_of(all, "0", "iops");
  ASSERT_TRUE(iops.is_object());
  EXPECT_EQ(iops["type"], "GREATER_THAN_OR_EQUAL");
  EXPECT_DOUBLE_EQ(iops["value"].get<double>(), 95000);
  EXPECT_EQ(iops["name"], "randread-4k-qd32 iops");
  const Json lat = validator_of(all, "0", "lat.p99");
  ASSERT_TRUE(lat.is_object());
  EXPECT_EQ(lat["type"], "LESS_THAN_OR_EQUAL");
  EXPECT_DOUBLE_EQ(lat["value"].get<double>(), 2.2e6);
  const auto diagnoses = step_artifacts(all, "diagnosis");
  ASSERT_EQ(diagnoses.size(), 2u);
  EXPECT_EQ(diagnoses[0]["diagnosis"]["type"], "PASS");
  EXPECT_EQ(diagnoses[0]["diagnosis"]["verdict"], "claim-pass");
  EXPECT_NE(diagnoses[0]["diagnosis"]["message"].get<std::string>().find(run.verdicts[0].message),
            std::string::npos);
  EXPECT_EQ(run_end(all), Json({{"status", "COMPLETE"}, {"result", "PASS"}}));
}

TEST(OcpDiag, AFailedClaimFailsTheRun) {
  RunResult run = sample::run(true);
  run.verdicts = {sample::verdict("randwrite-4k-qd32", "iops", "IOPS", 90000, 72300, 5, 60)};
  run.exit_code = 1;
  const auto all = lines_of(run);
  const auto diagnoses = step_artifacts(all, "diagnosis");
  ASSERT_EQ(diagnoses.size(), 1u);
  EXPECT_EQ(diagnoses[0]["testStepId"], "1");
  EXPECT_EQ(diagnoses[0]["diagnosis"]["type"], "FAIL");
  EXPECT_EQ(run_end(all), Json({{"status", "COMPLETE"}, {"result", "FAIL"}}));
}

TEST(OcpDiag, AWorkloadInErrorIsAnErrorNotAPass) {
  RunResult run = sample::run(false);
  run.workloads[0].errors = {"the device stalled: 0 I/Os completed in 0.3 s"};
  ClaimVerdict v = sample::verdict("randread-4k-qd32", "iops", "IOPS", 10, 20, 5, 60);
  v.status = VerdictStatus::Error;
  v.measured.reset();
  run.verdicts = {v, sample::verdict("randwrite-4k-qd32", "iops", "IOPS", 10, 20, 5, 60)};
  run.exit_code = 3;
  const auto all = lines_of(run);
  const auto errors = step_artifacts(all, "error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["testStepId"], "0");
  EXPECT_EQ(errors[0]["error"]["symptom"], "workload-error");
  EXPECT_EQ(errors[0]["error"]["message"], run.workloads[0].errors[0]);
  const auto ends = step_artifacts(all, "testStepEnd");
  EXPECT_EQ(ends[0]["testStepEnd"]["status"], "ERROR");
  EXPECT_EQ(ends[1]["testStepEnd"]["status"], "COMPLETE");
  EXPECT_EQ(step_artifacts(all, "diagnosis")[0]["diagnosis"]["type"], "UNKNOWN");
  EXPECT_EQ(run_end(all), Json({{"status", "ERROR"}, {"result", "NOT_APPLICABLE"}}));
}

TEST(OcpDiag, NothingUndecidedPasses) {
  RunResult inconclusive = sample::run(false);
  ClaimVerdict v = sample::verdict("randread-4k-qd32", "lat.p99", "ns", 2e6, 1.5e6, 10, 60);
  v.status = VerdictStatus::Inconclusive;
  inconclusive.verdicts = {v};
  inconclusive.exit_code = 3;
  EXPECT_EQ(run_end(lines_of(inconclusive)),
            Json({{"status", "SKIP"}, {"result", "NOT_APPLICABLE"}}));

  RunResult measured = sample::run(false);
  measured.measure_only = true;
  ClaimVerdict m;
  m.workloads = {"randread-4k-qd32"};
  m.metric = "iops";
  m.measured = 98400;
  m.unit = "IOPS";
  m.status = VerdictStatus::MeasuredOnly;
  measured.verdicts = {m};
  const auto all = lines_of(measured);
  EXPECT_TRUE(step_artifacts(all, "diagnosis").empty()) << "nothing was judged";
  EXPECT_TRUE(validator_of(all, "0", "iops").is_null());
  EXPECT_EQ(run_end(all), Json({{"status", "SKIP"}, {"result", "NOT_APPLICABLE"}}));

  RunResult interrupted = sample::run(false);
  interrupted.workloads[1].interrupted = true;
  interrupted.exit_code = 130;
  EXPECT_EQ(run_end(lines_of(interrupted)),
            Json({{"status", "SKIP"}, {"result", "NOT_APPLICABLE"}}));
}

TEST(OcpDiag, VerdictsOfNoOneWorkloadHaveTheirOwnStep) {
  RunResult run = sample::run(false);
  ClaimVerdict health;
  health.workloads = {"device"};
  health.metric = "smart";
  health.kind = VerdictKind::Health;
  health.status = VerdictStatus::Fail;
  health.message = "media errors 0 -> 3";
  run.verdicts = {health};
  run.exit_code = 1;
  const auto all = lines_of(run);
  const auto starts = step_artifacts(all, "testStepStart");
  ASSERT_EQ(starts.size(), run.workloads.size() + 1);
  EXPECT_EQ(starts.back()["testStepStart"]["name"], "run");
  const auto diagnoses = step_artifacts(all, "diagnosis");
  ASSERT_EQ(diagnoses.size(), 1u);
  EXPECT_EQ(diagnoses[0]["testStepId"], starts.back()["testStepId"]);
  EXPECT_EQ(diagnoses[0]["diagnosis"]["verdict"], "health-fail");
  EXPECT_EQ(run_end(all), Json({{"status", "COMPLETE"}, {"result", "FAIL"}}));
}

TEST(OcpDiag, DeviationsAreWarnings) {
  RunResult run = sample::run(false);
  run.deviations = {{"runtime", "runtimes scaled by 0.05 (--runtime-scale 0.05)", {}}};
  const auto all = lines_of(run);
  ASSERT_TRUE(all[2]["testRunArtifact"].contains("log"));
  EXPECT_EQ(all[2]["testRunArtifact"]["log"]["severity"], "WARNING");
  EXPECT_EQ(all[2]["testRunArtifact"]["log"]["message"],
            "deviation (runtime): runtimes scaled by 0.05 (--runtime-scale 0.05)");
}

TEST(OcpDiag, AResultReadBackGivesTheSameBytes) {
  RunResult run = sample::run(true);
  run.verdicts = {sample::verdict("randwrite-4k-qd32", "iops", "IOPS", 90000, 72300.123456789, 5,
                                  60.000000001)};
  const RunResult back = run_result_from_json(to_json_text(run));
  EXPECT_EQ(render_ocp_diag(run), render_ocp_diag(back));
}

}  // namespace
}  // namespace storqual::reporting
