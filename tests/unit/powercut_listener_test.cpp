// SPDX-License-Identifier: Apache-2.0
// The power-cut journal listener over a socket pair and a Unix socket (never a network address):
// a wrong token, a client that vanishes mid-entry or falls silent, a bad frame, a full journal,
// another run's header and a torn journal are refused or recovered with a named reason, and
// nothing is kept silently.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "runner/methods/powercut_listener.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;
const std::string kToken = "s3cret-token";

std::string frame_hello(const std::string& token) {
  JournalEntry h;
  h.type = JournalEntryType::Hello;
  h.text = token;
  return encode_journal_frame(h);
}
std::string frame_header(std::uint64_t run) {
  JournalEntry h;
  h.type = JournalEntryType::Header;
  h.header.run_id = run;
  h.header.region_size = 1 << 20;
  return encode_journal_frame(h);
}
// A write of record `id`, the journal's frame `id` (after the header, frame 0).
std::string frame_write(std::uint64_t id) {
  JournalEntry w;
  w.type = JournalEntryType::Write;
  w.sequence = id;
  w.write = {id, id * 4096, 4096, false, 0, id + 1, 0};
  return encode_journal_frame(w);
}
std::string frame_end(std::uint64_t sequence) {
  JournalEntry e;
  e.type = JournalEntryType::End;
  e.sequence = sequence;
  return encode_journal_frame(e);
}

class ListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("storqual-listener-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    options_.token = kToken;
    options_.journal_path = (dir_ / "journal").string();
    options_.idle_timeout_s = 2;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Sends `bytes` from a client, then closes (or, with `hold_s`, waits first); returns how the
  // listener saw the session and what the client got back.
  SessionOutcome session(const std::string& bytes, std::string* reply = nullptr,
                         double hold_s = 0) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    JournalListener listener(options_);
    SessionOutcome out;
    std::thread server([&] { out = listener.serve(sv[1]); });
    EXPECT_EQ(::send(sv[0], bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
    if (hold_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(hold_s));
    ::shutdown(sv[0], SHUT_WR);
    std::string got;
    char buf[256];
    for (ssize_t n; (n = ::recv(sv[0], buf, sizeof buf, 0)) > 0;) got.append(buf, n);
    server.join();
    ::close(sv[0]);
    if (reply) *reply = got;
    return out;
  }

  fs::path dir_;
  ListenerOptions options_;
};

TEST_F(ListenerTest, KeepsAWholeJournalFromTheRightClient) {
  std::string reply;
  const SessionOutcome s = session(
      frame_hello(kToken) + frame_header(9) + frame_write(1) + frame_write(2) + frame_end(3),
      &reply);
  EXPECT_TRUE(s.accepted);
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(s.frames, 4u);
  const FrameParse r = parse_journal_frame(reply);
  ASSERT_EQ(r.status, FrameStatus::Complete);
  EXPECT_TRUE(r.entry.accepted);
  const JournalContents j = read_journal_file(options_.journal_path);
  EXPECT_EQ(j.header.run_id, 9u);
  EXPECT_EQ(j.writes.size(), 2u);
  EXPECT_TRUE(j.ended);
}

TEST_F(ListenerTest, RefusesAWrongTokenAndKeepsNothing) {
  std::string reply;
  const SessionOutcome s = session(frame_hello("wrong-token!") + frame_header(9), &reply);
  EXPECT_FALSE(s.accepted);
  EXPECT_EQ(s.reason, "refused: wrong token");
  EXPECT_EQ(s.frames, 0u);
  const FrameParse r = parse_journal_frame(reply);
  ASSERT_EQ(r.status, FrameStatus::Complete);
  EXPECT_FALSE(r.entry.accepted);
  EXPECT_EQ(fs::file_size(options_.journal_path), 0u);
}

TEST_F(ListenerTest, RefusesAStreamWithoutHello) {
  const SessionOutcome s = session(frame_header(9));
  EXPECT_FALSE(s.accepted);
  EXPECT_NE(s.reason.find("not a hello"), std::string::npos);
}

TEST_F(ListenerTest, DropsThePartialEntryOfAClientThatVanishes) {
  const std::string w = frame_write(1);
  const SessionOutcome s =
      session(frame_hello(kToken) + frame_header(9) + w.substr(0, w.size() / 2));
  EXPECT_TRUE(s.accepted);
  EXPECT_EQ(s.frames, 1u);
  EXPECT_EQ(s.dropped_bytes, w.size() / 2);
  EXPECT_NE(s.reason.find("partial entry"), std::string::npos) << s.reason;
  const JournalContents j = read_journal_file(options_.journal_path);
  EXPECT_TRUE(j.writes.empty());
  EXPECT_TRUE(j.tail_problem.empty());
}

TEST_F(ListenerTest, TakesASilentClientAsGone) {
  options_.idle_timeout_s = 0.2;
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const std::string hello = frame_hello(kToken) + frame_header(9);
  ASSERT_EQ(::send(sv[0], hello.data(), hello.size(), 0), static_cast<ssize_t>(hello.size()));
  JournalListener listener(options_);
  const SessionOutcome s = listener.serve(sv[1]);  // the client never closes
  ::close(sv[0]);
  EXPECT_NE(s.reason.find("silent"), std::string::npos) << s.reason;
  EXPECT_EQ(read_journal_file(options_.journal_path).header.run_id, 9u);
}

TEST_F(ListenerTest, RefusesACorruptFrameWithItsPosition) {
  std::string w = frame_write(1);
  w[10] ^= 0x40;
  const SessionOutcome s = session(frame_hello(kToken) + frame_header(9) + w);
  EXPECT_EQ(s.frames, 1u);
  EXPECT_NE(s.reason.find("checksum"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("at byte"), std::string::npos) << s.reason;
}

TEST_F(ListenerTest, RefusesAnEntryBeforeTheHeaderAndAnotherRunsHeader) {
  EXPECT_NE(session(frame_hello(kToken) + frame_write(1)).reason.find("before the header"),
            std::string::npos);
  EXPECT_EQ(session(frame_hello(kToken) + frame_header(9)).frames, 1u);
  const SessionOutcome other = session(frame_hello(kToken) + frame_header(10));
  EXPECT_NE(other.reason.find("another run"), std::string::npos) << other.reason;
  // The same run again: its header checked, not kept twice; the journal goes on at frame 1.
  EXPECT_EQ(session(frame_hello(kToken) + frame_header(9) + frame_write(1)).frames, 1u);
  EXPECT_EQ(read_journal_file(options_.journal_path).writes.size(), 1u);
}

TEST_F(ListenerTest, StopsAtItsDiskBound) {
  options_.max_bytes = frame_header(9).size() + frame_write(1).size();
  std::string many = frame_hello(kToken) + frame_header(9);
  for (int i = 1; i < 50; ++i) many += frame_write(static_cast<std::uint64_t>(i));
  const SessionOutcome s = session(many);
  EXPECT_NE(s.reason.find("journal full"), std::string::npos) << s.reason;
  EXPECT_LE(fs::file_size(options_.journal_path), options_.max_bytes);
}

TEST_F(ListenerTest, CutsTheTornTailOfItsOwnJournalOnReopening) {
  const std::string good = frame_header(9) + frame_write(1);
  {
    std::ofstream out(options_.journal_path, std::ios::binary);
    out << good << frame_write(2).substr(0, 7);
  }
  JournalListener listener(options_);
  EXPECT_NE(listener.recovery_note().find("torn tail"), std::string::npos);
  EXPECT_EQ(fs::file_size(options_.journal_path), good.size());
}

TEST_F(ListenerTest, ArmsClientIsRefusedOrAcceptedOverAUnixSocket) {
  const std::string address = "unix:" + (dir_ / "sock").string();
  const int server = listen_on(parse_listen_address(address));
  JournalListener listener(options_);
  std::vector<SessionOutcome> outcomes;
  std::thread serving([&] {
    for (int i = 0; i < 2; ++i)
      outcomes.push_back(listener.serve(::accept(server, nullptr, nullptr)));
  });
  try {
    (void)connect_journal_listener(address, "not-the-token");
    ADD_FAILURE() << "a wrong token was accepted";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("wrong token"), std::string::npos) << e.what();
  }
  {
    auto sink = connect_journal_listener(address, kToken);
    sink->append(frame_header(5) + frame_write(1));
  }
  serving.join();
  ::close(server);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_FALSE(outcomes[0].accepted);
  EXPECT_TRUE(outcomes[1].accepted);
  EXPECT_EQ(read_journal_file(options_.journal_path).writes.size(), 1u);
}

TEST(ListenAddress, ParsesUnixAndHostPortAndNamesBadOnes) {
  EXPECT_TRUE(parse_listen_address("unix:/run/j.sock").unix_socket);
  const ListenAddress a = parse_listen_address("[::1]:9000");
  EXPECT_EQ(a.host, "::1");
  EXPECT_EQ(a.port, "9000");
  EXPECT_THROW((void)parse_listen_address("127.0.0.1"), UsageError);
  EXPECT_THROW((void)parse_listen_address("host:port"), UsageError);
  EXPECT_THROW((void)parse_listen_address("unix:"), UsageError);
}

}  // namespace
}  // namespace storqual::runner
