// SPDX-License-Identifier: Apache-2.0
// RandomMap: fio's random map without the map. Yields every block number 0..N-1 exactly once per
// pass, in a scrambled order, from a maximal-length linear feedback shift register (as fio's
// random_generator=lfsr, lib/lfsr.c) instead of a bitmap of blocks already done.
//
// Executive summary:
// - Memory: three words, whatever N is (a bitmap of a 1 TiB device at 4 KiB would be 32 MiB).
// - Period: an n-bit Galois LFSR with primitive feedback polynomial (the Xilinx XAPP052 maximal
//   length taps, as fio's table) steps through every non-zero n-bit state once before repeating;
//   n is the smallest width with 2^n - 1 >= N. States map to values state - 1, and values >= N
//   are skipped (fewer than half of them, since 2^(n-1) - 1 < N), so each pass is a permutation
//   of 0..N-1.
// - Order: consecutive LFSR states are shifts of each other (value k+1 is about value k / 2), which
//   as offsets would walk down the device; each output therefore advances the register `spin`
//   steps (about n, coprime with the period so that the pass stays a full permutation), so every
//   bit of the state is replaced between two outputs.
// - Cost: `spin` shift/xor steps per output (< 70 for any N), no division, no branch on the data.
// - Passes: after N outputs the next pass starts at another point of the cycle (from the seed), so
//   successive passes are each a permutation but not the same one.
// - Not thread safe: one per job.
#pragma once

#include <cstdint>

namespace storqual::runner {

class RandomMap {
 public:
  // `blocks` > 0; `seed` chooses where in the cycle the first pass starts.
  RandomMap(std::uint64_t blocks, std::uint64_t seed);

  // The next block number in 0..blocks-1.
  [[nodiscard]] std::uint64_t next() noexcept;

  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] unsigned width() const noexcept { return width_; }     // bits of the register
  [[nodiscard]] unsigned spin() const noexcept { return spin_; }       // steps per output
  [[nodiscard]] std::uint64_t pass() const noexcept { return pass_; }  // 0-based, of the next value

  // The Galois feedback mask of a maximal-length n-bit LFSR, 2 <= n <= 64 (0 otherwise).
  [[nodiscard]] static std::uint64_t feedback_mask(unsigned bits) noexcept;

 private:
  void start_pass() noexcept;

  std::uint64_t blocks_;
  std::uint64_t seed_;
  std::uint64_t mask_ = 0;
  std::uint64_t state_ = 1;
  std::uint64_t emitted_ = 0;  // in this pass
  std::uint64_t pass_ = 0;
  unsigned width_ = 2;
  unsigned spin_ = 1;
};

}  // namespace storqual::runner
