// SPDX-License-Identifier: Apache-2.0
// fio's strided zones (strided_zones.hpp): the walk and where it ends.
#include "runner/measure/strided_zones.hpp"

#include <algorithm>
#include <string>

#include "runner/base/units.hpp"

namespace storqual::runner {

ZoneMode parse_zone_mode(std::string_view v) {
  if (v == "none") return ZoneMode::None;
  if (v == "strided") return ZoneMode::Strided;
  if (v == "zbd") return ZoneMode::Zbd;
  throw UnitError("zonemode: expected none, strided or zbd, got '" + std::string(v) + "'");
}

StridedWalk::StridedWalk(const Setup& s, Random& rng)
    : rng_(rng),
      size_(s.zones.size),
      range_(s.zones.extent()),
      skip_(s.zones.skip),
      region_(s.region_bytes),
      target_(s.target_bytes),
      bs_(s.block_size),
      range_blocks_(std::max<std::uint64_t>(1, s.zones.extent() / s.block_size)),
      random_(s.random),
      time_based_(s.time_based) {
  if (random_ && s.randommap) map_.emplace(range_blocks_, rng_.next());
}

// fio's setup_strided_zone_mode, then get_next_seq_offset or get_next_rand_offset inside the
// zone, then fill_io_u's zone_bytes and get_io_u's last_pos.
std::uint64_t StridedWalk::next(unsigned dir) noexcept {
  if (zone_bytes_ >= size_) {
    zone_bytes_ = 0;
    base_ += range_ + skip_;
    if (base_ >= target_) base_ = 0;
    last_[dir] = base_;
  }
  if (last_[dir] >= base_ + range_) last_[dir] = base_;
  if (zone_bytes_ % range_ == 0) {
    last_[0] = last_[1] = base_;
    if (map_) map_->restart();
  }
  std::uint64_t pos;
  if (random_) {
    pos = (map_ ? map_->next() : rng_.below(range_blocks_)) * bs_;
  } else {
    if (time_based_ && last_[dir] >= region_) last_[dir] = base_;
    pos = last_[dir] - base_;
  }
  const std::uint64_t offset = base_ + pos;
  last_[dir] = offset + bs_;
  zone_bytes_ += bs_;
  return offset / bs_;
}

std::optional<StridedCut> strided_cut(const StridedWalk::Setup& s) {
  const std::uint64_t range = s.zones.extent(), period = range + s.zones.skip;
  if (s.target_bytes == 0 || period == 0) return std::nullopt;
  const std::uint64_t zones = (s.target_bytes + period - 1) / period;  // those starting inside
  const std::uint64_t last = (zones - 1) * period;
  const std::uint64_t zone_ios = s.zones.size / s.block_size;
  // Sequential I/O reaches the first zone_ios blocks of the range, random any block of it.
  const std::uint64_t reach =
      s.random ? range : std::min(zone_ios, range / s.block_size) * s.block_size;
  if (last + reach <= s.target_bytes) return std::nullopt;
  return StridedCut{(zones - 1) * zone_ios + (s.target_bytes - last) / s.block_size, last};
}

}  // namespace storqual::runner
