// SPDX-License-Identifier: Apache-2.0
// The journal of a power-cut run (docs/power-cut.md, "The journal"): what the drive acknowledged,
// kept off the device under test, as a sequence of frames. The same frames travel to
// `storqual powercut listen` over a stream and are kept in its file.
//
// Frame (little-endian): u32 payload length (1..kMaxJournalFrame), u32 XXH32 of the payload (seed
// 0), payload. The payload's first byte is its type; every journal entry then carries its
// sequence number (u64: the Header is frame 0, each later frame the next number), the Header
// after its version, so that a journal of another version is named before anything else is read:
//   Header 1: u32 version (2), u64 sequence (0), u64 run id, u64 region offset, u64 region size,
//             u32 atomic unit, u64 start (realtime ns), u16 length + the target's path
//   Write  2: u64 sequence, u64 record id, u64 offset, u32 length, u8 fua, u64 flush epoch at
//             issue, u64 next record id at completion, u64 completion time (realtime ns)
//   Flush  3: u64 sequence, u64 epoch (this flush's number, 1-based, one more than the last),
//             u64 next record id at completion, u64 completion time
//   End    4: u64 sequence, u64 requests acknowledged (a run that ended without a cut; last)
//   Shutdowns 5: u64 sequence, u8 readable, u64 unsafe-shutdown count, u8 has OCP, u64 OCP
//             incomplete shutdowns, u16 length + the counter's source (readable) or why it is
//             not (the drive's count before arm's first write; at most one, after the header)
//   Hello 16: u32 protocol version (2), u16 length + token      (listener protocol only)
//   Reply 17: u8 accepted, u16 length + reason                   (listener protocol only)
// Version 1 (before sequence numbers) is refused by name: without them a dropped, repeated or
// damaged frame in the middle cannot be told from a torn tail, so such a journal is no evidence.
// A Write entry is appended only after the drive completed the write; a Flush entry only after the
// flush completed, and `arm` drains every write before it flushes, so a flush with epoch E covers
// every write whose epoch is below E. "Next record id" is the barrier: every request with a lower
// id was issued before that completion, every one with this id or higher after it.
//
// Reading: a journal is whole or it is not evidence. Frames are taken in order until the bytes
// end. Only the last frame may be torn (cut short, its checksum wrong where its length reaches the
// end exactly, or zeros to the end): a torn tail, named in JournalContents::tail_problem, the
// entries before it kept (a lower bound: an entry that never landed asks less of the drive). Any
// other bad frame, a sequence number out of order (a gap or a repeat), an entry where it cannot be
// (a second header, an entry after End, a flush epoch out of turn, a record id twice) or with
// impossible values (a write outside the region or not aligned to its atomic unit, an atomic unit
// that is not a power-of-two multiple of 512 bytes): the journal is damaged, JournalError names
// the file, the byte and the frame, and nothing of it is judged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/errors.hpp"

namespace storqual::runner {

inline constexpr std::uint32_t kMaxJournalFrame = 4096;
inline constexpr std::uint32_t kJournalVersion = 2;
inline constexpr std::uint32_t kListenerProtocol = 2;

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
  std::uint64_t sequence = 0;  // a journal entry's frame number (not in Hello and Reply)
  JournalHeader header{};
  JournalWrite write{};
  JournalFlush flush{};
  JournalShutdowns shutdowns{};
  std::uint64_t end_requests = 0;
  std::uint32_t version = kListenerProtocol;  // Hello
  std::string text{};                         // Hello: the token; Reply: the reason
  bool accepted = false;                      // Reply
};

class JournalError : public Error {
 public:
  explicit JournalError(const std::string& what) : Error(what, kExitUsage) {}
};

// One frame, ready to append or send (`entry.sequence` as given).
[[nodiscard]] std::string encode_journal_frame(const JournalEntry& entry);

// A writer's frame numbers: each frame() takes the next sequence number, from 0 (the Header).
class JournalSequence {
 public:
  [[nodiscard]] std::string frame(JournalEntry entry) {
    entry.sequence = next_++;
    return encode_journal_frame(entry);
  }
  [[nodiscard]] std::uint64_t next() const noexcept { return next_; }

 private:
  std::uint64_t next_ = 0;
};

enum class FrameStatus : std::uint8_t { Complete, NeedMore, Bad };
// Why a frame is Bad: its length field, its checksum, or its contents (checksum right).
enum class FrameFault : std::uint8_t { None, Length, Checksum, Contents };
struct FrameParse {
  FrameStatus status = FrameStatus::NeedMore;
  FrameFault fault = FrameFault::None;
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
  std::uint64_t frames = 0;                            // whole, sound frames
  std::uint64_t valid_bytes = 0;                       // their bytes
  std::uint64_t total_bytes = 0;
  std::string tail_problem{};  // "" when the journal ends on a frame boundary
};

// The order and values a journal's entries must have (the reader's and the listener's rules,
// shared). take() returns "" when the entry belongs as the next frame, else why not (and takes
// nothing). With `keep_entries` false only the header and counters are kept (the listener's
// bounded memory; a record id twice is then not looked for).
class JournalRules {
 public:
  explicit JournalRules(bool keep_entries = true) : keep_entries_(keep_entries) {}
  // The rules where a whole journal's `contents` end, without its entries (a listener reopening
  // its journal: the next frame must follow them).
  [[nodiscard]] static JournalRules after(const JournalContents& contents);
  [[nodiscard]] std::string take(const JournalEntry& entry);
  [[nodiscard]] bool has_header() const noexcept { return contents_.frames > 0; }
  [[nodiscard]] const JournalContents& contents() const noexcept { return contents_; }
  [[nodiscard]] JournalContents release() { return std::move(contents_); }

 private:
  [[nodiscard]] std::string take_header(const JournalEntry& entry);
  [[nodiscard]] std::string take_write(const JournalWrite& write);
  bool keep_entries_;
  JournalContents contents_{};
  std::uint64_t last_epoch_ = 0;
  std::unordered_set<std::uint64_t> record_ids_{};
};

// Where a journal is damaged (JournalReading::damage), or nothing.
struct JournalDamage {
  std::uint64_t byte = 0, frame = 0;
  std::string problem;
};
struct JournalReading {
  JournalContents contents{};  // the whole frames before the damage, when damaged
  std::optional<JournalDamage> damage{};
};
// Reads a journal's bytes without throwing: its contents, a torn tail recovered, or where it is
// damaged.
[[nodiscard]] JournalReading read_journal_bytes(std::string_view bytes);
// "journal NAME is damaged at byte B (frame F): PROBLEM; nothing of it is judged".
[[nodiscard]] std::string describe_damage(const std::string& name, const JournalDamage& damage);

// Parses a journal's bytes. Throws JournalError naming `name`, the byte and the frame when it is
// damaged or holds no header; a torn tail is recovered.
[[nodiscard]] JournalContents parse_journal(std::string_view bytes, const std::string& name);
[[nodiscard]] JournalContents read_journal_file(const std::string& path);
// The file's bytes; throws JournalError naming it when it cannot be read.
[[nodiscard]] std::string read_journal_bytes_of(const std::string& path);

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
