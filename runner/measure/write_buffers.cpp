// SPDX-License-Identifier: Apache-2.0
// fio's compressible and deduplicable write buffers (write_buffers.hpp).
#include "runner/measure/write_buffers.hpp"

#include <algorithm>
#include <cstring>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kGoldenRatio64 = 0x61C8864680B583EBull;  // fio's hash.h __hash_u64
constexpr unsigned kSeedBuckets = 4;  // fio's configure default (CONFIG_SEED_BUCKETS)

// fio's __fill_random_buf_small: one word per step, each the last hashed.
void fill_small(unsigned char* buf, std::uint32_t len, std::uint64_t seed) noexcept {
  std::uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    std::memcpy(buf + i, &seed, 8);
    seed *= kGoldenRatio64;
  }
  if (i < len) std::memcpy(buf + i, &seed, len - i);
}

// fio's __fill_random_buf: kSeedBuckets interleaved streams of words, seeded seed x prime.
void fill_random(unsigned char* buf, std::uint32_t len, std::uint64_t seed) noexcept {
  static constexpr std::uint64_t kPrime[kSeedBuckets] = {1, 2, 3, 5};
  const std::uint32_t words = len / 8 / kSeedBuckets * kSeedBuckets;
  std::uint64_t s[kSeedBuckets];
  for (unsigned p = 0; p < kSeedBuckets; ++p) s[p] = seed * kPrime[p];
  for (std::uint32_t w = 0; w < words; w += kSeedBuckets)
    for (unsigned p = 0; p < kSeedBuckets; ++p) {
      std::memcpy(buf + (w + p) * 8, &s[p], 8);
      s[p] *= kGoldenRatio64;
    }
  fill_small(buf + words * 8, len - words * 8, s[0]);
}

}  // namespace

void fill_random_percentage(std::uint64_t seed, unsigned char* buf, unsigned percentage,
                            std::uint32_t segment, std::uint32_t len) noexcept {
  if (percentage == 100) {
    std::memset(buf, 0, len);
    return;
  }
  segment = std::min(segment, len);
  while (len) {
    std::uint32_t n =
        static_cast<std::uint32_t>(static_cast<std::uint64_t>(segment) * (100 - percentage) / 100);
    n = std::min(n, len);
    fill_random(buf, n, seed);
    len -= n;
    if (!len) break;
    buf += n;
    n = segment - n;
    if (n > len || len - n <= sizeof(long)) n = len;
    std::memset(buf, 0, n);
    len -= n;
    buf += n;
  }
}

DedupeMode parse_dedupe_mode(std::string_view v) {
  if (v == "repeat") return DedupeMode::Repeat;
  if (v == "working_set") return DedupeMode::WorkingSet;
  throw UnitError("dedupe_mode: expected repeat or working_set, got '" + std::string(v) + "'");
}

std::string_view dedupe_mode_name(DedupeMode m) noexcept {
  return m == DedupeMode::WorkingSet ? "working_set" : "repeat";
}

std::uint64_t working_set_pages(const BufferShape& s, std::uint64_t job_size,
                                std::uint64_t min_write) noexcept {
  if (!s.working_set() || !min_write) return 0;
  return job_size * s.dedupe_working_set_percentage / 100 / min_write;
}

FioBufferFill::FioBufferFill(const BufferShape& shape, const Job& job)
    : shape_(shape),
      min_write_(job.min_write),
      compressible_(shape.compress_percentage == 100 ? 0 : shape.compress_percentage),
      zeros_(shape.compress_percentage == 100 && shape.dedupe_percentage == 0),
      buf_(fio_seed(FioSeed::Buffer, kFioDefaultRandseed, job.thread_number), job.use64),
      prev_(buf_),
      ret_(buf_),
      dedupe_(fio_seed(FioSeed::Dedupe, kFioDefaultRandseed, job.thread_number), false),
      set_index_(fio_seed(FioSeed::DedupeWorkingSet, kFioDefaultRandseed, job.thread_number),
                 job.use64) {
  const std::uint64_t pages = working_set_pages(shape, job.size, job.min_write);
  if (!pages) return;
  // fio's init_dedupe_working_set_seeds: page i's state is page i-1's advanced by the seeds one
  // write takes; with dedupe_global, every pages / threads pages the next job's first state.
  const std::uint32_t chunk = shape.compress_chunk ? shape.compress_chunk : job.min_write;
  const std::uint64_t advances = job.min_write / std::min(job.min_write, chunk);
  const std::uint64_t per_seed = std::max<std::uint64_t>(pages / job.threads, 1);
  unsigned index = job.thread_number - 1;
  FioRandom state = buf_;
  working_set_.reserve(pages);
  working_set_.push_back(state);
  for (std::uint64_t i = 1; i < pages; ++i) {
    for (std::uint64_t j = 0; j < advances; ++j) (void)state.next_seed();
    if (shape.dedupe_global && i % per_seed == 0) {
      index = (index + 1) % job.threads;
      state = FioRandom(fio_seed(FioSeed::Buffer, kFioDefaultRandseed, index + 1), job.use64);
    }
    working_set_.push_back(state);
  }
}

FioRandom* FioBufferFill::state_for_write() noexcept {
  if (!shape_.dedupe_percentage) return &buf_;
  if (shape_.dedupe_percentage == 100) {
    prev_ = buf_;
    return &buf_;
  }
  if (dedupe_.between(1, 100) > shape_.dedupe_percentage) return &buf_;
  if (shape_.dedupe_mode == DedupeMode::Repeat || working_set_.empty()) {
    ret_ = prev_;
  } else {
    ret_ = working_set_[set_index_.between(0, working_set_.size() - 1)];
  }
  return &ret_;
}

void FioBufferFill::chunk_done(FioRandom* rs) noexcept {
  if (shape_.dedupe_percentage == 100)
    *rs = prev_;
  else if (rs == &buf_)
    prev_ = buf_;
}

void FioBufferFill::fill(void* buf, std::uint32_t len) noexcept {
  auto* out = static_cast<unsigned char*>(buf);
  if (zeros_) {
    std::memset(out, 0, len);
    return;
  }
  FioRandom* rs = nullptr;
  std::uint32_t min_write = min_write_;
  for (std::uint32_t left = len; left;) {
    if (!rs) rs = state_for_write();
    min_write = std::min(min_write, left);
    const std::uint32_t n =
        shape_.compress_chunk ? std::min(min_write, shape_.compress_chunk) : min_write;
    fill_random_percentage(rs->next_seed(), out, compressible_, n, n);
    out += n;
    left -= n;
    chunk_done(rs);
  }
}

}  // namespace storqual::runner
