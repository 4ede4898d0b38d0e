// SPDX-License-Identifier: Apache-2.0
// A workload's block-size mix (bssplit, bsrange): what it resolves to per direction, its checks,
// and how it is written back as fio's options.
#include <algorithm>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

BlockSizeChoice WorkloadSpec::block_sizes(unsigned direction) const {
  BlockSizeChoice c = bs_mix[direction];
  if (!c.min_bs) c = {params.bs, params.bs, {}};
  return c;
}

bool WorkloadSpec::mixed_block_sizes() const noexcept {
  const RwMode mode = parse_rw(params.rw);
  auto varies = [&](unsigned d) {
    const BlockSizeChoice& c = bs_mix[d];
    return c.min_bs && (c.mixed() || c.min_bs != params.bs);
  };
  return (rw_reads(mode) && varies(0)) || (rw_writes(mode) && varies(1));
}

void validate_block_sizes(const WorkloadSpec& spec) {
  const auto& p = spec.params;
  if (spec.blockalign > kMaxBlockSize) throw UnitError("blockalign is above the limit of 256m");
  if (!spec.mixed_block_sizes()) {
    if (spec.blockalign && spec.blockalign != p.bs)
      throw UnitError("blockalign " + format_size_fio(spec.blockalign) + " other than bs " +
                      format_size_fio(p.bs) +
                      ": storqual aligns a workload of one size to it (blockalign is for a mix)");
    return;
  }
  if (spec.verify != VerifyAlgorithm::None)
    throw UnitError(
        "verify with a block-size mix (bssplit, bsrange): storqual's verify ledger "
        "holds blocks of one size");
  if (spec.rate_bytes)
    throw UnitError(
        "rate (bytes per second) with a block-size mix: storqual paces I/Os, give "
        "rate_iops");
  for (unsigned d = 0; d < 2; ++d) {
    const BlockSizeChoice c = spec.block_sizes(d);
    if (p.size != 0 && p.size < c.max_bs)
      throw UnitError("size " + format_size_fio(p.size) + " is smaller than the largest block " +
                      format_size_fio(c.max_bs) + " of the mix");
    if (p.direct && p.offset % c.min_bs != 0)
      throw UnitError("offset " + std::to_string(p.offset) +
                      " is not a multiple of the mix's smallest block under direct=1");
  }
}

void validate_distribution(const WorkloadSpec& spec) {
  const OffsetDistribution& d = spec.distribution;
  if (d.lfsr && d.skewed())
    throw UnitError(
        "random_generator=lfsr with random_distribution: fio's LFSR gives uniform "
        "offsets (each block once per pass)");
  if (!d.skewed()) return;
  if (!rw_random(parse_rw(spec.params.rw)))
    throw UnitError("random_distribution with rw=" + spec.params.rw +
                    ": a skewed distribution is for random offsets");
  if (spec.verify != VerifyAlgorithm::None)
    throw UnitError(
        "verify with random_distribution: storqual's verify covers the blocks of a "
        "random map, a skewed distribution draws with replacement");
  if (d.kind == DistributionKind::ZonedAbs && spec.params.size)
    for (const auto& zones : d.zones) {
      std::uint64_t total = 0;
      for (const AccessZone& z : zones) total += z.size;
      if (total > spec.params.size)
        throw UnitError("random_distribution: the zoned_abs zones (" + format_size_fio(total) +
                        ") exceed size " + format_size_fio(spec.params.size));
    }
}

std::vector<std::string> distribution_options(const WorkloadSpec& spec) {
  std::vector<std::string> out;
  if (spec.distribution.lfsr) out.emplace_back("random_generator=lfsr");
  if (!spec.distribution.skewed()) return out;
  out.push_back("random_distribution=" +
                random_distribution_text(spec.distribution,
                                         [](std::uint64_t b) { return format_size_fio(b); }));
  if (spec.distribution.use64) out.push_back("random_generator=tausworthe64");
  return out;
}

std::vector<std::string> block_size_mix_options(const WorkloadSpec& spec) {
  std::vector<std::string> out;
  if (!spec.mixed_block_sizes()) return out;
  const auto format = [](std::uint64_t b) { return format_size_fio(b); };
  if (const std::string range = bsrange_text(spec.bs_mix, format); !range.empty())
    out.push_back("bsrange=" + range);
  if (const std::string split = bssplit_text(spec.bs_mix, format); !split.empty())
    out.push_back("bssplit=" + split);
  if (spec.blockalign) out.push_back("blockalign=" + format_size_fio(spec.blockalign));
  return out;
}

std::uint64_t largest_block(const WorkloadSpec& spec) {
  return std::max({spec.params.bs, spec.block_sizes(0).max_bs, spec.block_sizes(1).max_bs});
}

std::uint64_t smallest_block(const WorkloadSpec& spec) {
  const RwMode mode = parse_rw(spec.params.rw);
  std::uint64_t out = UINT64_MAX;
  if (rw_reads(mode)) out = std::min(out, spec.block_sizes(0).min_bs);
  if (rw_writes(mode)) out = std::min(out, spec.block_sizes(1).min_bs);
  return out;
}

std::uint64_t skew_ranges(const WorkloadSpec& spec, std::uint64_t region_size) {
  const std::uint64_t range = std::min(spec.block_sizes(0).min_bs, spec.block_sizes(1).min_bs);
  return (region_size + range - 1) / range;
}

std::uint64_t offset_granule(const WorkloadSpec& spec) {
  return spec.blockalign ? spec.blockalign : smallest_block(spec);
}

}  // namespace storqual::runner
