// SPDX-License-Identifier: Apache-2.0
// `storqual powercut listen` (docs/power-cut.md, "The listener"): a network service that keeps the
// journal of a power-cut run on another machine, and arm's client of it.
//
// Protocol (the journal's frames, runner/measure/powercut_journal.hpp, over a stream):
//   client -> Hello{version 1, token}; listener -> Reply{accepted, reason}, and on refusal closes.
//   client -> Header, then Write / Flush entries, then End; no replies (the journal is a lower
//   bound of what the drive acknowledged: an entry lost on the way only asks less of the drive).
// The listener accepts only the run's token (compared in constant time), takes only whole frames
// whose checksum matches and whose type belongs in a journal, the first of a new journal a Header,
// a later Header only of the same run; each batch of whole frames from one read is written with
// one write() to its journal (O_APPEND | O_DSYNC), so the file holds whole frames only. A bad
// frame ends the session with the reason named; a client that vanishes (EOF, a reset, or silent
// for `idle_timeout_s`: its machine lost power) ends it too, its partial frame dropped and
// counted. Bounds: memory, one frame plus one read (2 x (kMaxJournalFrame + 8) bytes); disk,
// `max_bytes` of journal (the session ends "journal full"). An existing journal is reopened: its
// torn tail (from a crash of the listener itself) is cut off and named.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "runner/measure/powercut_journal.hpp"

namespace storqual::runner {

// "unix:/path" or "HOST:PORT" (an IPv4 or IPv6 literal or a name; "[::1]:9000"). Throws UsageError.
struct ListenAddress {
  bool unix_socket = false;
  std::string path;  // unix
  std::string host;
  std::string port;
};
[[nodiscard]] ListenAddress parse_listen_address(std::string_view text);
// A bound, listening socket; throws JournalError naming the address.
[[nodiscard]] int listen_on(const ListenAddress& address);

struct ListenerOptions {
  std::string token;
  std::string journal_path;
  std::uint64_t max_bytes = 1ull << 30;
  double idle_timeout_s = 10;
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
  // Opens (or creates) the journal; throws JournalError when it cannot, or when the existing file
  // is not a journal.
  explicit JournalListener(ListenerOptions options);
  ~JournalListener();
  JournalListener(const JournalListener&) = delete;
  JournalListener& operator=(const JournalListener&) = delete;

  // Serves one connected client until it ends; never throws for what the client does. Closes fd.
  SessionOutcome serve(int fd);
  [[nodiscard]] std::string recovery_note() const { return recovery_note_; }

 private:
  bool keep(std::string_view frames, SessionOutcome& out);
  ListenerOptions options_;
  int journal_fd_ = -1;
  std::uint64_t journal_bytes_ = 0;
  JournalRules rules_{false};  // where the journal's frames stand
  std::string recovery_note_;
};

// arm's sink: connects, says hello with `token`, and throws JournalError with the listener's
// reason when refused.
[[nodiscard]] std::unique_ptr<JournalSink> connect_journal_listener(const std::string& address,
                                                                    const std::string& token);

// Whether a stream of bytes from a client would be accepted, frame by frame (the fuzz target's
// entry: the same checks as serve() without a socket). Returns the frames accepted.
[[nodiscard]] std::uint64_t accept_journal_stream(std::string_view bytes, const std::string& token,
                                                  std::string& reason);

}  // namespace storqual::runner
