// SPDX-License-Identifier: Apache-2.0
// The power-cut sub-record: written per sector, read back and checked (powercut_record.hpp).
#include "runner/measure/powercut_record.hpp"

#include <cstring>

namespace storqual::runner {

namespace {

constexpr std::size_t kOffMagic = 0, kOffOffset = 8, kOffRun = 16, kOffRecord = 24, kOffIndex = 32,
                      kOffCount = 34, kOffFlags = 36, kOffChecksum = 40, kOffTime = 48,
                      kOffEpoch = 56, kPayload = 64;
static_assert(kOffChecksum == offsetof(BlockHeader, checksum));

template <typename T>
void put(unsigned char* b, std::size_t at, T v) noexcept {
  std::memcpy(b + at, &v, sizeof v);
}
template <typename T>
T get(const unsigned char* b, std::size_t at) noexcept {
  T v;
  std::memcpy(&v, b + at, sizeof v);
  return v;
}

}  // namespace

std::string_view to_string(SectorContent c) noexcept {
  switch (c) {
    case SectorContent::Record:
      return "record";
    case SectorContent::Corrupted:
      return "corrupted";
    case SectorContent::Foreign:
      break;
  }
  return "foreign";
}

void fill_powercut_request(void* buffer, std::uint32_t bytes, PowercutRecord record,
                           const PayloadPool& pool) noexcept {
  auto* base = static_cast<unsigned char*>(buffer);
  const std::uint32_t sectors = bytes / kPowercutSector;
  const std::uint64_t first = record.offset;
  for (std::uint32_t i = 0; i < sectors; ++i) {
    unsigned char* s = base + static_cast<std::size_t>(i) * kPowercutSector;
    const std::uint64_t offset = first + static_cast<std::uint64_t>(i) * kPowercutSector;
    put(s, kOffMagic, kPowercutMagic);
    put(s, kOffOffset, offset);
    put(s, kOffRun, record.run_id);
    put(s, kOffRecord, record.record_id);
    put(s, kOffIndex, static_cast<std::uint16_t>(i));
    put(s, kOffCount, static_cast<std::uint16_t>(sectors));
    put(s, kOffFlags, record.flags);
    put(s, kOffChecksum, std::uint64_t{0});
    put(s, kOffTime, record.time_ns);
    put(s, kOffEpoch, record.epoch);
    pool.fill(s + kPayload, kPowercutSector - kPayload,
              record.run_id ^ (record.record_id * 0x9E3779B97F4A7C15ull) ^ (offset << 7));
    put(s, kOffChecksum, block_checksum(s, kPowercutSector, VerifyAlgorithm::Xxh3));
  }
}

SectorRead read_powercut_sector(const void* sector, std::uint64_t run_id) noexcept {
  const auto* s = static_cast<const unsigned char*>(sector);
  SectorRead r;
  if (get<std::uint64_t>(s, kOffMagic) != kPowercutMagic ||
      get<std::uint64_t>(s, kOffRun) != run_id)
    return r;
  r.record.offset = get<std::uint64_t>(s, kOffOffset);
  r.record.run_id = run_id;
  r.record.record_id = get<std::uint64_t>(s, kOffRecord);
  r.record.index = get<std::uint16_t>(s, kOffIndex);
  r.record.count = get<std::uint16_t>(s, kOffCount);
  r.record.flags = get<std::uint32_t>(s, kOffFlags);
  r.record.time_ns = get<std::uint64_t>(s, kOffTime);
  r.record.epoch = get<std::uint64_t>(s, kOffEpoch);
  const bool sound = get<std::uint64_t>(s, kOffChecksum) ==
                     block_checksum(s, kPowercutSector, VerifyAlgorithm::Xxh3);
  r.content = sound ? SectorContent::Record : SectorContent::Corrupted;
  return r;
}

}  // namespace storqual::runner
