// SPDX-License-Identifier: Apache-2.0
// The job loop's safety net, in the way of liburing's test/read-write.c: one counter's bits
// enumerate verify x rate x continue_on_error x injected fault (none, EIO, short transfer, EAGAIN)
// through run_workload, the faults injected by the fault engine decorator. Without verify the
// engine under it is the null engine (iodepth 4); verify needs bytes that stay, so those cases
// write a scratch file through psync. Every combination asserts the counts, bytes, errors and
// verify findings it must give; a failure prints the combination.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <filesystem>
#include <fstream>

#include "engines/fault_engine.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using engines::Engine;

enum class Fault { None, Eio, ShortTransfer, Eagain };
constexpr const char* kFaultNames[] = {"none", "eio", "short", "eagain"};

// Bit 0 verify, bit 1 rate, bit 2 continue_on_error, bits 3-4 the fault.
struct Combination {
  bool verify, rate, continue_on_error;
  Fault fault;
  explicit Combination(unsigned bits)
      : verify(bits & 1u),
        rate(bits & 2u),
        continue_on_error(bits & 4u),
        fault(static_cast<Fault>((bits >> 3) & 3u)) {}
  std::string describe() const {
    std::ostringstream s;
    s << "verify=" << verify << " rate=" << rate << " continue_on_error=" << continue_on_error
      << " fault=" << kFaultNames[static_cast<int>(fault)];
    return s.str();
  }
};
constexpr unsigned kCombinations = 32;

constexpr std::uint64_t kBs = 4096;
constexpr std::uint64_t kBlocks = 256;
constexpr std::uint64_t kFaultAfter = 50;  // writes let through before the fault starts
constexpr std::uint64_t kFaultHits = 4;
constexpr std::uint32_t kShortBytes = 512;

engines::FaultPlan fault_plan(Fault f) {
  engines::FaultPlan plan;
  // Writes only: the end-of-run verify pass (reads, through the same decorators) sees no faults.
  engines::FaultTrigger when{
      .reads = false, .writes = true, .after = kFaultAfter, .count = kFaultHits};
  switch (f) {
    case Fault::None:
      break;
    case Fault::Eio:
      plan.fail = engines::FaultPlan::Fail{when, EIO};
      break;
    case Fault::ShortTransfer:
      plan.short_transfer = engines::FaultPlan::ShortTransfer{when, kShortBytes};
      break;
    case Fault::Eagain:
      plan.eagain = engines::FaultPlan::Eagain{when, false};
      break;
  }
  return plan;
}

reporting::WorkloadResult run(const Combination& c) {
  WorkloadSpec w;
  w.id = "matrix";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "randwrite";
  w.params.bs = kBs;
  w.params.iodepth = 4;
  w.params.size = kBs * kBlocks;
  w.continue_on_error = c.continue_on_error;
  if (c.rate) w.rate_iops = 200000;  // 256 I/Os in about 1.3 ms: paced, not slow
  storqual::testing::ScratchDir dir("storqual-job-matrix");
  if (c.verify) {
    w.verify = VerifyAlgorithm::Xxh3;
    w.params.ioengine = "psync";
    w.params.iodepth = 1;
    w.params.direct = false;
    w.params.target = (dir / "target").string();
    std::ofstream(w.params.target).close();
    std::filesystem::resize_file(w.params.target, kBs * kBlocks);  // zeros
  }
  RunOptions o;
  o.wrap_engine = [f = c.fault](std::unique_ptr<Engine> inner) -> std::unique_ptr<Engine> {
    return std::make_unique<engines::FaultEngine>(std::move(inner), fault_plan(f));
  };
  return run_workload(w, o);
}

void check(const Combination& c, const reporting::WorkloadResult& r) {
  ASSERT_TRUE(r.write.has_value());
  EXPECT_FALSE(r.read.has_value());
  EXPECT_FALSE(r.interrupted);
  const reporting::DirectionResult& s = *r.write;
  switch (c.fault) {
    case Fault::None:
    case Fault::Eagain:
      // EAGAIN is not an error: the request goes again and completes whole.
      EXPECT_EQ(s.ios, kBlocks);
      EXPECT_EQ(s.bytes, kBlocks * kBs);
      EXPECT_EQ(s.errors, 0u);
      EXPECT_EQ(s.short_ios, 0u);
      EXPECT_EQ(s.eagain_retries, c.fault == Fault::Eagain ? kFaultHits : 0u);
      EXPECT_TRUE(r.errors.empty()) << r.errors.front();
      break;
    case Fault::ShortTransfer:
      // Without verify the rest of a short transfer goes again, so the I/O ends whole; under
      // verify it is counted as it is (the ledger needs whole blocks).
      EXPECT_EQ(s.ios, kBlocks);
      EXPECT_EQ(s.short_ios, kFaultHits);
      EXPECT_EQ(s.bytes,
                c.verify ? (kBlocks - kFaultHits) * kBs + kFaultHits * kShortBytes : kBlocks * kBs);
      EXPECT_EQ(s.errors, 0u);
      EXPECT_TRUE(r.errors.empty()) << r.errors.front();
      break;
    case Fault::Eio:
      EXPECT_EQ(s.first_errno, EIO);
      EXPECT_EQ(s.first_error_offset % kBs, 0u);
      ASSERT_FALSE(r.errors.empty());
      if (c.continue_on_error) {
        // Every fault is counted and skipped; the rest of the region is written.
        EXPECT_EQ(s.errors, kFaultHits);
        EXPECT_EQ(s.ios, kBlocks - kFaultHits);
        EXPECT_EQ(s.bytes, (kBlocks - kFaultHits) * kBs);
        EXPECT_NE(r.errors.front().find("4 write errors"), std::string::npos) << r.errors.front();
        EXPECT_NE(r.errors.front().find("continue_on_error"), std::string::npos);
      } else {
        // The first error ends the job: what was in flight drains (and may fail too).
        EXPECT_GE(s.errors, 1u);
        EXPECT_LE(s.errors, kFaultHits);
        EXPECT_GE(s.ios, kFaultAfter);
        EXPECT_LT(s.ios, kBlocks - kFaultHits);
        EXPECT_EQ(s.bytes, s.ios * kBs);
        EXPECT_NE(r.errors.front().find("write error at offset"), std::string::npos)
            << r.errors.front();
      }
      break;
  }
  if (!c.verify) {
    EXPECT_FALSE(r.integrity.has_value());
    return;
  }
  ASSERT_TRUE(r.integrity.has_value());
  const reporting::IntegrityReport& v = *r.integrity;
  EXPECT_EQ(v.algorithm, "xxh3");
  EXPECT_EQ(v.read_errors, 0u);
  EXPECT_EQ(v.misplaced, 0u);
  EXPECT_EQ(v.stale, 0u);
  if (c.fault == Fault::None || c.fault == Fault::Eagain) {
    // Every block written once, read back at the end, all good.
    EXPECT_EQ(v.blocks_written, kBlocks);
    EXPECT_EQ(v.verified_at_end, kBlocks);
    EXPECT_EQ(v.corrupted + v.foreign, 0u);
    EXPECT_TRUE(v.findings.empty());
  } else if (c.fault == Fault::ShortTransfer) {
    // A short write left the block's header and old (zero) bytes behind it: found as corrupted.
    EXPECT_EQ(v.blocks_written, kBlocks);
    EXPECT_EQ(v.verified_at_end, kBlocks);
    EXPECT_EQ(v.corrupted + v.foreign, kFaultHits);
    EXPECT_EQ(v.findings.size(), kFaultHits);
  } else {
    // A failed write never reached the device: its block holds no header of this run. The
    // blocks that were written read back good.
    EXPECT_EQ(v.verified_at_end, v.blocks_written);
    EXPECT_GE(v.blocks_written, s.ios);
    EXPECT_EQ(v.corrupted, 0u);
    EXPECT_EQ(v.foreign, v.blocks_written - s.ios);
    EXPECT_EQ(v.findings.size(), v.foreign);
  }
}

TEST(JobMatrix, EveryCombinationCountsWhatItMust) {
  for (unsigned bits = 0; bits < kCombinations; ++bits) {
    const Combination c(bits);
    SCOPED_TRACE(c.describe());
    check(c, run(c));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The matrix itself: a fault that changes nothing would let every case above pass vacuously.
TEST(JobMatrix, InjectedFaultsChangeTheCounts) {
  const auto clean = run(Combination(0));
  const auto failed = run(Combination(4u | (static_cast<unsigned>(Fault::Eio) << 3)));
  ASSERT_TRUE(clean.write && failed.write);
  EXPECT_NE(clean.write->ios, failed.write->ios);
  EXPECT_NE(clean.write->errors, failed.write->errors);
}

}  // namespace
}  // namespace storqual::runner
