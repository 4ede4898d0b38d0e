// SPDX-License-Identifier: Apache-2.0
// fio job files at the command line (docs/fio-files.md): `storqual suites import FILE.fio --out F`
// writes XML the suite loader reads back to the same workloads, `--fio-cmd` the same from a
// command line, `storqual check FILE.fio`, `storqual run --suite FILE.fio` on a scratch file, and
// `storqual suites export NAME --fio`, which fio --parse-only accepts when fio is installed.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

using testing::run_command;
using testing::ScratchDir;

constexpr const char* kJobFile =
    "; two jobs one after another, and output options that are only noted\n"
    "[global]\nioengine=psync\ndirect=0\nsize=4m\ngroup_reporting\nwrite_lat_log=lat\n"
    "[randread-4k]\nrw=randread\nbs=4k\nnumjobs=2\n"
    "[seqwrite-64k]\nstonewall\nrw=write\nbs=64k\ntime_based\nruntime=300ms\n";

class FioCli : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(dir_ / "jobs.fio") << kJobFile; }
  ScratchDir dir_{"storqual-fio-cli"};
};

TEST_F(FioCli, ImportWritesSuiteXmlThatLoadsBackToTheSameWorkloads) {
  const std::string xml = (dir_ / "jobs.xml").string();
  auto r = run_command(
      {STORQUAL_BINARY, "suites", "import", (dir_ / "jobs.fio").string(), "--out", xml});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("jobs.fio:6: option 'group_reporting' ignored: it shapes fio's output only"),
            std::string::npos)
      << r.err;
  const runner::Suite loaded = runner::Suite::load(xml);
  const runner::Suite direct = runner::import_fio_file(dir_ / "jobs.fio").suite;
  ASSERT_EQ(loaded.workloads.size(), 2u);
  ASSERT_EQ(direct.workloads.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(loaded.workloads[i].id(), direct.workloads[i].id());
    EXPECT_EQ(runner::workload_attributes(loaded.workloads[i].spec),
              runner::workload_attributes(direct.workloads[i].spec));
  }
  EXPECT_EQ(loaded.workloads[1].spec.params.runtime_s, 0.3);
  // The same jobs as a command line.
  auto c = run_command({STORQUAL_BINARY, "suites", "import", "--fio-cmd",
                        "fio --ioengine=psync --direct=0 --size=4m --group_reporting "
                        "--write_lat_log=lat --name=randread-4k --rw=randread --bs=4k "
                        "--numjobs=2 --name=seqwrite-64k --stonewall --rw=write --bs=64k "
                        "--time_based --runtime=300ms",
                        "--name", "jobs"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string file_xml = testing::read_file(xml);  // the same workloads, another description
  ASSERT_NE(c.out.find("<workload"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.substr(c.out.find("<workload")), file_xml.substr(file_xml.find("<workload")));
}

TEST_F(FioCli, CheckAndRefusals) {
  auto ok = run_command({STORQUAL_BINARY, "check", (dir_ / "jobs.fio").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("(fio job file, suite 'jobs', 2 workloads)"), std::string::npos) << ok.out;
  // Different jobs fio runs together: one group workload; with another runtime each: refused.
  std::ofstream(dir_ / "group.fio") << "[global]\nsize=1m\n[a]\nrw=randread\n[b]\nrw=write\n";
  auto group = run_command({STORQUAL_BINARY, "check", (dir_ / "group.fio").string()});
  EXPECT_EQ(group.exit_code, 0) << group.err;
  EXPECT_NE(group.out.find("(fio job file, suite 'group', 1 workload)"), std::string::npos)
      << group.out;
  std::ofstream(dir_ / "bad.fio")
      << "[global]\nsize=1m\ntime_based\n[a]\nruntime=1\nrw=randread\n[b]\nruntime=2\nrw=write\n";
  auto bad = run_command({STORQUAL_BINARY, "check", (dir_ / "bad.fio").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.fio:7: job 'b' runs at the same time as 'a'"), std::string::npos)
      << bad.err;
  std::ofstream(dir_ / "pin.fio") << "[a]\nsize=1m\ncpus_allowed=0-3\n";
  auto pin = run_command({STORQUAL_BINARY, "suites", "import", (dir_ / "pin.fio").string()});
  EXPECT_EQ(pin.exit_code, 2);
  EXPECT_NE(pin.err.find("pin.fio:3: option 'cpus_allowed=0-3': storqual does not pin jobs"),
            std::string::npos)
      << pin.err;
}

TEST_F(FioCli, RunTakesAJobFileAsItsSuite) {
  const std::string target = (dir_ / "target.bin").string();
  testing::write_random_file(target, 8 << 20);
  auto r = run_command({STORQUAL_BINARY, "run", "--target", target, "--suite",
                        (dir_ / "jobs.fio").string(), "--allow-destructive", "--out",
                        (dir_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(dir_ / "out" / "storqual-result.json");
  ASSERT_TRUE(in) << r.out;
  const auto json = nlohmann::json::parse(in);
  ASSERT_EQ(json["workloads"].size(), 2u);
  EXPECT_EQ(json["workloads"][0]["id"], "randread-4k");
  EXPECT_GT(json["workloads"][0]["read"]["ios"].get<double>(), 0);
  EXPECT_EQ(json["workloads"][1]["id"], "seqwrite-64k");
}

TEST_F(FioCli, ExportIsAJobFileFioAccepts) {
  const std::string job = (dir_ / "quick.fio").string();
  std::ofstream(dir_ / "plain.xml") << R"(<suite name="plain"><defaults runtime="2s" size="64m"/>
<workload id="randread-4k-qd32" rw="randread" bs="4k" iodepth="32"/>
<workload id="mix" rw="randrw" rwmixread="70" bs="8k" iodepth="8" numjobs="4"
  write_contents="scramble"/></suite>)";  // storqual's own stamp has no fio option
  // (A target of /dev/null would import back on the null engine: fio's null device.)
  auto r = run_command({STORQUAL_BINARY, "suites", "export", (dir_ / "plain.xml").string(), "--fio",
                        "--target", (dir_ / "target.bin").string(), "--out", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const runner::Suite back = runner::import_fio_file(job).suite;
  const runner::Suite original = runner::Suite::load(dir_ / "plain.xml");
  ASSERT_EQ(back.workloads.size(), original.workloads.size());
  for (std::size_t i = 0; i < back.workloads.size(); ++i)
    EXPECT_EQ(runner::workload_attributes(back.workloads[i].spec),
              runner::workload_attributes(original.workloads[i].spec));
  // A method exports too: what fio cannot do is a comment, the job one plain pass of it.
  auto method = run_command({STORQUAL_BINARY, "suites", "export", "latency-bound", "--fio"});
  EXPECT_EQ(method.exit_code, 0) << method.err;
  EXPECT_NE(method.out.find("; storqual: 'randread-4k-lat10ms' is a <latency-search> method"),
            std::string::npos)
      << method.out;
  EXPECT_NE(method.out.find("[precondition-randwrite-4k-lat10ms-pass1]"), std::string::npos)
      << method.out;
  STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio (apt-get install fio): fio --parse-only");
  auto parse = run_command({"fio", "--parse-only", job});
  EXPECT_EQ(parse.exit_code, 0) << parse.out << parse.err << testing::read_file(job);
}

}  // namespace
}  // namespace storqual
