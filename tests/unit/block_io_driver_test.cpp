// SPDX-License-Identifier: Apache-2.0
// BlockIoDriver on a real file with every available engine: each block is issued once and comes
// back with its own tag and data, whatever the completion order; failed I/Os are counted with
// the first errno and offset and still reach the completion callback; a set stop issues nothing;
// a write pass calls `prepare` for each block.
#include "runner/measure/block_io_driver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/fault_engine.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using engines::Direction;
using engines::IoRequest;

constexpr std::uint32_t kBs = 4096;
constexpr std::uint64_t kBlocks = 64;

class BlockIoDriverOnFile : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!engines::available(GetParam()).ok)
      GTEST_FAIL() << "cannot run: " << GetParam() << ": " << engines::available(GetParam()).reason;
    path_ = (dir_ / "target").string();
    storqual::testing::write_random_file(path_, kBlocks * kBs, 5);
  }

  engines::EngineConfig config(bool write) const {
    engines::EngineConfig c;
    c.path = path_;
    c.write = write;
    c.direct = true;
    return c;
  }

  // Every block in a scrambled order, tagged with its index + 1000.
  std::vector<std::uint64_t> scrambled_offsets() const {
    std::vector<std::uint64_t> out;
    for (std::uint64_t k = 0; k < kBlocks; ++k) out.push_back((k * 37 % kBlocks) * kBs);
    return out;
  }

  storqual::testing::ScratchDir dir_{"storqual-block-io"};
  std::string path_;
};

TEST_P(BlockIoDriverOnFile, WritesThenReadsEveryBlockOnceWithItsTag) {
  const auto offsets = scrambled_offsets();
  auto tag_of = [](std::size_t i) { return 1000 + i; };
  {
    BlockIoDriver writer(GetParam(), {}, config(true), 8, kBs, "test");
    std::vector<int> prepared(kBlocks, 0);
    auto out = writer.run(
        Direction::Write, blocks_at(offsets, tag_of),
        [&](IoRequest& r, std::uint64_t tag) {
          ++prepared[tag - 1000];
          std::memset(r.buf, 0, kBs);
          std::memcpy(r.buf, &tag, sizeof tag);
          std::memcpy(static_cast<char*>(r.buf) + 8, &r.offset, sizeof r.offset);
        },
        [](const IoRequest&, std::uint64_t) {}, nullptr);
    EXPECT_EQ(out.ios, kBlocks);
    EXPECT_EQ(out.errors, 0u);
    EXPECT_GE(out.seconds, 0);
    EXPECT_TRUE(std::all_of(prepared.begin(), prepared.end(), [](int n) { return n == 1; }));
  }
  BlockIoDriver reader(GetParam(), {}, config(false), 8, kBs, "test");
  EXPECT_EQ(reader.depth(), reader.engine().caps().async ? 8u : 1u);
  std::map<std::uint64_t, int> seen;  // tag -> completions
  auto out = reader.run(
      Direction::Read, blocks_at(offsets, tag_of),
      [](IoRequest&, std::uint64_t) { ADD_FAILURE() << "prepare called on a read"; },
      [&](const IoRequest& r, std::uint64_t tag) {
        ++seen[tag];
        ASSERT_EQ(r.res, static_cast<std::int64_t>(kBs));
        std::uint64_t stored_tag = 0, stored_offset = 0;
        std::memcpy(&stored_tag, r.buf, 8);
        std::memcpy(&stored_offset, static_cast<const char*>(r.buf) + 8, 8);
        EXPECT_EQ(stored_tag, tag);  // the tag came back with its own block's data
        EXPECT_EQ(stored_offset, r.offset);
        EXPECT_EQ(r.offset, offsets[tag - 1000]);
      },
      nullptr);
  EXPECT_EQ(out.ios, kBlocks);
  EXPECT_EQ(out.errors, 0u);
  ASSERT_EQ(seen.size(), kBlocks);
  for (const auto& [tag, n] : seen) EXPECT_EQ(n, 1) << tag;
}

TEST_P(BlockIoDriverOnFile, FailedReadsAreCountedAndStillCompleted) {
  engines::FaultPlan plan;
  plan.fail =
      engines::FaultPlan::Fail{.when = {.writes = false, .after = 3, .count = 2}, .error = EIO};
  auto wrap = [plan](std::unique_ptr<engines::Engine> inner) -> std::unique_ptr<engines::Engine> {
    return std::make_unique<engines::FaultEngine>(std::move(inner), plan);
  };
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t k = 0; k < kBlocks; ++k) offsets.push_back(k * kBs);
  BlockIoDriver reader(GetParam(), wrap, config(false), 1, kBs, "test");
  std::uint64_t failed = 0, completed = 0;
  auto out = reader.run(
      Direction::Read, blocks_at(offsets, [](std::size_t i) { return i; }),
      [](IoRequest&, std::uint64_t) {},
      [&](const IoRequest& r, std::uint64_t) {
        ++completed;
        if (r.res < 0) ++failed;
      },
      nullptr);
  EXPECT_EQ(completed, kBlocks);
  EXPECT_EQ(failed, 2u);
  EXPECT_EQ(out.ios, kBlocks);
  EXPECT_EQ(out.errors, 2u);
  EXPECT_EQ(out.first_errno, EIO);
  EXPECT_EQ(out.first_error_offset, 3 * kBs);  // the fourth read, in order at depth 1
}

TEST_P(BlockIoDriverOnFile, AStopAlreadySetIssuesNothing) {
  std::atomic<bool> stop{true};
  BlockIoDriver reader(GetParam(), {}, config(false), 4, kBs, "test");
  int asked = 0;
  auto out = reader.run(
      Direction::Read,
      [&](BlockIo& b) {
        ++asked;
        b.offset = 0;
        return true;
      },
      [](IoRequest&, std::uint64_t) {},
      [](const IoRequest&, std::uint64_t) { ADD_FAILURE() << "an I/O completed"; }, &stop);
  EXPECT_EQ(out.ios, 0u);
  EXPECT_EQ(asked, 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, BlockIoDriverOnFile,
                         ::testing::Values("io_uring", "libaio", "psync"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace storqual::runner
