// SPDX-License-Identifier: Apache-2.0
// The registry of methods: one line per suite element (method.hpp). Adding a method is its own
// files and one line here (docs/architecture.md, "Where to add").
#include <array>

#include "runner/methods/capacity_check.hpp"
#include "runner/methods/latency_search.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/pts_tests.hpp"
#include "runner/methods/steady_state.hpp"
#include "runner/methods/sustained_write.hpp"

namespace storqual::runner {

std::span<const MethodEntry> method_entries() noexcept {
  static const auto entries = [] {
    const auto pts = pts_method_entries();
    return std::array<MethodEntry, 8>{workload_method_entry(),  // plain, or rounds to steady state
                                      latency_search_method_entry(),
                                      sustained_write_method_entry(),
                                      capacity_method_entry(),
                                      pts[0],   // wsat
                                      pts[1],   // dirth
                                      pts[2],   // xsr
                                      pts[3]};  // hir
  }();
  return entries;
}

}  // namespace storqual::runner
