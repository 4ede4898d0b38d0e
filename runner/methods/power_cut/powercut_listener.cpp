// SPDX-License-Identifier: Apache-2.0
// The journal listener and arm's client of it (powercut_listener.hpp).
#include "runner/methods/power_cut/powercut_listener.hpp"

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

#include "runner/measure/clock.hpp"

namespace storqual::runner {

namespace {

constexpr std::size_t kReadChunk = kMaxJournalFrame + 8;

std::string seconds_text(double seconds) {
  std::ostringstream o;
  o << seconds;
  return o.str();
}

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
  // `writer_busy`: whether another session writes the journal (set here when this one is
  // accepted); `closed`: why no session may write any more ("" while one may).
  StreamGate(const std::string& token, JournalRules& rules, bool& writer_busy,
             const std::string& closed)
      : token_(token), rules_(rules), writer_busy_(writer_busy), closed_(closed) {}

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
  [[nodiscard]] std::uint64_t consumed() const { return offset_; }
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
    } else if (!closed_.empty()) {
      reason = "refused: " + closed_;
    } else if (writer_busy_) {
      reason = "refused: another session is writing this journal";
    } else {
      greeted_ = true;
      writer_busy_ = true;
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
  bool& writer_busy_;
  const std::string& closed_;
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
  if (a.host.empty() || a.host == "[]")
    throw UsageError("listener address '" + std::string(text) +
                     "' names no host: give the address to listen on (0.0.0.0" + std::string(text) +
                     " or [::]" + std::string(text) +
                     " for every address of this machine, 127.0.0.1" + std::string(text) +
                     " for this machine only)");
  if (a.host.size() >= 2 && a.host.front() == '[' && a.host.back() == ']')
    a.host = a.host.substr(1, a.host.size() - 2);
  a.port = std::string(text.substr(colon + 1));
  if (a.port.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("listener address '" + std::string(text) + "': the port is not a number");
  return a;
}

namespace {

// A Unix socket file left by a listener that died: nothing answers on it.
bool stale_unix_socket(const ListenAddress& a) {
  struct stat st {};
  if (::lstat(a.path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  sockaddr_un sun;
  const int fd = unix_socket(a, sun);
  if (fd < 0) return false;
  const bool answered = ::connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) == 0;
  const int err = errno;
  ::close(fd);
  return !answered && err == ECONNREFUSED;
}

int listen_unix(const ListenAddress& a) {
  sockaddr_un sun;
  for (int attempt = 0;; ++attempt) {
    const int fd = unix_socket(a, sun);
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) == 0 &&
        ::listen(fd, 16) == 0)
      return fd;
    const int err = errno;
    if (fd >= 0) ::close(fd);
    if (err == EADDRINUSE && attempt == 0 && stale_unix_socket(a)) {
      ::unlink(a.path.c_str());  // a dead listener's socket: nothing listens on it
      continue;
    }
    throw JournalError("listen on unix:" + a.path + ": " + std::strerror(err) +
                       (err == EADDRINUSE ? " (another listener answers on it)" : ""));
  }
}

}  // namespace

int listen_on(const ListenAddress& a) {
  if (a.unix_socket) return listen_unix(a);
  addrinfo* res = resolve(a, true);
  int err = EADDRNOTAVAIL;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    const int one = 1;
    if (fd >= 0 && ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
        ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
      ::freeaddrinfo(res);
      return fd;
    }
    err = errno;
    if (fd >= 0) ::close(fd);
  }
  ::freeaddrinfo(res);
  throw JournalError("listen on " + a.host + ":" + a.port + ": " + std::strerror(err));
}

std::string describe_bound(int fd, const ListenAddress& a) {
  if (a.unix_socket) return "unix:" + a.path;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0 ||
      ::getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return a.host + ":" + a.port;
  const std::string h = host;
  const bool v6 = ss.ss_family == AF_INET6;
  std::string out = (v6 ? "[" + h + "]" : h) + ":" + port;
  if (h == "0.0.0.0") out += " (every IPv4 address of this machine)";
  if (h == "::") out += " (every address of this machine)";
  return out;
}

std::string salvage_journal(const std::string& path, const std::string& out) {
  const std::string bytes = read_journal_bytes_of(path);
  const JournalReading r = read_journal_bytes(bytes);
  if (r.contents.frames == 0)
    throw JournalError("journal " + path + ": no sound header: nothing to salvage");
  const std::string why =
      r.damage ? describe_damage(path, *r.damage)
               : (r.contents.tail_problem.empty() ? std::string("whole")
                                                  : "torn tail: " + r.contents.tail_problem);
  open_journal_file(out)->append(std::string_view(bytes).substr(0, r.contents.valid_bytes));
  return "salvaged " + std::to_string(r.contents.frames) + " whole frames (" +
         std::to_string(r.contents.valid_bytes) + " of " + std::to_string(bytes.size()) +
         " bytes) of " + path + " to " + out + "; " + path + " left as it was (" + why + ")";
}

JournalListener::JournalListener(ListenerOptions options)
    : options_(std::move(options)), chunk_(kReadChunk, '\0') {
  const std::string& path = options_.journal_path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && st.st_size > 0) {
    const std::string bytes = read_journal_bytes_of(path);
    const JournalReading r = read_journal_bytes(bytes);
    const std::string refuse =
        "; the listener never rewrites a journal: give a new --journal, or --salvage OUT to copy "
        "its " +
        std::to_string(r.contents.frames) + " whole frames to OUT";
    if (r.damage) throw JournalError(describe_damage(path, *r.damage) + refuse);
    if (!r.contents.tail_problem.empty())
      throw JournalError("journal " + path + " ends in a torn tail (" + r.contents.tail_problem +
                         "): appending after it would damage it" + refuse);
    rules_ = JournalRules::after(r.contents);
    journal_bytes_ = bytes.size();
  }
  journal_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_DSYNC | O_CLOEXEC, 0644);
  if (journal_fd_ < 0)
    throw JournalError("journal " + path + ": cannot open: " + std::strerror(errno));
}

struct JournalListener::Client {
  Client(int fd_, StreamGate gate_, std::uint64_t now) : fd(fd_), gate(std::move(gate_)) {
    connected_ns = last_byte_ns = now;
  }
  int fd;
  StreamGate gate;
  std::uint64_t connected_ns = 0, last_byte_ns = 0, frame_started_ns = 0;
  SessionOutcome out;
  bool done = false;
};

JournalListener::~JournalListener() {
  for (auto& c : clients_)
    if (!c->done) ::close(c->fd);
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

SessionOutcome JournalListener::serve(int fd) {
  clients_.push_back(std::make_unique<Client>(
      fd, StreamGate(options_.token, rules_, writer_busy_, closed_), monotonic_now_ns()));
  SessionOutcome out;
  run(-1, nullptr, 1, [&](const SessionOutcome& s) { out = s; });
  return out;
}

void JournalListener::run(int server, const std::atomic<bool>* stop, unsigned sessions,
                          const std::function<void(const SessionOutcome&)>& report) {
  unsigned ended = 0;
  std::vector<pollfd> fds;
  while (!(stop && stop->load()) && (sessions == 0 || ended < sessions) &&
         (server >= 0 || !clients_.empty())) {
    fds.clear();
    const bool accepting = server >= 0;
    if (accepting) fds.push_back({server, POLLIN, 0});
    for (const auto& c : clients_) fds.push_back({c->fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), poll_timeout_ms(monotonic_now_ns()));
    if (ready < 0 && errno != EINTR) break;
    const std::uint64_t now = monotonic_now_ns();
    const std::size_t first = accepting ? 1 : 0;
    const std::size_t served = clients_.size();  // those polled; an accepted one waits a turn
    if (accepting && ready > 0 && (fds[0].revents & POLLIN)) accept_client(server, now);
    for (std::size_t i = 0; i < served; ++i) {
      Client& c = *clients_[i];
      if (ready > 0 && (fds[first + i].revents & (POLLIN | POLLHUP | POLLERR))) read_from(c, now);
      if (!c.done) check_deadlines(c, now);
    }
    for (auto it = clients_.begin(); it != clients_.end();) {
      if (!(*it)->done) {
        ++it;
        continue;
      }
      report((*it)->out);
      ++ended;
      it = clients_.erase(it);
    }
  }
}

int JournalListener::poll_timeout_ms(std::uint64_t now) const {
  std::uint64_t next = now + 200'000'000;  // stop is looked at this often
  const auto frame = static_cast<std::uint64_t>(options_.frame_timeout_s * 1e9);
  const auto idle = static_cast<std::uint64_t>(options_.idle_timeout_s * 1e9);
  for (const auto& c : clients_) {
    if (!c->gate.greeted()) next = std::min(next, c->connected_ns + frame);
    if (c->gate.greeted()) next = std::min(next, c->last_byte_ns + idle);
    if (c->frame_started_ns) next = std::min(next, c->frame_started_ns + frame);
  }
  return next <= now ? 0 : static_cast<int>((next - now) / 1'000'000 + 1);
}

void JournalListener::accept_client(int server, std::uint64_t now) {
  const int fd = ::accept4(server, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  if (clients_.size() >= kMaxClients) {
    SessionOutcome out;
    out.reason = "refused: " + std::to_string(kMaxClients) + " clients connected already";
    (void)write_all(fd, reply_frame(false, out.reason));
    ::close(fd);
    return;
  }
  clients_.push_back(
      std::make_unique<Client>(fd, StreamGate(options_.token, rules_, writer_busy_, closed_), now));
}

void JournalListener::read_from(Client& c, std::uint64_t now) {
  const ssize_t n = ::recv(c.fd, chunk_.data(), chunk_.size(), MSG_DONTWAIT);
  if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n <= 0) {
    end(c,
        n == 0 ? "client closed the stream"
               : std::string("client vanished: ") + std::strerror(errno),
        false);
    return;
  }
  c.last_byte_ns = now;
  const std::uint64_t before = c.gate.consumed();
  const bool pending_before = c.gate.pending() > 0;
  std::string keep, reply, reason;
  const bool go_on = c.gate.feed(std::string_view(chunk_.data(), static_cast<std::size_t>(n)), keep,
                                 reply, reason);
  if (!keep.empty() && !this->keep(keep, c.out)) {
    end(c, c.out.reason, true);
    return;
  }
  if (!reply.empty() && !write_all(c.fd, reply) && reason.empty())
    reason = "client vanished before the reply";
  if (!go_on || !reason.empty()) {
    end(c, reason, true);
    return;
  }
  // The frame now begun started with this read, unless the last one was still being waited for.
  if (c.gate.pending() == 0)
    c.frame_started_ns = 0;
  else if (!pending_before || c.gate.consumed() != before)
    c.frame_started_ns = now;
}

void JournalListener::check_deadlines(Client& c, std::uint64_t now) {
  const auto frame = static_cast<std::uint64_t>(options_.frame_timeout_s * 1e9);
  const auto idle = static_cast<std::uint64_t>(options_.idle_timeout_s * 1e9);
  const std::string secs = seconds_text(options_.frame_timeout_s);
  if (!c.gate.greeted() && now - c.connected_ns >= frame)
    end(c, "no whole hello within " + secs + " s of connecting: dropped", false);
  else if (c.frame_started_ns && now - c.frame_started_ns >= frame)
    end(c,
        "a frame not whole within " + secs + " s of its first byte (a trickling client): dropped",
        false);
  else if (c.gate.greeted() && now - c.last_byte_ns >= idle)
    end(c,
        "client silent for " + seconds_text(options_.idle_timeout_s) +
            " s: taken as gone (its power cut?)",
        false);
}

void JournalListener::end(Client& c, std::string reason, bool refused) {
  SessionOutcome& out = c.out;
  out.reason = std::move(reason);
  out.accepted = c.gate.greeted();
  out.ended = c.gate.ended();
  out.frames = c.gate.frames();
  out.dropped_bytes = refused ? 0 : c.gate.pending();
  if (out.dropped_bytes)
    out.reason += "; a partial entry of " + std::to_string(out.dropped_bytes) + " bytes dropped";
  if (out.accepted) writer_busy_ = false;
  ::close(c.fd);
  c.done = true;
}

bool JournalListener::keep(std::string_view frames, SessionOutcome& out) {
  if (journal_bytes_ + frames.size() > options_.max_bytes) {
    closed_ = "journal full: " + std::to_string(options_.max_bytes) +
              " bytes (--max-bytes); the rest refused";
    out.reason = closed_;
    return false;
  }
  if (!write_file(journal_fd_, frames)) {
    closed_ = "journal " + options_.journal_path + ": write failed: " + std::strerror(errno);
    out.reason = closed_;
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
                                    std::string& reason, std::string* kept) {
  JournalRules rules(false);
  bool busy = false;
  const std::string open;
  StreamGate gate(token, rules, busy, open);
  std::string keep, reply;
  // Fed in reads of the listener's size, as serve() would receive them.
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kReadChunk);
    const bool go_on = gate.feed(bytes.substr(0, n), keep, reply, reason);
    if (kept) kept->append(keep);
    keep.clear();
    if (!go_on) break;
    bytes.remove_prefix(n);
  }
  if (reason.empty() && gate.pending())
    reason = "a partial entry of " + std::to_string(gate.pending()) + " bytes dropped";
  return gate.frames();
}

}  // namespace storqual::runner
