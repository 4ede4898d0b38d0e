// SPDX-License-Identifier: Apache-2.0
// fio's random map through the real runner on a real file (O_DIRECT): a 4k randwrite over a region
// of N blocks for exactly N I/Os writes every block once, seen both in the per-I/O log's offsets
// and in the verify ledger (one write per block: every recorded sequence is distinct and the
// blocks written are N); with norandommap the same run repeats blocks and misses others, as fio's
// norandommap does. The printed fio command says which.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;
using storqual::testing::ScratchDir;

constexpr std::uint64_t kBlocks = 2048;
constexpr std::uint64_t kBs = 4096;

WorkloadSpec file_spec(const fs::path& file, unsigned numjobs) {
  WorkloadSpec w;
  w.id = "randwrite-map";
  w.params.rw = "randwrite";
  w.params.bs = kBs;
  w.params.iodepth = 8;
  w.params.numjobs = numjobs;
  w.params.size = kBlocks * kBs;
  w.params.ioengine = "psync";
  w.params.target = file.string();
  return w;
}

// offset -> times written, from fio's lat log format (time, clat, direction, size, offset).
std::map<std::uint64_t, unsigned> offsets_in_log(const fs::path& log) {
  std::map<std::uint64_t, unsigned> seen;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::uint64_t t, clat, dir, size, offset;
    char c;
    f >> t >> c >> clat >> c >> dir >> c >> size >> c >> offset;
    if (f) ++seen[offset];
  }
  return seen;
}

TEST(RandomMapRun, SizeBasedRandwriteWritesEveryBlockOnce) {
  ScratchDir dir;
  const fs::path file = dir / "target";
  std::ofstream(file).close();
  fs::resize_file(file, kBlocks * kBs);
  for (unsigned numjobs : {1u, 2u}) {
    WorkloadSpec w = file_spec(file, numjobs);
    w.verify = VerifyAlgorithm::Xxh3;  // jobs split the blocks, as fio's verify needs
    VerifyLedger ledger(0, kBlocks * kBs, kBs, VerifyAlgorithm::Xxh3);
    RunOptions o;
    o.verify_ledger = &ledger;
    o.lat_log_path = (dir / ("lat" + std::to_string(numjobs) + ".csv")).string();
    auto r = run_workload(w, o);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_TRUE(r.write);
    EXPECT_EQ(r.write->ios, kBlocks) << "numjobs " << numjobs;
    EXPECT_TRUE(r.params.randommap);
    EXPECT_EQ(r.fio_command.find("norandommap"), std::string::npos) << r.fio_command;
    // The lat log: N distinct offsets, each once.
    const auto seen = offsets_in_log(o.lat_log_path);
    EXPECT_EQ(seen.size(), kBlocks);
    for (const auto& [off, n] : seen) ASSERT_EQ(n, 1u) << "offset " << off << " written " << n;
    // The ledger: every block has a write, and no two blocks hold the same (job's) sequence, so
    // no write replaced another.
    EXPECT_EQ(ledger.written_blocks(), kBlocks);
    ASSERT_TRUE(r.integrity);
    EXPECT_EQ(r.integrity->blocks_written, kBlocks);
    EXPECT_EQ(r.integrity->verified_at_end, kBlocks);
    EXPECT_EQ(r.integrity->corrupted + r.integrity->stale + r.integrity->misplaced, 0u);
    std::map<std::uint64_t, std::set<std::uint32_t>> sequences;  // job (block % numjobs) -> seqs
    for (std::uint64_t b = 0; b < kBlocks; ++b) sequences[b % numjobs].insert(ledger.expected(b));
    for (const auto& [job, seqs] : sequences) EXPECT_EQ(seqs.size(), kBlocks / numjobs);
  }
}

TEST(RandomMapRun, NorandommapDrawsWithReplacement) {
  ScratchDir dir;
  const fs::path file = dir / "target";
  std::ofstream(file).close();
  fs::resize_file(file, kBlocks * kBs);
  WorkloadSpec w = file_spec(file, 1);
  set_workload_option(w, "norandommap", "1");
  RunOptions o;
  o.lat_log_path = (dir / "lat.csv").string();
  auto r = run_workload(w, o);
  ASSERT_TRUE(r.write);
  EXPECT_EQ(r.write->ios, kBlocks);
  EXPECT_FALSE(r.params.randommap);
  EXPECT_NE(r.fio_command.find("--norandommap"), std::string::npos) << r.fio_command;
  const auto seen = offsets_in_log(o.lat_log_path);
  // N draws with replacement from N blocks reach about 1 - 1/e of them (63%), never all.
  EXPECT_LT(seen.size(), kBlocks * 7 / 10);
  EXPECT_GT(seen.size(), kBlocks * 55 / 100);
}

}  // namespace
}  // namespace storqual::runner
