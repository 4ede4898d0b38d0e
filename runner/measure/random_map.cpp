// SPDX-License-Identifier: Apache-2.0
// The full-period block order of fio's random map (see random_map.hpp).
#include "runner/measure/random_map.hpp"

#include <array>
#include <bit>
#include <numeric>

namespace storqual::runner {
namespace {

// Maximal-length tap positions (1-based, the register's own bit n first) for n = 2..64, from the
// Xilinx application note XAPP052 ("Efficient Shift Registers, LFSR Counters, and Long
// Pseudo-Random Sequence Generators"), the table fio's lib/lfsr.c also uses.
constexpr std::array<std::array<std::uint8_t, 6>, 65> kTaps = {{
    {},
    {},
    {2, 1},
    {3, 2},
    {4, 3},
    {5, 3},
    {6, 5},
    {7, 6},
    {8, 6, 5, 4},
    {9, 5},
    {10, 7},
    {11, 9},
    {12, 6, 4, 1},
    {13, 4, 3, 1},
    {14, 5, 3, 1},
    {15, 14},
    {16, 15, 13, 4},
    {17, 14},
    {18, 11},
    {19, 6, 2, 1},
    {20, 17},
    {21, 19},
    {22, 21},
    {23, 18},
    {24, 23, 22, 17},
    {25, 22},
    {26, 6, 2, 1},
    {27, 5, 2, 1},
    {28, 25},
    {29, 27},
    {30, 6, 4, 1},
    {31, 28},
    {32, 22, 2, 1},
    {33, 20},
    {34, 27, 2, 1},
    {35, 33},
    {36, 25},
    {37, 5, 4, 3, 2, 1},
    {38, 6, 5, 1},
    {39, 35},
    {40, 38, 21, 19},
    {41, 38},
    {42, 41, 20, 19},
    {43, 42, 38, 37},
    {44, 43, 18, 17},
    {45, 44, 42, 41},
    {46, 45, 26, 25},
    {47, 42},
    {48, 47, 21, 20},
    {49, 40},
    {50, 49, 24, 23},
    {51, 50, 36, 35},
    {52, 49},
    {53, 52, 38, 37},
    {54, 53, 18, 17},
    {55, 31},
    {56, 55, 35, 34},
    {57, 50},
    {58, 39},
    {59, 58, 38, 37},
    {60, 59},
    {61, 60, 46, 45},
    {62, 61, 6, 5},
    {63, 62},
    {64, 63, 61, 60},
}};

// splitmix64's finaliser: a well-mixed start point for each pass.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t RandomMap::feedback_mask(unsigned bits) noexcept {
  if (bits < 2 || bits > 64) return 0;
  std::uint64_t m = 0;
  for (std::uint8_t t : kTaps[bits])
    if (t) m |= std::uint64_t{1} << (t - 1);
  return m;
}

RandomMap::RandomMap(std::uint64_t blocks, std::uint64_t seed)
    : blocks_(blocks ? blocks : 1), seed_(seed) {
  // The smallest n with 2^n - 1 >= blocks (n >= 2: a 1-bit register has no feedback).
  width_ = std::max(2u, static_cast<unsigned>(std::bit_width(blocks_)));
  mask_ = feedback_mask(width_);
  const std::uint64_t period = width_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width_) - 1;
  spin_ = width_;
  while (std::gcd(std::uint64_t{spin_}, period) != 1) ++spin_;
  start_pass();
}

void RandomMap::start_pass() noexcept {
  const std::uint64_t period = width_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width_) - 1;
  state_ = mix(seed_ ^ mix(pass_)) % period + 1;  // any non-zero state
  emitted_ = 0;
}

std::uint64_t RandomMap::next() noexcept {
  std::uint64_t v;
  do {
    for (unsigned i = 0; i < spin_; ++i) state_ = (state_ >> 1) ^ (~((state_ & 1) - 1) & mask_);
    v = state_ - 1;
  } while (v >= blocks_);
  if (++emitted_ == blocks_) {
    ++pass_;
    start_pass();
  }
  return v;
}

}  // namespace storqual::runner
