// SPDX-License-Identifier: Apache-2.0
// Hostile input in every `make test`: each committed fuzz corpus file (tests/fuzz/corpus/<target>)
// and a deterministic set of mutations of it (seeded: bit flips, truncations, inserted '<', '&',
// quotes, NUL, huge and negative numbers, deep nesting, long runs) go through the same entry
// points as the libFuzzer targets (tests/fuzz/fuzz_entry_points.hpp). A loader may accept or
// refuse with its documented error; any other exception or a broken property (abort) fails the
// test. Under `make asan` this is the fuzz smoke run with ASan+UBSan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_entry_points.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Feed = std::function<fuzz::Outcome(std::string_view)>;

constexpr int kMutationsPerFile = 400;

std::vector<std::string> corpus(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& e :
       fs::directory_iterator(fs::path(STORQUAL_SOURCE_DIR) / "tests/fuzz/corpus" / target))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    out.push_back(s.str());
  }
  return out;
}

// One seeded mutation of `text`; the kind cycles so every kind is tried on every file.
std::string mutate(std::string text, std::mt19937_64& rng, int kind) {
  static const char* const kInserts[] = {"<",
                                         "&",
                                         "\"",
                                         "'",
                                         "&amp;",
                                         "&#0;",
                                         "&#xFFFF;",
                                         "]]>",
                                         "<!--",
                                         "" /* NUL */,
                                         "18446744073709551616",
                                         "99999999999999999999999999",
                                         "-1",
                                         "-9223372036854775809",
                                         "1e309",
                                         "-0",
                                         "nan",
                                         "inf",
                                         "0x10",
                                         "4k",
                                         "\xff\xfe",
                                         "\xc3\x28",
                                         "%",
                                         "%%",
                                         "*[!]",
                                         "\\",
                                         "<a>",
                                         "</",
                                         "{",
                                         "}",
                                         "[",
                                         "]",
                                         ":",
                                         ",",
                                         "null",
                                         "\"\\ud800\""};
  auto pos = [&](std::size_t n) {
    return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % (n + 1));
  };
  switch (kind % 8) {
    case 0: {  // flip a few bits
      for (int i = 0; i < 1 + static_cast<int>(rng() % 4) && !text.empty(); ++i)
        text[rng() % text.size()] ^= static_cast<char>(1u << (rng() % 8));
      break;
    }
    case 1:  // truncate
      text.resize(pos(text.size()));
      break;
    case 2: {  // insert a hostile token
      const std::string ins = kInserts[rng() % std::size(kInserts)];
      text.insert(pos(text.size()), ins.empty() ? std::string("\0", 1) : ins);
      break;
    }
    case 3: {  // replace a digit run with a huge or odd number
      const std::size_t d = text.find_first_of("0123456789", pos(text.size()));
      if (d != std::string::npos) {
        const std::size_t e = text.find_first_not_of("0123456789.", d);
        static const char* const kNumbers[] = {
            "18446744073709551615", "4294967296", "0",         "-1", "1e308",
            "0.0000000001",         "65537",      "1000000000"};
        text.replace(d, (e == std::string::npos ? text.size() : e) - d,
                     kNumbers[rng() % std::size(kNumbers)]);
      }
      break;
    }
    case 4: {  // deep nesting: XML elements or JSON arrays
      const int depth = 100 + static_cast<int>(rng() % 2000);
      std::string open, close;
      const bool json = !text.empty() && (text[0] == '{' || text[0] == '[');
      for (int i = 0; i < depth; ++i) {
        open += json ? "[" : "<a>";
        close += json ? "]" : "</a>";
      }
      text.insert(pos(text.size()), open + close);
      break;
    }
    case 5: {  // a long run of one character
      text.insert(pos(text.size()), std::string(1000 + rng() % 60000, "a<9 \"&"[rng() % 6]));
      break;
    }
    case 6: {  // duplicate a slice (repeated elements and attributes)
      if (text.empty()) break;
      const std::size_t a = rng() % text.size();
      const std::size_t n = std::min<std::size_t>(text.size() - a, 1 + rng() % 200);
      text.insert(pos(text.size()), text.substr(a, n));
      break;
    }
    default: {  // delete a slice
      if (text.empty()) break;
      const std::size_t a = rng() % text.size();
      text.erase(a, 1 + rng() % 64);
      break;
    }
  }
  return text;
}

struct Tally {
  int accepted = 0, refused = 0;
};

// Feeds every corpus file and its mutations; an unexpected exception is reported with the input.
Tally feed_all(const std::string& target, const Feed& feed, std::uint64_t seed) {
  Tally t;
  std::mt19937_64 rng(seed);
  const auto files = corpus(target);
  EXPECT_FALSE(files.empty()) << "no corpus for " << target;
  auto one = [&](const std::string& input) {
    try {
      (feed(input) == fuzz::Outcome::Accepted ? t.accepted : t.refused)++;
    } catch (const std::exception& e) {
      ADD_FAILURE() << target << ": unexpected exception " << typeid(e).name() << ": " << e.what()
                    << "\ninput (" << input.size() << " bytes): " << input.substr(0, 400);
    }
  };
  for (const auto& f : files) {
    one(f);
    for (int i = 0; i < kMutationsPerFile; ++i) {
      std::string m = mutate(f, rng, i);
      if (i % 3 == 2) m = mutate(std::move(m), rng, static_cast<int>(rng() % 8));  // stacked
      one(m);
    }
  }
  std::printf("%s: %zu corpus files, %d accepted, %d refused\n", target.c_str(), files.size(),
              t.accepted, t.refused);
  return t;
}

TEST(FuzzRegression, SpecSheetLoader) {
  const Tally t = feed_all("spec_sheet", fuzz::feed_spec_sheet, 1);
  EXPECT_GT(t.accepted, 0) << "no input was accepted: the corpus lost its valid sheets";
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, SuiteLoader) {
  const Tally t = feed_all("suite", fuzz::feed_suite, 2);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, UnitParsers) {
  const Tally t = feed_all("units", fuzz::feed_units, 3);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, FioJobFileImport) {
  const Tally t = feed_all("fio_job", fuzz::feed_fio_job, 5);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, BlockSizeMixes) {
  const Tally t = feed_all("block_size_mix", fuzz::feed_block_size_mix, 7);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, ZoneReports) {
  const Tally t = feed_all("zone_report", fuzz::feed_zone_report, 8);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, FioJsonReader) {
  const Tally t = feed_all("fio_json", fuzz::feed_fio_json, 6);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, ResultJsonReaderAndReports) {
  const Tally t = feed_all("result_json", fuzz::feed_result_json, 4);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, ArchiveFileOpeningAndCanonicalReader) {
  const Tally t = feed_all("archive_file", fuzz::feed_archive_file, 9);
  EXPECT_GT(t.accepted, 0) << "the corpus lost its archive";
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, ArchiveOptionParsers) {
  const Tally t = feed_all("archive_options", fuzz::feed_archive_options, 5);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, AtaSmartPageParsers) {
  const Tally t = feed_all("ata_pages", fuzz::feed_ata_pages, 6);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, NvmeIdentifyAndHealthPages) {
  const Tally t = feed_all("nvme_pages", fuzz::feed_nvme_pages, 9);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, SelfTestPollDecoders) {
  const Tally t = feed_all("self_test_pages", fuzz::feed_self_test_pages, 8);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, ScsiLogPageParsers) {
  const Tally t = feed_all("scsi_log_pages", fuzz::feed_scsi_log_page, 7);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, ScanCheckpointReader) {
  const Tally t = feed_all("scan_checkpoint", fuzz::feed_scan_checkpoint, 8);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

TEST(FuzzRegression, PowercutJournalAndListenerStream) {
  const Tally t = feed_all("powercut_journal", fuzz::feed_powercut_journal, 8);
  EXPECT_GT(t.accepted, 0);
  EXPECT_GT(t.refused, 0);
}

// The inputs the fuzzers found crashes with once stay in the corpus (tests/fuzz/corpus/*/crash-*
// or regression-*); this states the classes of the table in docs/robustness.md one by one.
TEST(FuzzRegression, NamedHostileInputsAreRefusedCleanly) {
  using fuzz::Outcome;
  EXPECT_EQ(fuzz::feed_units(std::string("\x00", 1) + "18446744073709551616k"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x00", 1) + "-4k"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x01", 1) + "1e308h"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x01", 1) + "nan"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x02", 1) + "1000.1%"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x03", 1) + "lat.p42.123"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x04", 1) + "iops\n0"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_units(std::string("\x04", 1) + "bw\n1e300MB/s"), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_result_json(std::string(100000, '[')), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_result_json("{\"workloads\":[],\"verdicts\":[],\"exit_code\":1e999}"),
            Outcome::Refused);
  EXPECT_EQ(fuzz::feed_result_json("\"\\ud800\""), Outcome::Refused);
  std::string deep_xml = "<suite name=\"x\">";
  for (int i = 0; i < 100000; ++i) deep_xml += "<a>";
  EXPECT_EQ(fuzz::feed_suite(deep_xml), Outcome::Refused);
  EXPECT_EQ(fuzz::feed_spec_sheet("<!DOCTYPE s [<!ENTITY a \"aaaaaaaa\"><!ENTITY b \"&a;&a;&a;\">]>"
                                  "<spec-sheet name=\"&b;\"/>"),
            Outcome::Refused);
}

}  // namespace
}  // namespace storqual
