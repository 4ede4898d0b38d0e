// SPDX-License-Identifier: Apache-2.0
// A workload's pacing beyond its rate (fio's rate_process, ratemin, rate_iops_min, rate_cycle,
// startdelay, thinktime and its blocks and spin): its checks, and how it is written back as fio's
// options (docs/formats.md, docs/fio-files.md).
#include <cmath>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

void validate_pacing(const WorkloadSpec& spec) {
  if (spec.rate_poisson && spec.effective_rate_iops() <= 0)
    throw UnitError("rate_process=poisson needs a rate (rate_iops or rate)");
  if (spec.rate_poisson && spec.effective_rate_iops() < 1)
    throw UnitError(
        "rate_process=poisson needs a rate of 1 I/O per second or more (fio's gap is "
        "1000000 / iops microseconds in whole I/Os per second)");
  if (spec.thinktime_spin_s > spec.thinktime_s)
    throw UnitError("thinktime_spin is longer than thinktime (fio spins a part of the think time)");
  if (spec.rate_min_bytes && spec.mixed_block_sizes())
    throw UnitError("ratemin with a block-size mix: use rate_iops_min");
}

std::vector<std::string> pacing_options(const WorkloadSpec& spec) {
  std::vector<std::string> out;
  if (spec.rate_poisson) out.emplace_back("rate_process=poisson");
  if (spec.rate_iops_min > 0)
    out.push_back("rate_iops_min=" + std::to_string(std::llround(spec.rate_iops_min)));
  if (spec.rate_min_bytes) out.push_back("ratemin=" + std::to_string(spec.rate_min_bytes));
  if ((spec.rate_iops_min > 0 || spec.rate_min_bytes) && spec.rate_cycle_s != 1.0)
    out.push_back("rate_cycle=" + std::to_string(std::llround(spec.rate_cycle_s * 1000)));
  if (spec.startdelay_max_s > spec.startdelay_s)
    out.push_back("startdelay=" + format_duration_fio(spec.startdelay_s) + "-" +
                  format_duration_fio(spec.startdelay_max_s));
  else if (spec.startdelay_s > 0)
    out.push_back("startdelay=" + format_duration_fio(spec.startdelay_s));
  if (spec.thinktime_s > 0) {
    out.push_back("thinktime=" + format_duration_fio(spec.thinktime_s));
    if (spec.thinktime_spin_s > 0)
      out.push_back("thinktime_spin=" + format_duration_fio(spec.thinktime_spin_s));
    if (spec.thinktime_blocks != 1)
      out.push_back("thinktime_blocks=" + std::to_string(spec.thinktime_blocks));
  }
  return out;
}

}  // namespace storqual::runner
