// SPDX-License-Identifier: Apache-2.0
// fio's LFSR (fio 3.33 lib/lfsr.c; random_generator=lfsr): a maximal-length linear feedback shift
// register over the job's blocks, which gives every block of [0, blocks) once per pass in a
// pseudo-random order without a random map.
//
// Executive summary. The register has the fewest bits n (3..63) with 2^n > blocks, and fio's taps
// for n (its table, from the LFSR tap list fio cites); each step is
//   v = ((v >> 1) | 2^(n-1)) ^ (((v & 1) - 1) & xormask),
// which walks all 2^n - 1 states but all-ones; values over blocks - 1 are stepped over. fio seeds
// it with the job's block seed (init.c: FIO_RANDSEED x thread_number under randrepeat=1, masked to
// n bits) and, with spin 0 (what fio uses for offsets), its first value takes two steps
// (prepare_spin's cycle length of 1). After `blocks` values a pass is over: fio resets the register
// to the seed (time based) or ends the job; next() resets. State: five words; each value is a few
// shifts and xors, 2^n / blocks < 2 steps on average.
#pragma once

#include <cstdint>

namespace storqual::runner {

class FioLfsr {
 public:
  // fio's lfsr_init(blocks, seed, 0). Not valid() where fio fails to initialize it ("fio: failed
  // initializing LFSR": no blocks, 2^63 or more, or a seed at the forbidden all-ones state).
  FioLfsr(std::uint64_t blocks, std::uint64_t seed) noexcept : seed_(seed) {
    unsigned n = 3;
    while (n < 64 && (std::uint64_t{1} << n) <= blocks) ++n;
    if (blocks == 0 || n == 64) return;
    max_val_ = blocks - 1;
    xormask_ = xormask(n);
    cached_bit_ = std::uint64_t{1} << (n - 1);
    reset();
    valid_ = last_val_ != (cached_bit_ << 1) - 1;
  }
  [[nodiscard]] bool valid() const noexcept { return valid_; }

  // The next block (fio's lfsr_next), a new pass from the seed once every block was given.
  std::uint64_t next() noexcept {
    if (num_vals_++ > max_val_) {
      reset();
      num_vals_ = 1;
    }
    do {
      step();
      if (first_) {  // spin 0's cycle length of 1: the first value steps twice
        first_ = false;
        step();
      }
    } while (last_val_ > max_val_);
    return last_val_;
  }

  // fio's lfsr_reset(seed): the register at the seed, the pass at its start (the first value's
  // second step is lfsr_init's alone: reset leaves the cycle length spent).
  void reset() noexcept {
    num_vals_ = 0;
    last_val_ = seed_ & ((cached_bit_ << 1) - 1);
  }

 private:
  void step() noexcept {
    last_val_ = ((last_val_ >> 1) | cached_bit_) ^ (((last_val_ & 1) - 1) & xormask_);
  }

  // fio's lfsr_taps[n] (lib/lfsr.c) as the xormask lfsr_create_xormask makes of them.
  static std::uint64_t xormask(unsigned n) noexcept {
    static constexpr std::uint8_t kTaps[64][6] = {
        {0},
        {0},
        {0},
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
        {32, 31, 29, 1},
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
    };
    std::uint64_t mask = 0;
    for (unsigned i = 0; i < 6 && kTaps[n][i] != 0; ++i)
      mask |= std::uint64_t{1} << (kTaps[n][i] - 1);
    return mask;
  }

  std::uint64_t seed_;
  std::uint64_t max_val_ = 0, xormask_ = 0, cached_bit_ = 0;
  std::uint64_t last_val_ = 0, num_vals_ = 0;
  bool first_ = true;  // lfsr_init's first value: two steps
  bool valid_ = false;
};

}  // namespace storqual::runner
