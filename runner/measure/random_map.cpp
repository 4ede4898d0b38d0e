// SPDX-License-Identifier: Apache-2.0
// The full-period block order of fio's random map (see random_map.hpp).
#include "runner/measure/random_map.hpp"

#include <algorithm>
#include <bit>

namespace storqual::runner {
namespace {

// splitmix64's finaliser: well-mixed keys for each pass.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

RandomMap::RandomMap(std::uint64_t blocks, std::uint64_t seed)
    : blocks_(blocks ? blocks : 1), seed_(seed) {
  // The smallest n with 2^n >= blocks (at least 1 bit).
  width_ = std::max(1u, static_cast<unsigned>(std::bit_width(blocks_ - 1)));
  mask_ = width_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width_) - 1;
  s1_ = std::max(1u, width_ / 2);
  s2_ = std::max(1u, width_ / 3 + 1);
  start_pass(0);
}

void RandomMap::start_pass(std::uint64_t pass) noexcept {
  pass_ = pass;
  const std::uint64_t base = mix(seed_ ^ mix(pass));
  k1_ = mix(base) | 1;
  k2_ = mix(base + 1) | 1;
  k3_ = mix(base + 2) | 1;
  counter_ = 0;
  emitted_ = 0;
}

}  // namespace storqual::runner
