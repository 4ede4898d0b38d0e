// SPDX-License-Identifier: Apache-2.0
// fio's strided zones (zonemode=strided with zonesize, zonerange, zoneskip; fio 3.33 io_u.c
// setup_strided_zone_mode): which block each I/O of a zoned job goes to, and where fio's walk
// over the zones ends.
//
// Contract, as fio's:
// - A job's I/O stays inside one zone of zonerange bytes (by default zonesize) until it moved
//   zonesize bytes there; the next zone starts zonerange + zoneskip further in, and a zone that
//   would start at or past the target's end wraps to the job's start (its offset). The walk goes
//   over the whole target, also past offset + size: size is the job's bytes, as fio's.
// - Inside a zone: sequential I/O from the zone's start, a cursor per direction (fio's last_pos),
//   back to the zone's start when it reaches zonerange (zonesize > zonerange reads the zone again);
//   random I/O draws blocks of the zone's range, through a random map started again every
//   zonerange bytes (fio's fio_file_reset), or uniform with norandommap.
// - Time based, sequential: an I/O whose cursor is at or past offset + size goes to its zone's
//   start (fio's get_next_seq_offset rewinds last_pos to the zone's start there).
// - fio ends the job at the first I/O that would reach past the target's end (get_next_offset
//   finds none): only the last zone before the wrap can be cut so (strided_cut).
// - Not thread safe: one walk per job; next() is called once per I/O, out of the plain path
//   (runner/measure/offset_generator.hpp calls it from its shaped case).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runner/measure/random.hpp"
#include "runner/measure/random_map.hpp"

namespace storqual::runner {

// fio's zonemode: unset (zonesize alone sets strided, as fio's fixup_options), none, strided, zbd
// (a zoned block device's own zones: runner/measure/zbd_zones.hpp).
enum class ZoneMode : unsigned char { Unset, None, Strided, Zbd };

struct StridedZones {
  ZoneMode mode = ZoneMode::Unset;
  std::uint64_t size = 0;       // zonesize: bytes moved per zone; 0 = no zones
  std::uint64_t range = 0;      // zonerange: the zone's extent; 0 = zonesize (fio's default)
  std::uint64_t skip = 0;       // zoneskip: bytes left out between two zones
  bool read_beyond_wp = false;  // zbd: reads past a zone's write pointer too (fio's, 0 default)
  unsigned max_open_zones = 0;  // zbd: fio's limit on zones written at once (0: the device's)
  // Strided zones: the walk below. zonemode=zbd is not strided (zbd()).
  [[nodiscard]] bool active() const noexcept {
    return mode != ZoneMode::None && mode != ZoneMode::Zbd && size != 0;
  }
  [[nodiscard]] bool zbd() const noexcept { return mode == ZoneMode::Zbd; }
  [[nodiscard]] std::uint64_t extent() const noexcept { return range ? range : size; }
};

// "none", "strided" or "zbd"; throws UnitError for others.
[[nodiscard]] ZoneMode parse_zone_mode(std::string_view v);

class StridedWalk {
 public:
  struct Setup {
    StridedZones zones;
    std::uint64_t region_bytes = 0;  // the job's size (fio's io_size of its file)
    std::uint64_t target_bytes = 0;  // from the job's start to the target's end
    std::uint64_t block_size = 4096;
    bool random = false;
    bool randommap = true;
    bool time_based = false;
  };

  // Zone sizes are multiples of block_size (validate_zones); `rng` draws the random blocks and
  // seeds the map, and must outlive the walk.
  StridedWalk(const Setup& setup, Random& rng);

  // The next I/O's block (of block_size) from the job's start.
  [[nodiscard]] std::uint64_t next(unsigned dir) noexcept;

 private:
  Random& rng_;
  std::uint64_t size_, range_, skip_, region_, target_, bs_, range_blocks_;
  bool random_, time_based_;
  std::optional<RandomMap> map_;
  std::uint64_t base_ = 0;        // the zone's start (fio's file_offset less the job's start)
  std::uint64_t zone_bytes_ = 0;  // moved in this zone (fio's td->zone_bytes)
  std::uint64_t last_[2] = {0, 0};
};

// Where fio's walk ends: the last zone before the wrap (`zone_start` from the job's start) cannot
// hold the zone's I/Os, and fio ends the job at the first one past the target's end. For
// sequential I/O of one direction that is after `ios_before` I/Os of the job; for random or mixed
// I/O it depends on the draws (the caller refuses it). None when every zone fits: the walk wraps.
struct StridedCut {
  std::uint64_t ios_before = 0;
  std::uint64_t zone_start = 0;
};
[[nodiscard]] std::optional<StridedCut> strided_cut(const StridedWalk::Setup& setup);

}  // namespace storqual::runner
