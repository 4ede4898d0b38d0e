// SPDX-License-Identifier: Apache-2.0
// `storqual powercut listen` (docs/power-cut.md, "The listener"): a network service that keeps the
// journal of a power-cut run on another machine, and arm's client of it.
//
// Protocol (the journal's frames, runner/measure/powercut_journal.hpp, over a stream):
//   client -> Hello{version 2, token}; listener -> Reply{accepted, reason}, and on refusal closes.
//   client -> Header, then Write / Flush entries, then End, each with its sequence number; no
//   replies (the journal is a lower bound of what the drive acknowledged: an entry lost on the way
//   only asks less of the drive).
// The listener serves every connected client at once (one poll() loop, at most kMaxClients): a
// client that trickles or stalls holds up no other. It accepts only the run's token (compared in
// constant time) and only one session writing the journal at a time (another hello with the token
// is refused while one is); takes only whole frames whose checksum matches and that obey the
// journal's rules (JournalRules: sequence numbers in turn, so a replayed or missing frame is
// refused), the first of a new journal a Header; a later session of the journal's run begins with
// that Header again (checked, not kept twice) and goes on at the journal's next sequence number.
// Each batch of whole frames from one read is written with one write() to its journal
// (O_APPEND | O_DSYNC), so the file holds whole frames only. A bad frame ends the session with the
// reason named; so does a client that vanishes (EOF, a reset), falls silent for `idle_timeout_s`
// (its machine lost power), does not finish its hello or any frame within `frame_timeout_s` of its
// first byte (a trickling client), its partial frame dropped and counted. Bounds: memory, one
// frame plus one read per client (kMaxClients x 2 x (kMaxJournalFrame + 8) bytes); disk,
// `max_bytes` of journal (then "journal full": the session ends and every later one is refused).
// The journal is never truncated or rewritten: an existing one must be whole (a torn tail or any
// damage refuses the listener, naming it; salvage_journal copies its whole frames to a new file).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runner/measure/powercut_journal.hpp"

namespace storqual::runner {

// "unix:/path" or "HOST:PORT" (an IPv4 or IPv6 literal or a name; "[::1]:9000"). Throws UsageError,
// also for ":PORT" (no host: say 0.0.0.0 or [::] to listen on every address).
struct ListenAddress {
  bool unix_socket = false;
  std::string path;  // unix
  std::string host;
  std::string port;
};
[[nodiscard]] ListenAddress parse_listen_address(std::string_view text);
// A bound, listening socket; throws JournalError naming the address. A Unix socket file that no
// process listens on (a listener that died) is replaced; one that answers is refused.
[[nodiscard]] int listen_on(const ListenAddress& address);
// Where a listening socket is bound, in words ("127.0.0.1:9000", "0.0.0.0:9000 (every IPv4
// address of this machine)", "unix:/run/j.sock").
[[nodiscard]] std::string describe_bound(int fd, const ListenAddress& address);

struct ListenerOptions {
  std::string token;
  std::string journal_path;
  std::uint64_t max_bytes = 1ull << 30;
  double idle_timeout_s = 10;
  double frame_timeout_s = 5;  // a hello or frame begun must be whole this soon
};

struct SessionOutcome {
  bool accepted = false;            // the token was right
  std::string reason;               // how the session ended, in words
  std::uint64_t frames = 0;         // journal entries kept
  std::uint64_t dropped_bytes = 0;  // of a partial frame at the end
  bool ended = false;               // the client sent End
};

class JournalListener {
 public:
  static constexpr std::size_t kMaxClients = 16;
  // Opens (or creates) the journal; throws JournalError naming it when it cannot, when the
  // existing file is not a journal, or is not whole (damaged, or a torn tail): it is never
  // rewritten.
  explicit JournalListener(ListenerOptions options);
  ~JournalListener();
  JournalListener(const JournalListener&) = delete;
  JournalListener& operator=(const JournalListener&) = delete;

  // Serves one connected client until it ends; never throws for what the client does. Closes fd.
  SessionOutcome serve(int fd);
  // Accepts clients on `server` and serves them all at once until `stop` is set or `sessions`
  // sessions ended (0: no bound); `report` hears each session's end. Never throws for a client.
  void run(int server, const std::atomic<bool>* stop, unsigned sessions,
           const std::function<void(const SessionOutcome&)>& report);

 private:
  struct Client;
  void accept_client(int server, std::uint64_t now_ns);
  void read_from(Client& client, std::uint64_t now_ns);
  void check_deadlines(Client& client, std::uint64_t now_ns);
  void end(Client& client, std::string reason, bool refused);
  [[nodiscard]] int poll_timeout_ms(std::uint64_t now_ns) const;
  bool keep(std::string_view frames, SessionOutcome& out);
  ListenerOptions options_;
  int journal_fd_ = -1;
  std::uint64_t journal_bytes_ = 0;
  JournalRules rules_{false};  // where the journal's frames stand
  bool writer_busy_ = false;   // a session with the token is writing the journal
  std::string closed_;         // why no session may write any more (journal full, a write failed)
  std::vector<std::unique_ptr<Client>> clients_;
  std::string chunk_;
};

// Copies the whole frames of journal `path` before its damage or torn tail to `out` (a new file,
// never overwritten); `path` is left as it is. Returns what was copied, in words; throws
// JournalError when `path` holds no sound header or `out` cannot be created.
std::string salvage_journal(const std::string& path, const std::string& out);

// arm's sink: connects, says hello with `token`, and throws JournalError with the listener's
// reason when refused.
[[nodiscard]] std::unique_ptr<JournalSink> connect_journal_listener(const std::string& address,
                                                                    const std::string& token);

// Whether a stream of bytes from a client would be accepted, frame by frame (the fuzz target's
// entry: the same checks as serve() without a socket). Returns the frames accepted; `kept`, when
// given, receives the bytes the listener would have written to a new journal.
[[nodiscard]] std::uint64_t accept_journal_stream(std::string_view bytes, const std::string& token,
                                                  std::string& reason, std::string* kept = nullptr);

}  // namespace storqual::runner
