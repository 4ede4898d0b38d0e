// SPDX-License-Identifier: Apache-2.0
// Data integrity and real capacity through the whole `storqual run`, as a user meets them: the
// real binary qualifies a file with verified workloads while the hidden --inject-fault option
// puts the fault-injecting engine under it. Each fault class (a flipped bit, a misdirected write,
// a dropped write) fails the workload's integrity testcase with its class name and first offset
// in the JUnit message and in the HTML report; a clean run verifies with no errors and passes; a
// device that wraps at 1/8 of its size fails its capacity claim with the real capacity found
// within one sample interval, in the JUnit and the JSON.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::run_command;
using testing::ScratchDir;

constexpr std::uint64_t kBs = 4096;

using storqual::testing::read_file;

using ::storqual::testing::write_text;

// One JUnit testcase as a CI reporter reads it.
struct JunitCase {
  std::string name;
  std::string outcome;     // "pass", "failure", "error" or "skipped"
  std::string message;     // of the failure, error or skipped element
  std::string system_out;  // the message, then "status: pass" and the figures
};

std::vector<JunitCase> junit_cases(const fs::path& junit) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_file(junit.c_str())) << junit;
  std::vector<JunitCase> out;
  for (const auto& x : doc.select_nodes("//testcase")) {
    const pugi::xml_node tc = x.node();
    JunitCase c;
    c.name = tc.attribute("name").value();
    c.outcome = "pass";
    for (const char* kind : {"failure", "error", "skipped"})
      if (pugi::xml_node r = tc.child(kind)) {
        c.outcome = kind;
        c.message = r.attribute("message").value();
      }
    c.system_out = tc.child_value("system-out");
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<JunitCase> junit_case(const fs::path& junit, const std::string& name) {
  // Testcases are named "<device label> <claim>" (docs/reports.md).
  for (auto& c : junit_cases(junit))
    if (c.name.size() > name.size() &&
        c.name.compare(c.name.size() - name.size(), name.size(), name) == 0 &&
        c.name[c.name.size() - name.size() - 1] == ' ')
      return c;
  return std::nullopt;
}

nlohmann::json workload_json(const fs::path& json, const std::string& id) {
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  for (const auto& w : j["workloads"])
    if (w["id"] == id) return w;
  ADD_FAILURE() << "no workload '" << id << "' in " << json;
  return {};
}

class IntegrityRun : public ::testing::Test {
 protected:
  void SetUp() override { testing::write_random_file(target_, 64 << 20, 7); }

  // `storqual run` on the target file with `suite` (and `sheet` when not empty), reports in
  // dir/<out>; `fault` goes to --inject-fault when not empty.
  testing::CommandResult run(const std::string& out, const std::string& suite,
                             const std::string& fault, const std::string& sheet = {}) {
    write_text(dir_ / (out + "-suite.xml"), suite);
    std::vector<std::string> argv = {STORQUAL_BINARY,
                                     "run",
                                     "--target",
                                     target_.string(),
                                     "--suite",
                                     (dir_ / (out + "-suite.xml")).string(),
                                     "--out",
                                     (dir_ / out).string(),
                                     "--allow-destructive"};
    if (!fault.empty()) argv.insert(argv.end(), {"--inject-fault", fault});
    if (!sheet.empty()) {
      write_text(dir_ / (out + "-sheet.xml"), sheet);
      argv.insert(argv.end(), {"--spec", (dir_ / (out + "-sheet.xml")).string()});
    }
    return run_command(argv);
  }

  fs::path junit(const std::string& out) const { return dir_ / out / "storqual-junit.xml"; }
  fs::path json(const std::string& out) const { return dir_ / out / "storqual-result.json"; }
  fs::path html(const std::string& out) const { return dir_ / out / "storqual-report.html"; }

  // Runs `suite` under `fault` and checks that the integrity testcase of `id` fails naming
  // `kind` with its first offset `offset`, in the JUnit and the HTML; `count` blocks of `kind`
  // in the JSON.
  void expect_fault_found(const std::string& out, const std::string& suite, const std::string& id,
                          const std::string& fault, const std::string& kind, std::uint64_t count,
                          std::uint64_t offset) {
    SCOPED_TRACE(fault);
    auto r = run(out, suite, fault);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    auto tc = junit_case(junit(out), id + " integrity");
    ASSERT_TRUE(tc) << read_file(junit(out));
    EXPECT_EQ(tc->outcome, "failure") << tc->message;
    const std::string first = std::to_string(count) + " " + kind + " block" +
                              (count == 1 ? " (offset " : "s (first at offset ") +
                              std::to_string(offset);
    EXPECT_NE(tc->message.find(first), std::string::npos) << tc->message;

    auto w = workload_json(json(out), id);
    EXPECT_EQ(w["integrity"][kind], count) << w["integrity"].dump();

    // The HTML names the class and the offset (the integrity box or the verdict's message).
    const std::string page = read_file(html(out));
    EXPECT_NE(page.find(kind), std::string::npos);
    EXPECT_NE(page.find(std::to_string(offset)), std::string::npos);
    EXPECT_NE(page.find(first), std::string::npos) << "the HTML lacks '" << first << "'";
  }

  ScratchDir dir_{"storqual-integrity-run"};
  fs::path target_ = dir_.path() / "target.img";
};

// One sequential pass of 1 MiB at QD1: write k goes to block k, so the faults' places are known.
constexpr const char* kSequentialOnce = R"(<?xml version="1.0"?>
<suite name="integrity-once" description="one verified sequential pass">
  <defaults direct="1" ramp_time="0" size="1m" numjobs="1"/>
  <workload id="seqwrite-verify" rw="write" bs="4k" iodepth="1" verify="xxh3"/>
</suite>
)";

TEST_F(IntegrityRun, FlippedBitsAreCorruptedAtTheirOffsets) {
  // Writes 101 and 102 (blocks 100 and 101) carry a flipped bit.
  expect_fault_found("bit-flip", kSequentialOnce, "seqwrite-verify", "bit-flip:after=100,count=2",
                     "corrupted", 2, 100 * kBs);
}

TEST_F(IntegrityRun, MisdirectedWritesAreMisplacedAtTheirOffsets) {
  // Writes of blocks 100 and 101 land two blocks lower, on 98 and 99 (written before, so they
  // stay there); 100 and 101 keep the file's old bytes.
  expect_fault_found("misdirect", kSequentialOnce, "seqwrite-verify",
                     "misdirect:after=100,count=2,shift=-8k", "misplaced", 2, 98 * kBs);
  auto tc = junit_case(junit("misdirect"), "seqwrite-verify integrity");
  ASSERT_TRUE(tc);
  EXPECT_NE(tc->message.find("holds the block of offset " + std::to_string(100 * kBs)),
            std::string::npos)
      << tc->message;
  EXPECT_NE(tc->message.find("2 foreign (first at offset " + std::to_string(100 * kBs)),
            std::string::npos)
      << tc->message;
}

TEST_F(IntegrityRun, DroppedWritesAreStaleAtTheirOffsets) {
  // Sequential writes over 16 blocks, time based: the second pass's writes 21..23 (blocks 4..6)
  // are acknowledged and dropped. Every write is read back right after (backlog 1), when the
  // block still holds the first pass's write: stale. Later passes rewrite the blocks, so the end
  // pass is off and the counts are the inline read-backs'. Two seconds leave room for the 24
  // writes needed on a slow, shared machine.
  constexpr const char* kSuite = R"(<?xml version="1.0"?>
<suite name="integrity-wrap" description="verified sequential writes over a small region">
  <defaults direct="1" ramp_time="0" runtime="2s" size="64k" numjobs="1"/>
  <workload id="seqwrite-backlog" rw="write" bs="4k" iodepth="1" verify="xxh3"
            verify_backlog="1" do_verify="0"/>
</suite>
)";
  expect_fault_found("drop-write", kSuite, "seqwrite-backlog", "drop-write:after=20,count=3",
                     "stale", 3, 4 * kBs);
  auto tc = junit_case(junit("drop-write"), "seqwrite-backlog integrity");
  ASSERT_TRUE(tc);
  // The first pass's write 5 is found where the second pass's write 21 was expected.
  EXPECT_NE(tc->message.find("write 5 instead of 21"), std::string::npos) << tc->message;
}

TEST_F(IntegrityRun, CleanRunVerifiesWithoutErrorsAndPasses) {
  constexpr const char* kSuite = R"(<?xml version="1.0"?>
<suite name="integrity-clean" description="verified writes, no fault">
  <defaults direct="1" ramp_time="0" runtime="500ms" size="1m" numjobs="1"/>
  <workload id="randwrite-xxh3" rw="randwrite" bs="4k" iodepth="8" verify="xxh3"
            verify_backlog="16" verify_backlog_batch="4"/>
  <workload id="seqwrite-crc32c" rw="write" bs="8k" iodepth="4" verify="crc32c"/>
</suite>
)";
  auto r = run("clean", kSuite, "");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const std::string id : {"randwrite-xxh3", "seqwrite-crc32c"}) {
    SCOPED_TRACE(id);
    auto tc = junit_case(junit("clean"), id + " integrity");
    ASSERT_TRUE(tc) << read_file(junit("clean"));
    EXPECT_EQ(tc->outcome, "pass") << tc->message;
    EXPECT_NE(tc->system_out.find(" integrity: integrity: "), std::string::npos) << tc->system_out;
    EXPECT_NE(tc->system_out.find("\nstatus: pass\n"), std::string::npos) << tc->system_out;
    EXPECT_NE(tc->system_out.find("no errors"), std::string::npos) << tc->system_out;
    auto w = workload_json(json("clean"), id);
    const auto& i = w["integrity"];
    EXPECT_EQ(i["corrupted"].get<int>() + i["misplaced"].get<int>() + i["stale"].get<int>() +
                  i["foreign"].get<int>() + i["read_errors"].get<int>() +
                  i["bad_inline"].get<int>(),
              0)
        << i.dump();
    EXPECT_EQ(i["verified_at_end"], i["blocks_written"]);
    EXPECT_GT(i["verified_at_end"].get<std::uint64_t>(), 0u);
    EXPECT_TRUE(w["errors"].empty()) << w["errors"].dump();
  }
  auto i = workload_json(json("clean"), "randwrite-xxh3")["integrity"];
  EXPECT_GT(i["verified_inline"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(i["algorithm"], "xxh3");
  EXPECT_EQ(workload_json(json("clean"), "seqwrite-crc32c")["integrity"]["algorithm"], "crc32c");
}

TEST_F(IntegrityRun, FakeCapacityFailsTheClaimWithTheRealCapacityWithinOneSample) {
  // A 64 MiB file that stores only its first 8 MiB (offsets wrap modulo 8 MiB), claimed as
  // 64 MiB.
  constexpr std::uint64_t kReal = 8 << 20, kClaimed = 64 << 20;
  constexpr const char* kSuite = R"(<?xml version="1.0"?>
<suite name="integrity-capacity" description="sampled capacity check">
  <defaults direct="1"/>
  <capacity id="capacity-sampled" samples="512" bs="4k"/>
</suite>
)";
  constexpr const char* kSheet = R"(<?xml version="1.0"?>
<spec-sheet name="fake 64 MiB" vendor="test" suite="integrity-capacity" source="the test">
  <match model="*"/>
  <claims tolerance="5%">
    <claim workload="capacity-sampled" metric="capacity" value="64MiB"/>
  </claims>
</spec-sheet>
)";
  auto r = run("capacity", kSuite, "fake-capacity:wrap=8m", kSheet);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;

  auto w = workload_json(json("capacity"), "capacity-sampled");
  const auto& c = w["capacity"];
  ASSERT_TRUE(c.is_object()) << w.dump();
  const auto interval = c["sample_interval"].get<std::uint64_t>();
  const auto usable = c["usable_bytes"].get<std::uint64_t>();
  EXPECT_EQ(c["reported_bytes"], kClaimed);
  EXPECT_GE(interval, kBs);
  EXPECT_LE(interval, kClaimed / 512);
  // The real capacity lies in (usable - interval, usable].
  EXPECT_LE(kReal, usable) << c.dump();
  EXPECT_LT(usable, kReal + interval) << c.dump();
  EXPECT_EQ(c["aliasing_start"], usable) << c.dump();
  EXPECT_EQ(c["aliasing_start"].get<std::uint64_t>() - c["aliased_to"].get<std::uint64_t>(), kReal)
      << c.dump();

  auto tc = junit_case(junit("capacity"), "capacity-sampled capacity");
  ASSERT_TRUE(tc) << read_file(junit("capacity"));
  EXPECT_EQ(tc->outcome, "failure") << tc->message;
  // The measured capacity: a number in the result, and the same figure in the JUnit body (the
  // default JUnit has no testcase properties: docs/reports.md).
  std::optional<double> measured;
  const auto result = nlohmann::json::parse(read_file(json("capacity")));
  for (const auto& v : result["verdicts"])
    if (v["workload"] == "capacity-sampled" && v.contains("measured"))
      measured = v["measured"].get<double>();
  ASSERT_TRUE(measured) << result["verdicts"].dump();
  EXPECT_LE(static_cast<double>(kReal), *measured);
  EXPECT_LT(*measured, static_cast<double>(kReal + interval));
  EXPECT_NE(tc->system_out.find("\nmeasured: 8.39 MB\n"), std::string::npos) << tc->system_out;
  EXPECT_NE(tc->message.find("below the claimed"), std::string::npos) << tc->message;
  EXPECT_NE(tc->message.find("measured 8.39 MB usable"), std::string::npos) << tc->message;

  // The same check on the honest file passes the claim.
  r = run("capacity-honest", kSuite, "", kSheet);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto honest = junit_case(junit("capacity-honest"), "capacity-sampled capacity");
  ASSERT_TRUE(honest);
  EXPECT_EQ(honest->outcome, "pass") << honest->message;
  EXPECT_EQ(workload_json(json("capacity-honest"), "capacity-sampled")["capacity"]["usable_bytes"],
            kClaimed);
}

// The shipped suites/integrity.xml runs as a user would shorten it: a scratch file of 64 MiB in
// a directory, runtimes scaled down; a clean device passes all its testcases.
TEST_F(IntegrityRun, TheShippedSuiteRunsAtARuntimeScale) {
  const fs::path scratch = dir_ / "scratch";
  fs::create_directories(scratch);
  const fs::path out = dir_ / "shipped";
  auto r = run_command({STORQUAL_BINARY, "run", "--target", scratch.string(), "--suite",
                        (fs::path(STORQUAL_SOURCE_DIR) / "suites" / "integrity.xml").string(),
                        "--size", "64m", "--runtime-scale", "0.005", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path result = out / "storqual-result.json";
  auto capacity = workload_json(result, "capacity-sampled")["capacity"];
  EXPECT_EQ(capacity["usable_bytes"], capacity["reported_bytes"]) << capacity.dump();
  EXPECT_EQ(capacity["reported_bytes"], 64u << 20);
  EXPECT_EQ(capacity["samples"], capacity["samples_good"]) << capacity.dump();
  for (const std::string id : {"verify-randwrite-4k", "verify-seqwrite-128k"}) {
    SCOPED_TRACE(id);
    auto tc = junit_case(out / "storqual-junit.xml", id + " integrity");
    ASSERT_TRUE(tc) << read_file(out / "storqual-junit.xml");
    EXPECT_EQ(tc->outcome, "pass") << tc->message;
    auto w = workload_json(result, id);
    EXPECT_GT(w["integrity"]["verified_at_end"].get<std::uint64_t>(), 0u);
    EXPECT_LE(w["params"]["runtime_s"].get<double>(), 1.0);  // scaled from 60 s
  }
  EXPECT_TRUE(fs::is_empty(scratch));  // the scratch file is gone
}

}  // namespace
}  // namespace storqual
