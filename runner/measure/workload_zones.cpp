// SPDX-License-Identifier: Apache-2.0
// A workload's zones (fio's zonemode=strided, zonesize, zonerange, zoneskip,
// runner/measure/strided_zones.hpp; zonemode=zbd, read_beyond_wp, max_open_zones,
// runner/measure/zbd_zones.hpp): their checks, and how they are written back as fio's options
// (docs/formats.md, docs/fio-files.md).
#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

namespace {

// zonemode=zbd: the device's zones (runner/measure/zbd_zones.hpp). Its writes are refused at the
// run (job_start.cpp check_zbd), so that the import takes zbd-rand-write.fio's options.
void validate_zbd(const WorkloadSpec& spec) {
  const StridedZones& z = spec.zones;
  if (z.range || z.skip)
    throw UnitError("zonemode=zbd with zonerange or zoneskip: storqual takes neither for zbd");
  if (spec.verify != VerifyAlgorithm::None || spec.seq_add || spec.mixed_block_sizes() ||
      spec.distribution.skewed() || spec.distribution.lfsr || spec.offset_increment)
    throw UnitError(
        "zonemode=zbd with verify, seq_add (rw=MODE:N), a block-size mix, a skewed "
        "random_distribution, random_generator=lfsr or offset_increment");
}

}  // namespace

void validate_zones(const WorkloadSpec& spec) {
  const StridedZones& z = spec.zones;
  const auto& p = spec.params;
  if (z.zbd()) return validate_zbd(spec);
  if (z.read_beyond_wp || z.max_open_zones)
    throw UnitError("read_beyond_wp and max_open_zones need zonemode=zbd (as fio's)");
  if (z.mode == ZoneMode::None && z.size)
    throw UnitError(
        "zonesize with zonemode=none: fio refuses the two together (give "
        "zonemode=strided, or no zonemode)");
  if (z.mode == ZoneMode::Strided && !z.size)
    throw UnitError("zonemode=strided needs a zonesize (the bytes moved in each zone, as fio's)");
  if (!z.active()) {
    if (z.range || z.skip)
      throw UnitError("zonerange and zoneskip need a zonesize (zonemode=strided)");
    return;
  }
  for (const auto& [name, bytes] : {std::pair<const char*, std::uint64_t>{"zonesize", z.size},
                                    {"zonerange", z.extent()},
                                    {"zoneskip", z.skip}})
    if (bytes % p.bs)
      throw UnitError(std::string(name) + " " + format_size_fio(bytes) +
                      " is not a multiple of bs " + format_size_fio(p.bs) +
                      ": storqual's zones hold whole I/Os");
  if (p.size && z.extent() > p.size)
    throw UnitError("zonerange " + format_size_fio(z.extent()) + " is larger than size " +
                    format_size_fio(p.size) + " (fio ends such a job inside its first zone)");
  if (spec.verify != VerifyAlgorithm::None || spec.seq_add || spec.mixed_block_sizes() ||
      spec.distribution.skewed() || spec.distribution.lfsr)
    throw UnitError(
        "zonemode=strided with verify, seq_add (rw=MODE:N), a block-size mix, a skewed "
        "random_distribution or random_generator=lfsr");
}

std::vector<std::string> zone_options(const WorkloadSpec& spec) {
  const StridedZones& z = spec.zones;
  std::vector<std::string> out;
  if (z.zbd()) {
    out.emplace_back("zonemode=zbd");
    if (z.size) out.push_back("zonesize=" + format_size_fio(z.size));
    out.push_back(std::string("read_beyond_wp=") + (z.read_beyond_wp ? "1" : "0"));
    if (z.max_open_zones) out.push_back("max_open_zones=" + std::to_string(z.max_open_zones));
    return out;
  }
  if (!z.active()) return out;
  out.emplace_back("zonemode=strided");
  out.push_back("zonesize=" + format_size_fio(z.size));
  if (z.range && z.range != z.size) out.push_back("zonerange=" + format_size_fio(z.range));
  if (z.skip) out.push_back("zoneskip=" + format_size_fio(z.skip));
  return out;
}

}  // namespace storqual::runner
