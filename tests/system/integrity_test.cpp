// SPDX-License-Identifier: Apache-2.0
// Data verification end to end on real files and loop devices: a clean run verifies with no
// errors; each fault of the fault-injecting engine (dropped write, misdirected write, bit flip,
// fake capacity) is classified with its offset; data lost under a loop device (a hole punched in
// its backing file, a range overwritten with an earlier copy of itself) is found as foreign and
// stale blocks, between a write pass and a separate verification.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/fault_engine.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/workload.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::LoopDevice;
using storqual::testing::ScratchDir;

constexpr std::uint64_t kBs = 4096;

std::string fast_engine() {
  return engines::available("io_uring").ok ? "io_uring" : "psync";
}

WorkloadSpec verified(const std::string& target, const std::string& rw, unsigned iodepth,
                      VerifyAlgorithm algorithm = VerifyAlgorithm::Xxh3) {
  WorkloadSpec w;
  w.id = "verify-" + rw;
  w.params.target = target;
  w.params.rw = rw;
  w.params.bs = kBs;
  w.params.iodepth = iodepth;
  w.params.ioengine = fast_engine();
  w.params.direct = true;
  w.verify = algorithm;
  return w;
}

RunOptions with_faults(const engines::FaultPlan& plan) {
  RunOptions o;
  o.wrap_engine =
      [plan](std::unique_ptr<engines::Engine> inner) -> std::unique_ptr<engines::Engine> {
    return std::make_unique<engines::FaultEngine>(std::move(inner), plan);
  };
  return o;
}

std::uint64_t bad(const reporting::IntegrityReport& r) {
  return r.corrupted + r.misplaced + r.stale + r.foreign;
}

std::vector<std::uint64_t> offsets_of(const reporting::IntegrityReport& r,
                                      const std::string& kind) {
  std::vector<std::uint64_t> out;
  for (const auto& f : r.findings)
    if (f.kind == kind) out.push_back(f.offset);
  return out;
}

class VerifiedFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (scratch_ / "target").string();
    storqual::testing::write_random_file(path_, kSize, 3);
  }
  static constexpr std::uint64_t kSize = 1 << 20;  // 256 blocks
  ScratchDir scratch_{"storqual-integrity"};
  std::string path_;
};

class CleanRun : public VerifiedFile, public ::testing::WithParamInterface<VerifyAlgorithm> {};

TEST_P(CleanRun, RandomWritesWithBacklogVerifyClean) {
  WorkloadSpec w = verified(path_, "randwrite", 16, GetParam());
  w.params.numjobs = 2;
  w.params.runtime_s = 0.4;
  w.verify_backlog = 32;
  auto r = run_workload(w);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(r.integrity);
  const auto& i = *r.integrity;
  EXPECT_EQ(i.algorithm, to_string(GetParam()));
  EXPECT_EQ(bad(i), 0u) << integrity_summary(i);
  EXPECT_EQ(i.bad_inline, 0u);
  EXPECT_EQ(i.read_errors, 0u);
  EXPECT_EQ(i.blocks_written, kSize / kBs);  // 0.4 s of random writes touch every block
  EXPECT_EQ(i.verified_at_end, i.blocks_written);
  EXPECT_GT(i.verified_inline, 0u);
  EXPECT_EQ(i.tracking_bytes, kSize / kBs * 4);
  EXPECT_EQ(integrity_verdict(r).status, reporting::VerdictStatus::Pass);
}

INSTANTIATE_TEST_SUITE_P(Integrity, CleanRun,
                         ::testing::Values(VerifyAlgorithm::Xxh3, VerifyAlgorithm::Crc32c),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST_F(VerifiedFile, DroppedWritesAreStaleAtTheirOffsets) {
  WorkloadSpec w = verified(path_, "write", 8);
  w.do_verify = false;
  VerifyLedger ledger(0, kSize, kBs, w.verify);
  RunOptions first;
  first.verify_ledger = &ledger;
  auto pass1 = run_workload(w, first);
  ASSERT_TRUE(pass1.errors.empty());
  engines::FaultPlan plan;
  plan.drop_write = engines::FaultTrigger{.reads = false, .after = 10, .count = 3};
  RunOptions second = with_faults(plan);
  second.verify_ledger = &ledger;
  auto pass2 = run_workload(w, second);
  ASSERT_TRUE(pass2.errors.empty());
  auto i = verify_written_blocks(w, ledger, second);
  EXPECT_EQ(i.verified_at_end, kSize / kBs);
  EXPECT_EQ(i.stale, 3u) << integrity_summary(i);
  EXPECT_EQ(bad(i), 3u) << integrity_summary(i);
  EXPECT_EQ(offsets_of(i, "stale"), (std::vector<std::uint64_t>{10 * kBs, 11 * kBs, 12 * kBs}));
  // The first pass's sequence is found where the second pass's was expected.
  EXPECT_LT(i.findings.front().found_sequence, i.findings.front().expected_sequence);
  EXPECT_EQ(integrity_summary(i).rfind("integrity: 3 stale blocks (first at offset 40960", 0), 0u)
      << integrity_summary(i);
}

TEST_F(VerifiedFile, MisdirectedWriteIsMisplacedAndLeavesItsBlockForeign) {
  WorkloadSpec w = verified(path_, "write", 1);
  engines::FaultPlan plan;
  plan.misdirect = engines::FaultPlan::Misdirect{
      .when = engines::FaultTrigger{.reads = false, .after = 20, .count = 1},
      .shift = -static_cast<std::int64_t>(kBs)};
  auto r = run_workload(w, with_faults(plan));
  ASSERT_TRUE(r.integrity);
  const auto& i = *r.integrity;
  // Block 20's write landed on block 19: 19 holds 20's block, 20 holds the file's old bytes.
  EXPECT_EQ(i.misplaced, 1u) << integrity_summary(i);
  EXPECT_EQ(i.foreign, 1u) << integrity_summary(i);
  EXPECT_EQ(bad(i), 2u);
  ASSERT_EQ(i.findings.size(), 2u);
  EXPECT_EQ(i.findings[0].kind, "misplaced");
  EXPECT_EQ(i.findings[0].offset, 19 * kBs);
  EXPECT_EQ(i.findings[0].found_offset, 20 * kBs);
  EXPECT_EQ(i.findings[1].kind, "foreign");
  EXPECT_EQ(i.findings[1].offset, 20 * kBs);
  auto v = integrity_verdict(r);
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v.message.find("1 misplaced block (offset 77824, holds the block of offset 81920)"),
            std::string::npos)
      << v.message;
}

TEST_F(VerifiedFile, FlippedBitIsCorrupted) {
  WorkloadSpec w = verified(path_, "randwrite", 4, VerifyAlgorithm::Crc32c);
  engines::FaultPlan plan;
  plan.seed = 5;
  plan.bit_flip = engines::FaultTrigger{.reads = false, .after = 30, .count = 1};
  // Size based: a permutation, every block written once; the 31st write is flipped.
  auto r = run_workload(w, with_faults(plan));
  ASSERT_TRUE(r.integrity);
  const auto& i = *r.integrity;
  EXPECT_EQ(i.corrupted, 1u) << integrity_summary(i);
  EXPECT_EQ(bad(i), 1u) << integrity_summary(i);
  ASSERT_EQ(i.findings.size(), 1u);
  EXPECT_EQ(i.findings[0].kind, "corrupted");
  EXPECT_EQ(i.findings[0].offset % kBs, 0u);
}

TEST_F(VerifiedFile, FakeCapacityWrapShowsAliasedBlocks) {
  WorkloadSpec w = verified(path_, "write", 1);
  engines::FaultPlan plan;
  plan.fake_capacity = engines::FaultPlan::FakeCapacity{.wrap_at = kSize / 8, .claimed_size = 0};
  auto r = run_workload(w, with_faults(plan));
  ASSERT_TRUE(r.integrity);
  const auto& i = *r.integrity;
  // Written in order, the real eighth ends up holding the last eighth's blocks: reads of the
  // first seven eighths (wrapped as well) show them.
  EXPECT_EQ(i.misplaced, kSize / kBs * 7 / 8) << integrity_summary(i);
  EXPECT_EQ(bad(i), i.misplaced);
  EXPECT_EQ(i.findings.front().offset, 0u);
  EXPECT_EQ(i.findings.front().found_offset, kSize / 8 * 7);
}

// Loop devices: data lost underneath the device between the write pass and the verification.
class VerifiedLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    STORQUAL_REQUIRE_ROOT();
    backing_ = scratch_ / "backing";
    storqual::testing::write_random_file(backing_, kSize, 11);
    loop_ = std::make_unique<LoopDevice>(backing_);
  }
  static constexpr std::uint64_t kSize = 16 << 20;
  ScratchDir scratch_{"storqual-integrity-loop"};
  std::filesystem::path backing_;
  std::unique_ptr<LoopDevice> loop_;
};

TEST_F(VerifiedLoop, CleanRunWithTwoJobsVerifies) {
  WorkloadSpec w = verified(loop_->path(), "randwrite", 32, VerifyAlgorithm::Crc32c);
  w.params.numjobs = 2;
  w.verify_backlog = 256;
  w.verify_backlog_batch = 64;
  auto r = run_workload(w);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(r.integrity);
  EXPECT_EQ(bad(*r.integrity), 0u) << integrity_summary(*r.integrity);
  EXPECT_EQ(r.integrity->blocks_written, kSize / kBs);
  EXPECT_EQ(r.integrity->verified_at_end, kSize / kBs);
  EXPECT_GT(r.integrity->verified_inline, 0u);
  EXPECT_EQ(r.write->ios, kSize / kBs);  // the jobs split the blocks: each written once
}

TEST_F(VerifiedLoop, PunchedHoleIsForeignWithItsOffsets) {
  WorkloadSpec w = verified(loop_->path(), "write", 16);
  w.do_verify = false;
  VerifyLedger ledger(0, kSize, kBs, w.verify);
  RunOptions o;
  o.verify_ledger = &ledger;
  auto written = run_workload(w, o);
  ASSERT_TRUE(written.errors.empty());
  auto punch = storqual::testing::run_command(
      {"fallocate", "--punch-hole", "--offset", "4194304", "--length", "65536", backing_.string()});
  ASSERT_EQ(punch.exit_code, 0) << punch.err;
  auto i = verify_written_blocks(w, ledger, o);
  EXPECT_EQ(i.verified_at_end, kSize / kBs);
  EXPECT_EQ(i.foreign, 16u) << integrity_summary(i);
  EXPECT_EQ(bad(i), 16u) << integrity_summary(i);
  auto foreign = offsets_of(i, "foreign");
  ASSERT_EQ(foreign.size(), 16u);
  for (std::uint64_t k = 0; k < 16; ++k) EXPECT_EQ(foreign[k], 4194304 + k * kBs);
}

TEST_F(VerifiedLoop, EarlierCopyOfARangeIsStaleWithItsOffsets) {
  WorkloadSpec w = verified(loop_->path(), "randwrite", 16);
  w.do_verify = false;
  VerifyLedger ledger(0, kSize, kBs, w.verify);
  RunOptions o;
  o.verify_ledger = &ledger;
  ASSERT_TRUE(run_workload(w, o).errors.empty());
  // Keep a copy of 64 KiB at 2 MiB, write everything again, put the old copy back underneath.
  constexpr std::uint64_t kAt = 2 << 20, kLen = 64 << 10;
  std::vector<char> copy(kLen);
  int fd = ::open(backing_.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pread(fd, copy.data(), kLen, kAt), static_cast<ssize_t>(kLen));
  ASSERT_TRUE(run_workload(w, o).errors.empty());
  ASSERT_EQ(::pwrite(fd, copy.data(), kLen, kAt), static_cast<ssize_t>(kLen));
  ASSERT_EQ(::fsync(fd), 0);
  ::close(fd);
  auto i = verify_written_blocks(w, ledger, o);
  EXPECT_EQ(i.stale, kLen / kBs) << integrity_summary(i);
  EXPECT_EQ(bad(i), kLen / kBs) << integrity_summary(i);
  auto stale = offsets_of(i, "stale");
  ASSERT_EQ(stale.size(), kLen / kBs);
  for (std::uint64_t k = 0; k < kLen / kBs; ++k) EXPECT_EQ(stale[k], kAt + k * kBs);
}

}  // namespace
}  // namespace storqual::runner
