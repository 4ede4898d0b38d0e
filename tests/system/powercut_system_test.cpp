// SPDX-License-Identifier: Apache-2.0
// `storqual powercut arm` and `check` on a loop device (root; skipped otherwise): the cut is the
// arm process killed by SIGKILL at a random moment through --power-cut-cmd. A loop device over a
// file loses nothing when a process dies, so every acknowledged record must be intact and check
// must pass; the same device with a flushed record then overwritten must fail as lost after flush.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <string>
#include <vector>

#include "runner/measure/powercut_journal.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::CommandResult;
using storqual::testing::LoopDevice;
using storqual::testing::run_command;
using storqual::testing::ScratchDir;
namespace fs = std::filesystem;

CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

class PowercutLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!storqual::testing::is_root()) GTEST_SKIP() << "needs root (a loop device)";
    storqual::testing::write_random_file(dir_ / "backing", 96ull << 20);
    loop_.emplace(dir_ / "backing");
  }

  CommandResult arm(const std::string& journal) {
    return storqual({"powercut", "arm", "--target", loop_->path(), "--journal", journal,
                     "--allow-destructive", "--size", "64M", "--cut-after", "0.5:2", "--runtime",
                     "30", "--power-cut-cmd", "kill -KILL $STORQUAL_ARM_PID"});
  }

  ScratchDir dir_{"storqual-powercut"};
  std::optional<LoopDevice> loop_;
};

TEST_F(PowercutLoop, AProcessKillLosesNoAcknowledgedRecord) {
  const std::string journal = (dir_ / "journal").string();
  const CommandResult a = arm(journal);
  ASSERT_EQ(a.exit_code, 128 + 9) << a.err << a.out;  // killed by its own cut
  EXPECT_NE(a.err.find("running the power-cut command"), std::string::npos) << a.err;
  const JournalContents j = read_journal_file(journal);
  EXPECT_FALSE(j.ended);
  EXPECT_GT(j.writes.size(), 10u);
  EXPECT_GT(j.flushes.size(), 0u);
  const CommandResult c =
      storqual({"powercut", "check", "--target", loop_->path(), "--journal", journal, "--plp",
                "--name", "cut 1", "--out", (dir_ / "out").string()});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  const std::string summary = c.out.substr(0, c.out.find('\n'));  // "cut 1: N sectors ..."
  EXPECT_EQ(summary.rfind("cut 1: ", 0), 0u) << c.out;
  EXPECT_NE(summary.find(" intact"), std::string::npos) << summary;
  for (const char* lost : {"lost-after-flush", "lost-before-flush", "shorn", "unserializable",
                           "corrupted", "misplaced", "unreadable"})
    EXPECT_EQ(summary.find(lost), std::string::npos) << lost << ": " << summary;
  const std::string junit = storqual::testing::read_file(dir_ / "out" / "storqual-junit.xml");
  EXPECT_NE(junit.find("cut 1"), std::string::npos) << junit;
  // A loop device has no unsafe-shutdown counter: journalled as not readable, and said so.
  ASSERT_TRUE(j.shutdowns_before);
  EXPECT_FALSE(j.shutdowns_before->readable);
  EXPECT_NE(c.out.find("cut 1: unsafe-shutdown count not readable: before arm: "),
            std::string::npos)
      << c.out;
  // One cut summarised: a pass against one cycle, inconclusive against three.
  const std::string result = (dir_ / "out" / "storqual-result.json").string();
  const CommandResult one =
      storqual({"powercut", "summary", "--cycles", "1", "--out", (dir_ / "sum1").string(), result});
  EXPECT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("device: pass: 1 cut checked, every one passed"), std::string::npos)
      << one.out;
  const CommandResult three =
      storqual({"powercut", "summary", "--cycles", "3", "--out", (dir_ / "sum3").string(), result});
  EXPECT_EQ(three.exit_code, 3) << three.out << three.err;
  EXPECT_NE(three.out.find("but 3 cycles are claimed"), std::string::npos) << three.out;
}

TEST_F(PowercutLoop, AFlushedRecordOverwrittenAfterTheCutIsLostAfterFlush) {
  const std::string journal = (dir_ / "journal").string();
  ASSERT_EQ(arm(journal).exit_code, 128 + 9);
  const JournalContents j = read_journal_file(journal);
  ASSERT_FALSE(j.flushes.empty());
  // A write covered by a completed flush and never rewritten: overwrite it with what a lying
  // drive leaves.
  const JournalWrite* victim = nullptr;
  for (std::size_t i = 0; i < j.writes.size() && !victim; ++i) {
    const JournalWrite& w = j.writes[i];
    if (w.epoch >= j.flushes.size()) break;  // no completed flush covers it
    bool rewritten = false;
    for (std::size_t k = i + 1; k < j.writes.size(); ++k)
      rewritten |= j.writes[k].offset < w.offset + w.length &&
                   w.offset < j.writes[k].offset + j.writes[k].length;
    if (!rewritten) victim = &w;
  }
  ASSERT_NE(victim, nullptr) << "every flushed write was rewritten";
  const int fd = ::open(loop_->path().c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const std::string zeros(victim->length, '\0');
  ASSERT_EQ(::pwrite(fd, zeros.data(), zeros.size(), static_cast<off_t>(victim->offset)),
            static_cast<ssize_t>(zeros.size()));
  ::fsync(fd);
  ::close(fd);
  const CommandResult c = storqual({"powercut", "check", "--target", loop_->path(), "--journal",
                                    journal, "--out", (dir_ / "out").string()});
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("lost-after-flush"), std::string::npos) << c.out;
}

// The journal kept by `storqual powercut listen` over a Unix socket: a client with the wrong
// token is refused, the run's client streams until it is killed, and check reads the listener's
// journal.
TEST_F(PowercutLoop, TheListenersJournalChecksLikeAFile) {
  const std::string socket = "unix:" + (dir_ / "sock").string();
  const std::string journal = (dir_ / "listened").string();
  storqual::testing::BackgroundCommand listener(
      {STORQUAL_BINARY, "powercut", "listen", "--listen", socket, "--token", "token-1234",
       "--journal", journal, "--sessions", "2", "--idle-timeout", "2"},
      dir_ / "listen.out", dir_ / "listen.err");
  for (int i = 0; i < 100 && !std::filesystem::exists(dir_ / "sock"); ++i) ::usleep(20000);
  const CommandResult wrong =
      storqual({"powercut", "arm", "--target", loop_->path(), "--listener", socket, "--token",
                "not-the-token", "--allow-destructive", "--size", "64M"});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("wrong token"), std::string::npos) << wrong.err;
  const CommandResult a =
      storqual({"powercut", "arm", "--target", loop_->path(), "--listener", socket, "--token",
                "token-1234", "--allow-destructive", "--size", "64M", "--cut-after", "0.5:1.5",
                "--runtime", "30", "--power-cut-cmd", "kill -KILL $STORQUAL_ARM_PID"});
  EXPECT_EQ(a.exit_code, 128 + 9) << a.err;
  EXPECT_EQ(listener.wait(), 0);
  const std::string log = storqual::testing::read_file(dir_ / "listen.err");
  EXPECT_NE(log.find("session 1: refused"), std::string::npos) << log;
  EXPECT_NE(log.find("session 2: accepted"), std::string::npos) << log;
  const JournalContents j = read_journal_file(journal);
  EXPECT_GT(j.writes.size(), 10u);
  const CommandResult c = storqual({"powercut", "check", "--target", loop_->path(), "--journal",
                                    journal, "--out", (dir_ / "out").string()});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
}

// A client that announces a frame and trickles a byte every 200 ms stays connected (its frame
// deadline is 30 s) while a real arm streams: the arm's hello is answered at once and its run
// checks like a file. Then the listener, restarted on that journal with a byte flipped in frame
// 3, refuses to start and leaves the file byte-identical.
TEST_F(PowercutLoop, ARealArmRunsWhileAClientTricklesAndADamagedJournalIsKept) {
  const fs::path sock = dir_ / "sock";
  const std::string socket = "unix:" + sock.string();
  const std::string journal = (dir_ / "listened").string();
  storqual::testing::BackgroundCommand listener(
      {STORQUAL_BINARY, "powercut", "listen", "--listen", socket, "--token", "token-1234",
       "--journal", journal, "--sessions", "1", "--idle-timeout", "2", "--frame-timeout", "30"},
      dir_ / "listen.out", dir_ / "listen.err");
  for (int i = 0; i < 100 && !fs::exists(sock); ++i) ::usleep(20000);
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  std::strcpy(sun.sun_path, sock.c_str());
  const int slow = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(::connect(slow, reinterpret_cast<sockaddr*>(&sun), sizeof sun), 0);
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const char announce[8] = {0, 0x10, 0, 0, 1, 2, 3, 4};  // a frame of 4096 bytes
    for (std::size_t i = 0; !done.load(); ++i) {
      (void)::send(slow, announce + i % 8, 1, MSG_NOSIGNAL);
      ::usleep(200000);
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult a =
      storqual({"powercut", "arm", "--target", loop_->path(), "--listener", socket, "--token",
                "token-1234", "--allow-destructive", "--size", "64M", "--cut-after", "0.5:1",
                "--runtime", "30", "--power-cut-cmd", "kill -KILL $STORQUAL_ARM_PID"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  done = true;
  trickle.join();
  EXPECT_EQ(a.exit_code, 128 + 9) << a.err;
  EXPECT_EQ(a.err.find("no reply to the hello"), std::string::npos) << a.err;
  EXPECT_LT(took, 8.0);
  EXPECT_EQ(listener.wait(), 0);
  ::close(slow);
  const CommandResult c = storqual({"powercut", "check", "--target", loop_->path(), "--journal",
                                    journal, "--out", (dir_ / "out").string()});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  // Frame 3 damaged: the listener refuses it and never rewrites it.
  std::string bytes = storqual::testing::read_file(journal);
  std::size_t at = 0;
  for (int frame = 0; frame < 3; ++frame) {
    std::uint32_t length = 0;
    std::memcpy(&length, bytes.data() + at, 4);
    at += 8 + length;
  }
  bytes[at + 12] ^= 0x10;
  {
    std::ofstream out(journal, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  const CommandResult again = storqual({"powercut", "listen", "--listen", socket, "--token",
                                        "token-1234", "--journal", journal, "--sessions", "1"});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("(frame 3)"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("never rewrites a journal"), std::string::npos) << again.err;
  EXPECT_EQ(storqual::testing::read_file(journal), bytes);
  const CommandResult damaged = storqual({"powercut", "check", "--target", loop_->path(),
                                          "--journal", journal, "--out", (dir_ / "out2").string()});
  EXPECT_EQ(damaged.exit_code, 2) << damaged.out << damaged.err;
}

TEST_F(PowercutLoop, ADeviceThatDoesNotComeBackFails) {
  const std::string journal = (dir_ / "journal").string();
  ASSERT_EQ(arm(journal).exit_code, 128 + 9);
  // Gone: the node is no more. Back too small: a device that returns with another size.
  const CommandResult gone =
      storqual({"powercut", "check", "--target", (dir_ / "no-such-device").string(), "--journal",
                journal, "--out", (dir_ / "out").string()});
  EXPECT_EQ(gone.exit_code, 1) << gone.out << gone.err;
  EXPECT_NE(gone.out.find("did not come back"), std::string::npos) << gone.out;
  storqual::testing::write_random_file(dir_ / "small", 1 << 20);
  const CommandResult small = storqual({"powercut", "check", "--target", (dir_ / "small").string(),
                                        "--journal", journal, "--out", (dir_ / "out").string()});
  EXPECT_EQ(small.exit_code, 1) << small.out << small.err;
  EXPECT_NE(small.out.find("the journal's region ends at"), std::string::npos) << small.out;
}

TEST_F(PowercutLoop, RefusesWithoutAllowDestructive) {
  const CommandResult a = storqual({"powercut", "arm", "--target", loop_->path(), "--journal",
                                    (dir_ / "j").string(), "--size", "64M"});
  EXPECT_EQ(a.exit_code, 2) << a.err;
  EXPECT_NE(a.err.find("allow-destructive"), std::string::npos) << a.err;
  const CommandResult missing = storqual(
      {"powercut", "check", "--target", "/dev/storqual-gone", "--journal", (dir_ / "j").string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;  // no journal: a usage error naming it
  EXPECT_NE(missing.err.find("j"), std::string::npos);
}

// Every option is checked before the journal is created: a refused arm leaves no empty journal
// to block its rerun.
TEST_F(PowercutLoop, ARefusedArmCreatesNoJournal) {
  const std::string journal = (dir_ / "j").string();
  const std::vector<std::vector<std::string>> refused = {
      {"--atomic-unit", "16k", "--bs", "4k"},  // a request smaller than the atomic unit
      {"--atomic-unit", "12k", "--bs", "12k", "--sequential-bs", "48k"},  // not a power of two
      {"--atomic-unit", "1000"},
      {"--depths", "1", "--flush-every", "0"},
      {"--cut-after", "5:1"},
  };
  for (const auto& extra : refused) {
    std::vector<std::string> args = {
        "powercut", "arm", "--target", loop_->path(), "--journal", journal, "--allow-destructive",
        "--size",   "64M"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult a = storqual(args);
    EXPECT_EQ(a.exit_code, 2) << extra[0] << " " << extra[1] << ": " << a.err;
    EXPECT_FALSE(fs::exists(journal)) << extra[0] << " " << extra[1] << ": " << a.err;
  }
  // And the rerun with options that work starts at once.
  const CommandResult ok = storqual({"powercut", "arm", "--target", loop_->path(), "--journal",
                                     journal, "--allow-destructive", "--size", "64M",
                                     "--atomic-unit", "16k", "--bs", "16k", "--runtime", "0.5"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(read_journal_file(journal).header.atomic_unit, 16384u);
}

}  // namespace
}  // namespace storqual::runner
