// SPDX-License-Identifier: Apache-2.0
// Spec sheets: claim values and units, metrics, match patterns, tolerances, positions in messages.
#include "runner/specs/spec_sheet.hpp"

#include <gtest/gtest.h>

#include "runner/base/nearest_name.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"

namespace storqual::runner {
namespace {

double value(const char* metric, const char* text) {
  return parse_claim_value(parse_metric(metric), text);
}

std::string load_error(const std::string& xml) {
  try {
    (void)SpecSheet::parse(xml, "sheet.xml");
  } catch (const FileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ClaimValue, IopsArePlainOrWithKOrM) {
  EXPECT_DOUBLE_EQ(value("iops", "97000"), 97000);
  EXPECT_DOUBLE_EQ(value("iops", "97K"), 97000);
  EXPECT_DOUBLE_EQ(value("iops", "97k"), 97000);
  EXPECT_DOUBLE_EQ(value("read.iops", "1.2M"), 1.2e6);
  EXPECT_DOUBLE_EQ(value("write.iops", "500 IOPS"), 500);
  EXPECT_DOUBLE_EQ(value("iops", " 88k "), 88000);
}

TEST(ClaimValue, BandwidthIsDecimalForMBAndBinaryForMiB) {
  EXPECT_DOUBLE_EQ(value("bw", "540MB/s"), 540e6);
  EXPECT_DOUBLE_EQ(value("bw", "540 MB/s"), 540e6);
  EXPECT_DOUBLE_EQ(value("read.bw", "3.5GB/s"), 3.5e9);
  EXPECT_DOUBLE_EQ(value("bw", "800kB/s"), 800e3);
  EXPECT_DOUBLE_EQ(value("bw", "515MiB/s"), 515.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(value("write.bw", "2GiB/s"), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(value("bw", "64KiB/s"), 65536);
}

TEST(ClaimValue, LatencyIsStoredInNanoseconds) {
  EXPECT_DOUBLE_EQ(value("lat.p99", "250us"), 250e3);
  EXPECT_DOUBLE_EQ(value("lat.mean", "1.5ms"), 1.5e6);
  EXPECT_DOUBLE_EQ(value("clat.p99.9", "800ns"), 800);
  EXPECT_DOUBLE_EQ(value("lat.p50", "0.01s"), 1e7);
  EXPECT_DOUBLE_EQ(value("lat.p50", "3\xc2\xb5s"), 3000);
}

TEST(ClaimValue, UnitsThatDoNotFitTheMetricAreRefused) {
  EXPECT_THROW((void)value("iops", "540MB/s"), UnitError);
  EXPECT_THROW((void)value("iops", "250us"), UnitError);
  EXPECT_THROW((void)value("bw", "540"), UnitError);
  EXPECT_THROW((void)value("bw", "97k"), UnitError);
  EXPECT_THROW((void)value("lat.p99", "250"), UnitError);
  EXPECT_THROW((void)value("lat.p99", "5m"), UnitError);  // m is a million for rates, not minutes
  EXPECT_THROW((void)value("lat.mean", "540MB/s"), UnitError);
}

TEST(ClaimValue, NegativeZeroAbsurdAndGarbageAreRefused) {
  EXPECT_THROW((void)value("iops", "-1"), UnitError);
  EXPECT_THROW((void)value("iops", "0"), UnitError);
  EXPECT_THROW((void)value("iops", ""), UnitError);
  EXPECT_THROW((void)value("iops", "many"), UnitError);
  EXPECT_THROW((void)value("iops", "inf"), UnitError);
  EXPECT_THROW((void)value("iops", "2000M"), UnitError);
  EXPECT_THROW((void)value("bw", "2000GB/s"), UnitError);
  EXPECT_THROW((void)value("lat.mean", "2h"), UnitError);  // h is not a claim unit
  EXPECT_THROW((void)value("lat.mean", "4000s"), UnitError);
  EXPECT_DOUBLE_EQ(value("bw", "1000GB/s"), 1e12);  // the limit itself is accepted
}

// One definition of a metric (model/metric.hpp): the reports' reading of a name is the spec
// sheet's, and capacity is higher-is-better (the old substring guess took it for lower).
TEST(Metric, ReportsReadEveryNameAsTheSpecSheetDoes) {
  for (const char* name : {"iops", "read.iops", "write.bw", "bw", "sustained.bw", "lat.mean",
                           "lat.p99", "read.clat.p99.9", "write.lat.mean", "capacity"}) {
    SCOPED_TRACE(name);
    const Metric m = parse_metric(name);
    ASSERT_TRUE(reporting::metric_kind_of(name).has_value());
    EXPECT_EQ(*reporting::metric_kind_of(name), m.kind);
    EXPECT_EQ(reporting::higher_is_better(name), m.higher_is_better());
  }
  EXPECT_TRUE(reporting::higher_is_better("capacity"));
  EXPECT_FALSE(reporting::higher_is_better("read.lat.p99"));
  EXPECT_FALSE(reporting::metric_kind_of("bogus").has_value());
  EXPECT_EQ(to_string(Aggregate::Min), std::string("min"));
  EXPECT_EQ(to_string(Aggregate::Max), std::string("max"));
  EXPECT_EQ(to_string(Aggregate::Mean), std::string("mean"));
}

TEST(Metric, NamesParseIntoKindDirectionAndStatistic) {
  Metric m = parse_metric("read.clat.p99.9");
  EXPECT_EQ(m.kind, MetricKind::Latency);
  EXPECT_EQ(m.direction, MetricDirection::Read);
  EXPECT_EQ(m.latency, LatencyKind::Clat);
  ASSERT_TRUE(m.percentile.has_value());
  EXPECT_DOUBLE_EQ(*m.percentile, 99.9);
  EXPECT_FALSE(m.higher_is_better());
  EXPECT_STREQ(m.unit(), "ns");

  Metric mean = parse_metric("lat.mean");
  EXPECT_FALSE(mean.percentile.has_value());
  EXPECT_EQ(mean.direction, MetricDirection::Both);

  EXPECT_TRUE(parse_metric("write.bw").higher_is_better());
  EXPECT_STREQ(parse_metric("write.bw").unit(), "B/s");
  EXPECT_STREQ(parse_metric("iops").unit(), "IOPS");
  for (double p : kReportedPercentiles) {
    char name[32];
    std::snprintf(name, sizeof name, "lat.p%g", p);
    EXPECT_NO_THROW((void)parse_metric(name)) << name;
  }
  EXPECT_THROW((void)parse_metric("lat.p98"), UnitError);
  EXPECT_THROW((void)parse_metric("lat.median"), UnitError);
  EXPECT_THROW((void)parse_metric("iops.read"), UnitError);
  EXPECT_THROW((void)parse_metric("Read.iops"), UnitError);
}

TEST(Metric, AnUnreportedPercentileNamesTheAvailableOnes) {
  try {
    (void)parse_metric("clat.p97");
    FAIL() << "p97 accepted";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("p99.5, p99.9, p99.95, p99.99"), std::string::npos)
        << e.what();
  }
}

constexpr const char* kSheet =
    R"(<spec-sheet name="Example SATA SSD 500GB" vendor="Example" suite="sata-ssd" source="rev 1.2">
  <!-- comments are fine -->
  <match model="Example SSD 500GB*" firmware="EX1*"/>
  <match model="EXSSD500*"/>
  <claims tolerance="12.5%">
    <claim workload="randread-4k-qd32" metric="iops" value="97K"/>
    <claim workload="seqwrite-1m-qd32" metric="bw" value="520MB/s" tolerance="15%" steady="1"/>
    <claim workloads="a b  c" metric="iops" value="40000"/>
    <claim workloads="a b" aggregate="min" metric="lat.p99" value="2ms"/>
  </claims>
</spec-sheet>
)";

TEST(SpecSheet, LoadsEveryField) {
  SpecSheet s = SpecSheet::parse(kSheet, "sheet.xml");
  EXPECT_EQ(s.name, "Example SATA SSD 500GB");
  EXPECT_EQ(s.vendor, "Example");
  EXPECT_EQ(s.suite, "sata-ssd");
  EXPECT_EQ(s.source, "rev 1.2");
  ASSERT_EQ(s.match.size(), 2u);
  EXPECT_EQ(s.match[0].patterns.at("firmware"), "EX1*");
  ASSERT_EQ(s.claims.size(), 4u);
  EXPECT_DOUBLE_EQ(s.claims[0].tolerance_pct, 12.5);  // from <claims>
  EXPECT_DOUBLE_EQ(s.claims[0].value, 97000);
  EXPECT_EQ(s.claims[0].value_text, "97K");
  EXPECT_EQ(s.claims[0].aggregate, Aggregate::None);
  EXPECT_EQ(s.claims[0].location, "sheet.xml:6:5");
  EXPECT_DOUBLE_EQ(s.claims[1].tolerance_pct, 15);  // the claim's own
  EXPECT_TRUE(s.claims[1].steady);
  EXPECT_FALSE(s.claims[0].steady);
  EXPECT_EQ(s.claims[2].workloads, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s.claims[2].aggregate, Aggregate::Mean);  // the default for several workloads
  EXPECT_EQ(s.claims[2].workload_label(), "a b c");
  EXPECT_EQ(s.claims[3].aggregate, Aggregate::Min);
  EXPECT_EQ(s.sha256.size(), 64u);
}

TEST(SpecSheet, ToleranceDefaultsToTenPercent) {
  SpecSheet s = SpecSheet::parse(R"(<spec-sheet name="x" suite="quick"><match model="*"/>
    <claims><claim workload="w" metric="iops" value="1k"/></claims></spec-sheet>)",
                                 "t.xml");
  ASSERT_EQ(s.claims.size(), 1u);
  EXPECT_DOUBLE_EQ(s.claims[0].tolerance_pct, kDefaultTolerancePct);
  EXPECT_DOUBLE_EQ(kDefaultTolerancePct, 10.0);
}

TEST(SpecSheet, ASheetWithoutClaimsIsMeasuredOnly) {
  SpecSheet s = SpecSheet::parse(
      R"(<spec-sheet name="x" suite="quick"><match model="*"/></spec-sheet>)", "t.xml");
  EXPECT_TRUE(s.claims.empty());
}

TEST(SpecSheet, PowerLossProtectionAndPowerCutCycles) {
  SpecSheet s = SpecSheet::parse(R"(<spec-sheet name="x" suite="quick" plp="yes"
    powercut_cycles=" 10 "><match model="*"/></spec-sheet>)",
                                 "t.xml");
  EXPECT_EQ(s.plp, true);
  EXPECT_EQ(s.powercut_cycles, 10u);
  EXPECT_FALSE(
      SpecSheet::parse(R"(<spec-sheet name="x" suite="q"><match model="*"/></spec-sheet>)", "t.xml")
          .powercut_cycles);
  for (const char* bad : {"0", "-1", "ten", "1e3", "2000000"})
    EXPECT_EQ(load_error(std::string("<spec-sheet name=\"x\" suite=\"q\" powercut_cycles=\"") +
                         bad + "\"/>"),
              std::string("sheet.xml:1:49: powercut_cycles: expected a number of power cuts, 1 to "
                          "1000000, got '") +
                  bad + "'")
        << bad;
}

TEST(SpecSheet, MatchingUsesShellGlobsOnEveryGivenField) {
  SpecSheet s = SpecSheet::parse(kSheet, "sheet.xml");
  EXPECT_TRUE(s.matches({{"model", "Example SSD 500GB EVO"}, {"firmware", "EX1B2"}}));
  // sysfs pads model strings; case differs between sources.
  EXPECT_TRUE(s.matches({{"model", "  example ssd 500gb   "}, {"firmware", "ex1"}}));
  EXPECT_FALSE(s.matches({{"model", "Example SSD 500GB"}, {"firmware", "EX2"}}));
  EXPECT_FALSE(s.matches({{"model", "Example SSD 500GB"}}));  // firmware missing: only * matches
  EXPECT_TRUE(s.matches({{"model", "EXSSD500-A"}}));          // the second <match>
  EXPECT_FALSE(s.matches({{"model", "Other SSD"}, {"firmware", "EX1"}}));
  EXPECT_FALSE(s.matches({}));

  SpecSheet any = SpecSheet::parse(
      R"(<spec-sheet name="x" suite="quick"><match model="*"/></spec-sheet>)", "t.xml");
  EXPECT_TRUE(any.matches({}));
  EXPECT_TRUE(any.matches({{"model", "anything"}}));

  SpecSheet glob = SpecSheet::parse(
      R"(<spec-sheet name="x" suite="q"><match transport="virtio" serial="fast-?[0-9]*"/></spec-sheet>)",
      "t.xml");
  EXPECT_TRUE(glob.matches({{"transport", "virtio"}, {"serial", "fast-a1xyz"}}));
  EXPECT_FALSE(glob.matches({{"transport", "virtio"}, {"serial", "fast-ab"}}));
  EXPECT_FALSE(glob.matches({{"transport", "nvme"}, {"serial", "fast-a1"}}));
}

TEST(SpecSheet, ErrorsNameFileLineColumnAndWhatWasExpected) {
  EXPECT_EQ(load_error("<spec-sheet name=\"x\" suite=\"q\">\n  <match model=\"*\"/>\n  <claims>\n"
                       "    <claim workload=\"w\" metric=\"iops\" value=\"540MB/s\"/>\n"
                       "  </claims>\n</spec-sheet>\n"),
            "sheet.xml:4:46: claim value '540MB/s' is a bandwidth, but metric 'iops' takes an I/O "
            "rate such as 97000, 97k or 1.2M");
  // Columns count characters, not bytes.
  EXPECT_EQ(load_error("<spec-sheet name=\"\xc3\xa9t\xc3\xa9\" suite=\"q\" colour=\"red\">"
                       "<match model=\"*\"/></spec-sheet>"),
            "sheet.xml:1:34: unknown attribute 'colour' on <spec-sheet> (expected name, vendor, "
            "suite, source, warranty_years, plp or powercut_cycles)");
  EXPECT_EQ(load_error("<spec-sheet name=\"x\" suite=\"q\">\r\n<match model=\"*\">\r\n"),
            "sheet.xml:2:19: malformed XML: Start-end tags mismatch");
  EXPECT_EQ(load_error(""), "sheet.xml:1:1: malformed XML: No document element found");
  // A byte order mark is not a column.
  EXPECT_EQ(load_error("\xEF\xBB\xBF<spec-sheet name=\"x\" suite=\"q\" colour=\"red\"/>"),
            "sheet.xml:1:32: unknown attribute 'colour' on <spec-sheet> (expected name, vendor, "
            "suite, source, warranty_years, plp or powercut_cycles)");
  EXPECT_EQ(load_error("<suite name=\"x\"/>"),
            "sheet.xml:1:1: unknown root element <suite> (expected <spec-sheet>)");
}

TEST(SpecSheet, LoadFromFileRecordsPathAndSha256OfTheBytes) {
  const std::string path = std::string(STORQUAL_SOURCE_DIR) + "/specs/demo.xml";
  SpecSheet s = SpecSheet::load(path);
  EXPECT_EQ(s.path, path);
  XmlFile raw{std::filesystem::path(path)};
  EXPECT_EQ(s.sha256, sha256_hex(raw.bytes()));
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FileKind, DetectsSheetsAndSuitesByTheirRoot) {
  EXPECT_EQ(detect_file_kind(std::string(STORQUAL_SOURCE_DIR) + "/specs/demo.xml"),
            FileKind::SpecSheet);
  EXPECT_EQ(detect_file_kind(std::string(STORQUAL_SOURCE_DIR) + "/suites/quick.xml"),
            FileKind::Suite);
  EXPECT_THROW((void)detect_file_kind("/nonexistent/sheet.xml"), FileError);
}

}  // namespace
}  // namespace storqual::runner

namespace storqual::runner {
namespace {

// Claims read as the vendor wrote them (docs/formats.md, "Claim values").
TEST(ClaimValueAsWritten, IopsWithTheirUnitWordInEveryCase) {
  EXPECT_DOUBLE_EQ(value("iops", "97K IOPS"), 97000);
  EXPECT_DOUBLE_EQ(value("iops", "97k IOPS"), 97000);
  EXPECT_DOUBLE_EQ(value("iops", "97 KIOPS"), 97000);
  EXPECT_DOUBLE_EQ(value("iops", "97KIOPS"), 97000);
  EXPECT_DOUBLE_EQ(value("iops", "1.2M IOPS"), 1.2e6);
  EXPECT_THROW((void)value("iops", "97 KB IOPS"), UnitError);
}

TEST(ClaimValueAsWritten, BitsAreBitsAndSaySo) {
  std::string note;
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("bw"), "8000Mb/s", &note), 1e9);
  EXPECT_NE(note.find("bits per second"), std::string::npos) << note;
  EXPECT_NE(note.find("1000"), std::string::npos) << note;
  EXPECT_DOUBLE_EQ(value("bw", "6Gb/s"), 750e6);
  EXPECT_DOUBLE_EQ(value("bw", "6 Gbps"), 750e6);
  EXPECT_DOUBLE_EQ(value("bw", "800 Mbit/s"), 100e6);
  note.clear();
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("bw"), "540MB/s", &note), 540e6);
  EXPECT_TRUE(note.empty()) << note;
  EXPECT_DOUBLE_EQ(value("bw", "540 MBps"), 540e6);
  // Lower case alone does not say bits or bytes.
  for (const char* ambiguous : {"540mb/s", "3gb/s"}) {
    try {
      (void)value("bw", ambiguous);
      ADD_FAILURE() << ambiguous << " accepted";
    } catch (const UnitError& e) {
      EXPECT_NE(std::string(e.what()).find("ambiguous"), std::string::npos) << e.what();
    }
  }
}

TEST(ClaimValueAsWritten, AThousandsSeparatorIsRefusedNotGuessed) {
  for (const char* text : {"60.000", "1,500", "60 000", "1.500.000", "97.500k", "1.500GB/s"}) {
    const bool bw = std::string(text).find("B/s") != std::string::npos;
    try {
      (void)value(bw ? "bw" : "iops", text);
      ADD_FAILURE() << text << " accepted";
    } catch (const UnitError& e) {
      EXPECT_NE(std::string(e.what()).find("thousands separator"), std::string::npos)
          << text << ": " << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(value("iops", "60.0k"), 60000);
  EXPECT_DOUBLE_EQ(value("iops", "60.25k"), 60250);
  EXPECT_DOUBLE_EQ(value("lat.p99", "1.250ms"), 1.25e6);  // three decimals in a latency are common
}

TEST(ClaimValueAsWritten, BothMicroSigns) {
  EXPECT_DOUBLE_EQ(value("lat.p99", "200\xc2\xb5s"), 200e3);  // U+00B5 MICRO SIGN
  EXPECT_DOUBLE_EQ(value("lat.p99", "200\xce\xbcs"), 200e3);  // U+03BC GREEK SMALL LETTER MU
  EXPECT_DOUBLE_EQ(parse_duration("200\xce\xbcs"), 200e-6);
}

TEST(ClaimValueAsWritten, ATypoOfAMetricGetsDidYouMean) {
  try {
    (void)parse_metric("read.iosp");
    FAIL() << "accepted";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'read.iops'?"), std::string::npos)
        << e.what();
  }
  try {
    (void)parse_metric("wrte.lat.p99");
    FAIL() << "accepted";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'write.lat.p99'?"), std::string::npos)
        << e.what();
  }
}

// nearest_name skips a candidate whose length alone puts it beyond the limit; the answer is the
// definition's (the first of the nearest by edit_distance, if within max(2, size / 4)) for names
// of every length, those exactly at the limit's edge included.
TEST(ClaimValueAsWritten, DidYouMeanSkipsOnlyWhatCannotBeNearEnough) {
  const std::vector<std::string> names = {"iops", "read.iops", "write.lat.p99", "lat.p99.99"};
  auto by_definition = [&](const std::string& name) -> std::optional<std::string> {
    const std::string* best = nullptr;
    std::size_t best_distance = 0;
    for (const auto& c : names)
      if (const std::size_t d = edit_distance(name, c); !best || d < best_distance)
        best = &c, best_distance = d;
    if (best_distance > std::max<std::size_t>(2, name.size() / 4)) return std::nullopt;
    return *best;
  };
  EXPECT_EQ(nearest_name("read.iopsxx", names), "read.iops");           // 2 longer, limit 2
  EXPECT_EQ(nearest_name("io", names), "iops");                         // 2 shorter, limit 2
  EXPECT_EQ(nearest_name("write.lat.p99.9x", names), "write.lat.p99");  // 3 longer, limit 4
  EXPECT_EQ(nearest_name("write.lat.p99.99.9", names), std::nullopt);   // 5 longer, limit 4
  for (const std::string stem : {"", "i", "read.", "wrte.lat.p9", "lat.p99.999x", "q"})
    for (std::size_t extra : {0u, 1u, 2u, 3u, 7u, 40u, 5000u}) {
      const std::string name = stem + std::string(extra, 'x');
      EXPECT_EQ(nearest_name(name, names), by_definition(name)) << name.substr(0, 40);
    }
}

TEST(ClaimValueAsWritten, ATolerancesNeedsItsPercentSign) {
  const std::string sheet =
      "<spec-sheet name=\"s\" suite=\"q\"><match model=\"*\"/><claims>"
      "<claim workload=\"a\" metric=\"iops\" value=\"1k\" tolerance=\"TOL\"/></claims>"
      "</spec-sheet>";
  auto with = [&](const std::string& t) {
    std::string s = sheet;
    s.replace(s.find("TOL"), 3, t);
    return s;
  };
  EXPECT_NE(load_error(with("0.1")).find("tolerance '0.1' needs its unit"), std::string::npos)
      << load_error(with("0.1"));
  EXPECT_NE(load_error(with("10")).find("needs its unit"), std::string::npos);
  EXPECT_DOUBLE_EQ(SpecSheet::parse(with("0.1%"), "s.xml").claims[0].tolerance_pct, 0.1);
}

}  // namespace
}  // namespace storqual::runner
