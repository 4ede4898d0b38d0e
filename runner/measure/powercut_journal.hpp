// SPDX-License-Identifier: Apache-2.0
// The journal of a power-cut run (docs/power-cut.md, "The journal"): what the drive acknowledged,
// kept off the device under test, as a sequence of frames. The same frames travel to
// `storqual powercut listen` over a stream and are kept in its file.
//
// Frame (little-endian): u32 payload length (1..kMaxJournalFrame), u32 XXH32 of the payload (seed
// 0), payload. The payload's first byte is its type:
//   Header 1: u32 version (1), u64 run id, u64 region offset, u64 region size, u32 atomic unit,
//             u64 start (realtime ns), u16 length + the target's path
//   Write  2: u64 record id, u64 offset, u32 length, u8 fua, u64 flush epoch at issue,
//             u64 next record id at completion, u64 completion time (realtime ns)
//   Flush  3: u64 epoch (this flush's number, 1-based), u64 next record id at completion,
//             u64 completion time
//   End    4: u64 requests acknowledged (a run that ended without a cut)
//   Shutdowns 5: u8 readable, u64 unsafe-shutdown count, u8 has OCP, u64 OCP incomplete
//             shutdowns, u16 length + the counter's source (readable) or why it is not
//             (the drive's count before arm's first write; at most one, after the header)
//   Hello 16: u32 protocol version (1), u16 length + token      (listener protocol only)
//   Reply 17: u8 accepted, u16 length + reason                   (listener protocol only)
// A Write entry is appended only after the drive completed the write; a Flush entry only after the
// flush completed, and `arm` drains every write before it flushes, so a flush with epoch E covers
// every write whose epoch is below E. "Next record id" is the barrier: every request with a lower
// id was issued before that completion, every one with this id or higher after it.
//
// Reading: frames are taken in order until the bytes end; a frame that is cut short or whose
// checksum or contents do not match ends the journal there (a torn tail: the entries before it are
// kept, the reason is named in JournalContents::tail_problem, nothing after it is trusted).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"

namespace storqual::runner {

inline constexpr std::uint32_t kMaxJournalFrame = 4096;
inline constexpr std::uint32_t kJournalVersion = 1;

enum class JournalEntryType : std::uint8_t {
  Header = 1,
  Write = 2,
  Flush = 3,
  End = 4,
  Shutdowns = 5,
  Hello = 16,
  Reply = 17
};

struct JournalHeader {
  std::uint64_t run_id = 0;
  std::uint64_t region_offset = 0, region_size = 0;
  std::uint32_t atomic_unit = 4096;
  std::uint64_t start_ns = 0;
  std::string target;
};

struct JournalWrite {
  std::uint64_t record_id = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  bool fua = false;
  std::uint64_t epoch = 0;
  std::uint64_t next_record_id = 0;
  std::uint64_t completed_ns = 0;
};

struct JournalFlush {
  std::uint64_t epoch = 0;
  std::uint64_t next_record_id = 0;
  std::uint64_t completed_ns = 0;
};

// The drive's unsafe-shutdown count as arm read it before its first write (devices/health.hpp
// unsafe_shutdown_count).
struct JournalShutdowns {
  bool readable = false;
  std::uint64_t count = 0;
  bool has_ocp = false;
  std::uint64_t ocp_incomplete = 0;
  std::string source;  // "nvme:smart-log", "ata:192", ...; why not, when not readable
};

struct JournalEntry {
  JournalEntryType type = JournalEntryType::End;
  JournalHeader header{};
  JournalWrite write{};
  JournalFlush flush{};
  JournalShutdowns shutdowns{};
  std::uint64_t end_requests = 0;
  std::uint32_t version = kJournalVersion;  // Hello
  std::string text{};                       // Hello: the token; Reply: the reason
  bool accepted = false;                    // Reply
};

class JournalError : public Error {
 public:
  explicit JournalError(const std::string& what) : Error(what, kExitUsage) {}
};

// One frame, ready to append or send.
[[nodiscard]] std::string encode_journal_frame(const JournalEntry& entry);

enum class FrameStatus : std::uint8_t { Complete, NeedMore, Bad };
struct FrameParse {
  FrameStatus status = FrameStatus::NeedMore;
  std::size_t consumed = 0;  // bytes of the frame when Complete
  JournalEntry entry{};
  std::string problem{};  // why Bad
};
// Decodes the frame at the start of `bytes`.
[[nodiscard]] FrameParse parse_journal_frame(std::string_view bytes);

struct JournalContents {
  JournalHeader header{};
  std::vector<JournalWrite> writes{};
  std::vector<JournalFlush> flushes{};
  bool ended = false;  // an End entry: the run finished without a cut
  std::optional<JournalShutdowns> shutdowns_before{};  // none: arm could not say (older journal)
  std::uint64_t valid_bytes = 0;                       // bytes of whole, sound frames
  std::uint64_t total_bytes = 0;
  std::string tail_problem{};  // "" when the journal ends on a frame boundary
};

// Parses a journal's bytes. Throws JournalError naming `name` when it does not start with a sound
// Header entry, or an entry is of a type a journal does not hold. A torn tail is recovered.
[[nodiscard]] JournalContents parse_journal(std::string_view bytes, const std::string& name);
[[nodiscard]] JournalContents read_journal_file(const std::string& path);

// Where arm's journal goes. append() takes whole frames and returns once they are kept (a file:
// written with O_DSYNC; a listener: sent); throws JournalError when it cannot.
class JournalSink {
 public:
  virtual ~JournalSink() = default;
  virtual void append(std::string_view frames) = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
};

// A new file (refused when it exists), opened O_APPEND | O_DSYNC; each append() is one write().
[[nodiscard]] std::unique_ptr<JournalSink> open_journal_file(const std::string& path);

}  // namespace storqual::runner
