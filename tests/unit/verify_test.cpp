// SPDX-License-Identifier: Apache-2.0
// Verified blocks: header round trip under both checksums, every classification rule, the
// ledger's bounds and sequences, tallies, messages, verdicts and the workload options.
#include "runner/measure/verify.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "reporting/result_json.hpp"
#include "reporting/verdict_status.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/capacity/capacity_check.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint32_t kBs = 4096;
constexpr std::uint64_t kRun = 0x1234567890abcdefull;

struct Block {
  Block() : data(static_cast<unsigned char*>(std::aligned_alloc(4096, kBs)), &std::free) {}
  std::unique_ptr<unsigned char, decltype(&std::free)> data;
  unsigned char* get() { return data.get(); }
};

class Algorithms : public ::testing::TestWithParam<VerifyAlgorithm> {
 protected:
  PayloadPool pool_{kRun};
};

TEST_P(Algorithms, AWrittenBlockChecksGood) {
  Block b;
  fill_verified_block(b.get(), kBs, 8192, kRun, 7, 0, GetParam(), pool_);
  BlockHeader h;
  std::memcpy(&h, b.get(), sizeof h);
  EXPECT_EQ(h.magic, kBlockMagic);
  EXPECT_EQ(h.offset, 8192u);
  EXPECT_EQ(h.run_id, kRun);
  EXPECT_EQ(h.sequence, 7u);
  EXPECT_EQ(h.block_size, kBs);
  EXPECT_EQ(h.algorithm, static_cast<std::uint8_t>(GetParam()));
  EXPECT_EQ(h.checksum, block_checksum(b.get(), kBs, GetParam()));
  BlockCheck c = check_block(b.get(), kBs, 8192, kRun, 7, GetParam());
  EXPECT_EQ(c.state, BlockState::Good);
  EXPECT_EQ(check_block(b.get(), kBs, 8192, kRun, kAnySequence, GetParam()).state,
            BlockState::Good);
}

TEST_P(Algorithms, EachBitOfThePayloadAndHeaderIsCovered) {
  Block b;
  fill_verified_block(b.get(), kBs, 0, kRun, 1, 0, GetParam(), pool_);
  // Every byte past the magic and run id: a flipped bit there is "corrupted".
  for (std::uint32_t byte : {8u, 24u, 32u, 40u, 47u, 48u, 1000u, kBs - 1}) {
    b.get()[byte] ^= 0x10;
    EXPECT_EQ(check_block(b.get(), kBs, 0, kRun, 1, GetParam()).state, BlockState::Corrupted)
        << "byte " << byte;
    b.get()[byte] ^= 0x10;
  }
  EXPECT_EQ(check_block(b.get(), kBs, 0, kRun, 1, GetParam()).state, BlockState::Good);
}

INSTANTIATE_TEST_SUITE_P(Verify, Algorithms,
                         ::testing::Values(VerifyAlgorithm::Xxh3, VerifyAlgorithm::Crc32c),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST(Classification, MisplacedStaleForeign) {
  PayloadPool pool(kRun);
  Block b;
  const auto a = VerifyAlgorithm::Xxh3;
  fill_verified_block(b.get(), kBs, 4096, kRun, 5, 0, a, pool);
  BlockCheck misplaced = check_block(b.get(), kBs, 8192, kRun, 9, a);
  EXPECT_EQ(misplaced.state, BlockState::Misplaced);
  EXPECT_EQ(misplaced.found_offset, 4096u);
  BlockCheck stale = check_block(b.get(), kBs, 4096, kRun, 9, a);
  EXPECT_EQ(stale.state, BlockState::Stale);
  EXPECT_EQ(stale.found_sequence, 5u);
  // Another run's valid block, or no header at all: foreign where we wrote, fine where we did not.
  EXPECT_EQ(check_block(b.get(), kBs, 4096, kRun + 1, 5, a).state, BlockState::Foreign);
  EXPECT_EQ(check_block(b.get(), kBs, 4096, kRun + 1, kNotWritten, a).state, BlockState::Good);
  std::memset(b.get(), 0, kBs);
  EXPECT_EQ(check_block(b.get(), kBs, 4096, kRun, 5, a).state, BlockState::Foreign);
  EXPECT_EQ(check_block(b.get(), kBs, 4096, kRun, kNotWritten, a).state, BlockState::Good);
  // A valid block of this run where nothing was written is misplaced data.
  fill_verified_block(b.get(), kBs, 0, kRun, 1, 0, a, pool);
  EXPECT_EQ(check_block(b.get(), kBs, 65536, kRun, kNotWritten, a).state, BlockState::Misplaced);
  // Sequences compare on their low 32 bits (the ledger's width).
  fill_verified_block(b.get(), kBs, 0, kRun, (1ull << 32) + 3, 0, a, pool);
  EXPECT_EQ(check_block(b.get(), kBs, 0, kRun, 3, a).state, BlockState::Good);
}

TEST(Payload, BlocksDifferAndDoNotRepeatBytes) {
  PayloadPool pool(kRun);
  Block a, b;
  fill_verified_block(a.get(), kBs, 0, kRun, 1, 0, VerifyAlgorithm::Xxh3, pool);
  fill_verified_block(b.get(), kBs, 0, kRun, 2, 0, VerifyAlgorithm::Xxh3, pool);
  EXPECT_NE(
      std::memcmp(a.get() + kBlockHeaderSize, b.get() + kBlockHeaderSize, kBs - kBlockHeaderSize),
      0);
  // Incompressible: nearly every 8-byte word of the payload is distinct and byte values spread.
  std::set<std::uint64_t> words;
  std::vector<int> histogram(256);
  for (std::uint32_t o = kBlockHeaderSize; o + 8 <= kBs; o += 8) {
    std::uint64_t w;
    std::memcpy(&w, a.get() + o, 8);
    words.insert(w);
  }
  for (std::uint32_t o = kBlockHeaderSize; o < kBs; ++o) ++histogram[a.get()[o]];
  EXPECT_EQ(words.size(), (kBs - kBlockHeaderSize) / 8);
  int unused = 0;
  for (int n : histogram) unused += n == 0;
  EXPECT_LT(unused, 16);
  // Seeded: the same (run, offset, sequence) gives the same bytes.
  fill_verified_block(b.get(), kBs, 0, kRun, 1, 0, VerifyAlgorithm::Xxh3, PayloadPool(kRun));
  EXPECT_EQ(std::memcmp(a.get(), b.get(), kBs), 0);
}

TEST(Ledger, BoundsSequencesAndRunIds) {
  VerifyLedger l(1 << 20, 64 << 20, 4096, VerifyAlgorithm::Xxh3);
  EXPECT_EQ(l.blocks(), 16384u);
  EXPECT_EQ(l.tracking_bytes(), 65536u);
  EXPECT_EQ(l.block_of((1 << 20) + 8192), 2u);
  EXPECT_NE(l.run_id(), VerifyLedger(0, 4096, 4096, VerifyAlgorithm::Xxh3).run_id());
  l.prepare_jobs(2);
  EXPECT_EQ(l.next_sequence(0), 1u);
  EXPECT_EQ(l.next_sequence(0), 2u);
  EXPECT_EQ(l.next_sequence(1), 1u);
  EXPECT_EQ(l.written_blocks(), 0u);
  l.record(5, 1);
  l.record(6, kAnySequence);
  EXPECT_EQ(l.written_blocks(), 2u);
  // 64 GiB at 4k is 64 MiB of ledger; 512 GiB at 4k (512 MiB) is refused with the way out.
  EXPECT_NO_THROW(VerifyLedger(0, 64ull << 30, 4096, VerifyAlgorithm::Xxh3));
  try {
    VerifyLedger big(0, 512ull << 30, 4096, VerifyAlgorithm::Xxh3);
    FAIL() << "a 512 MiB ledger was accepted";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("larger bs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(VerifyLedger(0, 1 << 20, 32, VerifyAlgorithm::Xxh3), UnitError);
}

TEST(Tally, CountsFindingsMergeAndSummary) {
  IntegrityTally a, b;
  a.add(BlockState::Stale, 1048576, {BlockState::Stale, 1048576, 3}, 9);
  a.add(BlockState::Stale, 2097152, {BlockState::Stale, 2097152, 4}, 9);
  b.add(BlockState::Stale, 4096, {BlockState::Stale, 4096, 1}, 2);
  b.add(BlockState::Corrupted, 8192, {BlockState::Corrupted, 8192, 1}, 1);
  b.add(BlockState::Good, 0, {}, 1);
  for (std::uint64_t i = 0; i < 100; ++i)
    b.add(BlockState::Foreign, (200 - i) * 4096, {BlockState::Foreign, 0, 0}, 1);
  a.merge(b);
  reporting::IntegrityReport r;
  r.algorithm = "xxh3";
  a.apply_to(r);
  EXPECT_EQ(r.stale, 3u);
  EXPECT_EQ(r.corrupted, 1u);
  EXPECT_EQ(r.foreign, 100u);
  EXPECT_LE(r.findings.size(), IntegrityTally::kMaxFindings);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front().offset, 4096u);
  EXPECT_EQ(r.findings.front().kind, "stale");
  // The lowest foreign offsets are the ones kept.
  std::uint64_t lowest_foreign = UINT64_MAX;
  for (const auto& f : r.findings)
    if (f.kind == "foreign") lowest_foreign = std::min(lowest_foreign, f.offset);
  EXPECT_EQ(lowest_foreign, 101u * 4096);
  EXPECT_EQ(integrity_summary(r),
            "integrity: 3 stale blocks (first at offset 4096, write 1 instead of 2), 1 corrupted "
            "(offset 8192), 100 foreign (first at offset 413696)");
}

TEST(Summary, BlocksCaughtOnlyInlineStillNameTheirClassAndOffset) {
  // Inline read-back found a lost write; the block was rewritten since, so the end pass saw it
  // good: the counts are zero but the message must still say what and where.
  reporting::IntegrityReport r;
  r.algorithm = "xxh3";
  r.verified_inline = 500;
  r.verified_at_end = 64;
  r.bad_inline = 3;
  reporting::IntegrityFinding f;
  f.kind = "stale";
  f.offset = 147456;
  f.found_sequence = 37;
  f.expected_sequence = 101;
  r.findings.push_back(f);
  EXPECT_EQ(integrity_summary(r),
            "integrity: 3 bad inline read-backs (first: stale at offset 147456, write 37 instead "
            "of 101)");
}

TEST(Verdict, FailPassAndError) {
  reporting::WorkloadResult w;
  w.id = "randwrite-verify";
  EXPECT_EQ(integrity_verdict(w).status, reporting::VerdictStatus::Error);
  w.integrity.emplace();
  w.integrity->algorithm = "crc32c";
  w.integrity->verified_at_end = 256;
  auto pass = integrity_verdict(w);
  EXPECT_EQ(pass.status, reporting::VerdictStatus::Pass);
  EXPECT_EQ(pass.metric, "integrity");
  EXPECT_EQ(pass.message, "integrity: 256 blocks verified (crc32c), no errors");
  w.integrity->misplaced = 1;
  w.integrity->findings.push_back({"misplaced", 0, 1073741824, 0, 0});
  auto fail = integrity_verdict(w);
  EXPECT_EQ(fail.status, reporting::VerdictStatus::Fail);
  EXPECT_EQ(fail.message,
            "integrity: 1 misplaced block (offset 0, holds the block of offset 1073741824)");
  EXPECT_EQ(fail.measured, 1.0);
  reporting::WorkloadResult plain;
  auto all = integrity_verdicts({plain, w});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(reporting::workload_text(all[0]), "randwrite-verify");
}

TEST(WorkloadOptions, VerifyIsInTheTableAndValidated) {
  WorkloadSpec w;
  set_workload_option(w, "rw", "randwrite");
  set_workload_option(w, "verify", "crc32c");
  set_workload_option(w, "verify_backlog", "1024");
  set_workload_option(w, "verify_backlog_batch", "128");
  set_workload_option(w, "do_verify", "0");
  EXPECT_EQ(w.verify, VerifyAlgorithm::Crc32c);
  EXPECT_EQ(w.verify_backlog, 1024u);
  EXPECT_EQ(w.verify_backlog_batch, 128u);
  EXPECT_FALSE(w.do_verify);
  EXPECT_NO_THROW(validate(w));
  EXPECT_NE(fio_command(w).find("--verify=crc32c --verify_backlog=1024"), std::string::npos);
  EXPECT_THROW(set_workload_option(w, "verify", "md5"), UnitError);
  set_workload_option(w, "rw", "randread");
  EXPECT_THROW(validate(w), UnitError);
  set_workload_option(w, "rw", "write");
  set_workload_option(w, "ioengine", "null");
  EXPECT_THROW(validate(w), UnitError);
  set_workload_option(w, "verify", "0");
  EXPECT_NO_THROW(validate(w));
}

TEST(ResultJson, IntegrityAndCapacityRoundTrip) {
  reporting::RunResult run;
  reporting::WorkloadResult w;
  w.id = "randwrite-verify";
  w.integrity.emplace();
  w.integrity->algorithm = "xxh3";
  w.integrity->run_id = kRun;
  w.integrity->stale = 3;
  w.integrity->bad_inline = 1;
  w.integrity->findings.push_back({"stale", 1048576, 1048576, 9, 4});
  reporting::WorkloadResult c;
  c.id = "capacity";
  auto report = std::make_shared<CapacityMethodReport>();
  report->capacity.emplace();
  report->capacity->reported_bytes = 64ull << 30;
  report->capacity->usable_bytes = 8ull << 30;
  report->capacity->sample_interval = 16 << 20;
  report->capacity->aliasing_start = 8ull << 30;
  report->capacity->aliased_to = 0;
  c.method = std::move(report);
  run.workloads = {w, c};
  auto back = reporting::run_result_from_json(reporting::to_json_text(run));
  ASSERT_EQ(back.workloads.size(), 2u);
  ASSERT_TRUE(back.workloads[0].integrity);
  EXPECT_EQ(back.workloads[0].integrity->run_id, kRun);
  EXPECT_EQ(back.workloads[0].integrity->stale, 3u);
  EXPECT_EQ(back.workloads[0].integrity->bad_inline, 1u);
  ASSERT_EQ(back.workloads[0].integrity->findings.size(), 1u);
  EXPECT_EQ(back.workloads[0].integrity->findings[0].expected_sequence, 9u);
  ASSERT_TRUE(capacity_report_of(back.workloads[1]));
  EXPECT_EQ(capacity_report_of(back.workloads[1])->usable_bytes, 8ull << 30);
  EXPECT_EQ(capacity_report_of(back.workloads[1])->aliasing_start, 8ull << 30);
  EXPECT_EQ(capacity_report_of(back.workloads[1])->aliased_to, 0u);
  EXPECT_FALSE(capacity_report_of(back.workloads[0]));
}

}  // namespace
}  // namespace storqual::runner
