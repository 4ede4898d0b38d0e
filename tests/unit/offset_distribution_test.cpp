// SPDX-License-Identifier: Apache-2.0
// Skewed random offsets (runner/measure/offset_distribution.hpp): fio's random_distribution
// grammar, and the blocks fio 3.33 itself chose for the same jobs. The references are
// `fio --debug=io` of "[job] ioengine=null filename=fio-ref rw=randread size=1g bs=4k
// number_ios=16 random_distribution=D": the off= of each "fill" line over 4096, in order.
#include "runner/measure/offset_distribution.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {
namespace {

std::uint64_t size_of(std::string_view s) {
  return parse_size(s);
}

std::vector<std::uint64_t> blocks_of(const std::string& text, bool use64 = false) {
  OffsetDistribution d = parse_random_distribution(text, size_of);
  d.use64 = use64;
  constexpr std::uint64_t kBlocks = (1ull << 30) / 4096;
  SkewedBlocks::Setup s{kBlocks, kBlocks, 4096, "fio-ref", 1, 0};
  SkewedBlocks b(d, s);
  std::vector<std::uint64_t> out;
  for (int i = 0; i < 16; ++i) out.push_back(b.next(0));
  return out;
}

using V = std::vector<std::uint64_t>;

TEST(OffsetDistribution, ZipfParetoNormalAreFiosBlocks) {
  EXPECT_EQ(blocks_of("zipf:0.5"),
            (V{195093, 200598, 143805, 31934, 33347, 195123, 230537, 243705, 180673, 259146, 126156,
               15918, 71303, 178633, 217536, 120693}));
  EXPECT_EQ(blocks_of("zipf:1.2:0.5"),
            (V{174873, 131072, 67542, 131072, 238403, 198945, 56499, 133720, 230379, 4012, 131072,
               71885, 93069, 182526, 218674, 230379}));
  EXPECT_EQ(blocks_of("pareto:0.3"),
            (V{135512, 101291, 122606, 6327, 166102, 212821, 182799, 65568, 26849, 126149, 173507,
               165390, 16509, 213303, 140401, 228853}));
  EXPECT_EQ(blocks_of("normal:10"),
            (V{3801, 8020, 225199, 256284, 52899, 110018, 104308, 24949, 69164, 1335, 114231,
               139060, 106556, 235952, 13652, 142463}));
  EXPECT_EQ(blocks_of("normal:0"), (V{182715, 214149, 12210, 250973, 139119, 80781, 23879, 17674,
                                      259085, 100307, 260242, 24505, 136172, 14291, 35090, 13398}));
}

TEST(OffsetDistribution, ZonedAreFiosBlocks) {
  EXPECT_EQ(blocks_of("zoned:50/5:30/15:20/"),
            (V{790, 9702, 11051, 150997, 136714, 11011, 28068, 4633, 49007, 66441, 231781, 8534,
               12170, 3235, 28539, 7326}));
  EXPECT_EQ(blocks_of("zoned:50/5:30/15:20/", true),  // random_generator=tausworthe64
            (V{12300, 344, 1057, 73285, 163384, 340, 30417, 4371, 46564, 211605, 182290, 1314,
               11546, 10609, 50351, 1607}));
  EXPECT_EQ(blocks_of("zoned_abs:50/10m:30/100m:20/500m"),
            (V{154, 1895, 2158, 88321, 79604, 2150, 12300, 905, 25932, 36713, 137629, 1666, 2377,
               632, 12607, 1430}));
}

TEST(OffsetDistribution, GrammarAsFioReadsIt) {
  const OffsetDistribution z =
      parse_random_distribution("zoned:50/5:30/15:20/,50/10:50/90", size_of);
  ASSERT_EQ(z.zones[0].size(), 3u);
  EXPECT_EQ(z.zones[0][2], (AccessZone{20, 80, 0}));  // the rest of the region
  EXPECT_EQ(z.zones[1][1], (AccessZone{50, 90, 0}));
  EXPECT_EQ(z.zones[2], z.zones[1]);
  EXPECT_EQ(parse_random_distribution("zipf", size_of).value, 1.1);  // fio's default theta
  EXPECT_EQ(parse_random_distribution("pareto", size_of).value, 0.2);
  EXPECT_EQ(parse_random_distribution("zipf:0.8:0.25", size_of).center, 0.25);
  EXPECT_FALSE(parse_random_distribution("random", size_of).skewed());
  for (const char* bad :
       {"zipf:1", "zipf:1.0", "pareto:1.5", "normal:100", "zipf:0.5:2", "zoned:50/5:30/15",
        "zoned:60/50:60/50", "lognormal:1", "random:3", "zoned:", "zipf:x"})
    EXPECT_THROW((void)parse_random_distribution(bad, size_of), UnitError) << bad;
}

TEST(OffsetDistribution, TextReadsBack) {
  const auto format = [](std::uint64_t b) { return format_size_fio(b); };
  for (const char* text :
       {"zipf:0.5", "zipf:1.2:0.5", "pareto:0.3", "normal:10", "zoned:50/5:30/15:20/80",
        "zoned:50/5:30/15:20/80,50/10:50/90", "zoned_abs:50/10m:30/100m:20/500m"}) {
    const OffsetDistribution d = parse_random_distribution(text, size_of);
    EXPECT_EQ(parse_random_distribution(random_distribution_text(d, format), size_of), d) << text;
  }
  EXPECT_EQ(random_distribution_text(parse_random_distribution("zipf:0.5", size_of), format),
            "zipf:0.5");
}

TEST(OffsetDistribution, WorkloadOptionsAndChecks) {
  WorkloadSpec w;
  w.params.rw = "randread";
  set_workload_option(w, "random_distribution", "zipf:1.2");
  set_workload_option(w, "random_generator", "tausworthe64");
  EXPECT_EQ(distribution_options(w), (std::vector<std::string>{"random_distribution=zipf:1.2",
                                                               "random_generator=tausworthe64"}));
  EXPECT_NE(fio_command(w).find(" --random_distribution=zipf:1.2"), std::string::npos);
  validate(w);
  set_workload_option(w, "random_generator", "lfsr");  // fio's LFSR: uniform offsets only
  EXPECT_THROW(validate(w), UnitError);
  set_workload_option(w, "random_generator", "tausworthe64");
  w.params.rw = "read";
  EXPECT_THROW(validate(w), UnitError);  // a skewed distribution is for random offsets
  // fio's hash of a name, which seeds zipf, pareto and normal.
  EXPECT_NE(fio_jhash("fio-ref"), fio_jhash("fio-reg"));
  EXPECT_EQ(fio_jhash(""), 0x61C88647u);
}

}  // namespace
}  // namespace storqual::runner
