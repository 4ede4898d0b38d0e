// SPDX-License-Identifier: Apache-2.0
// The power-cut journal: frames round trip with their sequence numbers; only a torn last frame is
// recovered; every other damage (a byte flipped early or late, an impossible length, a replayed
// or missing frame, a write outside the region, an impossible atomic unit, an old version) is
// refused naming the file, the byte and the frame, over real journal files; the file sink never
// overwrites.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runner/measure/powercut_journal.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;

JournalEntry header_entry(std::uint32_t atomic_unit = 4096) {
  JournalEntry h;
  h.type = JournalEntryType::Header;
  h.header.run_id = 77;
  h.header.region_size = 1 << 20;
  h.header.atomic_unit = atomic_unit;
  h.header.target = "/dev/loop9";
  return h;
}

JournalEntry write_entry(std::uint64_t id, std::uint64_t epoch) {
  JournalEntry w;
  w.type = JournalEntryType::Write;
  w.write = {id, (id - 1) % 256 * 4096, 4096, id % 3 == 0, epoch, id + 1, 5};
  return w;
}

JournalEntry flush_entry(std::uint64_t epoch, std::uint64_t next) {
  JournalEntry f;
  f.type = JournalEntryType::Flush;
  f.flush = {epoch, next, 9};
  return f;
}

// A journal as arm writes it: the header, `writes` writes with a flush after every tenth.
std::string sample_journal(int writes) {
  JournalSequence seq;
  std::string out = seq.frame(header_entry());
  std::uint64_t epoch = 0;
  for (int i = 1; i <= writes; ++i) {
    out += seq.frame(write_entry(static_cast<std::uint64_t>(i), epoch));
    if (i % 10 == 0) out += seq.frame(flush_entry(++epoch, static_cast<std::uint64_t>(i + 1)));
  }
  return out;
}

// The byte offset of each frame.
std::vector<std::size_t> frame_starts(const std::string& bytes) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0; at + 8 <= bytes.size();) {
    out.push_back(at);
    std::uint32_t length = 0;
    std::memcpy(&length, bytes.data() + at, 4);
    at += 8 + length;
  }
  return out;
}

std::string frame_at(const std::string& bytes, std::size_t index) {
  const auto starts = frame_starts(bytes);
  const std::size_t end = index + 1 < starts.size() ? starts[index + 1] : bytes.size();
  return bytes.substr(starts[index], end - starts[index]);
}

class JournalFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("storqual-journal-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "journal").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `bytes` as the journal file through the file sink, as arm does.
  void write(const std::string& bytes) {
    fs::remove(path_);
    open_journal_file(path_)->append(bytes);
  }

  // The error reading the file gives; fails the test when it reads.
  std::string refusal(const std::string& bytes) {
    write(bytes);
    try {
      (void)read_journal_file(path_);
    } catch (const JournalError& e) {
      EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("nothing of it is judged"), std::string::npos)
          << e.what();
      return e.what();
    }
    ADD_FAILURE() << "a damaged journal was read";
    return {};
  }

  fs::path dir_;
  std::string path_;
};

std::string at_frame(std::size_t byte, std::size_t frame) {
  return "damaged at byte " + std::to_string(byte) + " (frame " + std::to_string(frame) + ")";
}

TEST_F(JournalFile, FramesRoundTripWithTheirSequence) {
  write(sample_journal(25));
  const JournalContents j = read_journal_file(path_);
  EXPECT_EQ(j.header.run_id, 77u);
  EXPECT_EQ(j.header.target, "/dev/loop9");
  ASSERT_EQ(j.writes.size(), 25u);
  EXPECT_EQ(j.writes[3].offset, 3u * 4096);
  EXPECT_FALSE(j.writes[3].fua);
  EXPECT_TRUE(j.writes[2].fua);
  ASSERT_EQ(j.flushes.size(), 2u);
  EXPECT_EQ(j.flushes[1].epoch, 2u);
  EXPECT_EQ(j.frames, 28u);
  EXPECT_TRUE(j.tail_problem.empty());
  EXPECT_EQ(j.valid_bytes, j.total_bytes);
}

TEST_F(JournalFile, OnlyATornLastFrameIsRecoveredAndNamed) {
  const std::string whole = sample_journal(5);
  const std::size_t last = frame_starts(whole).back();
  for (std::size_t cut = 1; cut < whole.size() - last; ++cut) {
    write(whole.substr(0, whole.size() - cut));
    const JournalContents j = read_journal_file(path_);
    EXPECT_EQ(j.writes.size(), 4u) << cut;
    EXPECT_NE(j.tail_problem.find("cut short"), std::string::npos) << j.tail_problem;
    EXPECT_NE(j.tail_problem.find("frame 5, the last"), std::string::npos) << j.tail_problem;
  }
  std::string flipped = whole;
  flipped[last + 12] ^= 0x10;  // the last frame's payload: its checksum no longer matches
  write(flipped);
  JournalContents j = read_journal_file(path_);
  EXPECT_EQ(j.writes.size(), 4u);
  EXPECT_NE(j.tail_problem.find("checksum"), std::string::npos) << j.tail_problem;
  write(whole + std::string(600, '\0'));  // the file grew, its data never written
  j = read_journal_file(path_);
  EXPECT_EQ(j.writes.size(), 5u);
  EXPECT_FALSE(j.tail_problem.empty());
}

TEST_F(JournalFile, AByteFlippedEarlyOrLateIsDamageNotATornTail) {
  const std::string whole = sample_journal(150);
  const auto starts = frame_starts(whole);
  std::string early = whole;
  early[starts[1] + 12] ^= 0x10;  // the first write's payload
  std::string e = refusal(early);
  EXPECT_NE(e.find(at_frame(starts[1], 1)), std::string::npos) << e;
  EXPECT_NE(e.find("checksum"), std::string::npos) << e;
  EXPECT_NE(e.find("not a torn tail"), std::string::npos) << e;
  std::string late = whole;
  const std::size_t f = starts.size() - 6;
  late[starts[f] + 12] ^= 0x10;
  e = refusal(late);
  EXPECT_NE(e.find(at_frame(starts[f], f)), std::string::npos) << e;
}

TEST_F(JournalFile, AHugeLengthIsDamage) {
  std::string bytes = sample_journal(150);
  const std::size_t at = frame_starts(bytes)[100];
  const std::uint32_t huge = 0xfffffff0u;
  std::memcpy(bytes.data() + at, &huge, 4);
  const std::string e = refusal(bytes);
  EXPECT_NE(e.find(at_frame(at, 100)), std::string::npos) << e;
  EXPECT_NE(e.find("frame length 4294967280"), std::string::npos) << e;
}

TEST_F(JournalFile, AReplayedOrMissingFrameIsDamage) {
  const std::string whole = sample_journal(150);
  const auto starts = frame_starts(whole);
  const std::string f50 = frame_at(whole, 50);
  std::string replay = whole;
  replay.insert(starts[51], f50);
  std::string e = refusal(replay);
  EXPECT_NE(e.find(at_frame(starts[51], 51)), std::string::npos) << e;
  EXPECT_NE(e.find("sequence number 50 where 51 was due: a frame repeated"), std::string::npos)
      << e;
  e = refusal(whole + whole.substr(starts[1]));  // the whole stream journalled twice
  EXPECT_NE(e.find(at_frame(whole.size(), starts.size())), std::string::npos) << e;
  std::string gap = whole;
  gap.erase(starts[50], f50.size());
  e = refusal(gap);
  EXPECT_NE(e.find(at_frame(starts[50], 50)), std::string::npos) << e;
  EXPECT_NE(e.find("a gap (1 frames missing)"), std::string::npos) << e;
}

TEST_F(JournalFile, AWriteOutsideTheRegionOrOffItsUnitIsDamage) {
  JournalSequence seq;
  std::string bytes = seq.frame(header_entry());
  JournalEntry w = write_entry(1, 0);
  w.write.offset = 1ull << 40;
  const std::size_t at = bytes.size();
  std::string e = refusal(bytes + seq.frame(w));
  EXPECT_NE(e.find(at_frame(at, 1)), std::string::npos) << e;
  EXPECT_NE(e.find("outside the region [0, +1048576)"), std::string::npos) << e;
  JournalSequence seq2;
  bytes = seq2.frame(header_entry());
  w.write.offset = (1 << 20) - 2048;  // inside, but runs past the end
  EXPECT_NE(refusal(bytes + seq2.frame(w)).find("outside the region"), std::string::npos);
  JournalSequence seq3;
  bytes = seq3.frame(header_entry());
  w.write.offset = 512;
  EXPECT_NE(refusal(bytes + seq3.frame(w)).find("not aligned to the atomic unit 4096"),
            std::string::npos);
}

TEST_F(JournalFile, AnImpossibleAtomicUnitIsDamage) {
  for (const std::uint32_t unit : {0u, 1u, 1000u, 12288u, 128u << 20}) {
    JournalSequence seq;
    const std::string e = refusal(seq.frame(header_entry(unit)));
    EXPECT_NE(e.find(at_frame(0, 0)), std::string::npos) << e;
    EXPECT_NE(e.find("atomic unit " + std::to_string(unit) + " bytes"), std::string::npos) << e;
  }
  for (const std::uint32_t unit : {512u, 4096u, 16384u}) {
    JournalSequence seq;
    write(seq.frame(header_entry(unit)));
    EXPECT_EQ(read_journal_file(path_).header.atomic_unit, unit);
  }
}

// The frames of `entries`, numbered in order.
std::string numbered(const std::vector<JournalEntry>& entries) {
  JournalSequence seq;
  std::string out;
  for (const auto& e : entries) out += seq.frame(e);
  return out;
}

TEST_F(JournalFile, EntriesOutOfTurnAreDamage) {
  JournalEntry end;
  end.type = JournalEntryType::End;
  const JournalEntry h = header_entry();
  const std::vector<std::pair<std::vector<JournalEntry>, std::string>> cases = {
      {{h, write_entry(1, 0), h}, "a second header"},
      {{h, write_entry(1, 0), end, write_entry(2, 0)}, "an entry after the End entry"},
      {{h, flush_entry(2, 1)}, "flush epoch 2 where 1 was due"},
      {{h, write_entry(1, 0), write_entry(1, 0)}, "record id 1 acknowledged twice"},
      {{h, write_entry(1, 3)}, "a write of flush epoch 3 before flush 1 completed"},
  };
  for (const auto& [entries, want] : cases) {
    const std::string e = refusal(numbered(entries));
    EXPECT_NE(e.find("(frame " + std::to_string(entries.size() - 1) + "): " + want),
              std::string::npos)
        << e;
  }
}

TEST_F(JournalFile, AHeaderOnlyJournalReadsWithNoWrite) {
  JournalSequence seq;
  write(seq.frame(header_entry()));
  const JournalContents j = read_journal_file(path_);
  EXPECT_TRUE(j.writes.empty());
  EXPECT_TRUE(j.tail_problem.empty());
}

TEST_F(JournalFile, AVersionOneJournalIsRefusedByName) {
  // Version 1's header as the storqual before sequence numbers wrote it: type 1, u32 version 1,
  // run id, region offset and size, atomic unit, start, the target (no sequence number).
  std::string payload(1, '\x01');
  auto put = [&payload](auto v) { payload.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(std::uint32_t{1});
  put(std::uint64_t{77});
  put(std::uint64_t{0});
  put(std::uint64_t{1} << 20);
  put(std::uint32_t{4096});
  put(std::uint64_t{5});
  put(std::uint16_t{0});
  std::string frame;
  const auto length = static_cast<std::uint32_t>(payload.size());
  const auto sum = static_cast<std::uint32_t>(XXH32(payload.data(), payload.size(), 0));
  frame.append(reinterpret_cast<const char*>(&length), 4);
  frame.append(reinterpret_cast<const char*>(&sum), 4);
  const std::string e = refusal(frame + payload);
  EXPECT_NE(e.find(at_frame(0, 0)), std::string::npos) << e;
  EXPECT_NE(e.find("journal version 1, this storqual reads 2"), std::string::npos) << e;
  EXPECT_NE(e.find("carry no sequence numbers"), std::string::npos) << e;
}

TEST_F(JournalFile, RefusesAJournalWithoutHeader) {
  const std::string bytes = sample_journal(2);
  const std::size_t header = frame_starts(bytes)[1];
  EXPECT_NE(refusal(bytes.substr(header)).find("the first frame is not a header"),
            std::string::npos);
  EXPECT_NE(refusal("").find("no sound header"), std::string::npos);
}

TEST(PowercutJournal, RefusesAnImpossibleFrameLength) {
  std::string bytes(8, '\xff');
  const FrameParse p = parse_journal_frame(bytes);
  EXPECT_EQ(p.status, FrameStatus::Bad);
  EXPECT_EQ(p.fault, FrameFault::Length);
  EXPECT_NE(p.problem.find("length"), std::string::npos);
}

TEST_F(JournalFile, TheFileSinkAppendsAndNeverOverwrites) {
  {
    auto sink = open_journal_file(path_);
    const std::string bytes = sample_journal(3);
    sink->append(bytes.substr(0, 40));
    sink->append(bytes.substr(40));
  }
  EXPECT_EQ(read_journal_file(path_).writes.size(), 3u);
  EXPECT_THROW((void)open_journal_file(path_), JournalError);
}

}  // namespace
}  // namespace storqual::runner
