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
#include "tests/support/tools.hpp"

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

using storqual::testing::have_sg_logs;
using storqual::testing::sg_logs;
using storqual::testing::SgLogs;

std::string num(const std::optional<std::uint64_t>& v) {
  return v ? std::to_string(*v) : "<absent>";
}

const char* const kReadings[] = {"before", "after", "failing"};

}  // namespace

TEST(ScsiLog, SgLogsDecodesEveryErrorCounterPageAsWeDo) {
  STORQUAL_REQUIRE(have_sg_logs(), "sg_logs (sg3-utils)");
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
  STORQUAL_REQUIRE(have_sg_logs(), "sg_logs (sg3-utils)");
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
        "2768640 (after the run)",
        "REQUEST SENSE: failure prediction threshold exceeded (ASC 5dh ASCQ 10h) (after the run)",
        "new grown defects 0 -> 3 (+3) (after the run)"})
    EXPECT_NE(v->message.find(reason), std::string::npos) << reason << "\n" << v->message;
  EXPECT_EQ(v->measured, 6);
  const auto rows = health_rows(after);
  auto value = [&](const std::string& field) {
    for (const auto& r : rows)
      if (r.field == field) return r.value;
    return std::string("<absent>");
  };
  EXPECT_EQ(value("read.uncorrected"), "3");
  EXPECT_EQ(value("temperature_c"), "47");
  EXPECT_EQ(value("failure_prediction"), "failure predicted (ASC 5dh ASCQ 10h)");
  EXPECT_EQ(value("grown_defects"), "3");
  EXPECT_EQ(value("request_sense"), "failure prediction threshold exceeded (ASC 5dh ASCQ 10h)");
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
  EXPECT_NE(v->message.find("no grown defect"), std::string::npos) << v->message;
  const auto rows = health_rows(after);
  auto value = [&](const std::string& field) {
    for (const auto& r : rows)
      if (r.field == field) return r.value;
    return std::string("<absent>");
  };
  EXPECT_EQ(value("grown_defects"), "0");
  EXPECT_EQ(value("request_sense"), "no failure predicted (sense key 0h, ASC 00h ASCQ 00h)");
}

namespace {

// A SCSI source that answers READ DEFECT DATA and REQUEST SENSE as told (refusing when empty) and
// counts the commands.
class FakeDefectsAndSense final : public ScsiLogSource {
 public:
  std::vector<std::uint8_t> twelve, ten, sense;
  int asked12 = 0, asked10 = 0;
  std::vector<std::uint8_t> log_sense(std::uint8_t) override {
    throw ScsiLogRefused("LOG SENSE refused");
  }
  std::vector<std::uint8_t> read_defect_data(bool is12) override {
    (is12 ? asked12 : asked10)++;
    const auto& r = is12 ? twelve : ten;
    if (r.empty()) throw ScsiLogRefused(is12 ? "(12) refused" : "(10) refused");
    return r;
  }
  std::vector<std::uint8_t> request_sense() override {
    if (sense.empty()) throw ScsiLogRefused("REQUEST SENSE refused");
    return sense;
  }
};

std::vector<std::uint8_t> fixed_sense(std::uint8_t key, std::uint8_t asc, std::uint8_t ascq) {
  std::vector<std::uint8_t> s(18, 0);
  s[0] = 0x70;
  s[2] = key;
  s[7] = 10;
  s[12] = asc;
  s[13] = ascq;
  return s;
}

}  // namespace

TEST(ScsiDefects, HeadersOfBothCommandsDecode) {
  // (10): GLISTV, short block format (4-byte descriptors), 12 bytes: 3 entries.
  const ScsiDefectList ten =
      parse_scsi_defect_header(std::vector<std::uint8_t>{0, 0x08, 0, 12}, false);
  EXPECT_FALSE(ten.twelve);
  EXPECT_EQ(ten.format, 0);
  EXPECT_EQ(ten.count, 3u);
  // (12): PLISTV and GLISTV, physical sector format (8 bytes), 0x00010000 bytes.
  const ScsiDefectList twelve =
      parse_scsi_defect_header(std::vector<std::uint8_t>{0, 0x18 | 0x05, 0, 0, 0, 1, 0, 0}, true);
  EXPECT_TRUE(twelve.plist_valid);
  EXPECT_EQ(twelve.list_bytes, 65536u);
  EXPECT_EQ(twelve.count, 8192u);
  EXPECT_EQ(twelve.text(), "8192");
}

TEST(ScsiDefects, MalformedHeadersAreRefusedWithTheReason) {
  auto refused = [](std::vector<std::uint8_t> bytes, bool twelve, const std::string& why) {
    try {
      (void)parse_scsi_defect_header(bytes, twelve);
      ADD_FAILURE() << "accepted; expected: " << why;
    } catch (const ScsiError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused({0, 0x08, 0}, false, "READ DEFECT DATA (10): 3 bytes, shorter than its 4-byte header");
  refused({0, 0x08, 0, 0}, true, "READ DEFECT DATA (12): 4 bytes, shorter than its 8-byte header");
  refused({0, 0x10, 0, 8}, false, "did not return the grown defect list (GLISTV 0)");
  refused({0, 0x0B, 0, 12}, false, "12 bytes is no whole number of 8-byte descriptors");
  refused({0, 0x0F, 0, 0}, false, "reserved address descriptor format 7");
}

TEST(ScsiDefects, TwelveRefusedFallsBackToTenAndBothRefusedIsANamedGap) {
  FakeDefectsAndSense dev;
  dev.ten = {0, 0x08, 0, 8};
  dev.sense = fixed_sense(0, 0, 0);
  ScsiHealth h;
  read_scsi_defects_and_sense(dev, h);
  EXPECT_EQ(dev.asked12, 1);
  EXPECT_EQ(dev.asked10, 1);
  ASSERT_TRUE(h.grown_defects);
  EXPECT_EQ(h.grown_defects->count, 2u);
  EXPECT_EQ(scsi_defects_and_sense_text(h),
            "grown defects: 2; REQUEST SENSE: no failure predicted (sense key 0h, ASC 00h ASCQ "
            "00h)");
  FakeDefectsAndSense none;
  ScsiHealth g;
  read_scsi_defects_and_sense(none, g);
  EXPECT_FALSE(g.grown_defects);
  EXPECT_FALSE(g.request_sense);
  EXPECT_EQ(scsi_defects_and_sense_text(g),
            "grown defect list not readable: (12) refused; (10) refused; REQUEST SENSE not "
            "readable: REQUEST SENSE refused");
  std::map<std::string, std::string> notes;
  for (const auto& r : scsi_health_rows(g, "scsi:log-sense"))
    if (r.field == "note") notes[r.value.substr(0, 12)] = r.value;
  EXPECT_EQ(notes["grown defect"], "grown defect list not readable: (12) refused; (10) refused");
  EXPECT_EQ(notes["REQUEST SENS"], "REQUEST SENSE not readable: REQUEST SENSE refused");
}

TEST(ScsiDefects, GrownListAtArrivalAndGrowthFailTheHealthTestcase) {
  ScsiHealth before, during, after;
  before.grown_defects = parse_scsi_defect_header(std::vector<std::uint8_t>{0, 0x08, 0, 4}, false);
  during = before;
  after.grown_defects = parse_scsi_defect_header(std::vector<std::uint8_t>{0, 0x08, 0, 20}, false);
  const auto f = scsi_health_failures(before, {&during, &after}, {"between", "after the run"});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], "grown defect list not empty at arrival: 1 entries (before the run)");
  EXPECT_EQ(f[1], "new grown defects 1 -> 5 (+4) (after the run)");
  EXPECT_EQ(scsi_health_changes(before, after).front(), "grown defects 1 -> 5 (+4)");
  ScsiHealth clean;
  clean.grown_defects = parse_scsi_defect_header(std::vector<std::uint8_t>{0, 0x08, 0, 0}, false);
  EXPECT_TRUE(scsi_health_failures(clean, {&clean}, {"after the run"}).empty());
}

TEST(ScsiSense, RequestSenseFailurePredictionFailsAndOthersPass) {
  EXPECT_EQ(request_sense_text(parse_request_sense(fixed_sense(0, 0x5D, 0x10))),
            "failure prediction threshold exceeded (ASC 5dh ASCQ 10h)");
  // Descriptor format (72h): key, ASC, ASCQ in bytes 1-3.
  const SenseKey d =
      parse_request_sense(std::vector<std::uint8_t>{0x72, 0x01, 0x5D, 0xFF, 0, 0, 0, 0});
  EXPECT_EQ(d.key, 1);
  EXPECT_EQ(d.asc, 0x5D);
  EXPECT_EQ(d.ascq, 0xFF);
  // Fixed format whose additional length stops before the ASC: no ASC.
  auto short_fixed = fixed_sense(0, 0x5D, 0x10);
  short_fixed[7] = 2;
  EXPECT_EQ(parse_request_sense(short_fixed).asc, 0);
  EXPECT_THROW((void)parse_request_sense(std::vector<std::uint8_t>{0x70, 0, 0}), ScsiError);
  try {
    (void)parse_request_sense(std::vector<std::uint8_t>(18, 0));
    ADD_FAILURE() << "response code 00h was accepted";
  } catch (const ScsiError& e) {
    EXPECT_NE(std::string(e.what()).find("response code 00h is neither fixed nor descriptor"),
              std::string::npos)
        << e.what();
  }
  ScsiHealth before, after;
  before.request_sense = parse_request_sense(fixed_sense(0, 0, 0));
  after.request_sense = parse_request_sense(fixed_sense(0x1, 0x5D, 0x64));
  const auto f = scsi_health_failures(before, {&after}, {"after the run"});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0],
            "REQUEST SENSE: failure prediction threshold exceeded (ASC 5dh ASCQ 64h) (after the "
            "run)");
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
