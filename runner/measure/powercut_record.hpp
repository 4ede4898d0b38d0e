// SPDX-License-Identifier: Apache-2.0
// The record every block written by `storqual powercut arm` carries (docs/power-cut.md): each
// 512-byte sector of a write request holds a sub-record of its own, so that a request the drive
// kept only in part (shorn) is visible sector by sector after the cut.
//
// Sub-record format (little-endian, every 512-byte sector of a request):
//   0  u64 magic "STQPCUT1"     8 u64 byte offset of this sector     16 u64 run id
//   24 u64 record id (the request's, unique in the run, in issue order)
//   32 u16 sector index in the request   34 u16 sectors in the request   36 u32 flags (1 = FUA)
//   40 u64 checksum: XXH3 of bytes [0,40) then [48,512) (verify.hpp's block_checksum)
//   48 u64 time written (CLOCK_REALTIME ns)   56 u64 flush epoch at issue (flushes completed)
//   64.. payload from the run's PayloadPool (verify.hpp), keyed by record id and sector: random,
//        so that a compressing or deduplicating drive cannot keep it cheaply.
//
// Pure functions, thread safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "runner/measure/verify.hpp"

namespace storqual::runner {

inline constexpr std::uint64_t kPowercutMagic = 0x3154554350515453ull;  // "STQPCUT1"
inline constexpr std::uint32_t kPowercutSector = 512;
inline constexpr std::uint32_t kPowercutFlagFua = 1;

struct PowercutRecord {
  std::uint64_t offset = 0;  // byte offset of the sector
  std::uint64_t run_id = 0;
  std::uint64_t record_id = 0;  // the request's id
  std::uint16_t index = 0;      // sector index in the request
  std::uint16_t count = 0;      // sectors in the request
  std::uint32_t flags = 0;
  std::uint64_t time_ns = 0;
  std::uint64_t epoch = 0;
};

// Fills `bytes` (a multiple of kPowercutSector, at most 65535 sectors) of a request starting at
// byte `offset`: one sub-record per sector, `record.offset`, `index` and `count` set per sector.
void fill_powercut_request(void* buffer, std::uint32_t bytes, PowercutRecord record,
                           const PayloadPool& pool) noexcept;

// What one sector read back holds.
enum class SectorContent : std::uint8_t {
  Record,     // a valid sub-record of this run (its checksum matches)
  Corrupted,  // this run's magic and run id, but the checksum does not match: bit corruption
  Foreign,    // anything else: zeros, the previous content, another run's record
};
[[nodiscard]] std::string_view to_string(SectorContent c) noexcept;

struct SectorRead {
  SectorContent content = SectorContent::Foreign;
  PowercutRecord record{};  // when content is Record or Corrupted (fields as found)
};

[[nodiscard]] SectorRead read_powercut_sector(const void* sector, std::uint64_t run_id) noexcept;

}  // namespace storqual::runner
