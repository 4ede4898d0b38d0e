// SPDX-License-Identifier: Apache-2.0
// The surface scan (runner/methods/surface_scan/surface_scan.hpp): the latency classes at their
// bounds, the LBA chart's bins, slow regions, the checkpoint's round trip and its refusals, and a
// scan of a file stopped twice and resumed that ends with the counts of one that was not.
#include "runner/methods/surface_scan/surface_scan.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>

#include "engines/engine.hpp"
#include "engines/fault_engine.hpp"
#include "model/errors.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/result_json.hpp"
#include "runner/judge/figure_verdicts.hpp"
#include "runner/methods/surface_scan/scan_checkpoint.hpp"
#include "tests/support/forwarding_engine.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::ScratchDir;

constexpr std::uint64_t kMs = 1000000;

TEST(ScanLatencyClass, EachBoundOpensTheNextClass) {
  EXPECT_EQ(scan_latency_class(0), 0u);
  EXPECT_EQ(scan_latency_class(5 * kMs - 1), 0u);
  EXPECT_EQ(scan_latency_class(5 * kMs), 1u);
  EXPECT_EQ(scan_latency_class(20 * kMs - 1), 1u);
  EXPECT_EQ(scan_latency_class(20 * kMs), 2u);
  EXPECT_EQ(scan_latency_class(50 * kMs), 3u);
  EXPECT_EQ(scan_latency_class(149 * kMs), 3u);
  EXPECT_EQ(scan_latency_class(150 * kMs), 4u);
  EXPECT_EQ(scan_latency_class(499 * kMs), 4u);
  EXPECT_EQ(scan_latency_class(500 * kMs), 5u);
  EXPECT_EQ(scan_latency_class(60000 * kMs), 5u);
  EXPECT_EQ(kScanErrorClass, 6u);
  EXPECT_EQ(scan_class_label(0), "< 5 ms");
  EXPECT_EQ(scan_class_label(4), "< 500 ms");
  EXPECT_EQ(scan_class_label(5), ">= 500 ms");
  EXPECT_EQ(scan_class_label(6), "errors");
}

TEST(ScanBins, TileTheRegionInWholeBlocks) {
  const std::uint64_t bs = 4096, offset = 1 << 20;
  auto even = scan_bins(offset, 1000 * bs, bs, 200);
  ASSERT_EQ(even.size(), 200u);
  for (std::size_t i = 0; i < even.size(); ++i) {
    EXPECT_EQ(even[i].offset, offset + i * 5 * bs);
    EXPECT_EQ(even[i].bytes, 5 * bs);
  }
  // 1001 blocks in at most 200 bins: 6 blocks each, the last 5.
  auto odd = scan_bins(offset, 1001 * bs, bs, 200);
  ASSERT_EQ(odd.size(), 167u);
  EXPECT_EQ(odd.back().bytes, 5 * bs);
  std::uint64_t sum = 0;
  for (const auto& b : odd) sum += b.bytes;
  EXPECT_EQ(sum, 1001 * bs);
  EXPECT_EQ(scan_bin_of(odd, offset), 0u);
  EXPECT_EQ(scan_bin_of(odd, offset + 6 * bs - 1), 0u);
  EXPECT_EQ(scan_bin_of(odd, offset + 6 * bs), 1u);
  EXPECT_EQ(scan_bin_of(odd, offset + 1000 * bs), 166u);
  // Fewer blocks than points: one block a bin.
  EXPECT_EQ(scan_bins(0, 10 * bs, bs, 200).size(), 10u);
}

TEST(ScanBins, SlowRegionsAreRunsBelowHalfTheMedianNamedByLba) {
  std::vector<ScanBin> bins = scan_bins(0, 10 * 4096, 4096, 10);
  for (auto& b : bins) {
    b.read_bytes = b.bytes;
    b.read_ns = 1000;  // 4096 B per us
  }
  bins[3].read_ns = 4000;  // a quarter of the rate
  bins[4].read_ns = 2500;
  bins[8].read_ns = 2100;  // just under half the rate
  const auto slow = find_slow_regions(bins, 512);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_EQ(slow[0].first_lba, 3u * 8);
  EXPECT_EQ(slow[0].last_lba, 5u * 8 - 1);
  EXPECT_NEAR(slow[0].share_of_median, 2.0 / 6.5, 1e-9);
  EXPECT_EQ(slow[1].first_lba, 8u * 8);
  EXPECT_EQ(slow[1].last_lba, 9u * 8 - 1);
  bins[8].read_ns = 1999;  // just above half: not slow
  EXPECT_EQ(find_slow_regions(bins, 512).size(), 1u);
}

ScanCheckpoint sample_checkpoint() {
  ScanCheckpoint c;
  c.device = "node=/dev/loop7 bytes=67108864";
  c.suite = "burn-in sha256=ab";
  c.workload = "surface-scan";
  c.phase = ScanPhase::Read;
  SurfaceScanReport& p = c.progress;
  p.region_size = 64 * 4096;
  p.block_size = 4096;
  p.run_id = 77;
  p.algorithm = "xxh3";
  p.bins = scan_bins(0, p.region_size, p.block_size, 8);
  p.bytes_written = 63 * 4096;
  p.write_errors = 1;
  p.bytes_read = 9 * 4096;
  p.read_errors = 1;
  p.read_classes = {7, 2, 0, 0, 0, 0, 1};
  p.write_seconds = 1.5;
  p.read_seconds = 0.25;
  p.bins[0].write_bytes = 8 * 4096;
  p.bins[0].write_ns = 123456;
  p.slowest = {{8, 7 * kMs, 0}, {9, 1000, EIO}};
  c.next_offset = 10 * 4096;
  c.integrity.corrupted = 1;
  c.integrity.read_errors = 1;
  c.integrity.verified_at_end = 9;
  c.integrity.findings = {{"corrupted", 4096, 0, 1, 0}};
  return c;
}

TEST(ScanCheckpointFile, RoundTripsEveryField) {
  const ScanCheckpoint c = sample_checkpoint();
  const std::string text = checkpoint_text(c);
  const ScanCheckpoint back = parse_scan_checkpoint(text, "cp.json");
  EXPECT_EQ(checkpoint_text(back), text);
  EXPECT_EQ(back.device, c.device);
  EXPECT_EQ(back.phase, ScanPhase::Read);
  EXPECT_EQ(back.next_offset, c.next_offset);
  EXPECT_EQ(back.progress.read_classes, c.progress.read_classes);
  EXPECT_EQ(back.progress.bins[0].write_ns, 123456u);
  EXPECT_EQ(back.progress.slowest.size(), 2u);
  EXPECT_EQ(back.integrity.corrupted, 1u);
  EXPECT_EQ(back.integrity.verified_at_end, 9u);
  ASSERT_EQ(back.integrity.findings.size(), 1u);
  EXPECT_EQ(back.integrity.findings[0].offset, 4096u);
}

void expect_refused(const std::string& text, const std::string& why) {
  try {
    (void)parse_scan_checkpoint(text, "/x/cp.json");
    ADD_FAILURE() << "accepted: " << why;
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("checkpoint /x/cp.json: "), std::string::npos) << what;
    EXPECT_NE(what.find(why), std::string::npos) << what;
  }
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ScanCheckpointFile, RefusesBadFilesNamingThem) {
  const std::string good = checkpoint_text(sample_checkpoint());
  expect_refused(good.substr(0, good.size() / 2), "not JSON");
  expect_refused("", "not JSON");
  expect_refused("[]", "expected an object");
  expect_refused(replaced(good, "\"kind\": \"surface-scan\"", "\"kind\": \"capacity\""),
                 "not a surface scan's");
  expect_refused(replaced(good, "\"storqual_checkpoint\": 1", "\"storqual_checkpoint\": 2"),
                 "format 2");
  expect_refused(replaced(good, "\"phase\": \"read\"", "\"phase\": \"verify\""), "phase");
  expect_refused(replaced(good, "\"next_offset\": 40960", "\"next_offset\": 45056"),
                 "do not match next_offset");
  expect_refused(replaced(good, "\"next_offset\": 40960", "\"next_offset\": 40961"),
                 "not a block boundary");
  expect_refused(replaced(good, "\"run_id\": 77", "\"run_id\": \"x\""), "progress.run_id");
  expect_refused(replaced(good, "\"device\": ", "\"devices\": "), "device: missing");
  expect_refused(replaced(good, "\"algorithm\": \"xxh3\"", "\"algorithm\": \"md5\""),
                 "progress.algorithm");
  expect_refused(replaced(good, "\"offset\": 32768", "\"offset\": 32769"), "bins[1]");
  expect_refused(std::string(100, '[') + std::string(100, ']'), "deeper");
}

TEST(ScanCheckpointFile, RefusesAnotherDeviceSuiteOrLayout) {
  const ScanCheckpoint c = sample_checkpoint();
  ScanCheckpoint other = c;
  EXPECT_NO_THROW(check_checkpoint_matches(c, other, "cp.json"));
  auto refused = [&](const ScanCheckpoint& expected, const std::string& why) {
    try {
      check_checkpoint_matches(c, expected, "cp.json");
      ADD_FAILURE() << why;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  other.device = "serial=S1";
  refused(other, "checkpoint cp.json: it is of another device");
  other = c;
  other.suite = "hdd sha256=cd";
  refused(other, "another suite");
  other = c;
  other.progress.block_size = 8192;
  refused(other, "another block size");
  other = c;
  other.progress.region_size *= 2;
  refused(other, "another region");
}

// An engine that forwards to the real one and raises `stop` after `after` queued I/Os: a SIGINT
// arriving mid-pass, at a point the test chooses.
class StopAfter final : public storqual::testing::ForwardingEngine {
 public:
  StopAfter(std::unique_ptr<engines::Engine> inner, std::atomic<bool>& stop, std::uint64_t after)
      : ForwardingEngine(std::move(inner)), stop_(stop), left_(after) {}
  engines::QueueStatus queue(engines::IoRequest& r) noexcept override {
    if (left_ && --left_ == 0) stop_ = true;
    return inner().queue(r);
  }

 private:
  std::atomic<bool>& stop_;
  std::uint64_t left_;
};

class ScanOnFile : public ::testing::Test {
 protected:
  static constexpr std::uint64_t kSize = 8ull << 20;
  void SetUp() override {
    path_ = (scratch_ / "disk").string();
    int fd = ::open(path_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kSize)), 0);
    ::close(fd);
    scan_.target = path_;
    scan_.ioengine = engines::available("io_uring").ok ? "io_uring" : "psync";
    scan_.direct = false;
    scan_.bs = 64 * 1024;
    scan_.iodepth = 4;
    scan_.points = 50;
    checkpoint_.path = (scratch_ / "cp.json").string();
    checkpoint_.device = "node=test";
    checkpoint_.suite = "burn-in";
  }
  RunOptions stopping_after(std::uint64_t ios) {
    RunOptions o;
    o.stop = &stop_;
    o.wrap_engine = [this, ios](std::unique_ptr<engines::Engine> inner) {
      return std::unique_ptr<engines::Engine>(new StopAfter(std::move(inner), stop_, ios));
    };
    return o;
  }
  ScratchDir scratch_{"storqual-scan"};
  std::string path_;
  SurfaceScan scan_;
  MethodCheckpoint checkpoint_;
  std::atomic<bool> stop_{false};
};

TEST_F(ScanOnFile, StoppedTwiceAndResumedEqualsOneUninterruptedScan) {
  const std::uint64_t blocks = kSize / scan_.bs;
  MethodCheckpoint none;
  const auto whole = run_surface_scan(scan_, {}, none);
  ASSERT_TRUE(whole.errors.empty()) << whole.errors.front();
  const SurfaceScanReport& w = *surface_scan_report_of(whole);
  ASSERT_TRUE(whole.integrity);
  EXPECT_EQ(whole.integrity->verified_at_end, blocks);
  EXPECT_EQ(w.bytes_written, kSize);
  EXPECT_EQ(w.bytes_read, kSize);
  EXPECT_EQ(std::accumulate(w.read_classes.begin(), w.read_classes.end(), std::uint64_t{0}),
            blocks);
  EXPECT_EQ(w.sessions, 1u);

  // First stop in the write pass, the second in the read pass.
  auto first = run_surface_scan(scan_, stopping_after(blocks / 3), checkpoint_);
  EXPECT_TRUE(first.interrupted);
  EXPECT_FALSE(first.integrity);
  ASSERT_TRUE(std::filesystem::exists(checkpoint_.path));
  EXPECT_EQ(read_scan_checkpoint(checkpoint_.path).phase, ScanPhase::Write);
  // Without --resume an unfinished scan is not started over.
  EXPECT_THROW((void)run_surface_scan(scan_, {}, checkpoint_), UsageError);
  stop_ = false;
  checkpoint_.resume = true;
  auto second = run_surface_scan(scan_, stopping_after(blocks), checkpoint_);
  EXPECT_TRUE(second.interrupted);
  const ScanCheckpoint mid = read_scan_checkpoint(checkpoint_.path);
  EXPECT_EQ(mid.phase, ScanPhase::Read);
  EXPECT_GT(mid.next_offset, 0u);
  EXPECT_LT(mid.next_offset, kSize);
  stop_ = false;
  auto last = run_surface_scan(scan_, {}, checkpoint_);
  ASSERT_TRUE(last.errors.empty()) << last.errors.front();
  EXPECT_FALSE(std::filesystem::exists(checkpoint_.path));
  const SurfaceScanReport& r = *surface_scan_report_of(last);
  EXPECT_EQ(r.sessions, 3u);
  EXPECT_EQ(r.bytes_written, w.bytes_written);
  EXPECT_EQ(r.bytes_read, w.bytes_read);
  EXPECT_EQ(last.write->ios, whole.write->ios);
  EXPECT_EQ(last.read->ios, whole.read->ios);
  EXPECT_EQ(std::accumulate(r.read_classes.begin(), r.read_classes.end(), std::uint64_t{0}),
            blocks);
  ASSERT_TRUE(last.integrity);
  EXPECT_EQ(last.integrity->verified_at_end, whole.integrity->verified_at_end);
  EXPECT_EQ(integrity_summary(*last.integrity), integrity_summary(*whole.integrity));
  for (std::size_t i = 0; i < r.bins.size(); ++i) {
    EXPECT_EQ(r.bins[i].write_bytes, r.bins[i].bytes) << i;
    EXPECT_EQ(r.bins[i].read_bytes, r.bins[i].bytes) << i;
  }
  // --resume with nothing to resume names the file.
  try {
    (void)run_surface_scan(scan_, {}, checkpoint_);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(checkpoint_.path), std::string::npos);
  }
}

TEST_F(ScanOnFile, ItsReportReadsBackFromJsonWithItsFigures) {
  reporting::RunResult run;
  run.workloads.push_back(run_surface_scan(scan_, {}, {}));
  ASSERT_EQ(run.workloads[0].figures.size(), 3u);
  const std::string text = reporting::to_json_text(run);
  const reporting::RunResult back = reporting::run_result_from_json(text);
  ASSERT_EQ(back.workloads.size(), 1u);
  const auto& w = back.workloads[0];
  EXPECT_EQ(w.kind(), "surface-scan");
  ASSERT_TRUE(surface_scan_report_of(w));
  EXPECT_EQ(surface_scan_report_of(w)->bins.size(),
            surface_scan_report_of(run.workloads[0])->bins.size());
  ASSERT_EQ(w.figures.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(w.figures[i].name, run.workloads[0].figures[i].name);
    EXPECT_DOUBLE_EQ(w.figures[i].value, run.workloads[0].figures[i].value);
  }
  EXPECT_EQ(reporting::to_json_text(back), text);
}

TEST_F(ScanOnFile, LostWritesAndFailedReadsAreCountedInTheirClasses) {
  engines::FaultPlan plan;
  plan.drop_write = engines::FaultTrigger{.reads = false, .writes = true, .after = 10, .count = 3};
  plan.fail = engines::FaultPlan::Fail{
      .when = {.reads = true, .writes = false, .after = 100, .count = 2}, .error = EIO};
  RunOptions o;
  o.wrap_engine = [plan](std::unique_ptr<engines::Engine> inner) {
    return std::unique_ptr<engines::Engine>(new engines::FaultEngine(std::move(inner), plan));
  };
  const auto r = run_surface_scan(scan_, o, {});
  ASSERT_TRUE(r.integrity);
  EXPECT_EQ(r.integrity->foreign, 3u);  // never written: zeros, no header
  EXPECT_EQ(r.integrity->read_errors, 2u);
  const SurfaceScanReport& s = *surface_scan_report_of(r);
  EXPECT_EQ(s.read_classes[kScanErrorClass], 2u);
  EXPECT_EQ(s.read_errors, 2u);
  EXPECT_EQ(s.slowest.size(), 2u);
  EXPECT_EQ(integrity_verdict(r).status, reporting::VerdictStatus::Fail);
}

// A lot of four units of one model: the one whose scan is much slower than the lot's median is
// flagged as a lot outlier, from the scan's measured-only figure verdicts alone.
TEST(ScanInAFleet, AUnitMuchSlowerThanItsLotIsAnOutlier) {
  std::vector<reporting::RunResult> runs;
  const double read_bw[] = {200e6, 205e6, 198e6, 120e6};
  for (int i = 0; i < 4; ++i) {
    reporting::RunResult run;
    run.device.identity = {{"model", "HDD 8TB", "sysfs"},
                           {"serial", "S" + std::to_string(i), "sysfs"}};
    reporting::WorkloadResult w;
    w.id = "surface-scan";
    reporting::add_figure(w.figures, "scan.read_bw", read_bw[i]);
    reporting::add_figure(w.figures, "scan.write_bw", 190e6);
    append_figure_verdicts(w, run.verdicts);
    run.workloads.push_back(std::move(w));
    runs.push_back(std::move(run));
  }
  const reporting::FleetReport fleet = reporting::build_fleet(std::move(runs), 10);
  EXPECT_EQ(fleet.flagged_count(), 1u);
  bool found = false;
  for (const auto& c : fleet.lot)
    for (const auto& u : c.units)
      if (u.flagged) {
        EXPECT_EQ(c.metric, "scan.read_bw");
        EXPECT_EQ(u.run, 3u);
        found = true;
      }
  EXPECT_TRUE(found);
  bool failed = false;
  for (const auto& v : fleet.runs[3].verdicts)
    if (v.kind == reporting::VerdictKind::Lot && v.metric == "scan.read_bw")
      failed = v.status == reporting::VerdictStatus::Fail;
  EXPECT_TRUE(failed);
}

}  // namespace
}  // namespace storqual::runner
