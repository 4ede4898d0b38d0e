// SPDX-License-Identifier: Apache-2.0
// fio's bssplit and bsrange grammar, and its choice of each I/O's size (block_size_mix.hpp).
#include "runner/measure/block_size_mix.hpp"

#include <algorithm>
#include <charconv>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {
namespace {

constexpr unsigned kMissing = ~0u;    // fio's -1U: an entry without its percentage
constexpr unsigned kMaxEntries = 64;  // fio's BSSPLIT_MAX

[[noreturn]] void bad(std::string_view option, const std::string& why) {
  throw UnitError(std::string(option) + ": " + why);
}

std::uint64_t checked_size(std::string_view option, std::string_view text, const SizeParser& size) {
  const std::uint64_t v = size(text);
  if (v == 0) bad(option, "a block size of 0 ('" + std::string(text) + "')");
  if (v > kMaxBlockSize)
    bad(option, "block size '" + std::string(text) + "' is over " + format_size_fio(kMaxBlockSize));
  return v;
}

// C's atoi: leading blanks, a sign, digits; whatever follows is ignored, nothing is 0.
unsigned atoi_percent(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  long long v = 0;
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  for (char c : s) {
    if (c < '0' || c > '9') break;
    v = std::min<long long>(v * 10 + (c - '0'), 1000);
  }
  if (neg) v = -v;
  // fio: perc = atoi() into an unsigned long long; over 100 is 100, 0 is missing (a negative
  // one wraps over 100, so it is 100 too).
  if (v < 0 || v > 100) return 100;
  return v == 0 ? kMissing : static_cast<unsigned>(v);
}

// One direction's list (options.c bssplit_ddir); an empty list leaves `out` as it is.
void parse_direction(std::string_view text, const SizeParser& size, BlockSizeChoice& out) {
  std::vector<BlockSizeShare> entries;
  while (entries.size() < kMaxEntries) {
    const std::size_t colon = text.find(':');
    const std::string_view entry = text.substr(0, colon);
    if (entry.empty()) break;
    const std::size_t slash = entry.find('/');
    const unsigned perc =
        slash == std::string_view::npos ? kMissing : atoi_percent(entry.substr(slash + 1));
    entries.push_back({checked_size("bssplit", entry.substr(0, slash), size), perc});
    if (colon == std::string_view::npos) break;
    text.remove_prefix(colon + 1);
  }
  if (entries.empty()) return;
  unsigned given = 0, missing = 0;
  for (const BlockSizeShare& e : entries) {
    if (e.perc == kMissing)
      ++missing;
    else
      given += e.perc;
  }
  if (given > 100 && missing > 1) bad("bssplit", "the percentages add to more than 100%");
  if (given > 100 && missing == 1)
    bad("bssplit",
        "the percentages add to more than 100% and one entry has none (fio would give "
        "it a share that wraps around)");
  if (missing) {
    if (missing == 1 && entries.size() == 1) given = 100;
    for (BlockSizeShare& e : entries)
      if (e.perc == kMissing) e.perc = (100 - given) / missing;
  }
  out.min_bs = UINT64_MAX;
  out.max_bs = 0;
  for (const BlockSizeShare& e : entries) {
    out.min_bs = std::min(out.min_bs, e.bs);
    out.max_bs = std::max(out.max_bs, e.bs);
  }
  // fio sorts with qsort by percentage, ascending; glibc's is a merge sort, stable.
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const BlockSizeShare& a, const BlockSizeShare& b) { return a.perc < b.perc; });
  out.split = std::move(entries);
  // One size (however often it is listed) is a fixed size: fio returns it without a draw.
  if (!out.mixed()) out.split.clear();
}

// options.c str_split_parse: READ[,WRITE[,TRIM]]; one part is every direction's, two parts give
// the trims the writes' list.
template <class ParseOne>
BlockSizeMix per_direction(std::string_view text, ParseOne parse_one) {
  BlockSizeMix mix;
  const auto parts = fio_direction_parts(text);
  for (unsigned d = 0; d < 3; ++d) parse_one(parts[d], mix[d]);
  return mix;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string choice_text(const BlockSizeChoice& c,
                        const std::function<std::string(std::uint64_t)>& format) {
  std::string out;
  for (const BlockSizeShare& e : c.split)
    out += (out.empty() ? "" : ":") + format(e.bs) + "/" + std::to_string(e.perc);
  return out;
}

// A text per direction, shortened as fio reads it back: one part when all three agree, two when
// the trims have the writes'.
std::string direction_parts(const std::array<std::string, 3>& parts) {
  if (parts[0] == parts[1] && parts[1] == parts[2]) return parts[0];
  if (parts[1] == parts[2]) return parts[0] + "," + parts[1];
  return parts[0] + "," + parts[1] + "," + parts[2];
}

}  // namespace

std::array<std::string_view, 3> fio_direction_parts(std::string_view text) {
  const std::size_t first = text.find(',');
  if (first == std::string_view::npos) return {text, text, text};
  const std::size_t second = text.find(',', first + 1);
  const std::string_view write = text.substr(
      first + 1, second == std::string_view::npos ? std::string_view::npos : second - first - 1);
  return {text.substr(0, first), write,
          second == std::string_view::npos ? write : text.substr(second + 1)};
}

BlockSizeMix parse_bssplit(std::string_view text, const SizeParser& size) {
  return per_direction(trimmed(text), [&](std::string_view part, BlockSizeChoice& c) {
    parse_direction(part, size, c);
  });
}

BlockSizeMix parse_bsrange(std::string_view text, const SizeParser& size) {
  return per_direction(trimmed(text), [&](std::string_view part, BlockSizeChoice& c) {
    if (part.empty()) return;
    const std::size_t dash = part.find('-');
    if (dash == std::string_view::npos)
      bad("bsrange", "expected LO-HI, got '" + std::string(part) + "'");
    std::uint64_t lo = checked_size("bsrange", part.substr(0, dash), size);
    std::uint64_t hi = checked_size("bsrange", part.substr(dash + 1), size);
    if (lo > hi) std::swap(lo, hi);  // fio takes the two ends in either order
    c.min_bs = lo;
    c.max_bs = hi;
    c.split.clear();
  });
}

std::string bssplit_text(const BlockSizeMix& mix,
                         const std::function<std::string(std::uint64_t)>& format) {
  bool any = false;
  std::array<std::string, 3> parts;
  for (unsigned d = 0; d < 3; ++d) {
    parts[d] = choice_text(mix[d], format);
    any = any || !mix[d].split.empty();
  }
  return any ? direction_parts(parts) : std::string();
}

std::string bsrange_text(const BlockSizeMix& mix,
                         const std::function<std::string(std::uint64_t)>& format) {
  bool any = false;
  std::array<std::string, 3> parts;
  for (unsigned d = 0; d < 3; ++d) {
    const BlockSizeChoice& c = mix[d];
    if (!c.min_bs || !c.split.empty()) continue;
    parts[d] = format(c.min_bs) + "-" + format(c.max_bs);
    any = true;
  }
  return any ? direction_parts(parts) : std::string();
}

std::vector<std::uint64_t> block_sizes_of(const BlockSizeChoice& c) {
  if (c.split.empty()) return {c.min_bs, c.max_bs};
  std::vector<std::uint64_t> out;
  for (const BlockSizeShare& e : c.split) out.push_back(e.bs);
  return out;
}

void merge_block_size_mix(BlockSizeMix& into, const BlockSizeMix& from) {
  for (unsigned d = 0; d < 3; ++d)
    if (from[d].min_bs) into[d] = from[d];
}

// io_u.c get_next_buflen, for a direction that is mixed and whose smallest size fits.
std::uint64_t BlockSizeDraw::draw(std::uint64_t room) noexcept {
  const std::uint64_t minbs = choice_.min_bs, maxbs = choice_.max_bs;
  const std::uint64_t frand_max = rng_.max();
  const bool power_2 = (minbs & (minbs - 1)) == 0;
  // fio redraws until the size fits; the smallest always does, so this ends (the bound only
  // guards a split whose smallest entry has no share, which fio would redraw forever).
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const std::uint64_t r = rng_.next();
    std::uint64_t buflen = 0;
    if (choice_.split.empty()) {
      buflen = minbs + static_cast<std::uint64_t>(static_cast<double>(maxbs) *
                                                  (static_cast<double>(r) / (frand_max + 1.0)));
    } else {
      std::uint64_t perc = 0;
      for (const BlockSizeShare& e : choice_.split) {
        if (!e.perc) continue;
        buflen = e.bs;
        perc += e.perc;
        if (r / perc <= frand_max / 100 && buflen <= room) break;
      }
    }
    if (power_2)
      buflen &= ~(minbs - 1);
    else
      buflen -= buflen % minbs;
    if (buflen > maxbs) buflen = maxbs;
    if (buflen <= room && buflen != 0) return buflen;
  }
  return minbs;
}

}  // namespace storqual::runner
