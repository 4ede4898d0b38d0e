// SPDX-License-Identifier: Apache-2.0
// Preconditioning: purge by hole punching on a real file and by BLKDISCARD on a loop device
// (root), NVMe format/sanitize refused with the reason, workload-independent preconditioning
// writing 2x the range with 128 KiB blocks, and the suite's <precondition> element.
#include "runner/methods/preconditioning/preconditioning.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <vector>

#include "devices/nvme_admin.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/methods/steady_state/steady_state.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

std::uint64_t allocated_bytes(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

std::vector<char> read_range(const std::filesystem::path& p, std::uint64_t off, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(off));
  std::vector<char> out(n);
  in.read(out.data(), static_cast<std::streamsize>(n));
  return out;
}

TEST(Purge, PunchesAHoleInARegularFile) {
  testing::ScratchDir dir("storqual-purge");
  auto file = dir / "target";
  testing::write_random_file(file, 8 << 20);
  std::uint64_t before = allocated_bytes(file);
  std::string line = purge_range(file.string(), 1 << 20, 4 << 20, PurgeMethod::Discard);
  EXPECT_EQ(line.rfind("purge: punched a hole over [1m, 5m) of file " + file.string(), 0), 0u)
      << line;
  EXPECT_EQ(std::filesystem::file_size(file), 8u << 20);  // size kept
  EXPECT_LE(allocated_bytes(file), before - (4 << 20) + 65536);
  auto zeros = read_range(file, 1 << 20, 4 << 20);
  EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](char c) { return c == 0; }));
  auto kept = read_range(file, 0, 4096);
  EXPECT_FALSE(std::all_of(kept.begin(), kept.end(), [](char c) { return c == 0; }));
}

TEST(Purge, NvmeFormatAndSanitizeNeedTheFlagAndAnNvmeDevice) {
  try {
    (void)purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeFormat);
    FAIL() << "format accepted without the flag";
  } catch (const PreconditionRefused& e) {
    EXPECT_STREQ(e.what(),
                 "purge=format erases the whole NVMe namespace, not only the tested range; it "
                 "needs the explicit flag --allow-nvme-purge");
  }
  try {
    (void)purge_range("/tmp/not-nvme", 0, 1 << 20, PurgeMethod::NvmeSanitize,
                      NvmePurgeAccess{.allowed = true});
    FAIL() << "sanitize claimed to run without an NVMe device";
  } catch (const PreconditionRefused& e) {
    EXPECT_STREQ(e.what(),
                 "purge=sanitize: /tmp/not-nvme is not an NVMe device (or its NVMe admin "
                 "interface cannot be opened); use purge=\"discard\"");
  }
}

// The captured controller page with OACS (bytes 256-257) and SANICAP (bytes 328-331) replaced.
devices::CapturedNvmeAdmin admin_with(std::uint16_t oacs, std::uint32_t sanicap) {
  devices::CapturedNvmeAdmin admin(std::filesystem::path(STORQUAL_TEST_DATA) / "nvme");
  devices::IdentifyPage page = admin.identify_controller();
  page[256] = static_cast<std::uint8_t>(oacs);
  page[257] = static_cast<std::uint8_t>(oacs >> 8);
  for (int i = 0; i < 4; ++i) page[328 + i] = static_cast<std::uint8_t>(sanicap >> (8 * i));
  admin.set_controller_page(page);
  return admin;
}

NvmePurgeAccess allowed_access(devices::NvmeAdmin& admin, std::vector<long>& sleeps) {
  NvmePurgeAccess a{.allowed = true, .admin = &admin};
  a.timing.poll_interval = std::chrono::milliseconds(500);
  a.timing.limit = std::chrono::seconds(10);
  a.timing.sleep = [&sleeps](std::chrono::milliseconds d) { sleeps.push_back(d.count()); };
  return a;
}

TEST(Purge, NvmeFormatIssuesUserDataEraseWhenSupported) {
  std::vector<long> sleeps;
  auto admin = admin_with(0x2, 0);
  std::string line = purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeFormat,
                                 allowed_access(admin, sleeps));
  EXPECT_EQ(admin.issued(), std::vector<std::string>{"format ses=1"});
  EXPECT_NE(line.find("purge: NVMe Format NVM with user-data erase of /dev/nvme0n1"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("not only the tested range"), std::string::npos) << line;

  auto no_format = admin_with(0x0, 0x7);
  try {
    (void)purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeFormat,
                      allowed_access(no_format, sleeps));
    FAIL() << "format issued to a controller without Format NVM";
  } catch (const PreconditionRefused& e) {
    EXPECT_STREQ(e.what(),
                 "purge=format: the controller of /dev/nvme0n1 does not support Format NVM "
                 "(OACS 0x0)");
  }
  EXPECT_TRUE(no_format.issued().empty());
}

TEST(Purge, NvmeSanitizePrefersBlockEraseAndWaitsForCompletion) {
  std::vector<long> sleeps;
  auto admin = admin_with(0x2, 0x7);  // crypto, block and overwrite supported
  admin.set_sanitize_outcome(true, 3);
  std::string line = purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeSanitize,
                                 allowed_access(admin, sleeps));
  EXPECT_EQ(admin.issued(), std::vector<std::string>{"sanitize sanact=2"});
  EXPECT_EQ(sleeps, (std::vector<long>{500, 500, 500}));  // three polls saw it in progress
  EXPECT_NE(line.find("purge: NVMe sanitize (block erase) of /dev/nvme0n1, the whole NVM "
                      "subsystem"),
            std::string::npos)
      << line;

  auto crypto_only = admin_with(0x2, 0x1);
  (void)purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeSanitize,
                    allowed_access(crypto_only, sleeps));
  EXPECT_EQ(crypto_only.issued(), std::vector<std::string>{"sanitize sanact=4"});
}

TEST(Purge, NvmeSanitizeFailuresAndTimeoutsAreErrors) {
  std::vector<long> sleeps;
  auto none = admin_with(0x2, 0);
  EXPECT_THROW((void)purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeSanitize,
                                 allowed_access(none, sleeps)),
               PreconditionRefused);
  EXPECT_TRUE(none.issued().empty());

  auto failing = admin_with(0x2, 0x2);
  failing.set_sanitize_outcome(false, 1);
  try {
    (void)purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeSanitize,
                      allowed_access(failing, sleeps));
    FAIL() << "a failed sanitize passed";
  } catch (const PreconditionRefused& e) {
    EXPECT_STREQ(e.what(),
                 "purge=sanitize (block erase) of /dev/nvme0n1 failed (sanitize status 0x3)");
  }

  auto endless = admin_with(0x2, 0x2);
  endless.set_sanitize_outcome(true, 1000000);
  sleeps.clear();
  try {
    (void)purge_range("/dev/nvme0n1", 0, 1 << 20, PurgeMethod::NvmeSanitize,
                      allowed_access(endless, sleeps));
    FAIL() << "a sanitize that never ends passed";
  } catch (const PreconditionRefused& e) {
    EXPECT_NE(std::string(e.what()).find("still running after 10 s"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(sleeps.size(), 20u);  // 10 s of 500 ms polls
}

TEST(Purge, SomethingThatIsNeitherFileNorDeviceIsReported) {
  std::string line = purge_range("/dev/null", 0, 4096, PurgeMethod::Discard);
  EXPECT_EQ(line, "purge: not purged, /dev/null is neither a block device nor a regular file");
}

TEST(Purge, DiscardsARangeOfALoopDevice) {
  STORQUAL_REQUIRE_ROOT();
  testing::ScratchDir dir("storqual-purge-loop");
  auto backing = dir / "backing";
  testing::write_random_file(backing, 16 << 20);
  testing::LoopDevice loop(backing);
  std::string line = purge_range(loop.path(), 4 << 20, 8 << 20, PurgeMethod::Discard);
  if (line.find("does not support discard") != std::string::npos) GTEST_SKIP() << line;
  EXPECT_EQ(line.rfind("purge: BLKDISCARD of [4m, 12m) on " + loop.path(), 0), 0u) << line;
  loop.detach();
  auto zeros = read_range(backing, 4 << 20, 8 << 20);
  EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](char c) { return c == 0; }));
}

TEST(IndependentPreconditioning, WritesTwiceTheRangeIn128KiBBlocks) {
  WorkloadSpec w;
  w.id = "randwrite-4k";
  w.params.rw = "randwrite";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.ioengine = "null";
  w.params.target = "null";
  w.params.size = 64ull << 20;
  w.params.runtime_s = 60;
  int passes = 0;
  std::uint64_t bytes = 0;
  std::string line = precondition_independent(w, [&](const WorkloadSpec& s) {
    ++passes;
    EXPECT_EQ(s.params.rw, "write");
    EXPECT_EQ(s.params.bs, 128u * 1024);
    EXPECT_EQ(s.params.size, w.params.size);
    EXPECT_DOUBLE_EQ(s.params.runtime_s, 0);
    auto r = run_workload(s);
    bytes += r.write->bytes;
    return r;
  });
  EXPECT_EQ(passes, 2);
  EXPECT_EQ(bytes, 2 * w.params.size);
  EXPECT_EQ(line.rfind("workload-independent: sequential 128 KiB writes (iodepth 32) twice over "
                       "[0, 64m): 128m in ",
                       0),
            0u)
      << line;
}

TEST(PreconditionElement, SuiteAndWorkloadLevel) {
  Suite s = Suite::parse(R"(<suite name="t">
  <defaults size="64m" runtime="60s"/>
  <precondition purge="discard" independent="1"/>
  <workload id="a" rw="randwrite">
    <precondition dependent="1"/>
  </workload>
  <workload id="b" rw="randread"/>
</suite>)",
                         "t.xml");
  ASSERT_TRUE(s.precondition);
  EXPECT_EQ(s.precondition->purge, PurgeMethod::Discard);
  EXPECT_TRUE(s.precondition->independent);
  EXPECT_FALSE(s.precondition->dependent);
  ASSERT_TRUE(s.workloads[0].precondition);
  EXPECT_TRUE(s.workloads[0].precondition->dependent);
  const auto* rounds = s.workloads[0].method_as<SteadyStateRounds>();
  ASSERT_TRUE(rounds) << "dependent preconditioning runs in rounds";
  EXPECT_EQ(rounds->config().max_rounds, 25u);
  EXPECT_FALSE(s.workloads[1].method_as<SteadyStateRounds>());
  auto error_of = [](const char* text) {
    try {
      (void)Suite::parse(text, "b.xml");
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"(<suite name="t"><precondition purge="erase"/><workload id="a"/></suite>)"),
            "b.xml:1:38: purge: expected none, discard, format or sanitize, got 'erase'");
  EXPECT_EQ(error_of(R"(<suite name="t"><workload id="a"><pre/></workload></suite>)"),
            "b.xml:1:34: unknown element <pre> in <workload> (expected <precondition> or <job>)");
}

}  // namespace
}  // namespace storqual::runner
