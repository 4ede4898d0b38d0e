// SPDX-License-Identifier: Apache-2.0
// Reads of written data (runner/qualification/read_fill.hpp): the ledger of what a run wrote, the
// zero sample, the fill on a real file, and the deviations that make a read claim inconclusive.
#include "runner/qualification/read_fill.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/qualification/deviations.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;
using Spans = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

TEST(WrittenRegions, GapsAreWhatNoWriteCovered) {
  WrittenRegions w;
  EXPECT_EQ(w.gaps(0, 100), (Spans{{0, 100}}));
  w.add(10, 20);  // [10, 30)
  w.add(50, 10);  // [50, 60)
  EXPECT_EQ(w.gaps(0, 100), (Spans{{0, 10}, {30, 20}, {60, 40}}));
  w.add(25, 30);  // joins both: [10, 60)
  EXPECT_EQ(w.gaps(0, 100), (Spans{{0, 10}, {60, 40}}));
  EXPECT_TRUE(w.covers(10, 50));
  EXPECT_FALSE(w.covers(10, 51));
  w.remove(20, 10);  // a purge in the middle
  EXPECT_EQ(w.gaps(10, 50), (Spans{{20, 10}}));
  w.add(0, 100);
  EXPECT_TRUE(w.covers(0, 100));
  EXPECT_TRUE(w.gaps(5, 0).empty());
}

TEST(ZeroSample, ASparseFileReadsZerosAndAWrittenOneDoesNot) {
  testing::ScratchDir dir;
  const fs::path sparse = dir / "sparse.img";
  std::ofstream(sparse).close();
  fs::resize_file(sparse, 8 << 20);
  std::uint64_t bytes = 0;
  EXPECT_EQ(zero_sample(sparse.string(), 0, 8 << 20, 64, &bytes), std::optional<bool>(true));
  EXPECT_EQ(bytes, 64u * 4096);
  const fs::path data = dir / "data.img";
  testing::write_random_file(data, 8 << 20);
  bytes = 0;
  EXPECT_EQ(zero_sample(data.string(), 0, 8 << 20, 64, &bytes), std::optional<bool>(false));
  EXPECT_EQ(bytes, 4096u);  // it stops at the first block with data
  EXPECT_EQ(zero_sample((dir / "absent").string(), 0, 4096), std::nullopt);
}

WorkloadSpec read_workload(const fs::path& target, std::uint64_t offset, std::uint64_t size) {
  WorkloadSpec w;
  w.id = "randread-4k";
  w.params.rw = "randread";
  w.params.target = target.string();
  w.params.offset = offset;
  w.params.size = size;
  w.params.ioengine = "psync";
  return w;
}

TEST(FillReadRegion, WritesWhatTheReadWillReadAndOnlyThat) {
  testing::ScratchDir dir;
  const fs::path file = dir / "fresh.img";
  std::ofstream(file).close();
  fs::resize_file(file, 16 << 20);
  WrittenRegions written;
  written.add(4 << 20, 2 << 20);  // an earlier sequential write covered [4, 6) MiB
  unsigned passes = 0;
  const auto fills =
      fill_read_region(read_workload(file, 2 << 20, 8 << 20), written, [&](const WorkloadSpec& s) {
        ++passes;
        EXPECT_EQ(s.params.rw, "write");
        EXPECT_EQ(s.params.runtime_s, 0);
        return run_workload(s);
      });
  ASSERT_EQ(fills.size(), 2u);  // [2, 4) and [6, 10) MiB
  EXPECT_EQ(passes, 2u);
  EXPECT_EQ(fills[0].offset, 2u << 20);
  EXPECT_EQ(fills[0].bytes, 2u << 20);
  EXPECT_EQ(fills[1].offset, 6u << 20);
  EXPECT_EQ(fills[1].bytes, 4u << 20);
  EXPECT_TRUE(fills[0].sample_all_zero);
  EXPECT_EQ(fills[0].block, 1u << 20);
  EXPECT_TRUE(written.covers(2 << 20, 8 << 20));
  // The file holds data where the read reads, and nothing was written outside it.
  EXPECT_EQ(zero_sample(file.string(), 2 << 20, 2 << 20), std::optional<bool>(false));
  EXPECT_EQ(zero_sample(file.string(), 6 << 20, 4 << 20), std::optional<bool>(false));
  EXPECT_EQ(zero_sample(file.string(), 0, 2 << 20), std::optional<bool>(true));
  EXPECT_EQ(zero_sample(file.string(), 10 << 20, 6 << 20), std::optional<bool>(true));
  // A second read of the same region needs no fill.
  EXPECT_TRUE(
      fill_read_region(read_workload(file, 2 << 20, 8 << 20), written, [&](const WorkloadSpec& s) {
        return run_workload(s);
      }).empty());
}

TEST(FillReadRegion, AFailedFillIsAnErrorNamingTheWorkload) {
  WrittenRegions written;
  WorkloadSpec w = read_workload("/nonexistent", 0, 1 << 20);
  try {
    (void)fill_read_region(w, written, [](const WorkloadSpec&) {
      reporting::WorkloadResult r;
      r.errors.push_back("EIO at offset 0");
      return r;
    });
    FAIL() << "no error";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("the fill of 'randread-4k'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("EIO"), std::string::npos);
  }
}

TEST(NoteWritten, ASequentialWriteOfTheWholeRegionCountsARandomOneWithoutTheMapDoesNot) {
  WorkloadSpec w = read_workload("/x", 0, 1 << 20);
  reporting::WorkloadResult r;
  r.write.emplace();
  r.write->bytes = 1 << 20;
  WrittenRegions written;
  w.params.rw = "randwrite";
  w.params.randommap = false;
  note_written(w, r, written);
  EXPECT_FALSE(written.covers(0, 1 << 20));
  w.params.randommap = true;
  note_written(w, r, written);
  EXPECT_TRUE(written.covers(0, 1 << 20));
  WrittenRegions short_write;
  w.params.rw = "write";
  r.write->bytes = (1 << 20) - 4096;  // stopped before the end
  note_written(w, r, short_write);
  EXPECT_FALSE(short_write.covers(0, 1 << 20));
}

TEST(ReadPreparation, WithoutAFillReadClaimsAreInconclusiveUnlessAccepted) {
  testing::ScratchDir dir;
  const fs::path file = dir / "fresh.img";
  std::ofstream(file).close();
  fs::resize_file(file, 4 << 20);
  ReadPreparation nofill(FillPolicy::NoFill);
  const auto never = [](const WorkloadSpec&) -> reporting::WorkloadResult {
    ADD_FAILURE() << "no fill may run";
    return {};
  };
  EXPECT_TRUE(nofill.before(read_workload(file, 0, 4 << 20), never).empty());
  auto devs = nofill.deviations();
  ASSERT_EQ(devs.size(), 1u);
  EXPECT_EQ(devs[0].kind, "unwritten-reads");
  EXPECT_TRUE(devs[0].changes_subject);
  EXPECT_EQ(devs[0].workloads, std::vector<std::string>{"randread-4k"});

  std::vector<reporting::ClaimVerdict> verdicts(3);
  verdicts[0].workloads = {"randread-4k"};
  verdicts[0].metric = "iops";
  verdicts[0].status = reporting::VerdictStatus::Pass;
  verdicts[0].message = "measured 518k IOPS";
  verdicts[1] = verdicts[0];
  verdicts[1].metric = "write.iops";  // not a read: stands
  verdicts[2] = verdicts[0];
  verdicts[2].workloads = {"other"};  // another workload: stands
  auto judged = verdicts;
  apply_subject_deviations(devs, judged);
  EXPECT_EQ(judged[0].status, reporting::VerdictStatus::Inconclusive);
  EXPECT_NE(judged[0].message.find("--accept-deviation unwritten-reads"), std::string::npos);
  EXPECT_NE(judged[0].message.find("would pass: measured 518k IOPS"), std::string::npos);
  EXPECT_EQ(judged[1].status, reporting::VerdictStatus::Pass);
  EXPECT_EQ(judged[2].status, reporting::VerdictStatus::Pass);

  accept_deviations({"unwritten-reads"}, devs, nullptr);
  EXPECT_TRUE(devs[0].accepted);
  judged = verdicts;
  apply_subject_deviations(devs, judged);
  EXPECT_EQ(judged[0].status, reporting::VerdictStatus::Pass);
}

TEST(ReadPreparation, MayNotWriteTellsZerosFromData) {
  testing::ScratchDir dir;
  const fs::path zeros = dir / "zeros.img", data = dir / "data.img";
  std::ofstream(zeros).close();
  fs::resize_file(zeros, 4 << 20);
  testing::write_random_file(data, 4 << 20);
  const auto never = [](const WorkloadSpec&) -> reporting::WorkloadResult { return {}; };
  ReadPreparation on_zeros(FillPolicy::MayNotWrite, 0, "the device is read-only");
  (void)on_zeros.before(read_workload(zeros, 0, 4 << 20), never);
  auto devs = on_zeros.deviations();
  ASSERT_EQ(devs.size(), 1u);
  EXPECT_EQ(devs[0].kind, "unwritten-reads");
  EXPECT_NE(devs[0].text.find("the device is read-only"), std::string::npos) << devs[0].text;
  ReadPreparation on_data(FillPolicy::MayNotWrite, 0, "the run may not write");
  (void)on_data.before(read_workload(data, 0, 4 << 20), never);
  devs = on_data.deviations();
  ASSERT_EQ(devs.size(), 1u);
  EXPECT_EQ(devs[0].kind, "unfilled-reads");
  EXPECT_FALSE(devs[0].changes_subject);
  // A scratch file the run laid out needs nothing.
  ReadPreparation laid_out(FillPolicy::LaidOut, 4 << 20);
  (void)laid_out.before(read_workload(zeros, 0, 4 << 20), never);
  EXPECT_TRUE(laid_out.deviations().empty());
}

TEST(ReadPreparation, APurgeUndoesAndPreconditioningDoesTheFill) {
  testing::ScratchDir dir;
  const fs::path file = dir / "f.img";
  std::ofstream(file).close();
  fs::resize_file(file, 4 << 20);
  ReadPreparation prep(FillPolicy::Fill);
  WorkloadSpec w = read_workload(file, 0, 4 << 20);
  Precondition independent;
  independent.independent = true;
  prep.preconditioned(w, independent);
  unsigned fills = 0;
  const auto count = [&](const WorkloadSpec& s) {
    ++fills;
    return run_workload(s);
  };
  EXPECT_TRUE(prep.before(w, count).empty());
  Precondition purge;
  purge.purge = PurgeMethod::Discard;
  prep.preconditioned(w, purge);
  EXPECT_EQ(prep.before(w, count).size(), 1u);
  EXPECT_EQ(fills, 1u);
}

TEST(DeviationKinds, OnlyThoseThatChangeTheSubjectCanBeAccepted) {
  EXPECT_NO_THROW(check_accepted_kinds(
      {"match", "memory-target", "unwritten-reads", "fio-target", "null-engine"}));
  try {
    check_accepted_kinds({"runtime"});
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--accept-deviation runtime"), std::string::npos);
  }
}

TEST(PlannedWrites, TheFillOfEachReadRegionNotWrittenBeforeIt) {
  std::vector<WorkloadSpec> plan = {read_workload("/x", 0, 8 << 20),
                                    read_workload("/x", 0, 8 << 20)};
  EXPECT_EQ(planned_fill_bytes(plan, {}, {}), 8u << 20);  // the second reads what the first filled
  plan.insert(plan.begin(), read_workload("/x", 0, 8 << 20));
  plan[0].params.rw = "write";  // a sequential write first covers it
  EXPECT_EQ(planned_fill_bytes(plan, {}, {}), 0u);
  EXPECT_EQ(planned_writes_text(plan, 0, 0), "8.00 MiB by sized workloads");
  EXPECT_EQ(planned_writes_text(plan, 1 << 30, 2ull << 30),
            "1.00 GiB in fill passes, 2.00 GiB preconditioning and 8.00 MiB by sized workloads");
}

}  // namespace
}  // namespace storqual::runner
