// SPDX-License-Identifier: Apache-2.0
// "Did you mean" by edit distance (see nearest_name.hpp).
#include "runner/base/nearest_name.hpp"

#include <algorithm>

namespace storqual::runner {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& candidates) {
  // The distance is at least the difference in length: a candidate that cannot be near enough
  // (more than the limit), or nearer than the best so far, is not compared, which gives the same
  // answer without the distance's cost, size x size (a hostile name of thousands of characters
  // against every metric name: FuzzRegression.UnitParsers took 131 s, and past 600 s under ASan).
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 4);
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const std::size_t at_least =
        name.size() > c.size() ? name.size() - c.size() : c.size() - name.size();
    if (at_least > limit || (best && at_least >= best_distance)) continue;
    const std::size_t d = edit_distance(name, c);
    if (!best || d < best_distance) best = &c, best_distance = d;
  }
  if (!best || best_distance > limit) return std::nullopt;
  return *best;
}

}  // namespace storqual::runner
