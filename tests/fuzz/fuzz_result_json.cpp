// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the result JSON reader of `storqual report` and the reports it re-renders.
//
// Checks what feed_result_json (tests/fuzz/fuzz_entry_points.hpp, also run by
// fuzz_regression_test) checks, and more: for every input, the reader accepts it or throws
// ResultJsonError, nothing else; for every accepted one, the written JSON reads back and writing
// that again gives the same text (write -> read -> write is a fixed point), and JUnit (well-formed
// XML), HTML (complete) and the console table are rendered from it.
//
// Speed (10^6 runs must fit a CI slot; measured 2000-2400 exec/s on one busy core, against ~700
// before): most inputs are refused, so the reader's speed counts most (reporting/result_json.cpp
// builds JSON paths only for errors); an accepted result is parsed once and read back once (not
// twice as feed_result_json would), and is rendered with each list cut to its first kRenderItems
// entries (a cut result is itself a valid result, and the renderers' own thresholds, e.g. 30
// steady-state rounds, lie below the cut), so rendering cost does not grow with what libFuzzer
// appends to an input. The committed seeds are compact JSON for the same reason.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_entry_points.hpp"

namespace storqual::fuzz {
namespace {

constexpr std::size_t kRenderItems = 40;

template <class T>
void cut(std::vector<T>& items) {
  if (items.size() > kRenderItems) items.resize(kRenderItems);
}

// `run` with every list the renderers walk cut to kRenderItems entries (a method's own report is
// shared and immutable: its lists stay as read).
reporting::RunResult bounded_for_rendering(reporting::RunResult run) {
  cut(run.workloads);
  cut(run.verdicts);
  cut(run.device.identity);
  cut(run.device.health_before);
  cut(run.device.health_after);
  cut(run.device.health_changes);
  for (auto& w : run.workloads) {
    cut(w.timeline);
    cut(w.errors);
    cut(w.preconditioning);
    if (w.host_limit) cut(w.host_limit->reasons);
    if (w.integrity) cut(w.integrity->findings);
    for (auto* side : {&w.read, &w.write})
      if (*side)
        for (auto* lat : {&(*side)->slat, &(*side)->clat, &(*side)->lat}) cut(lat->percentiles);
  }
  return run;
}

}  // namespace
}  // namespace storqual::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace storqual;
  runner::register_method_reports();  // the methods' figures and report readers, once
  reporting::RunResult run;
  try {
    run = reporting::run_result_from_json(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const reporting::ResultJsonError&) {
    return 0;
  }
  const std::string json = reporting::to_json_text(run);
  try {
    if (reporting::to_json_text(reporting::run_result_from_json(json)) != json)
      fuzz::broken("write -> read -> write changed the result JSON", json);
  } catch (const reporting::ResultJsonError& e) {
    fuzz::broken("a result written by to_json_text does not read back", e.what());
  }
  fuzz::render_and_check(fuzz::bounded_for_rendering(std::move(run)));
  return 0;
}
