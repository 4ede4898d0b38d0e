// SPDX-License-Identifier: Apache-2.0
// Block-size mixes as fio defines them (fio 3.33 options.c bssplit_ddir, str_split_parse;
// io_u.c get_next_buflen): the workload options `bssplit` and `bsrange` (docs/formats.md).
//
// - bssplit=BS/PERC:BS/PERC...[,WRITE[,TRIM]]: per direction, the share of I/Os of each size.
//   Without ',' the one list is every direction's; with one ',' the part after it is the writes'
//   (and the trims'); an empty part keeps that direction's bs. An entry without a percentage (or
//   with 0) shares what the others leave, in whole percents ((100 - given) / missing); a
//   percentage over 100 counts as 100; an empty entry ends the list; at most 64 entries.
//   Percentages that add to more than 100 with more than one entry missing are refused, as fio
//   refuses them (with one missing, fio's arithmetic wraps: refused too).
// - bsrange=LO-HI[,LO-HI[,LO-HI]]: a size drawn from LO + HI * U[0,1) (fio's formula, which
//   caps at HI: the largest size is more likely than the others), made a multiple of LO.
// The size of each I/O is drawn as fio draws it: the direction's own taus88 generator
// (runner/measure/fio_random.hpp), seeded as fio seeds it, so the same job, randseed and job
// number give fio's sizes in fio's order. An entry is taken only where the I/O fits before the
// region's end (fio's io_u_fits).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/measure/fio_random.hpp"

namespace storqual::runner {

struct BlockSizeShare {
  std::uint64_t bs = 0;
  unsigned perc = 0;  // percent of the direction's I/Os; fio's order: ascending (bs_cmp)
  bool operator==(const BlockSizeShare&) const = default;
};

// One direction's sizes: fixed (min_bs == max_bs), a range (split empty) or a split.
struct BlockSizeChoice {
  std::uint64_t min_bs = 0, max_bs = 0;  // 0: the workload's bs
  std::vector<BlockSizeShare> split;
  bool operator==(const BlockSizeChoice&) const = default;
  [[nodiscard]] bool mixed() const noexcept { return min_bs != max_bs; }
};

// Read, write, trim (fio's DDIR_READ, DDIR_WRITE, DDIR_TRIM).
using BlockSizeMix = std::array<BlockSizeChoice, 3>;

// fio's split of an option's value by direction (options.c str_split_parse): READ[,WRITE[,TRIM]];
// one part is every direction's, two give the trims the writes' part.
[[nodiscard]] std::array<std::string_view, 3> fio_direction_parts(std::string_view text);

// Reads one size ("4k", "64k", "512"); throws UnitError (or FileError) for a bad one. The suite
// format passes storqual's size parser, the fio import fio's (kb_base).
using SizeParser = std::function<std::uint64_t(std::string_view)>;

// fio's bssplit text. Throws UnitError "bssplit: why" for what fio refuses (and for a size
// over kMaxBlockSize, or 0).
[[nodiscard]] BlockSizeMix parse_bssplit(std::string_view text, const SizeParser& size);
// fio's bsrange text ("4k-64k" or "4k-64k,8k-8k"; LO-LO is a fixed size).
[[nodiscard]] BlockSizeMix parse_bsrange(std::string_view text, const SizeParser& size);
// The text parse_bssplit (or parse_bsrange, for a mix without splits) reads back to `mix`, sizes
// written with `format` ("4k"); "" when no direction is mixed or split.
[[nodiscard]] std::string bssplit_text(const BlockSizeMix& mix,
                                       const std::function<std::string(std::uint64_t)>& format);
[[nodiscard]] std::string bsrange_text(const BlockSizeMix& mix,
                                       const std::function<std::string(std::uint64_t)>& format);

// The sizes a choice can give that alignment depends on: a split's sizes, a range's ends (its
// other sizes are multiples of its smallest).
[[nodiscard]] std::vector<std::uint64_t> block_sizes_of(const BlockSizeChoice& choice);

// Each direction `from` sets (min_bs > 0) replaces that of `into` (a later bssplit or bsrange
// over an earlier one, as fio applies its options in order).
void merge_block_size_mix(BlockSizeMix& into, const BlockSizeMix& from);

// The sizes one direction of a job draws, with its own generator. next(room) is fio's
// get_next_buflen for an I/O with `room` bytes before the region's end: 0 when not even the
// smallest size fits.
class BlockSizeDraw {
 public:
  BlockSizeDraw(const BlockSizeChoice& choice, std::uint64_t seed, bool use64)
      : choice_(choice), rng_(seed, use64) {}

  [[nodiscard]] std::uint64_t next(std::uint64_t room) noexcept {
    if (!choice_.mixed()) return choice_.min_bs;
    if (room < choice_.min_bs) return 0;
    return draw(room);
  }
  [[nodiscard]] std::uint64_t min_bs() const noexcept { return choice_.min_bs; }

 private:
  std::uint64_t draw(std::uint64_t room) noexcept;
  BlockSizeChoice choice_;
  FioRandom rng_;
};

// Where and how large each I/O of a job with a mix is (the job loop's, runner/measure/
// job_loop.hpp). Random: at the offset the job's generator drew (a multiple of `granule`, the
// smallest size of the directions in use, as fio's random offsets are blocks of min_bs), the
// size drawn for the room to the region's end. Sequential: each direction goes on where its last
// I/O ended (fio's last_pos), and from the region's start again once its smallest size no longer
// fits. Each direction draws from its own generator, seeded as fio seeds the job numbered
// `thread_number` (fio_random.hpp).
class MixedIoPlacement {
 public:
  struct Region {
    std::uint64_t offset = 0, size = 0;
    std::uint64_t granule = 0;
    bool random = false;
  };
  MixedIoPlacement(const BlockSizeChoice& read, const BlockSizeChoice& write, const Region& region,
                   unsigned thread_number)
      : draw_{BlockSizeDraw(read,
                            fio_seed(FioSeed::BlockSizeRead, kFioDefaultRandseed, thread_number),
                            false),
              BlockSizeDraw(write,
                            fio_seed(FioSeed::BlockSizeWrite, kFioDefaultRandseed, thread_number),
                            false)},
        region_(region) {}

  // `offset`: in, the generator's draw (random); out, the I/O's. Returns its length.
  std::uint64_t place(unsigned dir, std::uint64_t& offset) noexcept {
    const std::uint64_t end = region_.offset + region_.size;
    BlockSizeDraw& draw = draw_[dir];
    if (region_.random) {
      const std::uint64_t len = draw.next(end - offset);
      if (len) return len;
      // This direction's smallest size is larger than the granule and does not fit here: the
      // last place it does, on the granule.
      const std::uint64_t smallest = draw.min_bs();
      offset = region_.offset + (region_.size - smallest) / region_.granule * region_.granule;
      return smallest;
    }
    std::uint64_t& cursor = cursor_[dir];
    std::uint64_t len = draw.next(region_.size - cursor);
    if (!len) {
      cursor = 0;
      len = draw.next(region_.size);
    }
    offset = region_.offset + cursor;
    cursor += len;
    return len;
  }

 private:
  BlockSizeDraw draw_[2];
  Region region_;
  std::uint64_t cursor_[2] = {0, 0};
};

}  // namespace storqual::runner
