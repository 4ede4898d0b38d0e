// SPDX-License-Identifier: Apache-2.0
// The journal listener and arm's client of it (powercut_listener.hpp).
#include "runner/methods/powercut_listener.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace storqual::runner {

namespace {

constexpr std::size_t kReadChunk = kMaxJournalFrame + 8;

bool same_token(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < b.size(); ++i)
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ b[i]);
  return diff == 0;
}

std::string reply_frame(bool accepted, const std::string& reason) {
  JournalEntry r;
  r.type = JournalEntryType::Reply;
  r.accepted = accepted;
  r.text = reason;
  return encode_journal_frame(r);
}

// The checks of one client's byte stream: hello and token first, then whole journal frames that
// obey the journal's rules (powercut_journal.hpp JournalRules: the sequence numbers in turn, the
// values possible), the first of a new journal a Header. A session on a journal that already holds
// a header starts with that run's Header again (checked, not kept twice) and goes on from the
// journal's next sequence number: a frame replayed or missing is refused.
class StreamGate {
 public:
  explicit StreamGate(const std::string& token, JournalRules& rules)
      : token_(token), rules_(rules) {}

  // Takes the next bytes; whole frames to keep are appended to `keep`, the hello's reply to
  // `reply`. False when the session must end (`reason` says why).
  bool feed(std::string_view bytes, std::string& keep, std::string& reply, std::string& reason) {
    buffer_.append(bytes);
    std::size_t at = 0;
    bool go_on = true;
    while (go_on) {
      const FrameParse p = parse_journal_frame(std::string_view(buffer_).substr(at));
      if (p.status == FrameStatus::NeedMore) break;
      if (p.status == FrameStatus::Bad) {
        reason = "refused: " + p.problem + " at byte " + std::to_string(offset_ + at);
        go_on = false;
        break;
      }
      const bool journal_frame = greeted_;
      go_on = take(p.entry, std::string_view(buffer_).substr(at, p.consumed), keep, reply, reason);
      if (!go_on && journal_frame) reason += " at byte " + std::to_string(offset_ + at);
      at += p.consumed;
    }
    offset_ += at;
    buffer_.erase(0, at);
    return go_on;
  }

  [[nodiscard]] std::size_t pending() const { return buffer_.size(); }
  [[nodiscard]] bool greeted() const { return greeted_; }
  [[nodiscard]] bool ended() const { return ended_; }
  [[nodiscard]] std::uint64_t frames() const { return frames_; }

 private:
  bool hello(const JournalEntry& e, std::string& reply, std::string& reason) {
    if (e.type != JournalEntryType::Hello) {
      reason = "refused: the first frame is not a hello";
    } else if (e.version != kListenerProtocol) {
      reason = "refused: protocol version " + std::to_string(e.version) +
               ", this listener speaks " + std::to_string(kListenerProtocol);
    } else if (!same_token(e.text, token_)) {
      reason = "refused: wrong token";
    } else {
      greeted_ = true;
      reply = reply_frame(true, "accepted");
      return true;
    }
    reply = reply_frame(false, reason);
    return false;
  }

  bool take(const JournalEntry& e, std::string_view frame, std::string& keep, std::string& reply,
            std::string& reason) {
    if (!greeted_) return hello(e, reply, reason);
    if (!introduced_ && rules_.has_header()) {
      // A later session of the journal's run: its header again, not kept twice.
      const JournalHeader& h = rules_.contents().header;
      if (e.type != JournalEntryType::Header || e.sequence != 0) {
        reason = "refused: a session on journal of run " + std::to_string(h.run_id) +
                 " must begin with that run's header";
        return false;
      }
      if (e.header.run_id != h.run_id) {
        reason = "refused: a header of another run (the journal holds run " +
                 std::to_string(h.run_id) + ")";
        return false;
      }
      introduced_ = true;
      return true;
    }
    introduced_ = true;
    if (std::string problem = rules_.take(e); !problem.empty()) {
      reason = "refused: " + (problem == "the first frame is not a header"
                                  ? std::string("a journal entry before the header")
                                  : problem);
      return false;
    }
    ended_ = ended_ || e.type == JournalEntryType::End;
    keep.append(frame);
    ++frames_;
    return true;
  }

  std::string token_;
  JournalRules& rules_;
  bool greeted_ = false, introduced_ = false, ended_ = false;
  std::uint64_t frames_ = 0, offset_ = 0;
  std::string buffer_;
};

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool write_file(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

addrinfo* resolve(const ListenAddress& a, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  const int rc =
      ::getaddrinfo(a.host.empty() ? nullptr : a.host.c_str(), a.port.c_str(), &hints, &res);
  if (rc != 0) throw JournalError("address " + a.host + ":" + a.port + ": " + ::gai_strerror(rc));
  return res;
}

int unix_socket(const ListenAddress& a, sockaddr_un& sun) {
  if (a.path.size() >= sizeof sun.sun_path)
    throw UsageError("unix socket path too long: " + a.path);
  sun = {};
  sun.sun_family = AF_UNIX;
  std::memcpy(sun.sun_path, a.path.c_str(), a.path.size() + 1);
  return ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

int connect_to(const ListenAddress& a, const std::string& text) {
  if (a.unix_socket) {
    sockaddr_un sun;
    const int fd = unix_socket(a, sun);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) == 0) return fd;
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw JournalError("listener " + text + ": cannot connect: " + std::strerror(err));
  }
  addrinfo* res = resolve(a, false);
  int err = ECONNREFUSED;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd >= 0 && ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      ::freeaddrinfo(res);
      return fd;
    }
    err = errno;
    if (fd >= 0) ::close(fd);
  }
  ::freeaddrinfo(res);
  throw JournalError("listener " + text + ": cannot connect: " + std::strerror(err));
}

class ListenerSink final : public JournalSink {
 public:
  ListenerSink(int fd, std::string address) : fd_(fd), address_(std::move(address)) {}
  ~ListenerSink() override { ::close(fd_); }
  ListenerSink(const ListenerSink&) = delete;
  ListenerSink& operator=(const ListenerSink&) = delete;
  void append(std::string_view frames) override {
    if (!write_all(fd_, frames))
      throw JournalError("listener " + address_ +
                         ": the journal stream broke: " + std::strerror(errno));
  }
  [[nodiscard]] std::string describe() const override { return "listener " + address_; }

 private:
  int fd_;
  std::string address_;
};

}  // namespace

ListenAddress parse_listen_address(std::string_view text) {
  ListenAddress a;
  if (text.substr(0, 5) == "unix:") {
    a.unix_socket = true;
    a.path = std::string(text.substr(5));
    if (a.path.empty()) throw UsageError("listener address 'unix:' names no socket path");
    return a;
  }
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size())
    throw UsageError("listener address '" + std::string(text) +
                     "': expected unix:/path or HOST:PORT");
  a.host = std::string(text.substr(0, colon));
  if (a.host.size() >= 2 && a.host.front() == '[' && a.host.back() == ']')
    a.host = a.host.substr(1, a.host.size() - 2);
  a.port = std::string(text.substr(colon + 1));
  if (a.port.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("listener address '" + std::string(text) + "': the port is not a number");
  return a;
}

int listen_on(const ListenAddress& a) {
  if (a.unix_socket) {
    sockaddr_un sun;
    const int fd = unix_socket(a, sun);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) != 0 ||
        ::listen(fd, 4) != 0) {
      const int err = errno;
      if (fd >= 0) ::close(fd);
      throw JournalError("listen on unix:" + a.path + ": " + std::strerror(err));
    }
    return fd;
  }
  addrinfo* res = resolve(a, true);
  int err = EADDRNOTAVAIL;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    const int one = 1;
    if (fd >= 0 && ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
        ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 4) == 0) {
      ::freeaddrinfo(res);
      return fd;
    }
    err = errno;
    if (fd >= 0) ::close(fd);
  }
  ::freeaddrinfo(res);
  throw JournalError("listen on " + a.host + ":" + a.port + ": " + std::strerror(err));
}

JournalListener::JournalListener(ListenerOptions options) : options_(std::move(options)) {
  const std::string& path = options_.journal_path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && st.st_size > 0) {
    const JournalContents j = read_journal_file(path);  // throws when it is not a journal
    rules_ = JournalRules::after(j);
    if (!j.tail_problem.empty()) {
      if (::truncate(path.c_str(), static_cast<off_t>(j.valid_bytes)) != 0)
        throw JournalError("journal " + path +
                           ": cannot cut its torn tail: " + std::strerror(errno));
      recovery_note_ = "journal " + path + ": torn tail cut off (" + j.tail_problem + ")";
    }
    journal_bytes_ = j.valid_bytes;
  }
  journal_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_DSYNC | O_CLOEXEC, 0644);
  if (journal_fd_ < 0)
    throw JournalError("journal " + path + ": cannot open: " + std::strerror(errno));
}

JournalListener::~JournalListener() {
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

SessionOutcome JournalListener::serve(int fd) {
  SessionOutcome out;
  StreamGate gate(options_.token, rules_);
  std::string chunk(kReadChunk, '\0');
  const int timeout_ms = static_cast<int>(options_.idle_timeout_s * 1000);
  bool refused = false;  // the rest of the stream is ignored, not a partial entry
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      out.reason = "client silent for " + std::to_string(options_.idle_timeout_s) +
                   " s: taken as gone (its power cut?)";
      break;
    }
    const ssize_t n = ::recv(fd, chunk.data(), chunk.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out.reason = n == 0 ? "client closed the stream"
                          : std::string("client vanished: ") + std::strerror(errno);
      break;
    }
    std::string keep, reply, reason;
    const bool go_on =
        gate.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)), keep, reply, reason);
    if (!keep.empty() && !this->keep(keep, out)) {
      refused = true;
      break;
    }
    if (!reply.empty() && !write_all(fd, reply))
      reason = reason.empty() ? "client vanished before the reply" : reason;
    if (!go_on) {
      out.reason = reason;
      refused = true;
      break;
    }
  }
  out.accepted = gate.greeted();
  out.ended = gate.ended();
  out.frames = gate.frames();
  out.dropped_bytes = refused ? 0 : gate.pending();
  if (out.dropped_bytes)
    out.reason += "; a partial entry of " + std::to_string(out.dropped_bytes) + " bytes dropped";
  ::close(fd);
  return out;
}

bool JournalListener::keep(std::string_view frames, SessionOutcome& out) {
  if (journal_bytes_ + frames.size() > options_.max_bytes) {
    out.reason = "journal full: " + std::to_string(options_.max_bytes) +
                 " bytes (--max-bytes); the rest refused";
    return false;
  }
  if (!write_file(journal_fd_, frames)) {
    out.reason = "journal " + options_.journal_path + ": write failed: " + std::strerror(errno);
    return false;
  }
  journal_bytes_ += frames.size();
  return true;
}

std::unique_ptr<JournalSink> connect_journal_listener(const std::string& address,
                                                      const std::string& token) {
  const int fd = connect_to(parse_listen_address(address), address);
  auto sink = std::make_unique<ListenerSink>(fd, address);
  JournalEntry hello;
  hello.type = JournalEntryType::Hello;
  hello.text = token;
  if (!write_all(fd, encode_journal_frame(hello)))
    throw JournalError("listener " + address + ": the hello could not be sent");
  std::string got;
  char buf[512];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0)
      throw JournalError("listener " + address + ": no reply to the hello within 10 s");
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) throw JournalError("listener " + address + ": closed before replying");
    got.append(buf, static_cast<std::size_t>(n));
    const FrameParse r = parse_journal_frame(got);
    if (r.status == FrameStatus::NeedMore) continue;
    if (r.status == FrameStatus::Bad || r.entry.type != JournalEntryType::Reply)
      throw JournalError("listener " + address + ": an unreadable reply");
    if (!r.entry.accepted) throw JournalError("listener " + address + ": " + r.entry.text);
    return sink;
  }
}

std::uint64_t accept_journal_stream(std::string_view bytes, const std::string& token,
                                    std::string& reason) {
  JournalRules rules(false);
  StreamGate gate(token, rules);
  std::string keep, reply;
  // Fed in reads of the listener's size, as serve() would receive them.
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kReadChunk);
    if (!gate.feed(bytes.substr(0, n), keep, reply, reason)) break;
    bytes.remove_prefix(n);
    keep.clear();
  }
  if (reason.empty() && gate.pending())
    reason = "a partial entry of " + std::to_string(gate.pending()) + " bytes dropped";
  return gate.frames();
}

}  // namespace storqual::runner
