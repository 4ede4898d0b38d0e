// SPDX-License-Identifier: Apache-2.0
// Which block each I/O of a job goes to: the job loop's offset generator (job_runner.cpp).
//
// Contract:
// - next() returns the byte offset of the next I/O: a multiple of block_size inside
//   [region_offset, region_offset + region_blocks * block_size); nothing outside the region.
// - Sequential: blocks in order, wrapping at the end. Random, time based: uniform with
//   replacement. Random, size based: a full permutation of the job's blocks (i * step mod blocks
//   with step coprime to blocks), so a size-based run visits every block exactly once.
// - With `jobs` > 1 the job owns blocks job, job + jobs, job + 2 * jobs, ... (verify needs jobs
//   that do not overlap, as fio's); blocks() counts the job's own.
// - next(issued) takes the count of workload I/Os issued so far: the permutation's position. A
//   caller that draws again for the same I/O (verify steering away from a block in flight) passes
//   the same count.
// - It runs once per I/O on the hot path: a new way of choosing offsets is a new case here with
//   its state in the generator, set up in the constructor, and next() kept branch-light.
#pragma once

#include <cstdint>
#include <numeric>

#include "runner/measure/random.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

class OffsetGenerator {
 public:
  struct Layout {
    RwMode mode = RwMode::Read;
    bool time_based = false;
    std::uint64_t region_offset = 0;
    std::uint64_t region_blocks = 0;  // blocks of block_size in the whole region
    std::uint64_t block_size = 4096;
    unsigned jobs = 1;  // > 1: the region is interleaved between that many jobs
    unsigned job = 0;   // this job's index among them
  };

  // Draws the permutation's step and start from `rng`, which next() keeps using (time-based
  // random); the generator holds a reference to it.
  OffsetGenerator(const Layout& layout, Random& rng)
      : rng_(rng),
        random_(rw_random(layout.mode)),
        time_based_(layout.time_based),
        region_offset_(layout.region_offset),
        block_size_(layout.block_size),
        jobs_(layout.jobs),
        job_(layout.job) {
    const std::uint64_t rb = layout.region_blocks;
    blocks_ = jobs_ == 1 ? rb : (rb > job_ ? (rb - job_ + jobs_ - 1) / jobs_ : 0);
    if (random_ && !time_based_ && blocks_ > 1) {
      perm_step_ = blocks_ / 2 + 1 + rng_.below(blocks_ / 3 + 1);
      while (std::gcd(perm_step_, blocks_) != 1) ++perm_step_;
      perm_start_ = rng_.below(blocks_);
    }
  }

  // The job's own blocks: a size-based run issues exactly this many I/Os.
  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }

  [[nodiscard]] std::uint64_t next(std::uint64_t issued) noexcept {
    std::uint64_t block;
    if (random_) {
      block = time_based_ ? rng_.below(blocks_) : (perm_start_ + issued * perm_step_) % blocks_;
    } else {
      block = seq_next_;
      if (++seq_next_ == blocks_) seq_next_ = 0;
    }
    if (jobs_ != 1) block = block * jobs_ + job_;
    return region_offset_ + block * block_size_;
  }

 private:
  Random& rng_;
  bool random_, time_based_;
  std::uint64_t region_offset_, block_size_;
  unsigned jobs_, job_;
  std::uint64_t blocks_ = 0;
  std::uint64_t perm_step_ = 1, perm_start_ = 0;
  std::uint64_t seq_next_ = 0;
};

}  // namespace storqual::runner
