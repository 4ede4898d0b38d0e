// SPDX-License-Identifier: Apache-2.0
// `storqual judge --fio-json` with the real fio (docs/fio-files.md, "Judging fio's JSON"): fio
// 3.33 measures a file with O_DIRECT in a scratch directory and writes its JSON in the test.
//  - the quick suite exported with `storqual suites export quick --fio` (runtimes cut to 1 s), run
//    by fio with --output-format=json+ and judged, and `storqual run` of the same suite on the same
//    file with the same sheet: the same verdict statuses (generous claims, one that fails in both),
//    both exit 1; the reports marked "measured by fio-3.33" with the file's SHA-256 (console,
//    JSON and its read-back, HTML, JUnit validated against the XSDs, OCP validated against the
//    schema); the identity from --target or from `storqual identify --json`;
//  - the 70/30 mix at 4k/8k/16k, numjobs=4, group_reporting, matched by its options;
//  - a p99.9999 claim on a short run and a lat.p99 claim on clat-only output: inconclusive;
//  - claims whose workloads no job ran: skipped, exit 3; malformed JSON: exit 2 naming the file;
//  - client/server output of two fio servers on Unix sockets (no network): one host chosen.
// Everything fails, naming fio, when fio is not installed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "tests/support/junit_check.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

using testing::have_fio;

// A sheet of the quick suite for a file target; `claims` are <claim> lines.
std::string quick_sheet(const std::string& claims) {
  return "<spec-sheet name=\"fio judge test\" vendor=\"test\" suite=\"quick\" source=\"test\">\n"
         "  <match target=\"file\"/>\n  <claims tolerance=\"10%\">\n" +
         claims + "  </claims>\n</spec-sheet>\n";
}

// Generous claims every disk meets, and one no disk does (a 1 MiB read in 1 us). The failing one
// is a latency of large reads, which neither the CPU nor a link bandwidth limits, so that a run
// cannot call it host-limited (an error) where fio's result, which has no such report, fails it.
const char* const kQuickClaims =
    "    <claim workload=\"randread-4k-qd16\"  metric=\"iops\" value=\"10\"/>\n"
    "    <claim workload=\"randwrite-4k-qd16\" metric=\"iops\" value=\"10\"/>\n"
    "    <claim workload=\"seqwrite-1m-qd4\"   metric=\"bw\" value=\"1MB/s\"/>\n"
    "    <claim workload=\"randread-4k-qd16\"  metric=\"clat.p90\" value=\"10s\"/>\n"
    "    <claim workload=\"seqread-1m-qd4\"    metric=\"clat.p50\" value=\"1us\"/>\n";

// (workloads, metric) -> status of every claim verdict in a result JSON.
std::map<std::string, std::string> claim_statuses(const fs::path& result) {
  std::map<std::string, std::string> out;
  const Json j = Json::parse(read_file(result));
  for (const auto& v : j["verdicts"])
    if (v.contains("claimed"))
      out[v["workload"].get<std::string>() + " " + v["metric"].get<std::string>()] =
          v["status"].get<std::string>();
  return out;
}

std::string sha256_of(const fs::path& file) {
  const auto r = run_command({"sha256sum", file.string()});
  return r.out.substr(0, 64);
}

// fio run once for the whole suite: the quick suite's export on one file, and the mix.
class FioJudge : public ::testing::Test {
 protected:
  // fio runs once per build tree, not once per test process (ctest runs each TEST in its own):
  // its JSON, its job files and the target live in build/tests/fio-judge-fio, made under a lock by
  // the first process and made again when the quick suite's export changed; each process copies
  // the JSON and the suite files into its own scratch folder, beside its outputs.
  static void SetUpTestSuite() {
    if (!have_fio()) return;
    dir_ = new ScratchDir("storqual-fio-judge");
    const fs::path shared =
        fs::path(STORQUAL_BINARY).parent_path().parent_path() / "tests" / "fio-judge-fio";
    fs::create_directories(shared);
    target_ = shared / "target.img";
    const int lock = ::open((shared / "lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    ASSERT_GE(lock, 0);
    ASSERT_EQ(::flock(lock, LOCK_EX), 0);
    make_fio_outputs(shared);
    ::close(lock);  // releases the lock
    for (const char* f : {"quick.fio", "quick.json", "mix.xml", "mix.fio", "mix.json"})
      if (fs::exists(shared / f))
        fs::copy_file(shared / f, dir_->path() / f, fs::copy_options::overwrite_existing);
  }
  // The export of a standard suite, with 1 s runtimes and no ramp, as a short CI run would, and
  // the 70/30 mix at three block sizes; fio's JSON of both. Kept when the export is unchanged.
  static void make_fio_outputs(const fs::path& d) {
    auto ex = run_command(
        {STORQUAL_BINARY, "suites", "export", "quick", "--fio", "--target", target_.string()});
    ASSERT_EQ(ex.exit_code, 0) << ex.err;
    std::string job = std::regex_replace(ex.out, std::regex("\nruntime=[^\n]*"), "\nruntime=1s");
    job = std::regex_replace(job, std::regex("\nramp_time=[^\n]*"), "");
    if (fs::exists(d / "quick.json") && fs::exists(d / "mix.json") && fs::exists(d / "quick.fio") &&
        read_file(d / "quick.fio") == job)
      return;
    fs::remove(d / "quick.json");
    fs::remove(d / "mix.json");
    std::ofstream(d / "quick.fio") << job;
    auto fio = run_command({"fio", "--output-format=json+",
                            "--output=" + (d / "quick.json").string(), (d / "quick.fio").string()});
    ASSERT_EQ(fio.exit_code, 0) << fio.out << fio.err;
    std::ofstream(d / "mix.xml") << R"(<suite name="mix" description="70/30 at 4k, 8k, 16k">
  <defaults direct="1" rw="randrw" rwmixread="70" iodepth="4" numjobs="4" ioengine="libaio" runtime="1s" size="64m"/>
  <workload id="randrw70-4k" bs="4k"/>
  <workload id="randrw70-8k" bs="8k"/>
  <workload id="randrw70-16k" bs="16k"/>
</suite>
)";
    std::ofstream(d / "mix.fio") << "[global]\nfilename=" << target_.string()
                                 << "\ndirect=1\nioengine=libaio\nrw=randrw\nrwmixread=70\n"
                                    "iodepth=4\nnumjobs=4\nsize=64m\nruntime=1\ntime_based\n"
                                    "thread\ngroup_reporting\n"
                                    "[mix-a]\nbs=4k\n[mix-b]\nstonewall\nbs=8k\n"
                                    "[mix-c]\nstonewall\nbs=16k\n";
    fio = run_command({"fio", "--output-format=json+", "--output=" + (d / "mix.json").string(),
                       (d / "mix.fio").string()});
    ASSERT_EQ(fio.exit_code, 0) << fio.out << fio.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    STORQUAL_REQUIRE(have_fio(), "fio (apt-get install fio)");
    ASSERT_TRUE(dir_ && fs::exists(dir_->path() / "quick.json") &&
                fs::exists(dir_->path() / "mix.json"))
        << "fio did not write its JSON (see the suite's set-up)";
  }
  static fs::path at(const std::string& name) { return dir_->path() / name; }
  static fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(at(name)) << text;
    return at(name);
  }
  // storqual judge with reports in OUT/<name>/.
  static testing::CommandResult judge(const std::string& name, const fs::path& json,
                                      const fs::path& sheet, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {STORQUAL_BINARY, "judge",          "--fio-json",
                                     json.string(),   "--spec",         sheet.string(),
                                     "--out",         at(name).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  }
  static inline ScratchDir* dir_ = nullptr;
  static inline fs::path target_;
};

TEST_F(FioJudge, QuickSuiteJudgedAsStorqualsOwnRunJudgesIt) {
  const fs::path sheet = write("quick-sheet.xml", quick_sheet(kQuickClaims));
  const fs::path json = at("quick.json");
  const std::string target_before = sha256_of(target_);
  const auto j = judge("judged", json, sheet,
                       {"--target", target_.string(), "--ocp-diag", at("judged.jsonl").string()});
  EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
  EXPECT_EQ(sha256_of(target_), target_before) << "judge --target wrote to the target";
  EXPECT_NE(j.out.find("storqual judge: measured by fio-3.33: " + json.string()), std::string::npos)
      << j.out;
  EXPECT_NE(j.out.find("job 'randread-4k-qd16' -> workload 'randread-4k-qd16' (by name)"),
            std::string::npos)
      << j.out;
  EXPECT_NE(j.out.find("differs: runtime 1s (suite: 3s)"), std::string::npos) << j.out;

  // storqual's own run of the same suite on the same file with the same sheet (about 1 s each).
  const auto run =
      run_command({STORQUAL_BINARY, "run", "--target", target_.string(), "--spec", sheet.string(),
                   "--runtime-scale", "0.34", "--allow-destructive", "--out", at("run").string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto judged = claim_statuses(at("judged") / "storqual-result.json");
  EXPECT_EQ(judged, claim_statuses(at("run") / "storqual-result.json"));
  ASSERT_EQ(judged.size(), 5u);
  EXPECT_EQ(judged.at("seqread-1m-qd4 clat.p50"), "fail");
  EXPECT_EQ(judged.at("randread-4k-qd16 clat.p90"), "pass");

  // Marked in every report, with the file's SHA-256.
  const std::string sha = sha256_of(json);
  const Json result = Json::parse(read_file(at("judged") / "storqual-result.json"));
  EXPECT_EQ(result["measured_by"],
            Json({{"tool", "fio-3.33"}, {"file", json.string()}, {"sha256", sha}}));
  EXPECT_NE(j.out.find("(SHA-256 " + sha + ")"), std::string::npos);
  EXPECT_NE(read_file(at("judged") / "storqual-report.html").find("measured by fio-3.33"),
            std::string::npos);
  const std::string junit = read_file(at("judged") / "storqual-junit.xml");
  EXPECT_NE(junit.find("<property name=\"storqual.measured_by\" value=\"fio-3.33\""),
            std::string::npos);
  EXPECT_NE(junit.find(sha), std::string::npos);
  EXPECT_NE(read_file(at("judged.jsonl")).find("\"measuredBy\""), std::string::npos);
  // The identity came from the target, as a run's does.
  bool model_row = false;
  for (const auto& row : result["device"]["identity"]) model_row |= row["field"] == "transport";
  EXPECT_TRUE(model_row) << result["device"].dump();
  // Read back by `storqual report`, it is still marked.
  const auto again =
      run_command({STORQUAL_BINARY, "report", (at("judged") / "storqual-result.json").string(),
                   "--json", at("again.json").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(Json::parse(read_file(at("again.json")))["measured_by"], result["measured_by"]);

  // (g) JUnit against the XSDs, (h) OCP against the published schema.
  if (const std::string missing = testing::junit_tools_missing(); missing.empty()) {
    const auto v = testing::validate_junit({at("judged") / "storqual-junit.xml"});
    std::string lines;
    for (const auto& l : v.lines) lines += l + "\n";
    EXPECT_TRUE(v.valid) << lines;
  }
  const fs::path validator = fs::path(STORQUAL_TEST_DATA) / "ocp" / "validate.py";
  if (run_command({"/usr/bin/python3", "-c", "import jsonschema"}).exit_code == 0) {
    const auto v =
        run_command({"/usr/bin/python3", validator.string(), at("judged.jsonl").string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  }
}

TEST_F(FioJudge, IdentityFromASavedIdentifyJson) {
  const auto id =
      run_command({STORQUAL_BINARY, "identify", "--target", target_.string(), "--json"});
  ASSERT_EQ(id.exit_code, 0) << id.err;
  const fs::path identity = write("identity.json", id.out);
  const fs::path sheet = write("quick-sheet-id.xml", quick_sheet(kQuickClaims));
  const auto j = judge("by-identity", at("quick.json"), sheet, {"--identity", identity.string()});
  EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
  const Json result = Json::parse(read_file(at("by-identity") / "storqual-result.json"));
  EXPECT_EQ(result["device"]["path"], target_.string());
  EXPECT_EQ(result["deviations"].size(), 4u) << result["deviations"].dump();  // runtimes only
}

TEST_F(FioJudge, MixAtThreeBlockSizesWithGroupReportingMatchedByItsOptions) {
  const fs::path sheet =
      write("mix-sheet.xml", R"(<spec-sheet name="mix" vendor="t" suite="mix.xml">
  <match model="*"/>
  <claims tolerance="10%">
    <claim workload="randrw70-4k" metric="iops" value="10"/>
    <claim workload="randrw70-8k" metric="read.iops" value="7"/>
    <claim workloads="randrw70-4k randrw70-8k randrw70-16k" aggregate="min" metric="write.iops" value="3"/>
  </claims>
</spec-sheet>
)");
  const std::string archive = at("mix-archive.sqlite").string();
  const auto j = judge("mix", at("mix.json"), sheet,
                       {"--strict", "--archive", archive, "--tag", "pipeline=fio"});
  EXPECT_EQ(j.exit_code, 0) << j.out << j.err;
  // Recorded in the acceptance archive as a run is (docs/archive.md).
  EXPECT_NE(j.out.find("archive: recorded as record 1 in " + archive), std::string::npos) << j.out;
  const auto verify = run_command({STORQUAL_BINARY, "archive", "verify", "--archive", archive});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  const auto history = run_command(
      {STORQUAL_BINARY, "history", "--tag", "pipeline=fio", "--json", "--archive", archive});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const Json h = Json::parse(history.out);
  ASSERT_EQ(h["runs"].size(), 1u) << history.out;
  EXPECT_EQ(h["runs"][0]["suite"], "mix");
  EXPECT_EQ(h["runs"][0]["verdict"], "pass");
  for (const char* line : {"job 'mix-a' -> workload 'randrw70-4k' (by rw, bs, iodepth, numjobs)",
                           "job 'mix-b' -> workload 'randrw70-8k' (by rw, bs, iodepth, numjobs)",
                           "job 'mix-c' -> workload 'randrw70-16k' (by rw, bs, iodepth, numjobs)"})
    EXPECT_NE(j.out.find(line), std::string::npos) << line << "\n" << j.out;
  const Json result = Json::parse(read_file(at("mix") / "storqual-result.json"));
  ASSERT_EQ(result["workloads"].size(), 3u);
  for (const auto& w : result["workloads"]) {
    EXPECT_EQ(w["params"]["numjobs"], 4);
    const double r = w["read"]["ios"].get<double>(), wr = w["write"]["ios"].get<double>();
    EXPECT_NEAR(r / (r + wr), 0.70, 0.05) << w.dump();
  }
  EXPECT_EQ(result["deviations"].size(), 0u) << result["deviations"].dump();
}

TEST_F(FioJudge, WhatFiosOutputCannotDecideIsInconclusive) {
  const fs::path sheet =
      write("tail-sheet.xml", quick_sheet("    <claim workload=\"randread-4k-qd16\" "
                                          "metric=\"clat.p99.9999\" value=\"10s\"/>\n"
                                          "    <claim workload=\"randread-4k-qd16\" "
                                          "metric=\"lat.p99\" value=\"10s\"/>\n"));
  const auto j = judge("tail", at("quick.json"), sheet);
  EXPECT_EQ(j.exit_code, 3) << j.out << j.err;
  const Json result = Json::parse(read_file(at("tail") / "storqual-result.json"));
  const auto& v = result["verdicts"];
  EXPECT_EQ(v[0]["status"], "inconclusive");
  EXPECT_NE(v[0]["message"].get<std::string>().find("too few samples"), std::string::npos);
  EXPECT_EQ(v[1]["status"], "inconclusive");
  EXPECT_NE(v[1]["message"].get<std::string>().find("--lat_percentiles=1"), std::string::npos);
}

TEST_F(FioJudge, ClaimsWhoseWorkloadsNoJobRanMakeItIncomplete) {
  const fs::path sheet = write("quick-sheet-nojob.xml", quick_sheet(kQuickClaims));
  const auto j = judge("nojob", at("mix.json"), sheet);
  EXPECT_EQ(j.exit_code, 3) << j.out << j.err;
  EXPECT_NE(j.out.find("workload 'randread-4k-qd16': no fio job ran it: skipped"),
            std::string::npos)
      << j.out;
  const Json result = Json::parse(read_file(at("nojob") / "storqual-result.json"));
  int skipped = 0, measured_only = 0;
  for (const auto& v : result["verdicts"]) {
    skipped += v["status"] == "skipped";
    measured_only += v["status"] == "measured-only";
  }
  EXPECT_EQ(skipped, 5);        // one per claim of the sheet
  EXPECT_EQ(measured_only, 3);  // the mix's three jobs
}

TEST_F(FioJudge, MalformedJsonIsAUsageErrorNamingTheFile) {
  const fs::path bad =
      write("bad.json", "fio: some warning\n{\"fio version\": \"fio-3.33\", \"jobs\": [");
  const fs::path sheet = write("quick-sheet-bad.xml", quick_sheet(kQuickClaims));
  const auto j = judge("bad", bad, sheet);
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_NE(j.err.find(bad.string() + ": not valid JSON"), std::string::npos) << j.err;
  EXPECT_FALSE(fs::exists(at("bad") / "storqual-result.json"));
}

// Two fio servers on Unix sockets in the scratch directory; the client's JSON holds both hosts.
TEST_F(FioJudge, ClientServerOutputOfTwoHosts) {
  const fs::path s1 = at("s1.sock"), s2 = at("s2.sock");
  testing::BackgroundCommand one({"fio", "--server=sock:" + s1.string()}, at("s1.out"),
                                 at("s1.err"));
  testing::BackgroundCommand two({"fio", "--server=sock:" + s2.string()}, at("s2.out"),
                                 at("s2.err"));
  for (int i = 0; i < 100 && !(fs::exists(s1) && fs::exists(s2)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(s1) && fs::exists(s2)) << read_file(at("s1.err"));
  const fs::path job = write("cs.fio", "[randread-4k-qd16]\nfilename=" + target_.string() +
                                           "\nrw=randread\nbs=4k\niodepth=16\nioengine=libaio\n"
                                           "direct=1\nsize=64m\nruntime=1\ntime_based\n");
  const auto c = run_command({"fio", "--output-format=json", "--client=sock:" + s1.string(),
                              job.string(), "--client=sock:" + s2.string(), job.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const fs::path json = write("cs.json", c.out);
  const fs::path sheet = write(
      "cs-sheet.xml",
      quick_sheet("    <claim workload=\"randread-4k-qd16\" metric=\"iops\" value=\"10\"/>\n"));
  const auto both = judge("cs-both", json, sheet);
  EXPECT_EQ(both.exit_code, 2) << both.out << both.err;
  EXPECT_NE(both.err.find("holds the jobs of 2 hosts"), std::string::npos) << both.err;
  const auto j = judge("cs", json, sheet, {"--host", s2.string()});
  EXPECT_EQ(j.exit_code, 0) << j.out << j.err;
  EXPECT_NE(j.out.find("job 'randread-4k-qd16 (" + s2.string() + ")' -> workload"),
            std::string::npos)
      << j.out;
}

// fio's figures of another file than --target, or of no device (ioengine=null), are not this
// device's: every claim is INCONCLUSIVE (exit 3), whatever it would have been, until
// --accept-deviation names the deviation; then the verdicts stand and the acceptance is listed.
TEST_F(FioJudge, AnotherTargetsOrTheNullEnginesJsonIsNotThisDevicesVerdict) {
  const fs::path sheet = write("quick-sheet-other.xml", quick_sheet(kQuickClaims));
  const fs::path other = write("other.img", std::string(1 << 20, 'x'));
  const auto j = judge("other", at("quick.json"), sheet, {"--target", other.string()});
  EXPECT_EQ(j.exit_code, 3) << j.out << j.err;
  EXPECT_NE(j.out.find("not on " + other.string() + " (--target)"), std::string::npos) << j.out;
  for (const auto& [claim, status] : claim_statuses(at("other") / "storqual-result.json"))
    EXPECT_EQ(status, "inconclusive") << claim;
  const auto accepted = judge("other-accepted", at("quick.json"), sheet,
                              {"--target", other.string(), "--accept-deviation", "fio-target"});
  EXPECT_EQ(accepted.exit_code, 1) << accepted.out;  // the failing claim fails again
  const Json result = Json::parse(read_file(at("other-accepted") / "storqual-result.json"));
  bool listed = false;
  for (const auto& d : result["deviations"])
    if (d["kind"] == "fio-target") listed = d["accepted"].get<bool>();
  EXPECT_TRUE(listed) << result["deviations"].dump();

  // The null engine: fio's own JSON of it.
  auto fio =
      run_command({"fio", "--name=randread-4k-qd16", "--ioengine=null", "--rw=randread", "--bs=4k",
                   "--iodepth=16", "--size=64m", "--runtime=1", "--time_based", "--thread",
                   "--output-format=json", "--output=" + at("null.json").string()});
  ASSERT_EQ(fio.exit_code, 0) << fio.out << fio.err;
  const fs::path one = write("quick-sheet-null.xml",
                             quick_sheet("    <claim workload=\"randread-4k-qd16\" metric=\"iops\" "
                                         "value=\"10\"/>\n"));
  const auto null_run = judge("null", at("null.json"), one);
  EXPECT_EQ(null_run.exit_code, 3) << null_run.out;
  EXPECT_NE(null_run.out.find("ioengine=null: nothing reached a device"), std::string::npos)
      << null_run.out;
  EXPECT_EQ(claim_statuses(at("null") / "storqual-result.json")["randread-4k-qd16 iops"],
            "inconclusive");
}

}  // namespace
}  // namespace storqual
