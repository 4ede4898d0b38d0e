// SPDX-License-Identifier: Apache-2.0
// Skewed random access as fio defines it (fio 3.33 options.c str_random_distribution_cb and
// zone_split_ddir; lib/zipf.c, lib/gauss.c; io_u.c __get_next_rand_offset_zoned[_abs]): the
// workload options `random_distribution` and `random_generator` (docs/formats.md).
//
// - zipf:THETA[:CENTER] (THETA > 0, not 1), pareto:H[:CENTER] (0 < H < 1), normal:DEV[:CENTER]
//   (DEV percent of the region, 0 <= DEV < 100): fio's generators over the region's blocks, each
//   value scattered with fio's multiplicative hash (so the hot blocks are spread over the region)
//   and shifted by a random offset, or by CENTER (0..1) of the region;
// - zoned:ACCESS/SIZE%:...[,WRITES] (ACCESS percent of the I/Os to the next SIZE percent of the
//   region; an entry without SIZE shares what is left) and zoned_abs:ACCESS/BYTES:...: the zone
//   drawn 1..100 from its own generator, the block in it uniformly.
// fio runs a non-uniform distribution without its random map (each draw independent) and draws
// every value from its own generators, seeded as fio seeds them: the same job, target name and
// job number give fio's blocks in fio's order. The zipf table sums up to 10M terms once per job
// (fio's cap), a second or so for a large region; each draw is then a few pow() calls.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/measure/block_size_mix.hpp"
#include "runner/measure/fio_random.hpp"

namespace storqual::runner {

enum class DistributionKind { Random, Zipf, Pareto, Normal, Zoned, ZonedAbs };

struct AccessZone {
  unsigned access_perc = 0;
  unsigned size_perc = 0;  // zoned: percent of the region
  std::uint64_t size = 0;  // zoned_abs: bytes
  bool operator==(const AccessZone&) const = default;
};

struct OffsetDistribution {
  DistributionKind kind = DistributionKind::Random;
  double value = 0;    // zipf's theta, pareto's h, normal's deviation in percent
  double center = -1;  // fio's random_center: -1 none, else 0..1
  std::array<std::vector<AccessZone>, 3> zones;  // zoned: read, write, trim (empty: uniform)
  bool use64 = false;  // random_generator=tausworthe64 (the zoned draws' uniform part)
  // random_generator=lfsr: uniform random offsets from fio's LFSR (runner/measure/fio_lfsr.hpp),
  // each block once per pass without a random map, fio's blocks in fio's order.
  bool lfsr = false;
  bool operator==(const OffsetDistribution&) const = default;
  [[nodiscard]] bool skewed() const noexcept { return kind != DistributionKind::Random; }
};

// fio's random_distribution text; throws UnitError "random_distribution: why" for what fio
// refuses. `size` reads zoned_abs sizes.
[[nodiscard]] OffsetDistribution parse_random_distribution(std::string_view text,
                                                           const SizeParser& size);
// The text that parses back to `d` ("random" for the uniform one).
[[nodiscard]] std::string random_distribution_text(
    const OffsetDistribution& d, const std::function<std::string(std::uint64_t)>& format);

// fio's jhash (hash.h, Bob Jenkins' as fio has it), which seeds the zipf, pareto and normal
// generators from the target's name.
[[nodiscard]] std::uint32_t fio_jhash(std::string_view key, std::uint32_t initval = 0) noexcept;

// zipf's normalising sum over min(nranges, 10M) terms (lib/zipf.c zipf_update): up to a second
// for a large region, so the runner computes it before the run's clock starts.
[[nodiscard]] double zipf_zetan(double theta, std::uint64_t nranges);

// The blocks a job's random I/Os go to under a skewed distribution: next(dir) is a block index
// in [0, blocks), the region's blocks of `granule` bytes. `nranges` is fio's count for the
// zipf-like generators (the region over the smallest block size, rounded up).
class SkewedBlocks {
 public:
  struct Setup {
    std::uint64_t blocks = 0;   // blocks of the granule (fio's last_block)
    std::uint64_t nranges = 0;  // zipf, pareto, normal: fio's ranges
    std::uint64_t granule = 0;  // bytes per block (fio's blockalign)
    std::string target;         // fio's file name, which seeds zipf, pareto and normal
    unsigned thread_number = 1;
    double zetan = 0;  // zipf: zipf_zetan(theta, nranges), computed before the run
  };
  SkewedBlocks(const OffsetDistribution& d, const Setup& s);
  [[nodiscard]] std::uint64_t next(unsigned dir) noexcept;

 private:
  std::uint64_t zipf() noexcept;
  std::uint64_t pareto() noexcept;
  std::uint64_t gauss() noexcept;
  std::uint64_t zoned(unsigned dir) noexcept;
  std::uint64_t uniform(std::uint64_t lastb) noexcept;

  OffsetDistribution d_;
  Setup s_;
  FioRandom shaped_;  // zipf, pareto, normal (fio's zipf_state.rand / gauss_state.r)
  FioRandom zone_;    // which zone (fio's zone_state)
  FioRandom block_;   // the block in a zone (fio's random_state)
  std::uint64_t rand_off_ = 0;
  double zetan_ = 0, zeta2_ = 0, pareto_pow_ = 0;
  std::uint64_t stddev_ = 0;
  // zoned: per direction and per draw 1..100, the zone's start and end (percent, or bytes).
  struct ZoneIndex {
    std::uint64_t start = 0, end = 0;
  };
  std::array<std::vector<ZoneIndex>, 3> index_;
};

}  // namespace storqual::runner
