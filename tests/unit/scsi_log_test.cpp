// SPDX-License-Identifier: Apache-2.0
// SCSI LOG SENSE pages (tests/data/scsi/sas, written by make_pages.py in a SAS HDD's layouts):
// every page of every reading decoded as `sg_logs --in=FILE --raw` (sg3-utils) decodes the same
// bytes; the failing reading failing the health verdict with its reasons named, the healthy one
// passing; malformed pages refused naming the page and offset; the SG_IO seam refusing what is not
// a SCSI device.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>

#include "devices/health.hpp"
#include "devices/scsi_health.hpp"
#include "devices/scsi_log.hpp"
#include "runner/judge/health_verdict.hpp"

namespace fs = std::filesystem;
using namespace storqual;
using namespace storqual::devices;

namespace {

const fs::path kSas = fs::path(STORQUAL_TEST_DATA) / "scsi" / "sas";

fs::path page_file(std::uint8_t page, const std::string& reading) {
  char name[64];
  std::snprintf(name, sizeof name, "scsi-log-%02x-%s.bin", page, reading.c_str());
  return kSas / name;
}

std::vector<std::uint8_t> read_page(std::uint8_t page, const std::string& reading) {
  std::ifstream in(page_file(page, reading), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool have_sg_logs() {
  return std::system("command -v sg_logs > /dev/null 2>&1") == 0;
}

// sg_logs' decoding of one captured page: "label = value" lines as label -> value (a "[9 TB]"
// suffix dropped), and the raw text.
struct SgLogs {
  std::map<std::string, std::string> values;
  std::string text;
};

SgLogs sg_logs(const fs::path& file) {
  SgLogs out;
  if (std::FILE* p = ::popen(("sg_logs --in=" + file.string() + " --raw 2>&1").c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.text.append(buf, n);
    ::pclose(p);
  }
  std::istringstream in(out.text);
  static const std::regex kLine(R"(^\s*([^=]+?)\s*=\s*([^\[]*?)\s*(\[.*\])?\s*$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kLine)) out.values.emplace(m[1].str(), m[2].str());
  }
  return out;
}

std::string num(const std::optional<std::uint64_t>& v) {
  return v ? std::to_string(*v) : "<absent>";
}

const char* const kReadings[] = {"before", "after", "failing"};

}  // namespace

TEST(ScsiLog, SgLogsDecodesEveryErrorCounterPageAsWeDo) {
  if (!have_sg_logs()) GTEST_SKIP() << "sg_logs (sg3-utils) is not installed";
  for (const char* reading : kReadings)
    for (std::uint8_t code : {kScsiWriteErrors, kScsiReadErrors, kScsiVerifyErrors}) {
      SCOPED_TRACE(std::string(reading) + " page " + std::to_string(code));
      const auto c = parse_scsi_error_counters(read_page(code, reading), code);
      const SgLogs ref = sg_logs(page_file(code, reading));
      ASSERT_FALSE(ref.values.empty()) << ref.text;
      EXPECT_EQ(num(c.corrected_fast), ref.values.at("Errors corrected without substantial delay"));
      EXPECT_EQ(num(c.corrected_delayed), ref.values.at("Errors corrected with possible delays"));
      EXPECT_EQ(num(c.rereads), ref.values.at("Total rewrites or rereads"));
      EXPECT_EQ(num(c.corrected_total), ref.values.at("Total errors corrected"));
      EXPECT_EQ(num(c.algorithm_invocations),
                ref.values.at("Total times correction algorithm processed"));
      EXPECT_EQ(num(c.bytes_processed), ref.values.at("Total bytes processed"));
      EXPECT_EQ(num(c.uncorrected), ref.values.at("Total uncorrected errors"));
    }
}

TEST(ScsiLog, SgLogsDecodesTheOtherPagesAsWeDo) {
  if (!have_sg_logs()) GTEST_SKIP() << "sg_logs (sg3-utils) is not installed";
  for (const char* reading : kReadings) {
    SCOPED_TRACE(reading);
    CapturedScsiLog source(kSas, {reading});
    const ScsiHealth h = read_scsi_health(source);
    EXPECT_TRUE(h.notes.empty()) << h.notes.front();
    EXPECT_EQ(
        num(h.non_medium_errors),
        sg_logs(page_file(kScsiNonMediumErrors, reading)).values.at("Non-medium error count"));
    const SgLogs temp = sg_logs(page_file(kScsiTemperature, reading));
    EXPECT_EQ(std::to_string(h.temperature_c.value_or(-1)) + " C",
              temp.values.at("Current temperature"));
    EXPECT_EQ(std::to_string(h.reference_temperature_c.value_or(-1)) + " C",
              temp.values.at("Reference temperature"));
    const SgLogs ss = sg_logs(page_file(kScsiStartStop, reading));
    EXPECT_EQ(std::to_string(h.start_stop_cycles.value_or(0)),
              ss.values.at("Accumulated start-stop cycles"));
    EXPECT_EQ(std::to_string(h.specified_start_stop_cycles.value_or(0)),
              ss.values.at("Specified cycle count over device lifetime"));
    const SgLogs ie = sg_logs(page_file(kScsiInformationalExceptions, reading));
    char asc[48];
    std::snprintf(asc, sizeof asc, "0x%x, ascq = 0x%x", h.ie_asc.value_or(0xFF),
                  h.ie_ascq.value_or(0xFF));
    EXPECT_EQ(asc, ie.values.at("IE asc")) << ie.text;
    // Self-test results: one "Parameter code = N, accumulated power-on hours = H" per entry, with
    // its result code in brackets.
    const SgLogs st = sg_logs(page_file(kScsiSelfTest, reading));
    std::size_t entries = 0;
    for (std::size_t pos = 0;
         (pos = st.text.find("accumulated power-on hours = ", pos)) != std::string::npos;
         ++pos, ++entries) {
      ASSERT_LT(entries, h.self_tests.size()) << st.text;
      EXPECT_EQ(std::stoul(st.text.substr(pos + 29)), h.self_tests[entries].hours);
      const auto result = st.text.find("self-test result:", pos);
      const auto bracket = st.text.find('[', result);
      EXPECT_EQ(std::stoul(st.text.substr(bracket + 1)), h.self_tests[entries].result);
    }
    EXPECT_EQ(entries, h.self_tests.size()) << st.text;
    // Supported pages: every code sg_logs lists.
    const SgLogs sp = sg_logs(page_file(kScsiSupportedPages, reading));
    for (std::uint8_t code : h.supported) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", code);
      EXPECT_NE(sp.text.find(hex), std::string::npos) << hex << "\n" << sp.text;
    }
  }
}

TEST(ScsiHealth, FailingSasDriveFailsTheHealthVerdictWithEachReasonNamed) {
  CapturedScsiLog source(kSas, {"before", "failing"});
  const HealthSnapshot before = take_health_snapshot(source);
  const HealthSnapshot after = take_health_snapshot(source);
  auto v = runner::health_verdict(before, {}, {}, after);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status, reporting::VerdictStatus::Fail);
  for (const char* reason :
       {"informational exception: failure predicted (ASC 5dh ASCQ 10h) (after the run)",
        "new read uncorrected errors 0 -> 3 (+3) (after the run)",
        "new verify uncorrected errors 0 -> 1 (+1) (after the run)",
        "a self-test failed: code 1: Failed in second segment at 1003 h, first failure LBA "
        "2768640 (after the run)"})
    EXPECT_NE(v->message.find(reason), std::string::npos) << reason << "\n" << v->message;
  EXPECT_EQ(v->measured, 4);
  const auto rows = health_rows(after);
  auto value = [&](const std::string& field) {
    for (const auto& r : rows)
      if (r.field == field) return r.value;
    return std::string("<absent>");
  };
  EXPECT_EQ(value("read.uncorrected"), "3");
  EXPECT_EQ(value("temperature_c"), "47");
  EXPECT_EQ(value("failure_prediction"), "failure predicted (ASC 5dh ASCQ 10h)");
}

TEST(ScsiHealth, HealthySasDrivePassesWithItsCorrectedErrorsNamed) {
  CapturedScsiLog source(kSas, {"before", "after"});
  const HealthSnapshot before = take_health_snapshot(source);
  const HealthSnapshot after = take_health_snapshot(source);
  auto v = runner::health_verdict(before, {}, {}, after);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status, reporting::VerdictStatus::Pass) << v->message;
  const auto changes = health_changes(before, after);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.front(), "read corrected errors 122 -> 183 (+61)");
}

TEST(ScsiLog, MalformedPagesAreRefusedNamingThePageAndOffset) {
  auto page = read_page(kScsiReadErrors, "before");
  auto cut = page;
  cut.resize(cut.size() - 3);  // the header still claims the whole length
  EXPECT_THROW((void)parse_scsi_error_counters(cut, kScsiReadErrors), ScsiError);
  auto overrun = page;
  overrun[4 + 3] = 200;  // the first parameter claims 200 bytes
  try {
    (void)parse_scsi_error_counters(overrun, kScsiReadErrors);
    ADD_FAILURE() << "an overrunning parameter was accepted";
  } catch (const ScsiError& e) {
    EXPECT_NE(std::string(e.what()).find("parameter at byte 4 runs past the page end"),
              std::string::npos)
        << e.what();
  }
  auto repeated = page;
  repeated[4 + 8 + 1] = 0;  // the second parameter (0001h) says it is 0000h again
  try {
    (void)parse_scsi_error_counters(repeated, kScsiReadErrors);
    ADD_FAILURE() << "a repeated parameter code was accepted";
  } catch (const ScsiError& e) {
    EXPECT_NE(std::string(e.what()).find("parameter code 0000h at byte 12 repeats"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)parse_scsi_error_counters(page, kScsiWriteErrors);
    ADD_FAILURE() << "page 03h was accepted as 02h";
  } catch (const ScsiError& e) {
    EXPECT_NE(std::string(e.what()).find("asked for log page 02h, got page 03h"), std::string::npos)
        << e.what();
  }
}

TEST(ScsiLog, AFileThatIsNoScsiDeviceRefusesLogSense) {
  SgIoScsiLog source("/dev/null");
  EXPECT_THROW((void)source.log_sense(kScsiSupportedPages), ScsiLogRefused);
}
