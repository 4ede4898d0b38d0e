// SPDX-License-Identifier: Apache-2.0
// xoshiro256** (Blackman and Vigna): the job loop's seeded generator, fast and good enough for
// offsets, directions and buffer contents. Not for anything secret.
#pragma once

#include <cstdint>

namespace storqual::runner {

class Random {
 public:
  explicit Random(std::uint64_t seed) {
    for (auto& s : state_) {  // splitmix64 to spread the seed
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, n) by Lemire's multiply-shift (bias below 2^-64 * n, negligible).
  std::uint64_t below(std::uint64_t n) noexcept {
    return static_cast<std::uint64_t>((static_cast<Wide>(next()) * n) >> 64);
  }

 private:
  __extension__ typedef unsigned __int128 Wide;  // GCC/Clang 128-bit integer
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace storqual::runner
