// SPDX-License-Identifier: Apache-2.0
// fio's random_distribution grammar and its generators (offset_distribution.hpp). Integer types
// and conversions follow fio's C where they shape the values (gauss's unsigned int offset, its
// int deviation), so that the same seed gives fio's blocks.
#include "runner/measure/offset_distribution.hpp"

#include <cmath>
#include <cstdlib>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kGoldenRatio64 = 0x61C8864680B583EBull;  // fio's hash.h __hash_u64
constexpr std::uint64_t kZipfMaxTerms = 10000000;                // fio's ZIPF_MAX_GEN
constexpr unsigned kGaussIters = 12;                             // fio's GAUSS_ITERS
constexpr unsigned kMissing = 255;  // fio's (uint8_t) -1U: a zone without its size

[[noreturn]] void bad(const std::string& why) {
  throw UnitError("random_distribution: " + why);
}

double to_double(std::string_view s) {
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
    bad("expected a number, got '" + text + "'");
  return v;
}

unsigned whole_percent(std::string_view s) {
  const double v = to_double(s);
  if (v < 0 || v > 100 || v != std::floor(v))
    bad("expected a whole percentage, got '" + std::string(s) + "'");
  return static_cast<unsigned>(v);
}

// One direction's zones (options.c zone_split_ddir); empty text leaves `out` empty.
void parse_zones(std::string_view text, bool absolute, const SizeParser& size,
                 std::vector<AccessZone>& out) {
  std::vector<AccessZone> zones;
  while (zones.size() < 256) {  // fio's ZONESPLIT_MAX
    const std::size_t colon = text.find(':');
    const std::string_view entry = text.substr(0, colon);
    if (entry.empty()) break;
    const std::size_t slash = entry.find('/');
    AccessZone z;
    z.access_perc = whole_percent(entry.substr(0, slash));
    const std::string_view rest =
        slash == std::string_view::npos ? std::string_view() : entry.substr(slash + 1);
    if (absolute) {
      z.size = rest.empty() ? 0 : size(rest);
    } else {
      // fio: atoi, over 100 is 100, 0 (or none) shares what is left.
      const unsigned p = rest.empty() ? 0 : static_cast<unsigned>(std::min(100.0, to_double(rest)));
      z.size_perc = p == 0 ? kMissing : p;
    }
    zones.push_back(z);
    if (colon == std::string_view::npos) break;
    text.remove_prefix(colon + 1);
  }
  if (zones.empty()) return;
  unsigned access = 0, sizes = 0, missing = 0;
  for (const AccessZone& z : zones) {
    access += z.access_perc;
    if (z.size_perc == kMissing)
      ++missing;
    else
      sizes += z.size_perc;
  }
  if (access > 100 || sizes > 100) bad("the zones' percentages add to more than 100%");
  if (access < 100)
    bad("the zones' access percentages add to " + std::to_string(access) + ", not 100");
  if (missing) {
    if (missing == 1 && zones.size() == 1) sizes = 100;
    for (AccessZone& z : zones)
      if (z.size_perc == kMissing) z.size_perc = (100 - sizes) / missing;
  }
  out = std::move(zones);
}

// "VALUE[:CENTER]" after the distribution's name (options.c split_parse_distr).
void parse_value(std::string_view rest, OffsetDistribution& d) {
  if (rest.empty()) return;
  const std::size_t colon = rest.find(':');
  d.value = to_double(rest.substr(0, colon));
  if (colon != std::string_view::npos) {
    d.center = to_double(rest.substr(colon + 1));
    if (d.center < 0 || d.center > 1) bad("the center must be within 0..1");
  }
}

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

OffsetDistribution parse_random_distribution(std::string_view text, const SizeParser& size) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view rest =
      colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  OffsetDistribution d;
  if (name == "random") {
    if (!rest.empty()) bad("random takes no value");
    return d;
  }
  if (name == "zoned" || name == "zoned_abs") {
    d.kind = name == "zoned" ? DistributionKind::Zoned : DistributionKind::ZonedAbs;
    const auto parts = fio_direction_parts(rest);
    for (unsigned i = 0; i < 3; ++i)
      parse_zones(parts[i], d.kind == DistributionKind::ZonedAbs, size, d.zones[i]);
    if (d.zones[0].empty() && d.zones[1].empty()) bad("zoned without zones");
    return d;
  }
  if (name == "zipf") {
    d.kind = DistributionKind::Zipf;
    d.value = 1.1;  // fio's FIO_DEF_ZIPF
    parse_value(rest, d);
    if (d.value == 1.0) bad("zipf's theta must be other than 1.0");
    if (d.value <= 0) bad("zipf's theta must be above 0");
  } else if (name == "pareto") {
    d.kind = DistributionKind::Pareto;
    d.value = 0.2;  // fio's FIO_DEF_PARETO
    parse_value(rest, d);
    if (d.value <= 0 || d.value >= 1) bad("pareto's h must be within 0 < h < 1");
  } else if (name == "normal") {
    d.kind = DistributionKind::Normal;
    parse_value(rest, d);
    if (d.value < 0 || d.value >= 100) bad("normal's deviation must be within 0 <= dev < 100");
  } else {
    bad("expected random, zipf, pareto, normal, zoned or zoned_abs, got '" + std::string(text) +
        "'");
  }
  return d;
}

std::string random_distribution_text(const OffsetDistribution& d,
                                     const std::function<std::string(std::uint64_t)>& format) {
  auto valued = [&](const char* name) {
    return std::string(name) + ":" + number_text(d.value) +
           (d.center >= 0 ? ":" + number_text(d.center) : std::string());
  };
  switch (d.kind) {
    case DistributionKind::Random:
      return "random";
    case DistributionKind::Zipf:
      return valued("zipf");
    case DistributionKind::Pareto:
      return valued("pareto");
    case DistributionKind::Normal:
      return valued("normal");
    case DistributionKind::Zoned:
    case DistributionKind::ZonedAbs:
      break;
  }
  const bool abs = d.kind == DistributionKind::ZonedAbs;
  std::array<std::string, 3> parts;
  for (unsigned i = 0; i < 3; ++i)
    for (const AccessZone& z : d.zones[i])
      parts[i] += (parts[i].empty() ? "" : ":") + std::to_string(z.access_perc) + "/" +
                  (abs ? format(z.size) : std::to_string(z.size_perc));
  std::string joined = parts[0];
  if (parts[1] != parts[0] || parts[2] != parts[0]) joined += "," + parts[1];
  if (parts[2] != parts[1]) joined += "," + parts[2];
  return std::string(abs ? "zoned_abs:" : "zoned:") + joined;
}

std::uint32_t fio_jhash(std::string_view key, std::uint32_t initval) noexcept {
  auto rol = [](std::uint32_t w, int s) { return (w << s) | (w >> (32 - s)); };
  const auto* k = reinterpret_cast<const std::uint8_t*>(key.data());
  auto length = static_cast<std::uint32_t>(key.size());
  std::uint32_t a, b, c;
  a = b = c = 0x61C88647u + length + initval;
  while (length > 12) {  // fio adds one byte of each word here (its hash.h as it is)
    a += k[0];
    b += k[4];
    c += k[8];
    a -= c;
    a ^= rol(c, 4);
    c += b;  // NOLINT: fio's __jhash_mix, one step per line
    b -= a;
    b ^= rol(a, 6);
    a += c;
    c -= b;
    c ^= rol(b, 8);
    b += a;
    a -= c;
    a ^= rol(c, 16);
    c += b;
    b -= a;
    b ^= rol(a, 19);
    a += c;
    c -= b;
    c ^= rol(b, 4);
    b += a;
    length -= 12;
    k += 12;
  }
  if (length == 0) return c;
  const std::uint32_t shift[12] = {0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24};
  for (std::uint32_t i = 0; i < length; ++i) {
    const std::uint32_t v = static_cast<std::uint32_t>(k[i]) << shift[i];
    (i < 4 ? a : i < 8 ? b : c) += v;
  }
  c ^= b;
  c -= rol(b, 14);
  a ^= c;
  a -= rol(c, 11);
  b ^= a;
  b -= rol(a, 25);
  c ^= b;
  c -= rol(b, 16);
  a ^= c;
  a -= rol(c, 4);
  b ^= a;
  b -= rol(a, 14);
  c ^= b;
  c -= rol(b, 24);
  return c;
}

double zipf_zetan(double theta, std::uint64_t nranges) {
  double zetan = 0;
  for (std::uint64_t i = 0; i < std::min(nranges, kZipfMaxTerms); ++i)
    zetan += std::pow(1.0 / static_cast<double>(i + 1), theta);
  return zetan;
}

SkewedBlocks::SkewedBlocks(const OffsetDistribution& d, const Setup& s)
    : d_(d),
      s_(s),
      shaped_(fio_jhash(s.target) * s.thread_number, false),
      zone_(fio_seed(FioSeed::Zone, kFioDefaultRandseed, s.thread_number), false),
      block_(fio_block_seed(s.thread_number), d.use64) {
  const std::uint64_t n = s_.nranges;
  if (d_.kind == DistributionKind::Zipf || d_.kind == DistributionKind::Pareto) {
    rand_off_ = shaped_.next();  // fio's shared_rand_init draws it first
    if (d_.center != -1) rand_off_ = static_cast<std::uint64_t>(static_cast<double>(n) * d_.center);
  }
  if (d_.kind == DistributionKind::Zipf) {
    zeta2_ = std::pow(1.0, d_.value) + std::pow(0.5, d_.value);
    zetan_ = s_.zetan > 0 ? s_.zetan : zipf_zetan(d_.value, n);
  } else if (d_.kind == DistributionKind::Pareto) {
    pareto_pow_ = std::log(d_.value) / std::log(1.0 - d_.value);
  } else if (d_.kind == DistributionKind::Normal) {
    if (d_.value != 0.0) {
      stddev_ = static_cast<unsigned>(std::ceil(static_cast<double>(n) * d_.value / 100.0));
      stddev_ = std::min<std::uint64_t>(stddev_, n / 2);
    }
    rand_off_ = d_.center == -1 ? 0
                                : static_cast<std::uint32_t>(static_cast<std::int64_t>(
                                      static_cast<double>(n) * (d_.center - 0.5)));
  }
  // zoned: fio's zone-dist.c index, the zone of each draw 1..100.
  for (unsigned dir = 0; dir < 3; ++dir) {
    if (d_.zones[dir].empty()) continue;
    index_[dir].assign(100, {});
    std::uint64_t prev = 0;
    unsigned first = 0;
    for (const AccessZone& z : d_.zones[dir]) {
      const std::uint64_t end =
          prev + (d_.kind == DistributionKind::ZonedAbs ? z.size : z.size_perc);
      for (unsigned j = first; j < first + z.access_perc && j < 100; ++j)
        index_[dir][j] = {prev, end};
      first += z.access_perc;
      prev = end;
    }
  }
}

std::uint64_t SkewedBlocks::next(unsigned dir) noexcept {
  std::uint64_t b = 0;
  switch (d_.kind) {
    case DistributionKind::Zipf:
      b = zipf();
      break;
    case DistributionKind::Pareto:
      b = pareto();
      break;
    case DistributionKind::Normal:
      b = gauss();
      break;
    case DistributionKind::Zoned:
    case DistributionKind::ZonedAbs:
      b = zoned(dir);
      break;
    case DistributionKind::Random:
      b = uniform(s_.blocks);
      break;
  }
  return s_.blocks ? b % s_.blocks : 0;  // fio's last ranges may end past the region's blocks
}

// lib/zipf.c zipf_next.
std::uint64_t SkewedBlocks::zipf() noexcept {
  const double theta = d_.value, n = static_cast<double>(s_.nranges);
  const double alpha = 1.0 / (1.0 - theta);
  const double eta = (1.0 - std::pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2_ / zetan_);
  const double rand_uni = static_cast<double>(shaped_.next()) / 4294967295.0;
  const double rand_z = rand_uni * zetan_;
  std::uint64_t val;
  if (rand_z < 1.0)
    val = 1;
  else if (rand_z < 1.0 + std::pow(0.5, theta))
    val = 2;
  else
    val = 1 + static_cast<std::uint64_t>(n * std::pow(eta * rand_uni - eta + 1.0, alpha));
  val = (val - 1) * kGoldenRatio64;
  return (val + rand_off_) % s_.nranges;
}

// lib/zipf.c pareto_next.
std::uint64_t SkewedBlocks::pareto() noexcept {
  const double r = static_cast<double>(shaped_.next()) / 4294967295.0;
  std::uint64_t n =
      static_cast<std::uint64_t>(static_cast<double>(s_.nranges - 1) * std::pow(r, pareto_pow_));
  n *= kGoldenRatio64;
  return (n + rand_off_) % s_.nranges;
}

// lib/gauss.c gauss_next: the mean of 12 uniform draws, moved by a deviation.
std::uint64_t SkewedBlocks::gauss() noexcept {
  std::uint64_t sum = 0;
  for (unsigned i = 0; i < kGaussIters; ++i) sum += shaped_.next() % (s_.nranges + 1);
  sum = (sum + kGaussIters - 1) / kGaussIters;
  if (stddev_) {
    const auto stddev = static_cast<unsigned>(stddev_);
    const auto r = static_cast<std::uint32_t>(shaped_.next());
    const int vr = static_cast<int>(stddev * (r / 4294967296.0));
    int dev = static_cast<int>(static_cast<unsigned>(vr) - stddev / 2);
    while (static_cast<std::uint64_t>(static_cast<std::int64_t>(dev)) + sum >= s_.nranges) dev /= 2;
    sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(dev));
  }
  sum *= kGoldenRatio64;
  return (sum + static_cast<std::uint32_t>(rand_off_)) % s_.nranges;
}

// io_u.c __get_next_rand_offset without a random map: lastb * U[0,1).
std::uint64_t SkewedBlocks::uniform(std::uint64_t lastb) noexcept {
  const std::uint64_t r = block_.next();
  return static_cast<std::uint64_t>(
      static_cast<double>(lastb) *
      (static_cast<double>(r) / (static_cast<double>(block_.max()) + 1.0)));
}

// io_u.c __get_next_rand_offset_zoned and _zoned_abs.
std::uint64_t SkewedBlocks::zoned(unsigned dir) noexcept {
  const std::uint64_t lastb = s_.blocks;
  if (index_[dir].empty()) return uniform(lastb);
  const std::uint64_t r = zone_.next();
  const unsigned v = 1 + static_cast<unsigned>(100.0 * (static_cast<double>(r) / 4294967296.0));
  const ZoneIndex& z = index_[dir][v - 1];
  if (d_.kind == DistributionKind::ZonedAbs) {
    const std::uint64_t start = z.start / s_.granule, end = z.end / s_.granule;
    return uniform(end - start) + start;
  }
  const std::uint64_t offset = z.start ? z.start * lastb / 100 : 0;
  return uniform(lastb * (z.end - z.start) / 100) + offset;
}

}  // namespace storqual::runner
