// SPDX-License-Identifier: Apache-2.0
// Which block each I/O of a job goes to: the job loop's offset generator (job_runner.cpp).
//
// Contract:
// - next(dir) returns the byte offset of the next I/O: a multiple of block_size inside
//   [region_offset, region_offset + region_blocks * block_size); nothing outside the region.
// - Sequential: blocks in order, wrapping at the end; a mix (rw=rw) walks the region once for
//   reads and once for writes, each direction from its own cursor as fio's last_pos[ddir], so
//   its reads and its writes are each a sequential stream. Random with the random map (fio's
//   default): every block of the job once per pass, in a random order
//   (runner/measure/random_map.hpp), so a size-based run visits every block exactly once. Random
//   with norandommap: uniform with replacement.
// - With `jobs` > 1 the job owns blocks job, job + jobs, job + 2 * jobs, ... (verify needs jobs
//   that do not overlap, as fio's); blocks() counts the job's own.
// - Every call is a draw: a caller that draws again for the same I/O (verify steering away from a
//   block in flight) moves on in the pass, as fio's random map does; the block it stepped over
//   comes in a later pass.
// - A skewed distribution (random_distribution) draws its blocks from fio's generators (skew()),
//   random_generator=lfsr from fio's LFSR (lfsr(): each block once per pass, no random map).
// - Strided zones (zonemode=strided) walk the target zone by zone as fio's (stride(),
//   runner/measure/strided_zones.hpp): the one case whose blocks may lie past the region, up to
//   the target's end.
// - zonemode=zbd reads with read_beyond_wp=0 read the blocks below each zone's write pointer
//   (zbd(), runner/measure/zbd_zones.hpp), inside the region.
// - It runs once per I/O on the hot path: a new way of choosing offsets is a new case here with
//   its state in the generator, set up in the constructor, and next() kept branch-light.
#pragma once

#include <cstdint>
#include <optional>

#include "engines/engine.hpp"
#include "runner/measure/fio_lfsr.hpp"
#include "runner/measure/offset_distribution.hpp"
#include "runner/measure/random.hpp"
#include "runner/measure/random_map.hpp"
#include "runner/measure/strided_zones.hpp"
#include "runner/measure/workload.hpp"
#include "runner/measure/zbd_zones.hpp"

namespace storqual::runner {

class OffsetGenerator {
 public:
  struct Layout {
    RwMode mode = RwMode::Read;
    bool randommap = true;  // false: fio's norandommap
    std::uint64_t region_offset = 0;
    std::uint64_t region_blocks = 0;  // blocks of block_size in the whole region
    std::uint64_t block_size = 4096;
    unsigned jobs = 1;                // > 1: the region is interleaved between that many jobs
    unsigned job = 0;                 // this job's index among them
    std::int64_t seq_add_blocks = 0;  // sequential holes (fio's rw=MODE:N) in blocks; < 0 back
  };

  // Seeds the random map from `rng`, which next() keeps using with norandommap; the generator
  // holds a reference to it.
  OffsetGenerator(const Layout& layout, Random& rng)
      : rng_(rng),
        random_(rw_random(layout.mode)),
        region_offset_(layout.region_offset),
        block_size_(layout.block_size),
        jobs_(layout.jobs),
        job_(layout.job),
        seq_add_(layout.seq_add_blocks) {
    const std::uint64_t rb = layout.region_blocks;
    blocks_ = jobs_ == 1 ? rb : (rb > job_ ? (rb - job_ + jobs_ - 1) / jobs_ : 0);
    if (random_ && layout.randommap && blocks_ > 0) map_.emplace(blocks_, rng_.next());
    kind_ =
        random_ ? (map_ ? Kind::Map : Kind::Uniform) : (seq_add_ ? Kind::Shaped : Kind::Sequential);
  }

  // The job's own blocks: a size-based run issues exactly this many I/Os.
  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }

  // A skewed distribution (runner/measure/offset_distribution.hpp) draws the random blocks
  // instead, with replacement (fio runs such a distribution without its random map); the
  // generator holds a pointer to it.
  void skew(SkewedBlocks* blocks) noexcept {
    skew_ = blocks;
    if (skew_) map_.reset();
    if (skew_ && random_) kind_ = Kind::Shaped;
  }

  // Strided zones (runner/measure/strided_zones.hpp) choose the blocks instead; the generator
  // holds a pointer to the walk.
  void stride(StridedWalk* walk) noexcept {
    zones_ = walk;
    if (zones_) map_.reset();
    if (zones_) kind_ = Kind::Shaped;
  }

  // A zoned device's written blocks (runner/measure/zbd_zones.hpp) are read instead; the
  // generator holds a pointer to the walk.
  void zbd(ZbdReadWalk* walk) noexcept {
    zbd_ = walk;
    if (zbd_) map_.reset();
    if (zbd_) kind_ = Kind::Shaped;
  }

  // fio's LFSR (runner/measure/fio_lfsr.hpp) gives the random blocks instead (fio has no random
  // map with it); the generator holds a pointer to it.
  void lfsr(FioLfsr* lfsr) noexcept {
    lfsr_ = lfsr;
    if (lfsr_) map_.reset();
    if (lfsr_ && random_) kind_ = Kind::Shaped;
  }

  // The plain cases inline; a skew, an LFSR, holes or zones out of line (next_shaped), so the
  // common loop keeps next() small enough to inline (a measured 16 instructions per I/O).
  [[nodiscard]] __attribute__((always_inline)) std::uint64_t next(engines::Direction dir) noexcept {
    std::uint64_t block;
    switch (kind_) {
      case Kind::Uniform:
        block = rng_.below(blocks_);
        break;
      case Kind::Map:
        block = map_->next();
        break;
      case Kind::Sequential: {
        std::uint64_t& cursor = seq_next_[static_cast<unsigned>(dir)];
        block = cursor;
        if (++cursor == blocks_) cursor = 0;
        break;
      }
      default:
        block = next_shaped(dir);
    }
    if (jobs_ != 1) block = block * jobs_ + job_;
    return region_offset_ + block * block_size_;
  }

 private:
  // Shaped: skew, LFSR, holes, zones or zbd
  enum class Kind : unsigned char { Uniform, Map, Sequential, Shaped };

  __attribute__((noinline)) std::uint64_t next_shaped(engines::Direction dir) noexcept {
    if (zones_) return zones_->next(static_cast<unsigned>(dir));
    if (zbd_) return zbd_->next();
    if (random_) return lfsr_ ? lfsr_->next() : skew_->next(static_cast<unsigned>(dir));
    std::uint64_t& cursor = seq_next_[static_cast<unsigned>(dir)];
    cursor = holed(cursor);
    const std::uint64_t block = cursor;
    ++cursor;
    return block;
  }

  // fio's get_next_seq_offset with ddir_seq_add: the next I/O starts seq_add blocks after the end
  // of the last (`end`; 0 before the first, which starts the region); past the region's end it
  // wraps to its start, before its start (backwards) to its end less the step back.
  [[nodiscard]] std::uint64_t holed(std::uint64_t end) const noexcept {
    if (end == 0) return 0;
    const auto pos = static_cast<std::int64_t>(end) + seq_add_;
    if (pos >= 0 && static_cast<std::uint64_t>(pos) < blocks_)
      return static_cast<std::uint64_t>(pos);
    if (seq_add_ > 0) return 0;
    const auto back = static_cast<std::int64_t>(blocks_) + seq_add_;
    return back > 0 ? static_cast<std::uint64_t>(back) : 0;
  }

  Random& rng_;
  bool random_;
  std::uint64_t region_offset_, block_size_;
  unsigned jobs_, job_;
  std::int64_t seq_add_;
  std::uint64_t blocks_ = 0;
  std::optional<RandomMap> map_;        // random with the map (fio's default)
  SkewedBlocks* skew_ = nullptr;        // a skewed distribution, or null
  StridedWalk* zones_ = nullptr;        // strided zones, or null
  ZbdReadWalk* zbd_ = nullptr;          // zonemode=zbd reads below the write pointers, or null
  FioLfsr* lfsr_ = nullptr;             // random_generator=lfsr, or null
  Kind kind_ = Kind::Uniform;           // which of next()'s cases, decided once
  std::uint64_t seq_next_[2] = {0, 0};  // sequential: the next block to read, to write
};

}  // namespace storqual::runner
