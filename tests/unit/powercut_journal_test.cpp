// SPDX-License-Identifier: Apache-2.0
// The power-cut journal: frames round trip, a torn tail is recovered and named, a journal without
// a header or of another run is refused, the file sink never overwrites.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/measure/powercut_journal.hpp"

namespace storqual::runner {
namespace {

std::string sample_journal(int writes) {
  JournalEntry h;
  h.type = JournalEntryType::Header;
  h.header.run_id = 77;
  h.header.region_size = 1 << 20;
  h.header.target = "/dev/loop9";
  std::string out = encode_journal_frame(h);
  for (int i = 0; i < writes; ++i) {
    JournalEntry w;
    w.type = JournalEntryType::Write;
    w.write = {static_cast<std::uint64_t>(i + 1),
               static_cast<std::uint64_t>(i) * 4096,
               4096,
               i % 3 == 0,
               0,
               static_cast<std::uint64_t>(i + 2),
               5};
    out += encode_journal_frame(w);
  }
  JournalEntry f;
  f.type = JournalEntryType::Flush;
  f.flush = {1, static_cast<std::uint64_t>(writes + 1), 9};
  out += encode_journal_frame(f);
  return out;
}

TEST(PowercutJournal, FramesRoundTrip) {
  const JournalContents j = parse_journal(sample_journal(5), "t");
  EXPECT_EQ(j.header.run_id, 77u);
  EXPECT_EQ(j.header.target, "/dev/loop9");
  ASSERT_EQ(j.writes.size(), 5u);
  EXPECT_EQ(j.writes[3].offset, 3u * 4096);
  EXPECT_TRUE(j.writes[3].fua);
  ASSERT_EQ(j.flushes.size(), 1u);
  EXPECT_EQ(j.flushes[0].next_record_id, 6u);
  EXPECT_TRUE(j.tail_problem.empty());
  EXPECT_EQ(j.valid_bytes, j.total_bytes);
}

TEST(PowercutJournal, ATornTailIsRecoveredAndNamed) {
  const std::string whole = sample_journal(5);
  for (std::size_t cut = 1; cut < 20; ++cut) {
    const JournalContents j = parse_journal(whole.substr(0, whole.size() - cut), "t");
    EXPECT_EQ(j.writes.size(), 5u) << cut;
    EXPECT_TRUE(j.flushes.empty()) << cut;
    EXPECT_NE(j.tail_problem.find("cut short"), std::string::npos) << j.tail_problem;
  }
}

TEST(PowercutJournal, ACorruptFrameEndsTheJournalThere) {
  std::string bytes = sample_journal(5);
  bytes[bytes.size() / 2] ^= 0x01;
  const JournalContents j = parse_journal(bytes, "t");
  EXPECT_LT(j.writes.size(), 5u);
  EXPECT_NE(j.tail_problem.find("checksum"), std::string::npos) << j.tail_problem;
  EXPECT_LT(j.valid_bytes, j.total_bytes);
}

TEST(PowercutJournal, RefusesAJournalWithoutHeader) {
  const std::string bytes = sample_journal(2);
  const std::size_t header = parse_journal_frame(bytes).consumed;
  EXPECT_THROW((void)parse_journal(bytes.substr(header), "j.bin"), JournalError);
  EXPECT_THROW((void)parse_journal("", "j.bin"), JournalError);
  try {
    (void)parse_journal(bytes.substr(header), "j.bin");
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("j.bin"), std::string::npos);
  }
}

TEST(PowercutJournal, RefusesAnImpossibleFrameLength) {
  std::string bytes(8, '\xff');
  const FrameParse p = parse_journal_frame(bytes);
  EXPECT_EQ(p.status, FrameStatus::Bad);
  EXPECT_NE(p.problem.find("length"), std::string::npos);
}

TEST(PowercutJournal, TheFileSinkAppendsAndNeverOverwrites) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("storqual-journal-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "j").string();
  {
    auto sink = open_journal_file(path);
    const std::string bytes = sample_journal(3);
    sink->append(bytes.substr(0, 40));
    sink->append(bytes.substr(40));
  }
  EXPECT_EQ(read_journal_file(path).writes.size(), 3u);
  EXPECT_THROW((void)open_journal_file(path), JournalError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace storqual::runner
