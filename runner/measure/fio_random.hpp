// SPDX-License-Identifier: Apache-2.0
// fio's own random generators (fio 3.33 lib/rand.h, lib/rand.c) and the seeds fio gives each of a
// job's generators (init.c setup_random_seeds), so that a workload that asks for fio's sequence
// (block sizes of a bssplit or bsrange, runner/measure/block_size_mix.hpp) draws the values fio
// draws for the same job, seed and job number.
//
// - taus88 (random_generator=tausworthe, fio's default): L'Ecuyer's maximally equidistributed
//   combined Tausworthe generator, 32-bit output, period about 2^88;
// - taus258 (random_generator=tausworthe64): its 64-bit sibling, period about 2^258.
// fio seeds each with a linear congruential step from the seed and discards 6 outputs. Both are
// a few shifts and xors per draw, and hold no allocation.
#pragma once

#include <cstdint>

namespace storqual::runner {

class FioRandom {
 public:
  FioRandom(std::uint64_t seed, bool use64) : use64_(use64) {
    if (use64)
      init64(seed);
    else
      init32(static_cast<std::uint32_t>(seed));
  }

  // fio's __rand: the next output, in [0, max()].
  std::uint64_t next() noexcept { return use64_ ? next64() : next32(); }
  // fio's rand_between(start, end), both inclusive: rand32_upto or rand64_upto on the next output.
  std::uint64_t between(std::uint64_t start, std::uint64_t end) noexcept {
    const std::uint64_t v = next();
    const double span = static_cast<double>(end - start + 1);
    return start + (use64_ ? static_cast<std::uint64_t>(
                                 span * (static_cast<double>(v) / 18446744073709551616.0))
                           : static_cast<std::uint64_t>(
                                 static_cast<int>(span * (static_cast<double>(v) / 4294967296.0))));
  }
  // fio's __get_next_seed on a 64-bit host: two outputs multiplied.
  std::uint64_t next_seed() noexcept {
    const std::uint64_t r = next();
    return r * next();
  }
  // fio's rand_max: FRAND32_MAX or FRAND64_MAX.
  [[nodiscard]] std::uint64_t max() const noexcept { return use64_ ? UINT64_MAX : UINT32_MAX; }
  // fio's __rand_0_1: (next + 1) / (max + 1), in (0, 1].
  double next_0_1() noexcept {
    const std::uint64_t v = next();
    return use64_ ? (static_cast<double>(v) + 1.0) / 18446744073709551616.0
                  : (static_cast<double>(v) + 1.0) / 4294967296.0;
  }

 private:
  static std::uint64_t floor_seed(std::uint64_t x, std::uint64_t m) { return x < m ? x + m : x; }

  // lib/rand.c __init_rand32: the LCG is C's (2^31) + (2^17) + (2^7), xors, that is 53.
  void init32(std::uint32_t seed) {
    s_[0] = static_cast<std::uint32_t>(floor_seed((53u * 69069u) ^ seed, 1));
    s_[1] = static_cast<std::uint32_t>(
        floor_seed((static_cast<std::uint32_t>(s_[0]) * 69069u) ^ seed, 7));
    s_[2] = static_cast<std::uint32_t>(
        floor_seed((static_cast<std::uint32_t>(s_[1]) * 69069u) ^ seed, 15));
    for (int i = 0; i < 6; ++i) (void)next32();
  }
  void init64(std::uint64_t seed) {
    constexpr std::uint64_t kLcg = 6906969069ull;
    const std::uint64_t mins[5] = {1, 7, 15, 33, 49};
    std::uint64_t x = 53;
    for (int i = 0; i < 5; ++i) s_[i] = x = floor_seed(x * kLcg ^ seed, mins[i]);
    for (int i = 0; i < 6; ++i) (void)next64();
  }
  std::uint64_t next32() noexcept {
    auto taus = [](std::uint32_t s, int a, int b, std::uint32_t c, int d) {
      return ((s & c) << d) ^ (((s << a) ^ s) >> b);
    };
    const auto s1 = taus(static_cast<std::uint32_t>(s_[0]), 13, 19, 4294967294u, 12);
    const auto s2 = taus(static_cast<std::uint32_t>(s_[1]), 2, 25, 4294967288u, 4);
    const auto s3 = taus(static_cast<std::uint32_t>(s_[2]), 3, 11, 4294967280u, 17);
    s_[0] = s1;
    s_[1] = s2;
    s_[2] = s3;
    return s1 ^ s2 ^ s3;
  }
  std::uint64_t next64() noexcept {
    auto step = [](std::uint64_t& s, int a, int b, std::uint64_t c, int d) {
      const std::uint64_t x = ((s << a) ^ s) >> b;
      s = ((s & c) << d) ^ x;
    };
    step(s_[0], 1, 53, 18446744073709551614ull, 10);
    step(s_[1], 24, 50, 18446744073709551104ull, 5);
    step(s_[2], 3, 23, 18446744073709547520ull, 29);
    step(s_[3], 5, 24, 18446744073709420544ull, 23);
    step(s_[4], 3, 33, 18446744073701163008ull, 8);
    return s_[0] ^ s_[1] ^ s_[2] ^ s_[3] ^ s_[4];
  }

  bool use64_;
  std::uint64_t s_[5] = {};
};

// The purposes fio seeds a generator for, by their place in fio 3.33's rand_seeds (fio.h
// FIO_RAND_*_OFF); only those storqual draws from.
enum class FioSeed : unsigned {
  BlockSizeRead = 0,
  BlockSizeWrite = 1,
  BlockSizeTrim = 2,
  Buffer = 9,             // FIO_RAND_BUF_OFF: write buffer contents (buf_state)
  Dedupe = 14,            // FIO_DEDUPE_OFF: whether a write repeats an earlier one
  Zone = 16,              // FIO_RAND_ZONE_OFF: which zone of a zoned distribution
  DedupeWorkingSet = 20,  // FIO_RAND_DEDUPE_WORKING_SET_IX: which page of the working set
};

// fio's seed for `purpose` of the job numbered `thread_number` (1 for a file's first job, then on
// through its clones and the jobs after it), from randseed (fio 3.33's default 0x89), as fio's
// setup_random_seeds with randrepeat=1 (its default).
[[nodiscard]] inline std::uint64_t fio_seed(FioSeed purpose, std::uint64_t randseed,
                                            unsigned thread_number) noexcept {
  std::uint64_t seed = randseed;
  for (int i = 0; i < 4; ++i) seed *= 0x9e370001ull;
  for (unsigned i = 0; i < static_cast<unsigned>(purpose); ++i) seed *= 0x9e370001ull;
  return seed * thread_number + static_cast<unsigned>(purpose);
}

inline constexpr std::uint64_t kFioDefaultRandseed = 0x89;

// fio's seed of random offsets without the random map for the job numbered `thread_number`
// under randrepeat=1 (init.c td_fill_rand_seeds_internal: FIO_RANDSEED x thread_number).
[[nodiscard]] inline std::uint64_t fio_block_seed(unsigned thread_number) noexcept {
  return 0xb1899bedull * thread_number;
}

}  // namespace storqual::runner
