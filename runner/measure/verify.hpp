// SPDX-License-Identifier: Apache-2.0
// Data verification: the header every verified block carries, its seeded payload, the checksum
// (xxh3 from libxxhash, crc32c from isa-l), the ledger of what was written where, and the
// classification of a block read back (good, corrupted, misplaced, stale, foreign).
//
// Block format (little-endian, at the start of every bs-sized block; see docs/integrity.md):
//   0  u64 magic "STQVRFY1"      8 u64 offset (where it was written)   16 u64 run id
//   24 u64 write sequence        32 u32 block size   36 u16 job   38 u8 algorithm   39 u8 0
//   40 u64 checksum of bytes [0,40) then [48,bs)     48.. payload (seeded, incompressible)
//
// Classification of a block read back at `offset`, given the sequence the ledger expects:
//   no magic, or another run id           -> foreign   (never written by this run: data lost)
//   checksum or block size does not match -> corrupted
//   header names another offset           -> misplaced (aliasing, misdirected write)
//   this offset, another write sequence   -> stale     (a later write was lost)
//   otherwise                             -> good
// A block the ledger does not know (never written) is good unless it holds a valid block of this
// run (misplaced). A block whose last write failed or raced another is "any sequence": only
// corrupted, misplaced and foreign count there.
//
// Memory: the ledger holds one 32-bit sequence per bs block of the region (4 bytes per block:
// 64 MiB for 64 GiB at 4k) and refuses regions above kMaxLedgerBytes. Sequences are per job and
// compared on their low 32 bits (a wrap after 4G writes of one job is harmless: values 0 and
// 0xffffffff are skipped).
//
// Thread safety: fill_verified_block and check_block are pure. A ledger is shared by the jobs of a
// run; each block belongs to one job (block % numjobs == job), which alone writes its entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

enum class VerifyAlgorithm : std::uint8_t { None = 0, Crc32c = 1, Xxh3 = 2 };

// "crc32c", "xxh3", or "0"/"none"/"" for none; throws UnitError otherwise, or for crc32c when this
// build has no isa-l.
[[nodiscard]] VerifyAlgorithm parse_verify_algorithm(std::string_view text);
[[nodiscard]] std::string_view to_string(VerifyAlgorithm a) noexcept;

inline constexpr std::uint64_t kBlockMagic = 0x3159465256515453ull;  // "STQVRFY1"
inline constexpr std::uint32_t kBlockHeaderSize = 48;
inline constexpr std::uint32_t kMinVerifiedBlock = 64;
inline constexpr std::uint32_t kNotWritten = 0;  // ledger: no write recorded
inline constexpr std::uint32_t kAnySequence =
    0xffffffff;  // ledger: content of this run, order unknown
inline constexpr std::uint64_t kMaxLedgerBytes = 256ull << 20;  // 256 GiB of region at 4k

struct BlockHeader {
  std::uint64_t magic;
  std::uint64_t offset;
  std::uint64_t run_id;
  std::uint64_t sequence;
  std::uint32_t block_size;
  std::uint16_t job;
  std::uint8_t algorithm;
  std::uint8_t reserved;
  std::uint64_t checksum;
};
static_assert(sizeof(BlockHeader) == kBlockHeaderSize);

// The incompressible payload source of a run: a seeded pool of random words; a block's payload is
// a slice of it chosen by (offset, sequence) and XORed with a per-block key, so no two blocks
// repeat and nothing compresses. About as fast as memcpy.
class PayloadPool {
 public:
  explicit PayloadPool(std::uint64_t seed);
  void fill(void* dst, std::size_t bytes, std::uint64_t key) const noexcept;

 private:
  std::vector<std::uint64_t> words_;
};

// Writes header + payload + checksum into `block` (size >= kMinVerifiedBlock, 8-byte aligned).
void fill_verified_block(void* block, std::uint32_t size, std::uint64_t offset,
                         std::uint64_t run_id, std::uint64_t sequence, std::uint16_t job,
                         VerifyAlgorithm algorithm, const PayloadPool& pool) noexcept;

// The checksum of a block as the header defines it.
[[nodiscard]] std::uint64_t block_checksum(const void* block, std::uint32_t size,
                                           VerifyAlgorithm algorithm) noexcept;

enum class BlockState : std::uint8_t { Good, Corrupted, Misplaced, Stale, Foreign };
[[nodiscard]] std::string_view to_string(BlockState s) noexcept;

struct BlockCheck {
  BlockState state = BlockState::Good;
  std::uint64_t found_offset = 0;    // the header's offset (when it has our magic and run id)
  std::uint64_t found_sequence = 0;  // the header's sequence
};

// Classifies one block read back at `offset` (see the header's rules).
[[nodiscard]] BlockCheck check_block(const void* block, std::uint32_t size, std::uint64_t offset,
                                     std::uint64_t run_id, std::uint32_t expected_sequence,
                                     VerifyAlgorithm algorithm) noexcept;

// Counts and the first findings (bounded), merged across jobs and phases.
class IntegrityTally {
 public:
  static constexpr std::size_t kMaxFindings = 64;
  void add(BlockState s, std::uint64_t offset, const BlockCheck& c, std::uint32_t expected);
  void merge(const IntegrityTally& o);
  void read_error() noexcept { ++read_errors_; }
  // Counts and findings into `r` (added to what it has; findings sorted by offset, bounded).
  void apply_to(reporting::IntegrityReport& r) const;
  // Only the findings (an end pass already counted the blocks).
  void apply_findings_to(reporting::IntegrityReport& r) const;
  [[nodiscard]] std::uint64_t bad() const noexcept {
    return corrupted_ + misplaced_ + stale_ + foreign_;
  }

 private:
  std::uint64_t corrupted_ = 0, misplaced_ = 0, stale_ = 0, foreign_ = 0, read_errors_ = 0;
  std::vector<reporting::IntegrityFinding> findings_;  // the lowest offsets seen
};

// What was written where: one 32-bit sequence per block of [region_offset, region_offset+size),
// plus the run id, the algorithm and each job's next sequence. Lives across run_workload calls
// when the caller keeps it (RunOptions::verify_ledger), e.g. to verify after a pause.
class VerifyLedger {
 public:
  // Throws UnitError when the region needs more than kMaxLedgerBytes. run_id 0 = a random one.
  VerifyLedger(std::uint64_t region_offset, std::uint64_t region_size, std::uint64_t block_size,
               VerifyAlgorithm algorithm, std::uint64_t run_id = 0);

  [[nodiscard]] std::uint64_t region_offset() const noexcept { return region_offset_; }
  [[nodiscard]] std::uint64_t region_size() const noexcept { return region_size_; }
  [[nodiscard]] std::uint64_t block_size() const noexcept { return block_size_; }
  [[nodiscard]] std::uint64_t blocks() const noexcept { return expected_.size(); }
  [[nodiscard]] std::uint64_t run_id() const noexcept { return run_id_; }
  [[nodiscard]] VerifyAlgorithm algorithm() const noexcept { return algorithm_; }
  [[nodiscard]] const PayloadPool& payload() const noexcept { return payload_; }
  [[nodiscard]] std::uint64_t tracking_bytes() const noexcept { return expected_.size() * 4; }

  [[nodiscard]] std::uint32_t expected(std::uint64_t block) const noexcept {
    return expected_[block];
  }
  void record(std::uint64_t block, std::uint32_t sequence) noexcept { expected_[block] = sequence; }
  [[nodiscard]] std::uint64_t block_of(std::uint64_t offset) const noexcept {
    return (offset - region_offset_) / block_size_;
  }
  // The next write sequence of `job` (1, 2, ...; never kNotWritten or kAnySequence when cut to
  // 32 bits). Each job calls it for itself only.
  [[nodiscard]] std::uint64_t next_sequence(unsigned job);
  // Blocks with a recorded write.
  [[nodiscard]] std::uint64_t written_blocks() const noexcept;
  // Sizes the per-job sequence counters; run_workload calls it before the jobs start.
  void prepare_jobs(unsigned numjobs);

 private:
  std::uint64_t region_offset_, region_size_, block_size_;
  VerifyAlgorithm algorithm_;
  std::uint64_t run_id_;
  PayloadPool payload_;
  std::vector<std::uint32_t> expected_;
  std::vector<std::uint64_t> job_sequence_;  // next sequence per job
};

// "integrity: 3 stale blocks (first at offset 1048576), 1 corrupted (offset 8192)"; "integrity:
// 4096 blocks verified, no errors" when clean.
[[nodiscard]] std::string integrity_summary(const reporting::IntegrityReport& r);

// The run's integrity testcase for one verified workload: metric "integrity", pass when no block
// is corrupted, misplaced, stale or foreign and no inline read-back was bad (an error when a
// read-back failed or nothing was verified), fail otherwise with
// integrity_summary() as the message; measured = bad blocks, claimed = 0.
[[nodiscard]] reporting::ClaimVerdict integrity_verdict(const reporting::WorkloadResult& result);

// One integrity_verdict per result that carries an integrity report, in result order: what a
// qualification appends to its verdicts (JUnit testcase "<workload> integrity").
[[nodiscard]] std::vector<reporting::ClaimVerdict> integrity_verdicts(
    const std::vector<reporting::WorkloadResult>& results);

}  // namespace storqual::runner
