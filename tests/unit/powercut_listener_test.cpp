// SPDX-License-Identifier: Apache-2.0
// The power-cut journal listener over a socket pair and a Unix socket (never a network address):
// a wrong token, a client that vanishes mid-entry or falls silent, a bad frame, a full journal,
// another run's header and a torn journal are refused or recovered with a named reason, and
// nothing is kept silently.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "runner/methods/power_cut/powercut_listener.hpp"

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

// A journal that is not whole (a byte flipped in frame 3 of 100, a torn tail) is never rewritten:
// the listener refuses to start on it, naming it, and leaves it byte-identical; --salvage copies
// its whole frames to another file.
TEST_F(ListenerTest, RefusesADamagedOrTornJournalAndLeavesItByteIdentical) {
  std::string good = frame_header(9);
  for (std::uint64_t i = 1; i < 100; ++i) good += frame_write(i);
  std::string damaged = good;
  const std::size_t frame3 = frame_header(9).size() + 2 * frame_write(1).size();
  damaged[frame3 + 12] ^= 0x10;
  const std::string torn = good + frame_write(100).substr(0, 7);
  for (const std::string& bytes : {damaged, torn}) {
    {
      std::ofstream out(options_.journal_path, std::ios::binary | std::ios::trunc);
      out << bytes;
    }
    try {
      JournalListener listener(options_);
      ADD_FAILURE() << "the listener started on a journal that is not whole";
    } catch (const JournalError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(options_.journal_path), std::string::npos) << what;
      EXPECT_NE(what.find("never rewrites a journal"), std::string::npos) << what;
      EXPECT_NE(what.find(&bytes == &damaged ? "(frame 3)" : "torn tail"), std::string::npos)
          << what;
    }
    std::ifstream in(options_.journal_path, std::ios::binary);
    const std::string after((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(after, bytes) << "the journal was changed";
  }
  const std::string salvaged = (dir_ / "salvaged").string();
  const std::string note = salvage_journal(options_.journal_path, salvaged);
  EXPECT_NE(note.find("salvaged 100 whole frames"), std::string::npos) << note;
  EXPECT_EQ(read_journal_file(salvaged).writes.size(), 99u);
  EXPECT_EQ(fs::file_size(options_.journal_path), torn.size());
  EXPECT_THROW((void)salvage_journal(options_.journal_path, salvaged), JournalError);  // exists
}

TEST_F(ListenerTest, RefusesAReplayedOrMissingFrame) {
  SessionOutcome s = session(frame_hello(kToken) + frame_header(9) + frame_write(1) +
                             frame_write(1) + frame_write(2));
  EXPECT_EQ(s.frames, 2u);
  EXPECT_NE(s.reason.find("a frame repeated (replayed)"), std::string::npos) << s.reason;
  // A later session replaying the run from its start: refused at its first write.
  s = session(frame_hello(kToken) + frame_header(9) + frame_write(1));
  EXPECT_EQ(s.frames, 0u);
  EXPECT_NE(s.reason.find("sequence number 1 where 2 was due"), std::string::npos) << s.reason;
  s = session(frame_hello(kToken) + frame_header(9) + frame_write(4));
  EXPECT_NE(s.reason.find("a gap"), std::string::npos) << s.reason;
  EXPECT_EQ(read_journal_file(options_.journal_path).writes.size(), 1u);
}

TEST_F(ListenerTest, DropsATricklingClientByItsFrameDeadline) {
  options_.frame_timeout_s = 0.3;
  options_.idle_timeout_s = 10;  // each byte would reset an idle timer: the deadline is per frame
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const std::string start = frame_hello(kToken) + frame_header(9);
  ASSERT_EQ(::send(sv[0], start.data(), start.size(), 0), static_cast<ssize_t>(start.size()));
  JournalListener listener(options_);
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::uint32_t announced = 4096;  // a frame of 4096 bytes, sent a byte at a time
    std::string bytes(reinterpret_cast<const char*>(&announced), 4);
    bytes += std::string(4, 'x');
    for (std::size_t i = 0; !done.load() && i < 200; ++i) {
      (void)::send(sv[0], bytes.data() + (i % bytes.size()), 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  const SessionOutcome s = listener.serve(sv[1]);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  done = true;
  trickle.join();
  ::close(sv[0]);
  EXPECT_NE(s.reason.find("a frame not whole within 0.3 s"), std::string::npos) << s.reason;
  EXPECT_LT(took, 2.0);
  EXPECT_EQ(read_journal_file(options_.journal_path).frames, 1u);
}

// While a client that never finishes its hello is connected, and while one with the token is
// writing, a real arm's hello is answered at once; a second writer of the journal is refused.
TEST_F(ListenerTest, AnswersAHelloWithinOneSecondWhileASlowClientIsConnected) {
  options_.frame_timeout_s = 5;
  const std::string address = "unix:" + (dir_ / "sock").string();
  const ListenAddress a = parse_listen_address(address);
  const int server = listen_on(a);
  JournalListener listener(options_);
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> sessions{0};  // ended, counted by the serving thread
  std::thread serving(
      [&] { listener.run(server, &stop, 0, [&](const SessionOutcome&) { ++sessions; }); });
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  std::strcpy(sun.sun_path, a.path.c_str());
  const int slow = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(::connect(slow, reinterpret_cast<sockaddr*>(&sun), sizeof sun), 0);
  const std::string hello = frame_hello(kToken);
  ASSERT_EQ(::send(slow, hello.data(), 3, 0), 3);  // and no more
  const auto t0 = std::chrono::steady_clock::now();
  {
    auto sink = connect_journal_listener(address, kToken);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(took, 1.0) << "the hello waited for the slow client";
    try {
      (void)connect_journal_listener(address, kToken);
      ADD_FAILURE() << "a second writer of the journal was accepted";
    } catch (const JournalError& e) {
      EXPECT_NE(std::string(e.what()).find("another session is writing this journal"),
                std::string::npos)
          << e.what();
    }
    sink->append(frame_header(5) + frame_write(1));
  }
  for (int i = 0; i < 100 && sessions.load() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  serving.join();
  ::close(slow);
  ::close(server);
  EXPECT_EQ(read_journal_file(options_.journal_path).writes.size(), 1u);
}

TEST(ListenAddress, AStaleUnixSocketIsReplacedALiveOneRefused) {
  const fs::path dir = fs::temp_directory_path() / ("storqual-stale-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const ListenAddress a = parse_listen_address("unix:" + (dir / "sock").string());
  const int first = listen_on(a);
  EXPECT_THROW((void)listen_on(a), JournalError);  // a listener answers on it
  ::close(first);                                  // dies without unlinking: the socket file stays
  ASSERT_TRUE(fs::exists(dir / "sock"));
  const int second = listen_on(a);
  EXPECT_GE(second, 0);
  EXPECT_EQ(describe_bound(second, a), "unix:" + (dir / "sock").string());
  ::close(second);
  fs::remove_all(dir);
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
  try {
    (void)parse_listen_address(":9000");  // no host: every address, silently, before
    ADD_FAILURE() << "an address without a host was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("names no host"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0.0.0.0:9000"), std::string::npos) << e.what();
  }
  const ListenAddress loopback = parse_listen_address("127.0.0.1:0");
  const int fd = listen_on(loopback);
  EXPECT_EQ(describe_bound(fd, loopback).rfind("127.0.0.1:", 0), 0u);
  ::close(fd);
}

}  // namespace
}  // namespace storqual::runner
