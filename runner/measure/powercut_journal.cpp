// SPDX-License-Identifier: Apache-2.0
// The power-cut journal's frames, its reader (torn tail recovered) and its file sink.
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

 private:
  std::string_view in_;
  std::size_t at_ = 0;
  bool short_ = false;
};

std::string encode_payload(const JournalEntry& e) {
  Writer w;
  w.num(static_cast<std::uint8_t>(e.type));
  switch (e.type) {
    case JournalEntryType::Header:
      w.num(kJournalVersion);
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
  switch (e.type) {
    case JournalEntryType::Header:
      e.version = r.num<std::uint32_t>();
      e.header.run_id = r.num<std::uint64_t>();
      e.header.region_offset = r.num<std::uint64_t>();
      e.header.region_size = r.num<std::uint64_t>();
      e.header.atomic_unit = r.num<std::uint32_t>();
      e.header.start_ns = r.num<std::uint64_t>();
      e.header.target = r.text();
      if (r.sound() && e.version != kJournalVersion) {
        problem = "journal version " + std::to_string(e.version) + ", this storqual reads 1";
        return false;
      }
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
    p.problem = "frame length " + std::to_string(length) + " outside 1.." +
                std::to_string(kMaxJournalFrame);
    return p;
  }
  if (bytes.size() - 8 < length) return p;
  const std::string_view payload = bytes.substr(8, length);
  if (XXH32(payload.data(), payload.size(), 0) != sum) {
    p.status = FrameStatus::Bad;
    p.problem = "frame checksum does not match";
    return p;
  }
  if (!decode_payload(payload, p.entry, p.problem)) {
    p.status = FrameStatus::Bad;
    return p;
  }
  p.status = FrameStatus::Complete;
  p.consumed = 8 + length;
  return p;
}

JournalContents parse_journal(std::string_view bytes, const std::string& name) {
  JournalContents j;
  j.total_bytes = bytes.size();
  std::size_t at = 0;
  bool have_header = false;
  while (at < bytes.size()) {
    const FrameParse p = parse_journal_frame(bytes.substr(at));
    if (p.status != FrameStatus::Complete) {
      j.tail_problem =
          (p.status == FrameStatus::NeedMore ? std::string("a frame cut short") : p.problem) +
          " at byte " + std::to_string(at) + " of " + std::to_string(bytes.size());
      break;
    }
    const JournalEntry& e = p.entry;
    if (!have_header && e.type != JournalEntryType::Header)
      throw JournalError("journal " + name + ": does not start with a header entry");
    switch (e.type) {
      case JournalEntryType::Header:
        if (have_header && e.header.run_id != j.header.run_id)
          throw JournalError("journal " + name + ": a second header of another run at byte " +
                             std::to_string(at));
        if (!have_header) j.header = e.header;
        have_header = true;
        break;
      case JournalEntryType::Write:
        j.writes.push_back(e.write);
        break;
      case JournalEntryType::Flush:
        j.flushes.push_back(e.flush);
        break;
      case JournalEntryType::End:
        j.ended = true;
        break;
      case JournalEntryType::Shutdowns:
        if (j.shutdowns_before || !j.writes.empty() || !j.flushes.empty())
          throw JournalError("journal " + name +
                             ": a shutdowns entry after the run began, at byte " +
                             std::to_string(at));
        j.shutdowns_before = e.shutdowns;
        break;
      default:
        throw JournalError("journal " + name + ": a listener protocol entry at byte " +
                           std::to_string(at));
    }
    at += p.consumed;
  }
  j.valid_bytes = at;
  if (!have_header)
    throw JournalError("journal " + name + ": no sound header entry" +
                       (j.tail_problem.empty() ? std::string() : " (" + j.tail_problem + ")"));
  return j;
}

JournalContents read_journal_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JournalError("journal " + path + ": cannot open: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_journal(s.str(), path);
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
