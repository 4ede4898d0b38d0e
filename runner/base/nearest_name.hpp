// SPDX-License-Identifier: Apache-2.0
// "Did you mean": the nearest of a list of names to one that is not in it, by Levenshtein
// distance, for the messages that refuse an unknown metric, workload or option.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storqual::runner {

// The number of single-character insertions, deletions and substitutions from a to b.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `name` when it is near enough to be a typo: at most
// max(2, name.size() / 4) edits away; the first of equally near ones.
[[nodiscard]] std::optional<std::string> nearest_name(std::string_view name,
                                                      const std::vector<std::string>& candidates);

}  // namespace storqual::runner
