// SPDX-License-Identifier: Apache-2.0
// RandomMap: fio's random map without the map. Yields every block number 0..N-1 exactly once per
// pass, in a scrambled order, from a keyed bijection of a counter instead of a bitmap of blocks
// already done (fio keeps an axmap; its random_generator=lfsr does the same without memory).
//
// Executive summary:
// - Memory: a few words, whatever N is (a bitmap of a 1 TiB device at 4 KiB would be 32 MiB).
// - Pass: a counter runs over 0..2^n - 1, n the smallest width with 2^n >= N, through a bijection
//   of n-bit numbers (three rounds of multiply by an odd key and xor-shift right, each invertible
//   modulo 2^n); outputs >= N are skipped (fewer than half of them), so each pass is a
//   permutation of 0..N-1.
// - Order: consecutive counters land far apart (the multiplies spread the low bits up, the
//   shifts bring the high bits down); each pass draws new keys from the seed, so successive
//   passes are each a permutation but not the same one.
// - Cost: about a dozen multiply/shift/xor operations per output and fewer than two tries on
//   average, no division and no table: on the null engine the loop stays within a few percent of
//   drawing with replacement. A maximal-length LFSR stepped `n` times per output (so that
//   consecutive outputs are not shifts of each other) cost 50 ns per I/O: a third of the null
//   engine's rate at iodepth 32.
// - Not thread safe: one per job.
#pragma once

#include <cstdint>

namespace storqual::runner {

class RandomMap {
 public:
  // `blocks` > 0; `seed` chooses the keys of every pass.
  RandomMap(std::uint64_t blocks, std::uint64_t seed);

  // The next block number in 0..blocks-1.
  [[nodiscard]] std::uint64_t next() noexcept {
    for (;;) {
      const std::uint64_t v = permute(counter_++);
      if (v < blocks_) {
        if (++emitted_ == blocks_) start_pass(pass_ + 1);
        return v;
      }
    }
  }

  // This pass's bijection of 0..2^width - 1 (tests check that it is one).
  [[nodiscard]] std::uint64_t permute(std::uint64_t x) const noexcept {
    x = (x * k1_) & mask_;
    x ^= x >> s1_;
    x = (x * k2_) & mask_;
    x ^= x >> s2_;
    x = (x * k3_) & mask_;
    x ^= x >> s1_;
    return x;
  }

  // Leaves this pass for the next (fio's axmap_reset: every block may come again).
  void restart() noexcept { start_pass(pass_ + 1); }

  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] unsigned width() const noexcept { return width_; }     // bits of the counter
  [[nodiscard]] std::uint64_t pass() const noexcept { return pass_; }  // 0-based, of the next value

 private:
  void start_pass(std::uint64_t pass) noexcept;

  std::uint64_t blocks_;
  std::uint64_t seed_;
  std::uint64_t mask_ = 1;
  std::uint64_t k1_ = 1, k2_ = 1, k3_ = 1;  // odd: multiplying by them is a bijection mod 2^n
  unsigned s1_ = 1, s2_ = 1;                // xor-shifts, 1 <= s < n (or 1 when n is 1)
  std::uint64_t counter_ = 0;
  std::uint64_t emitted_ = 0;  // in this pass
  std::uint64_t pass_ = 0;
  unsigned width_ = 1;
};

}  // namespace storqual::runner
