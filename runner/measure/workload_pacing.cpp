// SPDX-License-Identifier: Apache-2.0
// A workload's pacing beyond its rate (fio's rate_process, ratemin, rate_iops_min, rate_cycle,
// startdelay, thinktime and its blocks and spin, flow and its flow_id and flow_sleep) and its end
// with others (exitall): its checks, and how it is written back as fio's options
// (docs/formats.md, docs/fio-files.md).
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
  // fio numbers its groups in file order (new_group): a group's jobs are one run of jobs.
  unsigned group = 0;
  for (const WorkloadSpec& m : group_members(spec)) {
    if (m.exit_group < group)
      throw UnitError("job '" + m.id + "': exit_group " + std::to_string(m.exit_group) +
                      " after a job of exit_group " + std::to_string(group) +
                      " (fio's groups are runs of jobs in order: number them so)");
    group = m.exit_group;
  }
}

std::vector<std::string> exit_options(const WorkloadSpec& spec) {
  if (spec.exitall == ExitScope::None) return {};
  return {"exitall", "exit_what=" + std::string(exit_scope_name(spec.exitall))};
}

ExitScope parse_exit_scope(std::string_view v) {
  if (v == "0" || v == "none") return ExitScope::None;
  if (v == "group") return ExitScope::Group;
  if (v == "stonewall") return ExitScope::Stonewall;
  throw UnitError("exitall: expected group, stonewall or 0, got '" + std::string(v) + "'");
}

std::string_view exit_scope_name(ExitScope s) noexcept {
  switch (s) {
    case ExitScope::Group:
      return "group";
    case ExitScope::Stonewall:
      return "stonewall";
    case ExitScope::None:
      break;
  }
  return "0";
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
  if (spec.flow) out.push_back("flow=" + std::to_string(spec.flow));
  if (spec.flow_id) out.push_back("flow_id=" + std::to_string(spec.flow_id));
  if (spec.flow_sleep_us) out.push_back("flow_sleep=" + std::to_string(spec.flow_sleep_us));
  return out;
}

}  // namespace storqual::runner
