// SPDX-License-Identifier: Apache-2.0
// Compressible and deduplicable writes (runner/measure/write_buffers.hpp) through the real runner
// against fio 3.33 on real files with O_DIRECT: the same options give the same bytes, file for
// file, so a device that compresses or deduplicates sees the same ratios from both tools.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kBs = 4096, kSize = 1u << 20;

struct Case {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;  // by fio's (and storqual's) names
  unsigned jobs = 1;
};

void make_file(const std::filesystem::path& p, std::uint64_t size) {
  std::ofstream(p).close();
  std::filesystem::resize_file(p, size);
}

// storqual's files: `jobs` jobs of one workload, job k writing [k x kSize, (k+1) x kSize) of one
// file (offset_increment); returns the file.
std::string storqual_writes(const Case& c, const std::filesystem::path& file, unsigned iodepth) {
  make_file(file, kSize * c.jobs);
  WorkloadSpec w;
  w.id = c.name;
  w.params.rw = "write";
  w.params.bs = kBs;
  w.params.iodepth = iodepth;
  w.params.numjobs = c.jobs;
  w.params.ioengine = iodepth > 1 ? "libaio" : "psync";
  w.params.direct = true;
  w.params.size = kSize;
  w.params.target = file.string();
  w.offset_increment = c.jobs > 1 ? kSize : 0;
  w.write_contents = WriteContents::Refill;
  for (const auto& [name, value] : c.options) set_workload_option(w, name, value);
  const reporting::WorkloadResult r = run_workload(w, RunOptions{});
  EXPECT_TRUE(r.errors.empty()) << c.name << ": " << r.errors.front();
  EXPECT_TRUE(r.write && r.write->ios == kSize / kBs * c.jobs) << c.name;
  return storqual::testing::read_file(file);
}

// fio's: one job per file, in order (thread numbers 1, 2, ...), the files concatenated.
std::string fio_writes(const Case& c, const std::filesystem::path& dir, unsigned iodepth) {
  std::vector<std::string> args = {"fio", "--output=/dev/null"};
  std::string all;
  for (unsigned k = 0; k < c.jobs; ++k) {
    const auto file = dir / ("fio." + std::to_string(k));
    make_file(file, kSize);  // laid out already: fio's layout would draw from its buffers' seed
    args.insert(args.end(),
                {"--name=job" + std::to_string(k), "--filename=" + file.string(), "--rw=write",
                 "--bs=4k", "--size=" + std::to_string(kSize), "--direct=1",
                 "--ioengine=" + std::string(iodepth > 1 ? "libaio" : "psync"),
                 "--iodepth=" + std::to_string(iodepth)});
    for (const auto& [name, value] : c.options) args.push_back("--" + name + "=" + value);
  }
  const auto fio = storqual::testing::run_command(args);
  EXPECT_EQ(fio.exit_code, 0) << c.name << ": " << fio.err;
  for (unsigned k = 0; k < c.jobs; ++k)
    all += storqual::testing::read_file(dir / ("fio." + std::to_string(k)));
  return all;
}

// 4 KiB blocks, and how many distinct ones (what a deduplicating device keeps).
std::size_t unique_blocks(const std::string& data) {
  std::set<std::string> blocks;
  for (std::size_t at = 0; at + kBs <= data.size(); at += kBs) blocks.insert(data.substr(at, kBs));
  return blocks.size();
}

std::size_t zero_bytes(const std::string& data) {
  std::size_t n = 0;
  for (char c : data) n += c == 0;
  return n;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"compress50", {{"buffer_compress_percentage", "50"}}},
      {"compress30-chunk4k",
       {{"buffer_compress_percentage", "30"}, {"buffer_compress_chunk", "4096"}}},
      {"compress100", {{"buffer_compress_percentage", "100"}}},
      {"dedupe40", {{"dedupe_percentage", "40"}}},
      {"dedupe100", {{"dedupe_percentage", "100"}}},
      {"working-set",
       {{"dedupe_percentage", "50"},
        {"dedupe_mode", "working_set"},
        {"dedupe_working_set_percentage", "20"},
        {"buffer_compress_percentage", "50"}}},
      // fio's examples/dedupe-global.fio, two jobs sharing one working set.
      {"dedupe-global",
       {{"dedupe_percentage", "50"},
        {"dedupe_mode", "working_set"},
        {"dedupe_working_set_percentage", "50"},
        {"dedupe_global", "1"},
        {"buffer_compress_percentage", "50"}},
       2},
  };
  return all;
}

TEST(WriteBuffersRun, TheSameBytesAsFio) {
  STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio (apt-get install fio)");
  for (const unsigned iodepth : {1u, 8u}) {
    for (const Case& c : cases()) {
      storqual::testing::ScratchDir dir("storqual-buffers");
      const std::string ours = storqual_writes(c, dir / "storqual", iodepth);
      const std::string theirs = fio_writes(c, dir.path(), iodepth);
      ASSERT_EQ(ours.size(), theirs.size()) << c.name;
      std::size_t first = 0;
      while (first < ours.size() && ours[first] == theirs[first]) ++first;
      EXPECT_EQ(first, ours.size())
          << c.name << " at iodepth " << iodepth << ": the files differ from byte " << first
          << " (block " << first / kBs << ")";
    }
  }
}

// The ratios a device sees, from the bytes: compress=50 is half zeros (in runs of 256 per 512),
// dedupe=40 about 40% repeated blocks, dedupe=100 one block in all.
TEST(WriteBuffersRun, TheRatiosADeviceSees) {
  storqual::testing::ScratchDir dir("storqual-buffers");
  const std::size_t blocks = kSize / kBs;
  const std::string c50 = storqual_writes(cases()[0], dir / "c50", 1);
  EXPECT_NEAR(static_cast<double>(zero_bytes(c50)) / static_cast<double>(c50.size()), 0.5, 0.01);
  EXPECT_EQ(unique_blocks(c50), blocks) << "compressible, not deduplicable";
  const std::string c100 = storqual_writes(cases()[2], dir / "c100", 1);
  EXPECT_EQ(zero_bytes(c100), c100.size());
  const std::string d40 = storqual_writes(cases()[3], dir / "d40", 1);
  const double repeated =
      1.0 - static_cast<double>(unique_blocks(d40)) / static_cast<double>(blocks);
  EXPECT_GT(repeated, 0.30);
  EXPECT_LT(repeated, 0.50);
  EXPECT_LT(zero_bytes(d40), d40.size() / 100) << "deduplicable, not compressible";
  const std::string d100 = storqual_writes(cases()[4], dir / "d100", 1);
  EXPECT_EQ(unique_blocks(d100), 1u);
}

}  // namespace
}  // namespace storqual::runner
