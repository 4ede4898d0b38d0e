// SPDX-License-Identifier: Apache-2.0
// The power-cut journal's frames, its reader (whole, a torn tail recovered, or damaged) and its
// file sink.
#include "runner/measure/powercut_journal.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace storqual::runner {

namespace {

class Writer {
 public:
  template <typename T>
  void num(T v) {
    char b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    out_.append(b, sizeof v);
  }
  void text(std::string_view s) {
    num(static_cast<std::uint16_t>(s.size()));
    out_.append(s);
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T num() {
    T v{};
    if (in_.size() - at_ < sizeof v) {
      short_ = true;
      return v;
    }
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string text() {
    const auto n = num<std::uint16_t>();
    if (short_ || in_.size() - at_ < n) {
      short_ = true;
      return {};
    }
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  [[nodiscard]] bool sound() const { return !short_ && at_ == in_.size(); }
  [[nodiscard]] bool short_read() const { return short_; }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
  bool short_ = false;
};

std::string encode_payload(const JournalEntry& e) {
  Writer w;
  w.num(static_cast<std::uint8_t>(e.type));
  const bool journal_entry = e.type != JournalEntryType::Hello && e.type != JournalEntryType::Reply;
  if (e.type == JournalEntryType::Header) w.num(kJournalVersion);
  if (journal_entry) w.num(e.sequence);
  switch (e.type) {
    case JournalEntryType::Header:
      w.num(e.header.run_id);
      w.num(e.header.region_offset);
      w.num(e.header.region_size);
      w.num(e.header.atomic_unit);
      w.num(e.header.start_ns);
      w.text(e.header.target);
      break;
    case JournalEntryType::Write:
      w.num(e.write.record_id);
      w.num(e.write.offset);
      w.num(e.write.length);
      w.num(static_cast<std::uint8_t>(e.write.fua ? 1 : 0));
      w.num(e.write.epoch);
      w.num(e.write.next_record_id);
      w.num(e.write.completed_ns);
      break;
    case JournalEntryType::Flush:
      w.num(e.flush.epoch);
      w.num(e.flush.next_record_id);
      w.num(e.flush.completed_ns);
      break;
    case JournalEntryType::End:
      w.num(e.end_requests);
      break;
    case JournalEntryType::Shutdowns:
      w.num(static_cast<std::uint8_t>(e.shutdowns.readable ? 1 : 0));
      w.num(e.shutdowns.count);
      w.num(static_cast<std::uint8_t>(e.shutdowns.has_ocp ? 1 : 0));
      w.num(e.shutdowns.ocp_incomplete);
      w.text(e.shutdowns.source);
      break;
    case JournalEntryType::Hello:
      w.num(e.version);
      w.text(e.text);
      break;
    case JournalEntryType::Reply:
      w.num(static_cast<std::uint8_t>(e.accepted ? 1 : 0));
      w.text(e.text);
      break;
  }
  return std::move(w.out_);
}

// The payload's fields; false when they do not fill it exactly or a value is impossible.
bool decode_payload(std::string_view payload, JournalEntry& e, std::string& problem) {
  Reader r(payload.substr(1));
  e.type = static_cast<JournalEntryType>(payload[0]);
  if (e.type == JournalEntryType::Header) {
    e.version = r.num<std::uint32_t>();
    if (!r.short_read() && e.version != kJournalVersion) {
      problem = "journal version " + std::to_string(e.version) + ", this storqual reads " +
                std::to_string(kJournalVersion) +
                (e.version == 1 ? " (version 1 frames carry no sequence numbers: a frame dropped "
                                  "or repeated inside it cannot be found, so it is no evidence; "
                                  "check it with the storqual that wrote it)"
                                : "");
      return false;
    }
  }
  const auto type_number = static_cast<unsigned>(static_cast<unsigned char>(payload[0]));
  if ((type_number >= 1 && type_number <= 5)) e.sequence = r.num<std::uint64_t>();
  switch (e.type) {
    case JournalEntryType::Header:
      e.header.run_id = r.num<std::uint64_t>();
      e.header.region_offset = r.num<std::uint64_t>();
      e.header.region_size = r.num<std::uint64_t>();
      e.header.atomic_unit = r.num<std::uint32_t>();
      e.header.start_ns = r.num<std::uint64_t>();
      e.header.target = r.text();
      break;
    case JournalEntryType::Write: {
      e.write.record_id = r.num<std::uint64_t>();
      e.write.offset = r.num<std::uint64_t>();
      e.write.length = r.num<std::uint32_t>();
      const auto fua = r.num<std::uint8_t>();
      e.write.fua = fua == 1;
      e.write.epoch = r.num<std::uint64_t>();
      e.write.next_record_id = r.num<std::uint64_t>();
      e.write.completed_ns = r.num<std::uint64_t>();
      if (r.sound() && (fua > 1 || e.write.length == 0 || e.write.length % 512 != 0 ||
                        e.write.offset % 512 != 0 || e.write.length > (65535u * 512u) ||
                        e.write.next_record_id <= e.write.record_id)) {
        problem = "a write entry with impossible values";
        return false;
      }
      break;
    }
    case JournalEntryType::Flush:
      e.flush.epoch = r.num<std::uint64_t>();
      e.flush.next_record_id = r.num<std::uint64_t>();
      e.flush.completed_ns = r.num<std::uint64_t>();
      break;
    case JournalEntryType::End:
      e.end_requests = r.num<std::uint64_t>();
      break;
    case JournalEntryType::Shutdowns: {
      const auto readable = r.num<std::uint8_t>();
      e.shutdowns.count = r.num<std::uint64_t>();
      const auto ocp = r.num<std::uint8_t>();
      e.shutdowns.ocp_incomplete = r.num<std::uint64_t>();
      e.shutdowns.source = r.text();
      e.shutdowns.readable = readable == 1;
      e.shutdowns.has_ocp = ocp == 1;
      if (r.sound() && (readable > 1 || ocp > 1)) {
        problem = "a shutdowns entry with impossible values";
        return false;
      }
      break;
    }
    case JournalEntryType::Hello:
      e.version = r.num<std::uint32_t>();
      e.text = r.text();
      break;
    case JournalEntryType::Reply: {
      const auto ok = r.num<std::uint8_t>();
      e.accepted = ok == 1;
      e.text = r.text();
      break;
    }
    default:
      problem = "unknown entry type " + std::to_string(static_cast<unsigned>(payload[0]) & 0xff);
      return false;
  }
  if (!r.sound()) {
    problem = "entry of type " + std::to_string(static_cast<unsigned>(e.type)) +
              " does not fill its frame";
    return false;
  }
  return true;
}

}  // namespace

std::string encode_journal_frame(const JournalEntry& entry) {
  const std::string payload = encode_payload(entry);
  Writer w;
  w.num(static_cast<std::uint32_t>(payload.size()));
  w.num(static_cast<std::uint32_t>(XXH32(payload.data(), payload.size(), 0)));
  w.out_ += payload;
  return std::move(w.out_);
}

FrameParse parse_journal_frame(std::string_view bytes) {
  FrameParse p;
  if (bytes.size() < 8) return p;
  std::uint32_t length = 0, sum = 0;
  std::memcpy(&length, bytes.data(), 4);
  std::memcpy(&sum, bytes.data() + 4, 4);
  if (length == 0 || length > kMaxJournalFrame) {
    p.status = FrameStatus::Bad;
    p.fault = FrameFault::Length;
    p.problem = "frame length " + std::to_string(length) + " outside 1.." +
                std::to_string(kMaxJournalFrame);
    return p;
  }
  if (bytes.size() - 8 < length) return p;
  const std::string_view payload = bytes.substr(8, length);
  if (XXH32(payload.data(), payload.size(), 0) != sum) {
    p.status = FrameStatus::Bad;
    p.fault = FrameFault::Checksum;
    p.problem = "frame checksum does not match";
    return p;
  }
  if (!decode_payload(payload, p.entry, p.problem)) {
    p.status = FrameStatus::Bad;
    p.fault = FrameFault::Contents;
    return p;
  }
  p.status = FrameStatus::Complete;
  p.consumed = 8 + length;
  return p;
}

namespace {

std::string sequence_problem(std::uint64_t got, std::uint64_t want) {
  if (got < want)
    return "sequence number " + std::to_string(got) + " where " + std::to_string(want) +
           " was due: a frame repeated (replayed)";
  return "sequence number " + std::to_string(got) + " where " + std::to_string(want) +
         " was due: a gap (" + std::to_string(got - want) + " frames missing)";
}

bool power_of_two(std::uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

// Whether a bad frame at `at` can be the torn tail: the bytes end inside it, or its length
// reaches the end exactly with its checksum wrong, or only zeros follow (a file extended, its
// data never written).
bool torn_tail(std::string_view bytes, std::size_t at, const FrameParse& p) {
  if (p.status == FrameStatus::NeedMore) return true;
  const std::string_view rest = bytes.substr(at);
  if (rest.find_first_not_of('\0') == std::string_view::npos) return true;
  if (p.fault != FrameFault::Checksum) return false;
  std::uint32_t length = 0;
  std::memcpy(&length, rest.data(), 4);
  return rest.size() == 8ull + length;
}

}  // namespace

JournalRules JournalRules::after(const JournalContents& c) {
  JournalRules r(false);
  r.contents_.header = c.header;
  r.contents_.frames = c.frames;
  r.contents_.ended = c.ended;
  r.contents_.shutdowns_before = c.shutdowns_before;
  r.last_epoch_ = c.flushes.empty() ? 0 : c.flushes.back().epoch;
  return r;
}

std::string JournalRules::take_header(const JournalEntry& e) {
  const JournalHeader& h = e.header;
  if (has_header()) return "a second header (a journal holds one run's one stream)";
  if (h.atomic_unit < 512 || h.atomic_unit % 512 != 0 || !power_of_two(h.atomic_unit / 512) ||
      h.atomic_unit > (64u << 20))
    return "atomic unit " + std::to_string(h.atomic_unit) +
           " bytes: not a power-of-two multiple of 512 up to 64 MiB";
  if (h.region_size < h.atomic_unit || h.region_offset % h.atomic_unit != 0 ||
      h.region_offset + h.region_size < h.region_offset)
    return "region [" + std::to_string(h.region_offset) + ", +" + std::to_string(h.region_size) +
           ") impossible for atomic unit " + std::to_string(h.atomic_unit);
  contents_.header = h;
  return {};
}

std::string JournalRules::take_write(const JournalWrite& w) {
  const JournalHeader& h = contents_.header;
  const std::uint64_t end = h.region_offset + h.region_size;
  if (w.offset < h.region_offset || w.offset > end || end - w.offset < w.length)
    return "a write at [" + std::to_string(w.offset) + ", +" + std::to_string(w.length) +
           ") outside the region [" + std::to_string(h.region_offset) + ", +" +
           std::to_string(h.region_size) + ")";
  if (w.offset % h.atomic_unit != 0 || w.length % h.atomic_unit != 0)
    return "a write at [" + std::to_string(w.offset) + ", +" + std::to_string(w.length) +
           ") not aligned to the atomic unit " + std::to_string(h.atomic_unit);
  if (w.epoch > last_epoch_)
    return "a write of flush epoch " + std::to_string(w.epoch) + " before flush " +
           std::to_string(last_epoch_ + 1) + " completed";
  if (keep_entries_) {
    if (!record_ids_.insert(w.record_id).second)
      return "record id " + std::to_string(w.record_id) + " acknowledged twice";
    contents_.writes.push_back(w);
  }
  return {};
}

std::string JournalRules::take(const JournalEntry& e) {
  const std::uint64_t n = contents_.frames;
  if (n == 0 && e.type != JournalEntryType::Header) return "the first frame is not a header";
  if (e.type == JournalEntryType::Hello || e.type == JournalEntryType::Reply)
    return "a listener protocol frame inside the journal";
  if (e.sequence != n) return sequence_problem(e.sequence, n);
  if (contents_.ended) return "an entry after the End entry";
  std::string problem;
  switch (e.type) {
    case JournalEntryType::Header:
      problem = take_header(e);
      break;
    case JournalEntryType::Write:
      problem = take_write(e.write);
      break;
    case JournalEntryType::Flush:
      if (e.flush.epoch != last_epoch_ + 1)
        return "flush epoch " + std::to_string(e.flush.epoch) + " where " +
               std::to_string(last_epoch_ + 1) + " was due";
      last_epoch_ = e.flush.epoch;
      if (keep_entries_) contents_.flushes.push_back(e.flush);
      break;
    case JournalEntryType::End:
      contents_.ended = true;
      break;
    case JournalEntryType::Shutdowns:
      if (contents_.shutdowns_before || n != 1) return "a shutdowns entry after the run began";
      contents_.shutdowns_before = e.shutdowns;
      break;
    default:
      return "an entry of a type a journal does not hold";
  }
  if (problem.empty()) ++contents_.frames;
  return problem;
}

JournalReading read_journal_bytes(std::string_view bytes) {
  JournalReading out;
  JournalRules rules;
  std::size_t at = 0;
  std::string tail;
  while (at < bytes.size()) {
    const FrameParse p = parse_journal_frame(bytes.substr(at));
    if (p.status != FrameStatus::Complete) {
      const std::string what =
          p.status == FrameStatus::NeedMore ? std::string("a frame cut short") : p.problem;
      if (torn_tail(bytes, at, p)) {
        tail = what + " at byte " + std::to_string(at) + " of " + std::to_string(bytes.size()) +
               " (frame " + std::to_string(rules.contents().frames) + ", the last)";
      } else {
        out.damage = JournalDamage{at, rules.contents().frames,
                                   p.fault == FrameFault::Contents
                                       ? what
                                       : what + ", and " + std::to_string(bytes.size() - at) +
                                             " bytes follow it: not a torn tail"};
      }
      break;
    }
    if (std::string problem = rules.take(p.entry); !problem.empty()) {
      out.damage = JournalDamage{at, rules.contents().frames, std::move(problem)};
      break;
    }
    at += p.consumed;
  }
  if (!out.damage && !rules.has_header())
    out.damage =
        JournalDamage{0, 0, "no sound header entry" + (tail.empty() ? "" : " (" + tail + ")")};
  out.contents = rules.release();
  out.contents.total_bytes = bytes.size();
  out.contents.valid_bytes = at;
  out.contents.tail_problem = std::move(tail);
  return out;
}

std::string describe_damage(const std::string& name, const JournalDamage& d) {
  return "journal " + name + " is damaged at byte " + std::to_string(d.byte) + " (frame " +
         std::to_string(d.frame) + "): " + d.problem + "; nothing of it is judged";
}

JournalContents parse_journal(std::string_view bytes, const std::string& name) {
  JournalReading r = read_journal_bytes(bytes);
  if (r.damage) throw JournalError(describe_damage(name, *r.damage));
  return std::move(r.contents);
}

std::string read_journal_bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JournalError("journal " + path + ": cannot open: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

JournalContents read_journal_file(const std::string& path) {
  return parse_journal(read_journal_bytes_of(path), path);
}

namespace {

class FileJournalSink final : public JournalSink {
 public:
  explicit FileJournalSink(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_DSYNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw JournalError("journal " + path_ + ": cannot create: " + std::strerror(errno) +
                         (errno == EEXIST ? " (a journal is never overwritten)" : ""));
  }
  ~FileJournalSink() override { ::close(fd_); }
  FileJournalSink(const FileJournalSink&) = delete;
  FileJournalSink& operator=(const FileJournalSink&) = delete;

  void append(std::string_view frames) override {
    // One write() per batch: the frames land together or, cut short, leave a torn tail the
    // reader recovers from.
    while (!frames.empty()) {
      const ssize_t n = ::write(fd_, frames.data(), frames.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw JournalError("journal " + path_ + ": write failed: " + std::strerror(errno));
      frames.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  [[nodiscard]] std::string describe() const override { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<JournalSink> open_journal_file(const std::string& path) {
  return std::make_unique<FileJournalSink>(path);
}

}  // namespace storqual::runner
