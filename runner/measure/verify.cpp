// SPDX-License-Identifier: Apache-2.0
// Block headers, payloads, checksums, the written-block ledger and classification (see
// verify.hpp).
#include "runner/measure/verify.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "runner/base/units.hpp"

#if defined(STORQUAL_HAVE_ISAL)
#include <isa-l/crc.h>
#endif

namespace storqual::runner {
namespace {

std::uint64_t mix64(std::uint64_t z) noexcept {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr std::size_t kPoolWords = 32768;  // 256 KiB per run

std::string size_text(std::uint64_t bytes) {
  return format_size_fio(bytes);
}

}  // namespace

VerifyAlgorithm parse_verify_algorithm(std::string_view text) {
  if (text.empty() || text == "0" || text == "none") return VerifyAlgorithm::None;
  if (text == "xxh3") return VerifyAlgorithm::Xxh3;
  if (text == "crc32c") {
#if defined(STORQUAL_HAVE_ISAL)
    return VerifyAlgorithm::Crc32c;
#else
    throw UnitError(
        "verify=crc32c needs isa-l (Debian libisal-dev), which this build lacks; use "
        "verify=xxh3");
#endif
  }
  throw UnitError("verify: expected crc32c, xxh3 or none, got '" + std::string(text) + "'");
}

std::string_view to_string(VerifyAlgorithm a) noexcept {
  switch (a) {
    case VerifyAlgorithm::Crc32c:
      return "crc32c";
    case VerifyAlgorithm::Xxh3:
      return "xxh3";
    default:
      return "none";
  }
}

std::string_view to_string(BlockState s) noexcept {
  switch (s) {
    case BlockState::Good:
      return "good";
    case BlockState::Corrupted:
      return "corrupted";
    case BlockState::Misplaced:
      return "misplaced";
    case BlockState::Stale:
      return "stale";
    default:
      return "foreign";
  }
}

PayloadPool::PayloadPool(std::uint64_t seed) : words_(kPoolWords) {
  for (auto& w : words_) {
    seed += 0x9E3779B97F4A7C15ull;
    w = mix64(seed);
  }
}

void PayloadPool::fill(void* dst, std::size_t bytes, std::uint64_t key) const noexcept {
  auto* out = static_cast<unsigned char*>(dst);
  const std::uint64_t k = mix64(key);
  std::size_t start = static_cast<std::size_t>(k % kPoolWords);
  const std::size_t words = bytes / 8;
  std::size_t done = 0;
  while (done < words) {
    const std::size_t run = std::min(words - done, kPoolWords - start);
    const std::uint64_t* src = words_.data() + start;
    for (std::size_t i = 0; i < run; ++i) {
      std::uint64_t v = src[i] ^ k;
      std::memcpy(out + (done + i) * 8, &v, 8);
    }
    done += run;
    start = 0;
  }
  if (bytes % 8) {
    std::uint64_t v = words_[0] ^ k;
    std::memcpy(out + words * 8, &v, bytes % 8);
  }
}

std::uint64_t block_checksum(const void* block, std::uint32_t size,
                             VerifyAlgorithm algorithm) noexcept {
  const auto* b = static_cast<const unsigned char*>(block);
  const std::size_t covered_head = offsetof(BlockHeader, checksum);
  if (algorithm == VerifyAlgorithm::Crc32c) {
#if defined(STORQUAL_HAVE_ISAL)
    unsigned crc =
        crc32_iscsi(const_cast<unsigned char*>(b), static_cast<int>(covered_head), 0xffffffffu);
    crc = crc32_iscsi(const_cast<unsigned char*>(b + kBlockHeaderSize),
                      static_cast<int>(size - kBlockHeaderSize), crc);
    return crc;
#else
    return 0;
#endif
  }
  const std::uint64_t head = XXH3_64bits(b, covered_head);
  return XXH3_64bits_withSeed(b + kBlockHeaderSize, size - kBlockHeaderSize, head);
}

void fill_verified_block(void* block, std::uint32_t size, std::uint64_t offset,
                         std::uint64_t run_id, std::uint64_t sequence, std::uint16_t job,
                         VerifyAlgorithm algorithm, const PayloadPool& pool) noexcept {
  auto* b = static_cast<unsigned char*>(block);
  BlockHeader h{};
  h.magic = kBlockMagic;
  h.offset = offset;
  h.run_id = run_id;
  h.sequence = sequence;
  h.block_size = size;
  h.job = job;
  h.algorithm = static_cast<std::uint8_t>(algorithm);
  pool.fill(b + kBlockHeaderSize, size - kBlockHeaderSize,
            run_id ^ (offset * 0x9E3779B97F4A7C15ull) ^ (sequence << 17) ^ job);
  std::memcpy(b, &h, kBlockHeaderSize);
  h.checksum = block_checksum(b, size, algorithm);
  std::memcpy(b + offsetof(BlockHeader, checksum), &h.checksum, sizeof h.checksum);
}

BlockCheck check_block(const void* block, std::uint32_t size, std::uint64_t offset,
                       std::uint64_t run_id, std::uint32_t expected_sequence,
                       VerifyAlgorithm algorithm) noexcept {
  BlockCheck c;
  BlockHeader h;
  std::memcpy(&h, block, kBlockHeaderSize);
  if (h.magic != kBlockMagic || h.run_id != run_id) {
    c.state = expected_sequence == kNotWritten ? BlockState::Good : BlockState::Foreign;
    return c;
  }
  c.found_offset = h.offset;
  c.found_sequence = h.sequence;
  if (h.block_size != size || h.checksum != block_checksum(block, size, algorithm)) {
    c.state = BlockState::Corrupted;
  } else if (h.offset != offset) {
    c.state = BlockState::Misplaced;
  } else if (expected_sequence != kNotWritten && expected_sequence != kAnySequence &&
             static_cast<std::uint32_t>(h.sequence) != expected_sequence) {
    c.state = BlockState::Stale;
  }
  return c;
}

void IntegrityTally::add(BlockState s, std::uint64_t offset, const BlockCheck& c,
                         std::uint32_t expected) {
  if (s == BlockState::Good) return;
  std::uint64_t* counter = s == BlockState::Corrupted   ? &corrupted_
                           : s == BlockState::Misplaced ? &misplaced_
                           : s == BlockState::Stale     ? &stale_
                                                        : &foreign_;
  ++*counter;
  // Keep the lowest offsets of each kind, at most kMaxFindings / 4 each.
  const std::string kind(to_string(s));
  std::size_t of_kind = 0;
  auto highest = findings_.end();
  for (auto it = findings_.begin(); it != findings_.end(); ++it) {
    if (it->kind != kind) continue;
    ++of_kind;
    if (highest == findings_.end() || it->offset > highest->offset) highest = it;
  }
  reporting::IntegrityFinding f{kind, offset, c.found_offset, expected, c.found_sequence};
  if (s != BlockState::Stale) f.expected_sequence = f.found_sequence = 0;
  if (s == BlockState::Foreign) f.found_offset = 0;
  if (of_kind < kMaxFindings / 4) {
    findings_.push_back(std::move(f));
  } else if (highest != findings_.end() && highest->offset > offset) {
    *highest = std::move(f);
  }
}

void IntegrityTally::merge(const IntegrityTally& o) {
  for (const auto& f : o.findings_) {
    BlockState s = f.kind == "corrupted"   ? BlockState::Corrupted
                   : f.kind == "misplaced" ? BlockState::Misplaced
                   : f.kind == "stale"     ? BlockState::Stale
                                           : BlockState::Foreign;
    BlockCheck c{s, f.found_offset, f.found_sequence};
    add(s, f.offset, c, static_cast<std::uint32_t>(f.expected_sequence));
  }
  // add() counted the merged findings once each; set the counters to the true sums.
  auto count = [&](const char* kind) {
    return static_cast<std::uint64_t>(
        std::count_if(o.findings_.begin(), o.findings_.end(),
                      [&](const reporting::IntegrityFinding& f) { return f.kind == kind; }));
  };
  corrupted_ += o.corrupted_ - count("corrupted");
  misplaced_ += o.misplaced_ - count("misplaced");
  stale_ += o.stale_ - count("stale");
  foreign_ += o.foreign_ - count("foreign");
  read_errors_ += o.read_errors_;
}

namespace {
template <class Report>
void apply_counts(const std::vector<reporting::IntegrityFinding>& mine, Report& r,
                  std::uint64_t corrupted, std::uint64_t misplaced, std::uint64_t stale,
                  std::uint64_t foreign, std::uint64_t read_errors) {
  r.corrupted += corrupted;
  r.misplaced += misplaced;
  r.stale += stale;
  r.foreign += foreign;
  r.read_errors += read_errors;
  r.findings.insert(r.findings.end(), mine.begin(), mine.end());
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const auto& a, const auto& b) { return a.offset < b.offset; });
  // Two phases may report one block twice (inline and at the end): keep the first.
  r.findings.erase(std::unique(r.findings.begin(), r.findings.end(),
                               [](const auto& a, const auto& b) {
                                 return a.offset == b.offset && a.kind == b.kind;
                               }),
                   r.findings.end());
  if (r.findings.size() > IntegrityTally::kMaxFindings)
    r.findings.resize(IntegrityTally::kMaxFindings);
}
}  // namespace

void IntegrityTally::apply_to(reporting::IntegrityReport& r) const {
  apply_counts(findings_, r, corrupted_, misplaced_, stale_, foreign_, read_errors_);
}
void IntegrityTally::apply_findings_to(reporting::IntegrityReport& r) const {
  apply_counts(findings_, r, 0, 0, 0, 0, 0);
}

VerifyLedger::VerifyLedger(std::uint64_t region_offset, std::uint64_t region_size,
                           std::uint64_t block_size, VerifyAlgorithm algorithm,
                           std::uint64_t run_id)
    : region_offset_(region_offset),
      region_size_(region_size),
      block_size_(block_size),
      algorithm_(algorithm),
      run_id_(run_id ? run_id
                     : (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^
                           std::random_device{}() ^ 0x5157ull),
      payload_(run_id_) {
  if (algorithm == VerifyAlgorithm::None) throw UnitError("verify: no algorithm chosen");
  if (block_size < kMinVerifiedBlock)
    throw UnitError("verify needs bs of at least " + std::to_string(kMinVerifiedBlock) +
                    " bytes (the block header is " + std::to_string(kBlockHeaderSize) + ")");
  const std::uint64_t blocks = region_size / block_size;
  if (blocks * 4 > kMaxLedgerBytes)
    throw UnitError("verify tracks 4 bytes per block: " + size_text(region_size) + " at bs " +
                    size_text(block_size) + " needs " + size_text(blocks * 4) +
                    ", above the limit of " + size_text(kMaxLedgerBytes) +
                    "; verify a smaller size= or use a larger bs");
  expected_.assign(blocks, kNotWritten);
}

void VerifyLedger::prepare_jobs(unsigned numjobs) {
  if (job_sequence_.size() < numjobs) job_sequence_.resize(numjobs, 1);
}

std::uint64_t VerifyLedger::next_sequence(unsigned job) {
  std::uint64_t& s = job_sequence_[job];
  for (;;) {
    std::uint64_t v = s++;
    auto low = static_cast<std::uint32_t>(v);
    if (low != kNotWritten && low != kAnySequence) return v;
  }
}

std::uint64_t VerifyLedger::written_blocks() const noexcept {
  return static_cast<std::uint64_t>(std::count_if(
      expected_.begin(), expected_.end(), [](std::uint32_t v) { return v != kNotWritten; }));
}

std::string integrity_summary(const reporting::IntegrityReport& r) {
  const std::uint64_t bad = r.corrupted + r.misplaced + r.stale + r.foreign;
  if (bad == 0 && r.read_errors == 0 && r.bad_inline == 0)
    return "integrity: " + std::to_string(r.verified_inline + r.verified_at_end) +
           " blocks verified (" + std::string(r.algorithm) + "), no errors";
  std::string out = "integrity:";
  bool first_part = true;
  // "offset X[, holds the block of offset Y | , write A instead of B]"
  auto details = [](const reporting::IntegrityFinding& f) {
    std::string d = std::to_string(f.offset);
    if (f.kind == "misplaced") d += ", holds the block of offset " + std::to_string(f.found_offset);
    if (f.kind == "stale")
      d += ", write " + std::to_string(f.found_sequence & 0xffffffffu) + " instead of " +
           std::to_string(f.expected_sequence);
    return d;
  };
  auto part = [&](std::uint64_t n, const char* kind) {
    if (n == 0) return;
    out += first_part ? " " : ", ";
    out += std::to_string(n) + " " + kind;
    if (first_part) out += n == 1 ? " block" : " blocks";
    first_part = false;
    auto it = std::find_if(r.findings.begin(), r.findings.end(),
                           [&](const auto& f) { return f.kind == kind; });
    if (it == r.findings.end()) return;
    out += (n == 1 ? " (offset " : " (first at offset ") + details(*it) + ")";
  };
  part(r.stale, "stale");
  part(r.misplaced, "misplaced");
  part(r.corrupted, "corrupted");
  part(r.foreign, "foreign");
  if (r.read_errors)
    out += (first_part ? " " : ", ") + std::to_string(r.read_errors) + " read errors";
  if (r.bad_inline) {
    out += (first_part ? " " : ", ") + std::to_string(r.bad_inline) + " bad inline read-backs";
    // Blocks caught inline may have been rewritten since, so the end pass finds them good: name
    // the first one here, or the message would carry no class and no offset.
    if (bad == 0 && !r.findings.empty())
      out +=
          " (first: " + r.findings.front().kind + " at offset " + details(r.findings.front()) + ")";
  }
  return out;
}

reporting::ClaimVerdict integrity_verdict(const reporting::WorkloadResult& result) {
  reporting::ClaimVerdict v;
  v.workloads = {result.id};
  v.metric = "integrity";
  v.unit = "blocks";
  v.higher_is_better = false;  // bad blocks
  v.claimed = 0;
  v.tolerance_pct = 0;
  v.time_s = result.elapsed_s;
  if (!result.integrity) {
    v.status = reporting::VerdictStatus::Error;
    if (result.interrupted) v.error_cause = reporting::ErrorCause::Interrupted;
    v.message = "integrity: the workload was not verified" +
                (result.errors.empty() ? std::string() : ": " + result.errors.front());
    return v;
  }
  const auto& r = *result.integrity;
  const std::uint64_t bad = r.corrupted + r.misplaced + r.stale + r.foreign;
  v.measured = static_cast<double>(bad ? bad : r.bad_inline);
  v.message = integrity_summary(r);
  if (bad || r.bad_inline) {
    v.status = reporting::VerdictStatus::Fail;
  } else if (r.read_errors || r.verified_inline + r.verified_at_end == 0) {
    v.status = reporting::VerdictStatus::Error;
    if (r.verified_inline + r.verified_at_end == 0) v.message = "integrity: no block was verified";
  } else {
    v.status = reporting::VerdictStatus::Pass;
  }
  return v;
}

std::vector<reporting::ClaimVerdict> integrity_verdicts(
    const std::vector<reporting::WorkloadResult>& results) {
  std::vector<reporting::ClaimVerdict> out;
  for (const auto& r : results)
    if (r.integrity) out.push_back(integrity_verdict(r));
  return out;
}

}  // namespace storqual::runner
