// SPDX-License-Identifier: Apache-2.0
// Compressible and deduplicable writes as fio makes them (fio 3.33's buffer_compress_percentage,
// buffer_compress_chunk, dedupe_percentage, dedupe_mode, dedupe_working_set_percentage and
// dedupe_global; io_u.c fill_io_buffer, get_buf_state and save_buf_state, lib/rand.c
// fill_random_buf_percentage, dedupe.c init_dedupe_working_set_seeds), so that a device that
// compresses or deduplicates sees the ratios fio's job gives it, byte for byte where fio's
// generators are deterministic (randrepeat=1, fio's default seed).
//
// A write of len bytes is cut into chunks of buffer_compress_chunk (fio's default 512; 0: the
// smallest write). Each chunk takes one seed from a generator (two tausworthe draws multiplied) and
// is (100 - compress)% random bytes from that seed (fio's __fill_random_buf: 4 seed buckets of
// 64-bit words, each the last times the golden ratio), then zeros to the chunk's end. A write is
// deduplicable or not as a whole: with dedupe_percentage, fio draws 1..100 per write and, at or
// under the percentage, fills it from a copy of an earlier generator state instead of the running
// one: the last unique state (dedupe_mode=repeat: the write repeats the content the next unique
// write starts with) or one of a working set of states drawn at start, one per unique page of
// dedupe_working_set_percentage of the job's size (working_set; with dedupe_global the set takes
// its states from every job of the workload in turn, so the jobs repeat each other's pages).
//
// Ratios, as vdbench's: compratio = 100 / (100 - buffer_compress_percentage) for a compressor
// that removes the zero runs (compratio=2 is 50); dedupratio = 1 / (1 - dedupe_percentage / 100)
// for the repeat mode over a long run (dedupratio=2 is 50); vdbench's dedup unit is fio's bs.
//
// Memory: the working set holds one generator state (48 bytes) per unique page; validate refuses
// more than kMaxWorkingSetStates. A write with none of these options never reaches this code (the
// job loop's refill path does, runner/measure/job_loop.hpp).
//
// Thread safety: one FioBufferFill per job thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner/measure/fio_random.hpp"

namespace storqual::runner {

enum class DedupeMode { Repeat, WorkingSet };

// The options, by fio's names and with fio's defaults; none set: storqual's write_contents.
struct BufferShape {
  unsigned compress_percentage = 0;    // buffer_compress_percentage, 0..100
  std::uint32_t compress_chunk = 512;  // buffer_compress_chunk (0: the smallest write)
  unsigned dedupe_percentage = 0;      // dedupe_percentage, 0..100
  DedupeMode dedupe_mode = DedupeMode::Repeat;
  unsigned dedupe_working_set_percentage = 5;
  bool dedupe_global = false;
  [[nodiscard]] bool active() const noexcept {
    return compress_percentage != 0 || dedupe_percentage != 0;
  }
  [[nodiscard]] bool working_set() const noexcept {
    return dedupe_percentage != 0 && dedupe_mode == DedupeMode::WorkingSet;
  }
  bool operator==(const BufferShape&) const = default;
};

inline constexpr std::uint64_t kMaxWorkingSetStates = 4ull << 20;  // 192 MiB of states per job

[[nodiscard]] DedupeMode parse_dedupe_mode(std::string_view v);  // throws UnitError
[[nodiscard]] std::string_view dedupe_mode_name(DedupeMode m) noexcept;

// The unique pages of a job's working set (fio's num_unique_pages).
[[nodiscard]] std::uint64_t working_set_pages(const BufferShape& s, std::uint64_t job_size,
                                              std::uint64_t min_write) noexcept;

// One job's buffer contents.
class FioBufferFill {
 public:
  struct Job {
    std::uint64_t size = 0;       // the job's size (fio's size): the working set's base
    std::uint32_t min_write = 0;  // the smallest write (fio's min_bs[DDIR_WRITE])
    unsigned thread_number = 1;   // fio's numbering of the job: 1, 2, ... over the workload
    unsigned threads = 1;         // the workload's jobs (fio's thread_number count)
    bool use64 = false;           // random_generator=tausworthe64
  };
  FioBufferFill(const BufferShape& shape, const Job& job);

  // fio's fill_io_buffer(td, buf, min_write, len): the next buffer of the job.
  void fill(void* buf, std::uint32_t len) noexcept;

 private:
  FioRandom* state_for_write() noexcept;    // get_buf_state
  void chunk_done(FioRandom* rs) noexcept;  // save_buf_state

  BufferShape shape_;
  std::uint32_t min_write_;
  unsigned compressible_;       // zeros per chunk, in percent (fio: 100 is zero buffers instead)
  bool zeros_;                  // buffer_compress_percentage=100 without dedupe: fio's zero_buffers
  FioRandom buf_, prev_, ret_;  // fio's buf_state, buf_state_prev, buf_state_ret
  FioRandom dedupe_;            // fio's dedupe_state (32-bit)
  FioRandom set_index_;         // fio's dedupe_working_set_index_state
  std::vector<FioRandom> working_set_;
};

// fio's __fill_random_buf_percentage(seed, buf, percentage, segment, len) without a
// buffer_pattern: exposed for tests.
void fill_random_percentage(std::uint64_t seed, unsigned char* buf, unsigned percentage,
                            std::uint32_t segment, std::uint32_t len) noexcept;

}  // namespace storqual::runner
