// SPDX-License-Identifier: Apache-2.0
// The HTML report's matrices: the grids of block sizes by read mixes that a run's plain workloads
// form, one table each (see html_matrix.hpp).
#include "reporting/html_matrix.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"

namespace storqual::reporting {
namespace {

// A block size as SNIA tables print it: "0.5 KiB", "4 KiB", "1024 KiB".
std::string block_size_label(std::uint64_t bs) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g KiB", static_cast<double>(bs) / 1024.0);
  return buf;
}

// The read percent of a plain workload, and whether it is random; nullopt for an unknown rw.
std::optional<std::pair<unsigned, bool>> read_mix(const WorkloadParams& p) {
  if (p.rw == "randread") return std::pair{100u, true};
  if (p.rw == "randwrite") return std::pair{0u, true};
  if (p.rw == "randrw") return std::pair{p.rwmixread, true};
  if (p.rw == "read") return std::pair{100u, false};
  if (p.rw == "write") return std::pair{0u, false};
  if (p.rw == "rw" || p.rw == "readwrite") return std::pair{p.rwmixread, false};
  return std::nullopt;
}

double total_iops(const WorkloadResult& w) {
  return (w.read ? w.read->iops : 0) + (w.write ? w.write->iops : 0);
}

// Mean completion-to-submission latency over both directions, weighted by their I/Os.
double mean_latency(const WorkloadResult& w) {
  double sum = 0, n = 0;
  for (const auto* d : {&w.read, &w.write})
    if (*d && (*d)->lat.samples) {
      sum += (*d)->lat.mean_ns * static_cast<double>((*d)->lat.samples);
      n += static_cast<double>((*d)->lat.samples);
    }
  return n > 0 ? sum / n : 0;
}

}  // namespace

// The grids the run's plain workloads form (random and sequential apart): detected from bs, rw and
// rwmixread, not from ids. A grid needs two block sizes and two mixes at least, each cell once.
std::vector<WorkloadMatrix> find_matrices(const RunResult& run) {
  std::vector<WorkloadMatrix> out;
  for (bool random : {true, false}) {
    WorkloadMatrix m;
    m.random = random;
    bool duplicate = false, t1q1 = true;
    std::set<std::uint64_t> sizes;
    std::set<unsigned> mixes;
    for (std::size_t i = 0; i < run.workloads.size(); ++i) {
      const auto& w = run.workloads[i];
      if (w.kind() != "workload") continue;  // plain runs and rounds, not a method's own
      const auto mix = read_mix(w.params);
      if (!mix || mix->second != random || mix->first > 100) continue;
      const auto key = std::pair{w.params.bs, mix->first};
      if (!m.cells.emplace(key, i).second) duplicate = true;
      sizes.insert(w.params.bs);
      mixes.insert(mix->first);
      t1q1 = t1q1 && w.params.iodepth == 1 && w.params.numjobs == 1;
    }
    if (duplicate || sizes.size() < 2 || mixes.size() < 2 ||
        m.cells.size() != sizes.size() * mixes.size())
      continue;
    m.sizes.assign(sizes.begin(), sizes.end());
    m.mixes.assign(mixes.rbegin(), mixes.rend());
    m.value = !random ? "bw" : (t1q1 ? "lat" : "iops");
    out.push_back(std::move(m));
  }
  return out;
}

void matrix_section(std::string& o, const RunResult& run, const WorkloadMatrix& m,
                    const std::string& prefix) {
  const char* what = m.value == "iops" ? "read+write IOPS (sum over the jobs)"
                     : m.value == "bw" ? "read+write bandwidth (MB/s, sum over the jobs)"
                                       : "mean latency (lat, T1Q1)";
  o += std::string("<h3>") + (m.random ? "Random" : "Sequential") + " I/O: " + what +
       " by block size and read mix</h3>";
  o += "<table class=\"matrix\" data-matrix=\"" + m.value + "\" data-cells=\"" +
       std::to_string(m.cells.size()) + "\"><thead><tr><th>block size</th>";
  for (unsigned mix : m.mixes)
    o += "<th class=\"num\">" + std::to_string(mix) + "/" + std::to_string(100 - mix) + "</th>";
  o += "</tr></thead><tbody>";
  bool any_host_limited = false, any_not_steady = false;
  for (std::uint64_t bs : m.sizes) {
    o += "<tr><th>" + html_escape(block_size_label(bs)) + "</th>";
    for (unsigned mix : m.mixes) {
      const std::size_t index = m.cells.at({bs, mix});
      const auto& w = run.workloads[index];
      const std::string href = "#" + prefix + "w" + std::to_string(index);
      if (w.skipped) {
        o += "<td class=\"cell skipped\" title=\"" + html_escape(*w.skipped) + "\">skipped</td>";
        continue;
      }
      if (!w.errors.empty()) {
        o += "<td class=\"cell error\" title=\"" + html_escape(w.errors.front()) + "\"><a href=\"" +
             href + "\">error</a></td>";
        continue;
      }
      std::string value =
          m.value == "iops" ? format_html_figure(total_iops(w), "")
          : m.value == "bw"
              ? html_rate((w.read ? w.read->bw_bytes : 0) + (w.write ? w.write->bw_bytes : 0))
              : html_latency(mean_latency(w));
      std::string marks, title = w.id;
      if (w.host_limit && w.host_limit->limited) {
        marks += "<sup>H</sup>";
        title += ", host-limited";
        any_host_limited = true;
      }
      const std::optional<bool> steady = w.method ? w.method->steady() : std::nullopt;
      if (steady == false) {
        marks += "<sup>NS</sup>";
        title += ", not steady";
        any_not_steady = true;
      } else if (steady == true) {
        title += ", steady";
      }
      o += "<td class=\"num cell\" title=\"" + html_escape(title) + "\"><a href=\"" + href + "\">" +
           html_escape(value) + "</a>" + marks + "</td>";
    }
    o += "</tr>";
  }
  o += "</tbody></table>";
  o += "<p class=\"small muted\">Columns: read/write percent. Each cell links to its workload";
  if (any_host_limited) o += "; <sup>H</sup> host-limited";
  if (any_not_steady) o += "; <sup>NS</sup> not steady";
  o += ".</p>";
}

}  // namespace storqual::reporting
