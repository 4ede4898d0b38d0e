// SPDX-License-Identifier: Apache-2.0
// fio job files and command lines as suites (runner/specs/fio_job.hpp, fio_suite.hpp): the
// grammar of fio's HOWTO ("Job file format"), the option table, fio's groups, and the round trips
// job file -> suite XML -> suite, and suite -> fio job file -> suite.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <map>

#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/fio_text.hpp"

namespace storqual::runner {
namespace {

// The tests' fixed host (tests/support/fio_text.hpp), SIZE=64m in its environment, includes from
// `files`.
FioEnvironment test_env(std::map<std::string, std::string> files = {}) {
  return testing::fio_test_environment({{{"SIZE", "64m"}}, std::move(files)});
}

FioImport import_text(const std::string& text, std::map<std::string, std::string> files = {}) {
  return testing::import_fio_text(text, {{{"SIZE", "64m"}}, std::move(files)});
}

std::string refusal(const std::string& text) {
  try {
    (void)import_text(text);
  } catch (const FileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return {};
}

std::string value_of(const FioJob& job, std::string_view name) {
  std::string v = "<absent>";
  for (const auto& o : job.options)
    if (o.name == name) v = o.has_value ? o.value : "<none>";
  return v;
}

TEST(FioJobGrammar, GlobalSectionsApplyToTheJobsAfterThem) {
  const FioJobFile f = parse_fio_job_text(
      "; comment\n# another\n[global]\nbs=8k\n[a]\nrw=read\n[global]\nbs=16k\niodepth=4\n[b]\n"
      "  direct  \n",
      "t.fio", test_env());
  ASSERT_EQ(f.jobs.size(), 2u);
  EXPECT_EQ(f.jobs[0].name, "a");
  EXPECT_EQ(value_of(f.jobs[0], "bs"), "8k");
  EXPECT_EQ(value_of(f.jobs[0], "iodepth"), "<absent>");
  EXPECT_EQ(value_of(f.jobs[1], "bs"), "16k");  // the later [global] wins for later jobs
  EXPECT_EQ(value_of(f.jobs[1], "iodepth"), "4");
  EXPECT_EQ(value_of(f.jobs[1], "direct"), "<none>");
  EXPECT_EQ(f.jobs[1].location, "t.fio:10");
  EXPECT_EQ(f.jobs[1].options.back().location, "t.fio:11");
}

TEST(FioJobGrammar, IncludeEnvironmentAndKeywords) {
  const FioJobFile f = parse_fio_job_text(
      "[global]\ninclude common.fio\n[a]\nsize=${SIZE}\nnumjobs=$ncpus/2\niodepth=$ncpus*4+1\n"
      "offset=${UNSET}0\nio_size=$mb_memory\nbs=$pagesize\n",
      "dir/t.fio", test_env({{"dir/common.fio", "ioengine=libaio\n# c\n"}}));
  ASSERT_EQ(f.jobs.size(), 1u);
  const FioJob& j = f.jobs[0];
  EXPECT_EQ(value_of(j, "ioengine"), "libaio");  // relative to the including file
  EXPECT_EQ(j.options.front().location, "dir/common.fio:1");
  EXPECT_EQ(value_of(j, "size"), "64m");
  EXPECT_EQ(value_of(j, "numjobs"), "4");
  EXPECT_EQ(value_of(j, "iodepth"), "33");
  EXPECT_EQ(value_of(j, "offset"), "0");  // an unset variable is empty
  EXPECT_EQ(value_of(j, "io_size"), "16384");
  EXPECT_EQ(value_of(j, "bs"), "4096");
}

TEST(FioJobGrammar, RefusesWhatFioRefuses) {
  auto error = [](const std::string& text) {
    try {
      (void)parse_fio_job_text(text, "t.fio", test_env({{"inc.fio", "[x]\n"}}));
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("bs=4k\n[a]\n").find("t.fio:1: option 'bs=4k' outside of a [] job section"),
            std::string::npos);
  EXPECT_NE(error("[a]\ninclude inc.fio\n").find("no new sections in included files"),
            std::string::npos);
  EXPECT_NE(error("[a]\nsize=$mb_memory*2k\n").find("t.fio:2: option 'size'"), std::string::npos);
  EXPECT_NE(error("[a]\nsize=$ncpus*4611686018427387904*-2/-1\n").find("not arithmetic"),
            std::string::npos);  // no overflow (UB) on the way
  EXPECT_NE(error("[a]\nsize=$ncpus/0\n").find("divides by zero"), std::string::npos);
  EXPECT_NE(error("[global]\nbs=4k\n").find("no job section"), std::string::npos);
  EXPECT_NE(error("[a\n").find("expected a section header"), std::string::npos);
}

TEST(FioJobGrammar, CommandLinesSplitAsAShellDoes) {
  EXPECT_EQ(split_shell_words(R"(fio --name='a b' --x="c \"d\"" e\ f)"),
            (std::vector<std::string>{"fio", "--name=a b", "--x=c \"d\"", "e f"}));
  EXPECT_THROW((void)split_shell_words("fio --name='a"), FileError);
  const FioJobFile f = parse_fio_command_line(
      "fio --bs=8k --name=global --iodepth=4 --name=a --rw=randread --name=b --bs=16k", test_env());
  ASSERT_EQ(f.jobs.size(), 2u);
  EXPECT_EQ(value_of(f.jobs[0], "bs"), "8k");
  EXPECT_EQ(value_of(f.jobs[0], "iodepth"), "4");
  EXPECT_EQ(value_of(f.jobs[1], "bs"), "16k");
  EXPECT_THROW((void)parse_fio_command_line("fio job.fio", test_env()), FileError);
}

TEST(FioSuite, FioDefaultsAndUnitsAsFioReadsThem) {
  const FioImport im = import_text(
      "[global]\nkb_base=1024\n[a]\nbs=4KiB\nsize=1g\n[b]\nstonewall\nkb_base=1000\nbs=4k\n"
      "size=1m\nrw=randwrite\nioengine=io_uring\ndirect\n");
  ASSERT_EQ(im.suite.workloads.size(), 2u);
  const WorkloadSpec& a = im.suite.workloads[0].spec;
  EXPECT_EQ(a.params.bs, 4000u);  // fio with kb_base=1024: KiB are 1000s (parse.c)
  EXPECT_EQ(a.params.size, 1ull << 30);
  EXPECT_EQ(a.params.rw, "read");  // fio's defaults, not storqual's
  EXPECT_EQ(a.params.ioengine, "psync");
  EXPECT_FALSE(a.params.direct);
  EXPECT_EQ(a.iodepth_batch, 1u);
  const WorkloadSpec& b = im.suite.workloads[1].spec;
  EXPECT_EQ(b.params.bs, 4000u);
  EXPECT_EQ(b.params.size, 1000000u);
  EXPECT_TRUE(b.params.direct);  // an option without a value is 1
  EXPECT_FALSE(b.fixedbufs);     // fio's io_uring default
  EXPECT_EQ(im.suite.workloads[1].location, "dir/t.fio:6");
}

TEST(FioSuite, BlockSizesPerDirection) {
  const FioImport im = import_text(
      "[a]\nrw=read\nbs=4k,64k\nsize=1m\n[b]\nstonewall\nrw=write\nbs=,64k\nsize=1m\n"
      "[c]\nstonewall\nrw=randrw\nbsrange=8k-8k\nsize=1m\n");
  ASSERT_EQ(im.suite.workloads.size(), 3u);
  EXPECT_EQ(im.suite.workloads[0].spec.params.bs, 4096u);
  EXPECT_EQ(im.suite.workloads[1].spec.params.bs, 65536u);
  EXPECT_EQ(im.suite.workloads[2].spec.params.bs, 8192u);
  EXPECT_NE(refusal("[a]\nrw=randrw\nbs=4k,8k\nsize=1m\n")
                .find("dir/t.fio:3: option 'bs': reads of 4k and writes of 8k"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nbsrange=4k-16k\nverify=crc32c\nrw=write\nsize=1m\n")
                .find("verify with a block-size mix"),
            std::string::npos);
}

// bssplit, bsrange and blockalign as fio reads them, through the suite XML and the export back.
TEST(FioSuite, BlockSizeMixesRoundTrip) {
  const FioImport im = import_text(
      "[global]\nioengine=libaio\ndirect=1\nsize=64m\n"
      "[iometer]\nbssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10\nrw=randrw\n"
      "[split]\nstonewall\nrw=randrw\nbssplit=64k/40:1024k/60,1024k/100\n"
      "[ranged]\nstonewall\nrw=randread\nbsrange=4k-64k\nblockalign=4k\n"
      "[aligned]\nstonewall\nrw=randread\nbssplit=512/50:8k/50\nblockalign=4k\n"
      "[again]\nstonewall\nrw=read\nbssplit=4k/50:8k/50\nbs=16k\n");
  ASSERT_EQ(im.suite.workloads.size(), 5u);
  const WorkloadSpec& iometer = im.suite.workloads[0].spec;
  EXPECT_TRUE(iometer.mixed_block_sizes());
  EXPECT_EQ(iometer.bs_mix[0].split.size(), 8u);
  EXPECT_EQ(iometer.bs_mix[0].min_bs, 512u);
  EXPECT_EQ(iometer.bs_mix[0].max_bs, 65536u);
  const WorkloadSpec& split = im.suite.workloads[1].spec;
  EXPECT_EQ(split.params.bs, 1024u * 1024);  // the writes' one size
  EXPECT_TRUE(split.bs_mix[0].mixed());
  EXPECT_FALSE(split.bs_mix[1].mixed());
  EXPECT_EQ(im.suite.workloads[2].spec.blockalign, 0u);  // the smallest size: fio's default
  EXPECT_EQ(im.suite.workloads[3].spec.blockalign, 4096u);
  EXPECT_FALSE(im.suite.workloads[4].spec.mixed_block_sizes());  // bs after bssplit: one size
  EXPECT_EQ(im.suite.workloads[4].spec.params.bs, 16384u);
  // The suite XML and the export read back to the same workloads.
  const Suite xml = Suite::parse(suite_xml_text(im.suite), "s.xml");
  const FioImport back = import_fio_jobs(
      parse_fio_job_text(fio_job_text(im.suite, "/dev/zram9"), "s.fio", test_env()), "s");
  ASSERT_EQ(back.suite.workloads.size(), im.suite.workloads.size());
  for (std::size_t i = 0; i < im.suite.workloads.size(); ++i) {
    const WorkloadSpec& w = im.suite.workloads[i].spec;
    EXPECT_EQ(workload_attributes(xml.workloads[i].spec), workload_attributes(w)) << w.id;
    EXPECT_EQ(workload_attributes(back.suite.workloads[i].spec), workload_attributes(w)) << w.id;
    EXPECT_EQ(back.suite.workloads[i].spec.bs_mix[0], w.bs_mix[0]) << w.id;
  }
  EXPECT_NE(
      fio_job_text(im.suite, "").find("bssplit=8k/2:16k/4:32k/4:1k/5:2k/5:512/10:64k/10:4k/60"),
      std::string::npos)
      << fio_job_text(im.suite, "");
  // What fio refuses, refused at the option.
  EXPECT_NE(refusal("[a]\nsize=1m\nbssplit=4k/60:8k/60:16k:32k\n")
                .find("dir/t.fio:3: option 'bssplit=4k/60:8k/60:16k:32k': bssplit: the "
                      "percentages add to more than 100%"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nsize=1m\nrw=randread\nbssplit=4k/50:8k/50\nblockalign=4k,8k\n")
                .find("option 'blockalign=4k,8k'"),
            std::string::npos);
}

TEST(FioSuite, RefusesWhatItCannotHonourAndListsWhatIsOutputOnly) {
  const FioImport im = import_text(
      "[global]\ngroup_reporting\nwrite_bw_log=x\nfilename=/dev/sdb\nloops=1\n[a]\nsize=1m\n");
  ASSERT_EQ(im.ignored.size(), 4u);
  EXPECT_EQ(im.ignored[0],
            "dir/t.fio:2: option 'group_reporting' ignored: it shapes fio's output "
            "only");
  EXPECT_NE(im.ignored[2].find("the target is the run's --target"), std::string::npos);
  // A buffered job (fio's default direct=0): fio's default invalidate=1 is named, not honoured.
  EXPECT_NE(im.ignored[3].find("job 'a': buffered (direct=0), and fio's default invalidate=1 "
                               "drops the target's page cache"),
            std::string::npos)
      << im.ignored[3];
  EXPECT_EQ(import_text("[a]\nsize=1m\ninvalidate=0\n").ignored.size(), 0u);
  EXPECT_EQ(import_text("[a]\nsize=1m\ndirect=1\n").ignored.size(), 0u);
  EXPECT_NE(refusal("[a]\nsize=1m\ninvalidate=1\n")
                .find("option 'invalidate=1': storqual does not drop the target's page cache"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nsize=1m\nfsync=5\n")
                .find("dir/t.fio:3: option 'fsync=5': storqual issues no fsync"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nsize=1m\nzonemode=zoned\n").find("option 'zonemode=zoned'"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nsize=1m\nfrobnicate=1\n")
                .find("storqual has no equivalent of fio's 'frobnicate'"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nsize=50%\n").find("a percentage"), std::string::npos);
  EXPECT_NE(refusal("[a]\nbs=(1+1)k\n").find("arithmetic in parentheses"), std::string::npos);
  EXPECT_NE(refusal("[a]\nrw=randread\niodepth=0\n").find("iodepth"), std::string::npos);
}

// random_distribution and random_generator as fio reads them: no random map (fio's forces
// norandommap), through the suite XML and the export back; noted and dropped for sequential I/O.
TEST(FioSuite, SkewedDistributionsRoundTrip) {
  const FioImport im = import_text(
      "[global]\nsize=1280m\nbs=4k\n"
      "[zipf]\nioengine=null\nrw=randread\nnorandommap\nrandom_distribution=zipf:0.5\n"
      "[zones]\nstonewall\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/,50/10:50/90\n"
      "random_generator=tausworthe64\n"
      "[abs]\nstonewall\nrw=randrw\nrandom_distribution=zoned_abs:50/10m:30/100m:20/500m\n"
      "[seq]\nstonewall\nrw=read\nrandom_distribution=pareto:0.3\n");
  ASSERT_EQ(im.suite.workloads.size(), 4u);
  EXPECT_EQ(im.suite.workloads[0].spec.distribution.kind, DistributionKind::Zipf);
  EXPECT_FALSE(im.suite.workloads[1].spec.params.randommap);  // as fio: no random map
  EXPECT_TRUE(im.suite.workloads[1].spec.distribution.use64);
  EXPECT_EQ(im.suite.workloads[2].spec.distribution.zones[0][1].size, 100u << 20);
  EXPECT_FALSE(im.suite.workloads[3].spec.distribution.skewed());
  EXPECT_NE(std::find_if(im.ignored.begin(), im.ignored.end(),
                         [](const std::string& n) {
                           return n.find("option 'random_distribution' ignored: rw=read") !=
                                  std::string::npos;
                         }),
            im.ignored.end());
  const Suite xml = Suite::parse(suite_xml_text(im.suite), "s.xml");
  const FioImport back = import_fio_jobs(
      parse_fio_job_text(fio_job_text(im.suite, "/dev/zram9"), "s.fio", test_env()), "s");
  ASSERT_EQ(back.suite.workloads.size(), im.suite.workloads.size());
  for (std::size_t i = 0; i < im.suite.workloads.size(); ++i) {
    const WorkloadSpec& w = im.suite.workloads[i].spec;
    EXPECT_EQ(xml.workloads[i].spec.distribution, w.distribution) << w.id;
    EXPECT_EQ(back.suite.workloads[i].spec.distribution, w.distribution) << w.id;
  }
  EXPECT_NE(refusal("[a]\nrw=randread\nsize=1m\nrandom_distribution=zipf:1\n")
                .find("option 'random_distribution=zipf:1': random_distribution: zipf's theta"),
            std::string::npos);
  // fio's LFSR (runner/measure/fio_lfsr.hpp) is taken, and kept by a later random_distribution.
  const FioImport lfsr = import_fio_jobs(
      parse_fio_job_text("[a]\nrw=randread\nsize=1m\nrandom_generator=lfsr\n", "l.fio", test_env()),
      "l");
  EXPECT_TRUE(lfsr.suite.workloads.at(0).spec.distribution.lfsr);
  EXPECT_TRUE(
      Suite::parse(suite_xml_text(lfsr.suite), "l.xml").workloads.at(0).spec.distribution.lfsr);
  EXPECT_NE(refusal("[a]\nrw=randread\nsize=1m\nrandom_generator=lfsr\n"
                    "random_distribution=zipf:1.2\n")
                .find("random_generator=lfsr with random_distribution"),
            std::string::npos);
}

// One run names everything there is to change: each refused option with its line, once also when
// every job inherits it from [global], in file order.
TEST(FioSuite, OneRefusalNamesEveryOptionItCannotTake) {
  const std::string e =
      refusal("[global]\nsize=1m\nfrobnicate=1\n[a]\nnrfiles=5\n[b]\nnrfiles=5\nzonemode=zoned\n");
  EXPECT_NE(e.find("dir/t.fio: 4 things storqual cannot take"), std::string::npos) << e;
  const std::size_t first = e.find("\ndir/t.fio:3: option 'frobnicate=1'");
  const std::size_t second = e.find("\ndir/t.fio:5: option 'nrfiles=5'");
  const std::size_t third = e.find("\ndir/t.fio:7: option 'nrfiles=5'");
  const std::size_t fourth = e.find("\ndir/t.fio:8: option 'zonemode=zoned'");
  ASSERT_NE(fourth, std::string::npos) << e;
  EXPECT_TRUE(first < second && second < third && third < fourth) << e;
  EXPECT_EQ(e.find("option 'frobnicate", first + 20), std::string::npos) << e;  // once
  // Three unsupported options, one refusal naming all three.
  const std::string three = refusal("[a]\nsize=1m\nfsync=10\nnrfiles=5\nzonemode=zoned\n");
  EXPECT_EQ(three.find("dir/t.fio: 3 things storqual cannot take"), 0u) << three;
  for (const char* o : {"\ndir/t.fio:3: option 'fsync=10'", "\ndir/t.fio:4: option 'nrfiles=5'",
                        "\ndir/t.fio:5: option 'zonemode=zoned'"})
    EXPECT_NE(three.find(o), std::string::npos) << three;
  // A single refusal stays one line; a job's own checks come after its options are all taken.
  EXPECT_EQ(refusal("[a]\nsize=1m\nnrfiles=5\n").find('\n'), std::string::npos);
  EXPECT_EQ(refusal("[a]\nnrfiles=5\ntime_based\n").find("time_based"), std::string::npos);
}

// fio's loops: the job's bytes that many times, storqual's io_limit; with time_based, noted.
TEST(FioSuite, LoopsAreTheBytesOfEveryPass) {
  const FioImport im = import_text("[a]\nrw=randrw\nsize=256k\nnumjobs=2\nloops=500\n");
  EXPECT_EQ(im.suite.workloads.at(0).spec.io_limit, 256u * 1024 * 500 * 2);
  EXPECT_EQ(import_text("[a]\nsize=1m\nio_size=2m\nloops=3\n").suite.workloads.at(0).spec.io_limit,
            6u << 20);
  const FioImport timed = import_text("[a]\nsize=1m\ntime_based\nruntime=5\nloops=3\n");
  EXPECT_EQ(timed.suite.workloads.at(0).spec.io_limit, 0u);
  EXPECT_NE(timed.ignored.back().find("option 'loops' ignored: with time_based"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nloops=3\n").find("loops and without size"), std::string::npos);
  EXPECT_NE(refusal("[a]\nsize=1m\nloops=0\n").find("option 'loops=0'"), std::string::npos);
}

// Notes for what fio does that storqual does not, where the import is still taken.
TEST(FioSuite, NotesSayWhatDiffers) {
  const FioImport gtod = import_text("[a]\nsize=1m\ndirect=1\ngtod_reduce=1\n");
  ASSERT_EQ(gtod.ignored.size(), 1u);
  EXPECT_NE(gtod.ignored[0].find("lowers its cost per I/O"), std::string::npos) << gtod.ignored[0];
  EXPECT_EQ(gtod.ignored[0].find("output only"), std::string::npos) << gtod.ignored[0];
  const FioImport clones = import_text("[f1]\nsize=512m\ndirect=1\nnumjobs=4\n");
  ASSERT_EQ(clones.ignored.size(), 1u);
  EXPECT_NE(clones.ignored[0].find("fio gives each of its 4 clones a file of its own (f1.0.0 to "
                                   "f1.3.0"),
            std::string::npos)
      << clones.ignored[0];
  EXPECT_TRUE(import_text("[f1]\nsize=512m\ndirect=1\nnumjobs=4\nfilename=/dev/sdb\n")
                  .ignored.front()
                  .find("--target") != std::string::npos);
}

// Options that shape only fio's own process are imported with what storqual does instead.
TEST(FioSuite, ProcessOptionsAreNotedWithWhatDiffers) {
  const FioImport im = import_text(
      "[global]\nsize=1m\ndirect=1\nfilename=/dev/sdb\n[a]\nnuma_cpu_nodes=0\n"
      "numa_mem_policy=bind:0\nprioclass=3\nprio=7\ncmdprio_percentage=20\ncmdprio_class=1\n"
      "cmdprio=0\ncmdprio_bssplit=64k/100\n");
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  std::string notes;
  for (const std::string& n : im.ignored) notes += n + "\n";
  for (const char* o : {"dir/t.fio:6: option 'numa_cpu_nodes' ignored: fio binds the job's threads",
                        "dir/t.fio:7: option 'numa_mem_policy' ignored: fio allocates",
                        "dir/t.fio:8: option 'prioclass' ignored: fio sets the job's I/O priority",
                        "dir/t.fio:10: option 'cmdprio_percentage' ignored: fio sets a priority",
                        "dir/t.fio:13: option 'cmdprio_bssplit' ignored"})
    EXPECT_NE(notes.find(o), std::string::npos) << o << "\n" << notes;
}

// The header names a command that writes the file again: a file by its path, else the name.
TEST(FioSuite, ExportHeaderNamesACommandThatWorks) {
  Suite s = Suite::parse(R"(<suite name="s"><workload id="w" runtime="1s"/></suite>)", "s.xml");
  EXPECT_NE(fio_job_text(s, "").find("(storqual suites export s --fio)"), std::string::npos);
  s.path = "/usr/share/doc/fio/examples/aio-read.fio";
  EXPECT_NE(fio_job_text(s, "/dev/zram9")
                .find("(storqual suites export /usr/share/doc/fio/examples/aio-read.fio --target "
                      "/dev/zram9 --fio)"),
            std::string::npos);
  EXPECT_NE(fio_job_text(s, "", "quick").find("(storqual suites export quick --fio)"),
            std::string::npos);
}

TEST(FioSuite, RuntimeWithoutTimeBasedIsTheBytesOrTheRuntime) {
  const FioImport im = import_text(
      "[a]\nsize=1g\nruntime=60\nnumjobs=4\n[b]\nstonewall\nruntime=1m\ntime_based\n"
      "[c]\nstonewall\nsize=1g\nio_size=2g\n");
  ASSERT_EQ(im.suite.workloads.size(), 3u);
  EXPECT_EQ(im.suite.workloads[0].spec.params.runtime_s, 60);
  EXPECT_EQ(im.suite.workloads[0].spec.io_limit, 4ull << 30);  // size x numjobs
  EXPECT_EQ(im.suite.workloads[1].spec.params.runtime_s, 60);
  EXPECT_EQ(im.suite.workloads[1].spec.io_limit, 0u);
  EXPECT_EQ(im.suite.workloads[2].spec.io_limit, 2ull << 30);
  EXPECT_NE(refusal("[a]\nruntime=60\n").find("runtime without time_based and without size"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\ntime_based\n").find("time_based without runtime"), std::string::npos);
}

TEST(FioSuite, JobNamesBecomeUniqueIds) {
  // fuzz_fio_job found "a-2" written twice: a job named so, then a second "a".
  const FioImport im = import_text(
      "[global]\nsize=1m\nstonewall\n[a]\n[a-2]\nrw=write\n[a]\nbs=8k\n[b c]\nbs=16k\n");
  std::vector<std::string> ids;
  for (const auto& w : im.suite.workloads) ids.push_back(w.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "a-2", "a-3", "b-c"}));
  EXPECT_NO_THROW((void)Suite::parse(suite_xml_text(im.suite), "x.xml"));
}

TEST(FioSuite, JobsThatFioRunsTogether) {
  // Identical jobs without a stonewall are numjobs copies; a wait_for chain runs in order.
  const FioImport im = import_text(
      "[global]\nsize=1m\nrw=randread\nnumjobs=2\n[r1]\n[r2]\n[w]\nstonewall\nrw=write\n"
      "[r3]\nwait_for=w\n");
  ASSERT_EQ(im.suite.workloads.size(), 3u);
  EXPECT_EQ(im.suite.workloads[0].id(), "r1");
  EXPECT_EQ(im.suite.workloads[0].spec.params.numjobs, 4u);
  EXPECT_EQ(im.suite.workloads[1].id(), "w");
  EXPECT_EQ(im.suite.workloads[2].id(), "r3");
  // Different jobs fio runs together share one measured window: another runtime is refused.
  const std::string e = refusal(
      "[global]\nsize=1m\ntime_based\n[reader]\nruntime=1\nrw=randread\n[writer]\nruntime=2\n"
      "rw=write\n");
  EXPECT_NE(e.find("dir/t.fio:7: job 'writer' runs at the same time as 'reader' (dir/t.fio:4) in "
                   "fio with another runtime or ramp_time"),
            std::string::npos)
      << e;
  EXPECT_NE(refusal("[global]\nsize=1m\n[a]\n[b]\n[c]\nwait_for=a\n").find("wait_for=a"),
            std::string::npos);
  // c starts with a (no wait_for), while b waits for a.
  EXPECT_NE(refusal("[global]\nsize=1m\n[a]\n[b]\nwait_for=a\n[c]\n")
                .find("dir/t.fio:6: job 'c' starts with the first jobs since the last stonewall"),
            std::string::npos);
}

TEST(FioSuite, DifferentJobsThatFioRunsTogetherAreOneGroup) {
  // A reader and a writer at different depths, and a copy of the reader: one group workload of
  // two jobs, the copy folded into the reader's numjobs.
  const FioImport im = import_text(
      "[global]\nsize=1m\ndirect=1\n[reader]\nrw=randread\niodepth=8\n[writer]\nrw=write\n"
      "bs=128k\n[reader2]\nrw=randread\niodepth=8\n[after]\nstonewall\nrw=read\n");
  ASSERT_EQ(im.suite.workloads.size(), 2u);
  const WorkloadSpec& group = im.suite.workloads[0].spec;
  EXPECT_EQ(group.id, "reader");
  const std::vector<WorkloadSpec> jobs = group_members(group);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "reader");
  EXPECT_EQ(jobs[0].params.rw, "randread");
  EXPECT_EQ(jobs[0].params.iodepth, 8u);
  EXPECT_EQ(jobs[0].params.numjobs, 2u);
  EXPECT_EQ(jobs[1].id, "writer");
  EXPECT_EQ(jobs[1].params.rw, "write");
  EXPECT_EQ(jobs[1].params.bs, 128u << 10);
  EXPECT_EQ(jobs[1].params.iodepth, 1u);
  EXPECT_EQ(jobs[1].params.size, 1u << 20);  // from [global], through the group
  EXPECT_TRUE(im.suite.workloads[1].spec.jobs.empty());
  EXPECT_EQ(im.suite.workloads[1].id(), "after");
}

// A <job> inherits its group's options (the first job's): what the first job sets and a later one
// does not is written as its default, so the later job runs as fio runs it.
TEST(FioSuite, AGroupsJobDoesNotInheritTheFirstJobsMixSkewPacingOrBuffers) {
  const FioImport im = import_text(
      "[global]\nsize=64m\ndirect=1\n[first]\nrw=randwrite\nbssplit=4k/50:64k/50\n"
      "random_distribution=zipf:1.2\nthinktime=1ms\nbuffer_compress_percentage=50\n"
      "[second]\nrw=randwrite\nbs=8k\n");
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  for (const Suite& suite : {im.suite, Suite::parse(suite_xml_text(im.suite), "back.xml")}) {
    const auto jobs = group_members(suite.workloads.at(0).spec);
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_TRUE(jobs[0].mixed_block_sizes());
    EXPECT_TRUE(jobs[0].distribution.skewed());
    EXPECT_EQ(jobs[0].thinktime_s, 0.001);
    EXPECT_EQ(jobs[0].buffers.compress_percentage, 50u);
    EXPECT_FALSE(jobs[1].mixed_block_sizes());
    EXPECT_EQ(jobs[1].params.bs, 8192u);
    EXPECT_FALSE(jobs[1].distribution.skewed());
    EXPECT_EQ(jobs[1].thinktime_s, 0);
    EXPECT_EQ(jobs[1].buffers.compress_percentage, 0u);
  }
}

// Every field the import sets, compared one by one.
void expect_same(const WorkloadSpec& a, const WorkloadSpec& b) {
  EXPECT_EQ(a.id, b.id);
  const auto ma = group_members(a), mb = group_members(b);
  ASSERT_EQ(ma.size(), mb.size()) << a.id;
  for (std::size_t i = 0; i < ma.size(); ++i) {
    EXPECT_EQ(ma[i].id, mb[i].id);
    EXPECT_EQ(workload_attributes(ma[i]), workload_attributes(mb[i])) << a.id << " " << ma[i].id;
    EXPECT_EQ(ma[i].io_limit, mb[i].io_limit);
  }
  if (!ma.empty()) {  // a group's own options are what its jobs inherit: the jobs say it all
    EXPECT_EQ(a.params.runtime_s, b.params.runtime_s);
    EXPECT_EQ(a.params.ramp_time_s, b.params.ramp_time_s);
    return;
  }
  EXPECT_EQ(workload_attributes(a), workload_attributes(b)) << a.id;
  EXPECT_EQ(a.params.runtime_s, b.params.runtime_s);
  EXPECT_EQ(a.params.ramp_time_s, b.params.ramp_time_s);
  EXPECT_EQ(a.io_limit, b.io_limit);
  EXPECT_EQ(a.iodepth_batch, b.iodepth_batch);
  EXPECT_EQ(a.fixedbufs, b.fixedbufs);
  EXPECT_EQ(a.params.direct, b.params.direct);
  EXPECT_EQ(a.params.rwmixread, b.params.rwmixread);
}

constexpr const char* kMixedJobFile =
    "[global]\nioengine=libaio\ndirect=1\ntime_based\nruntime=1500ms\nramp_time=2\n"
    "group_reporting\n[randread-4k]\nrw=randread\niodepth=32\nnorandommap\n"
    "[mix]\nstonewall\nrw=randrw\nrwmixwrite=30\nbs=8k\nnumjobs=4\nrate_iops=500\n"
    "[uring]\nstonewall\nioengine=io_uring\nfixedbufs\nsqthread_poll\nrw=write\nbs=1m\n"
    "iodepth=8\niodepth_batch_submit=0\n[bytes]\nstonewall\nrw=read\nsize=64m\ntime_based=0\n"
    "runtime=30\nnumjobs=2\noffset=1m\n";

TEST(FioSuite, SuiteXmlReadsBackToTheSameWorkloads) {
  const FioImport im = import_text(kMixedJobFile);
  ASSERT_EQ(im.suite.workloads.size(), 4u);
  const std::string xml = suite_xml_text(im.suite);
  const Suite back = Suite::parse(xml, "imported.xml");
  ASSERT_EQ(back.workloads.size(), im.suite.workloads.size()) << xml;
  for (std::size_t i = 0; i < back.workloads.size(); ++i)
    expect_same(back.workloads[i].spec, im.suite.workloads[i].spec);
  // rate_iops=500 is each direction's (fio's rate_ddir): 500 reads and 500 writes a second, so
  // the mix is the rates' 50/50 over rwmixwrite=30 (noted), 1000 I/Os a second in all.
  EXPECT_EQ(im.suite.workloads[1].spec.params.rwmixread, 50u);
  EXPECT_EQ(im.suite.workloads[1].spec.rate_iops, 1000);
  EXPECT_EQ(im.suite.workloads[3].spec.io_limit, 128ull << 20);
}

// storqual's own write contents (write_contents=stamp) have no fio option: the writers of the
// round trips below state fio's, which a fio job carries.
TEST(FioSuite, ExportedJobFileImportsToTheSameSuite) {
  const Suite original = Suite::parse(
      R"(<suite name="s"><defaults runtime="10s" ramp_time="1s"/>
<workload id="randread-4k-qd32" rw="randread" bs="4k" iodepth="32"/>
<workload id="mix" rw="randrw" rwmixread="70" bs="8k" iodepth="4" numjobs="4" ioengine="libaio"
  write_contents="scramble"/>
<workload id="seq" rw="write" bs="1m" iodepth="8" direct="0" size="1g" offset="1m" norandommap="1"
  iodepth_batch_submit="4" rate="1048576" write_contents="fixed"/>
<workload id="bytes" rw="read" bs="128k" numjobs="2" io_limit="256m" ioengine="psync"/>
</suite>)",
      "s.xml");
  const std::string job = fio_job_text(original, "/dev/zram9");
  const FioImport back = import_fio_jobs(parse_fio_job_text(job, "s.fio", test_env()), "s");
  ASSERT_EQ(back.suite.workloads.size(), original.workloads.size()) << job;
  for (std::size_t i = 0; i < original.workloads.size(); ++i)
    expect_same(back.suite.workloads[i].spec, original.workloads[i].spec);
}

TEST(FioSuite, GroupRoundTripsThroughSuiteXmlAndExport) {
  const Suite original = Suite::parse(
      R"(<suite name="s"><defaults runtime="10s" size="64m" ioengine="libaio"/>
<workload id="reader" direct="1">
  <job name="reader" rw="randread" bs="4k" iodepth="32"/>
  <job name="writer" rw="write" bs="128k" iodepth="4" numjobs="2" offset="64m"
    write_contents="refill"/>
</workload>
<workload id="after" rw="read" bs="1m"/>
</suite>)",
      "s.xml");
  const Suite xml_back = Suite::parse(suite_xml_text(original), "back.xml");
  ASSERT_EQ(xml_back.workloads.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    expect_same(xml_back.workloads[i].spec, original.workloads[i].spec);
  // The export: a section per job, a stonewall before the first only.
  const std::string job = fio_job_text(original, "/dev/zram9");
  EXPECT_NE(job.find("[reader]\nstonewall\n"), std::string::npos) << job;
  EXPECT_NE(job.find("[writer]\nioengine=libaio\n"), std::string::npos) << job;
  EXPECT_NE(job.find("[after]\nstonewall\n"), std::string::npos) << job;
  const FioImport back = import_fio_jobs(parse_fio_job_text(job, "s.fio", test_env()), "s");
  ASSERT_EQ(back.suite.workloads.size(), 2u) << job;
  for (std::size_t i = 0; i < 2; ++i)
    expect_same(back.suite.workloads[i].spec, original.workloads[i].spec);
}

// Every suite exports (docs/fio-files.md): what fio cannot run is a comment where it applies.
TEST(FioSuite, ExportSaysWhatFioCannotRun) {
  const Suite s =
      Suite::parse(R"(<suite name="s"><latency-search id="l" limit="1ms"/></suite>)", "s.xml");
  EXPECT_NE(fio_job_text(s, "").find("; storqual: 'l' is a <latency-search> method"),
            std::string::npos);
  const Suite rounds = Suite::parse(
      R"(<suite name="s"><workload id="r" rounds="5" round_time="1s"/></suite>)", "s.xml");
  EXPECT_NE(fio_job_text(rounds, "").find("; storqual: 'r' is a <workload> method"),
            std::string::npos);  // a <workload>, but timed
  const Suite e = Suite::parse(
      R"(<suite name="s"><workload id="e" runtime="10s" early_stop="ci:1%@95" max_size="1g"/></suite>)",
      "s.xml");
  const std::string job = fio_job_text(e, "");
  EXPECT_NE(job.find("; storqual: early_stop ci:1%@95 may end this job before its runtime"),
            std::string::npos)
      << job;
  EXPECT_NE(job.find("(add size=1g on a larger one)"), std::string::npos) << job;
  EXPECT_NE(job.find("[e]\nstonewall\n"), std::string::npos) << job;
  EXPECT_EQ(job.find("early_stop="), std::string::npos) << job;
}

TEST(FioSuite, ReapsAndAdvisesAsFioDoes) {
  // fio takes iodepth_batch_complete_max completions per reap, by default its minimum (one);
  // storqual's 0 (all that are ready) stands for a maximum that covers the depth.
  const FioImport im = import_text(
      "[global]\nioengine=libaio\niodepth=16\n[a]\nrw=randread\n[b]\nstonewall\nrw=read\n"
      "iodepth_batch_complete_min=4\n[c]\nstonewall\nrw=write\niodepth_batch_complete_max=16\n"
      "fadvise_hint=0\n[d]\nstonewall\nrw=randwrite\niodepth_batch_complete_max=8\n"
      "fadvise_hint=sequential\n[e]\nstonewall\niodepth_batch_complete=6\n"
      "iodepth_batch_complete_max=2\nfadvise_hint=random\n");
  ASSERT_EQ(im.suite.workloads.size(), 5u);
  const auto w = [&](std::size_t i) -> const WorkloadSpec& { return im.suite.workloads[i].spec; };
  EXPECT_EQ(w(0).iodepth_batch_complete_max, 1u);
  EXPECT_EQ(w(1).iodepth_batch_complete_max, 4u);
  EXPECT_EQ(w(2).iodepth_batch_complete_max, 0u);
  EXPECT_EQ(w(3).iodepth_batch_complete_max, 8u);
  EXPECT_EQ(w(4).iodepth_batch_complete_max, 6u) << "never below the minimum, as in fio";
  EXPECT_EQ(w(0).fadvise_hint, FadviseHint::Pattern);
  EXPECT_EQ(w(2).fadvise_hint, FadviseHint::None);
  EXPECT_EQ(w(3).fadvise_hint, FadviseHint::Sequential);
  EXPECT_EQ(w(4).fadvise_hint, FadviseHint::Random);
  EXPECT_NE(refusal("[a]\nfadvise_hint=willneed\n")
                .find("dir/t.fio:2: option "
                      "'fadvise_hint=willneed'"),
            std::string::npos)
      << refusal("[a]\nfadvise_hint=willneed\n");
  // The export makes fio reap as storqual does: every completion ready (its depth) unless set.
  const Suite s = Suite::parse(
      R"(<suite name="s"><workload id="q" rw="randread" iodepth="32" fadvise_hint="random"/>
<workload id="one" rw="read" iodepth="8" iodepth_batch_complete_max="1"/></suite>)",
      "s.xml");
  const std::string job = fio_job_text(s, "/dev/zram9");
  EXPECT_NE(job.find("iodepth=32\n"), std::string::npos) << job;
  EXPECT_NE(job.find("iodepth_batch_complete_max=32\n"), std::string::npos) << job;
  EXPECT_NE(job.find("iodepth_batch_complete_max=1\n"), std::string::npos) << job;
  EXPECT_NE(job.find("fadvise_hint=random\n"), std::string::npos) << job;
}

TEST(FioSuite, WritesCarryWhatFiosWritesCarry) {
  // fio scrambles by default; scramble_buffers=0 writes the buffer as it is, refill_buffers a new
  // random one (over scramble). A reader and a verifying writer keep storqual's own.
  const FioImport im = import_text(
      "[global]\nrw=randwrite\n[a]\n[b]\nstonewall\nscramble_buffers=0\n[c]\nstonewall\n"
      "refill_buffers\nscramble_buffers=1\n[d]\nstonewall\nrw=randread\n[e]\nstonewall\n"
      "verify=crc32c\n[f]\nstonewall\nrw=randrw\nscramble_buffers=1\n");
  ASSERT_EQ(im.suite.workloads.size(), 6u);
  const auto c = [&](std::size_t i) { return im.suite.workloads[i].spec.write_contents; };
  EXPECT_EQ(c(0), WriteContents::Scramble);
  EXPECT_EQ(c(1), WriteContents::Fixed);
  EXPECT_EQ(c(2), WriteContents::Refill);
  EXPECT_EQ(c(3), WriteContents::Stamp) << "a reader writes nothing";
  EXPECT_EQ(c(4), WriteContents::Stamp) << "verify writes its own blocks";
  EXPECT_EQ(c(5), WriteContents::Scramble);
  const std::string xml = suite_xml_text(im.suite);
  EXPECT_NE(xml.find(R"(write_contents="fixed")"), std::string::npos) << xml;
  EXPECT_NE(refusal("[a]\nscramble_buffers=2\n").find("dir/t.fio:2: option 'scramble_buffers=2'"),
            std::string::npos);
  EXPECT_NE(refusal("[a]\nzero_buffers\n").find("no equivalent of fio's 'zero_buffers'"),
            std::string::npos);
  // The export asks fio for the same contents, and imported back each is the same.
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  EXPECT_NE(job.find("[b]\nstonewall\n"), std::string::npos) << job;
  EXPECT_NE(job.find("scramble_buffers=0\n"), std::string::npos) << job;
  EXPECT_NE(job.find("refill_buffers=1\n"), std::string::npos) << job;
  const FioImport back = import_text(job);
  ASSERT_EQ(back.suite.workloads.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(back.suite.workloads[i].spec.write_contents, c(i)) << i;
  // storqual's own contents have no fio option: the export says so.
  EXPECT_NE(job.find("write_contents=stamp), has no fio option"), std::string::npos) << job;
}

TEST(FioSuite, CommandLineAndFileGiveTheSameSuite) {
  const FioImport file = import_text(
      "[global]\nrw=randrw\nrwmixwrite=30\nbs=4k\nsize=1g\n[a]\niodepth=16\n[b]\nstonewall\n"
      "rw=read\n");
  const FioImport cmd = import_fio_jobs(
      parse_fio_command_line("fio --rw=randrw --rwmixwrite=30 --bs=4k --size=1g --name=a "
                             "--iodepth=16 --name=b --stonewall --rw=read",
                             test_env()),
      "t");
  ASSERT_EQ(cmd.suite.workloads.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    expect_same(cmd.suite.workloads[i].spec, file.suite.workloads[i].spec);
}

// Rate control as fio's: rate and its minimum per direction, rate_process, rate_cycle, startdelay
// per member job, think time in fio's units (microseconds when the unit is omitted).
TEST(FioSuite, TakesFiosPacing) {
  const FioImport im = import_text(
      "[global]\nsize=32m\nrw=read\nrate=1250\nratemin=1024\n[file1]\nstartdelay=0\n"
      "[file2]\nstartdelay=4\n[poisson]\nstonewall\nrw=randread\nioengine=libaio\niodepth=32\n"
      "io_submit_mode=offload\nrate_iops=50\nrate_process=poisson\nrate_cycle=500\n"
      "[think]\nstonewall\nthinktime=2000\nthinktime_spin=500\nthinktime_blocks=4\n"
      "startdelay=1-3\n");
  ASSERT_EQ(im.suite.workloads.size(), 3u);
  const WorkloadSpec& clients = im.suite.workloads[0].spec;
  ASSERT_EQ(clients.jobs.size(), 2u);
  const auto members = group_members(clients);
  EXPECT_EQ(members[0].rate_bytes, 1250u);
  EXPECT_EQ(members[0].rate_min_bytes, 1024u);
  EXPECT_EQ(members[0].startdelay_s, 0);
  EXPECT_EQ(members[1].startdelay_s, 4);
  const WorkloadSpec& poisson = im.suite.workloads[1].spec;
  EXPECT_TRUE(poisson.rate_poisson);
  EXPECT_EQ(poisson.rate_iops, 50);
  EXPECT_EQ(poisson.rate_cycle_s, 0.5);
  const bool offload_noted = std::any_of(im.ignored.begin(), im.ignored.end(), [](auto& n) {
    return n.find("'io_submit_mode' ignored") != std::string::npos;
  });
  EXPECT_TRUE(offload_noted);
  const WorkloadSpec& think = im.suite.workloads[2].spec;
  EXPECT_DOUBLE_EQ(think.thinktime_s, 0.002);
  EXPECT_DOUBLE_EQ(think.thinktime_spin_s, 0.0005);
  EXPECT_EQ(think.thinktime_blocks, 4u);
  EXPECT_EQ(think.startdelay_s, 1);
  EXPECT_EQ(think.startdelay_max_s, 3);
  // The suite XML and fio's job file carry them back.
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  ASSERT_EQ(back.workloads.size(), 3u);
  EXPECT_EQ(pacing_options(back.workloads[2].spec), pacing_options(think));
  EXPECT_EQ(pacing_options(back.workloads[1].spec), pacing_options(poisson));
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  for (const char* line :
       {"ratemin=1024\n", "startdelay=4s\n", "rate_process=poisson\n", "rate_cycle=500\n",
        "thinktime=2ms\n", "thinktime_spin=500us\n", "thinktime_blocks=4\n", "startdelay=1s-3s\n"})
    EXPECT_NE(job.find(line), std::string::npos) << line << job;
}

// A job that reads and writes: fio paces each direction; storqual takes the total in the rates'
// mix, and exports it split by rwmixread again. One direction paced alone is refused.
TEST(FioSuite, RatesPerDirection) {
  const FioImport im = import_text("[mix]\nrw=randrw\nrate_iops=300,100\nrate_iops_min=30,10\n");
  const WorkloadSpec& w = im.suite.workloads.at(0).spec;
  EXPECT_EQ(w.rate_iops, 400);
  EXPECT_EQ(w.rate_iops_min, 40);
  EXPECT_EQ(w.params.rwmixread, 75u);
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  EXPECT_NE(job.find("rate_iops=300,100\n"), std::string::npos) << job;
  EXPECT_NE(job.find("rate_iops_min=30,10\n"), std::string::npos) << job;
  EXPECT_EQ(import_text("[w]\nrw=write\nrate=,1m\n").suite.workloads.at(0).spec.rate_bytes,
            1u << 20);
  EXPECT_EQ(import_text("[r]\nrw=read\nrate=,1m\n").suite.workloads.at(0).spec.rate_bytes, 0u);
  const std::string why = refusal("[mix]\nrw=randrw\nrate=,1m\n");
  EXPECT_NE(why.find("option 'rate': one direction paced"), std::string::npos) << why;
  const std::string issue = refusal("[j]\nthinktime=10\nthinktime_blocks_type=issue\n");
  EXPECT_NE(issue.find("option 'thinktime_blocks_type=issue'"), std::string::npos) << issue;
}

// rw=MODE:N (holes, backwards), number_ios and ioengine=sync (taken as psync, noted).
TEST(FioSuite, OffsetModifierNumberIosAndSync) {
  const FioImport im = import_text(
      "[back]\nrw=read:-8k\nsize=64k\n[holes]\nstonewall\nrw=write:8k\nsize=64k\nnumber_ios=4\n"
      "[sync]\nstonewall\nioengine=sync\nrw=read:8k\nrw=read\nsize=64k\n");
  ASSERT_EQ(im.suite.workloads.size(), 3u);
  EXPECT_EQ(im.suite.workloads[0].spec.seq_add, -8192);
  EXPECT_EQ(im.suite.workloads[0].spec.params.rw, "read");
  EXPECT_EQ(im.suite.workloads[1].spec.seq_add, 8192);
  EXPECT_EQ(im.suite.workloads[1].spec.number_ios, 4u);
  const WorkloadSpec& sync = im.suite.workloads[2].spec;
  EXPECT_EQ(sync.params.ioengine, "psync");
  EXPECT_EQ(sync.seq_add, 0);  // a later rw= without a modifier drops it, as fio's
  const bool noted = std::any_of(im.ignored.begin(), im.ignored.end(), [](auto& n) {
    return n.find("option 'ioengine=sync' taken as psync") != std::string::npos;
  });
  EXPECT_TRUE(noted);
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  EXPECT_EQ(back.workloads.at(0).spec.seq_add, -8192);
  EXPECT_EQ(back.workloads.at(1).spec.number_ios, 4u);
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  for (const char* line : {"rw=read:-8k\n", "rw=write:8k\n", "number_ios=4\n"})
    EXPECT_NE(job.find(line), std::string::npos) << line << job;
  const FioImport stripes =
      import_text("[s]\nrw=write\nsize=1m\nnumjobs=4\noffset_increment=124g\n");
  EXPECT_EQ(stripes.suite.workloads.at(0).spec.offset_increment, 124ull << 30);
  EXPECT_NE(fio_job_text(stripes.suite, "/dev/zram9").find("offset_increment=124g\n"),
            std::string::npos);
  EXPECT_NE(refusal("[r]\nrw=randread:8\n").find("an offset modifier on random I/O"),
            std::string::npos);
  EXPECT_NE(refusal("[r]\nrw=read:6k\nsize=64k\n").find("not a multiple of bs"), std::string::npos);
}

// fio's file creation and layout, error dump and verify offload shape nothing storqual runs:
// each noted with what storqual does (surface-scan.fio's create_serialize, enospc-pressure.fio's
// error_dump, fallocate, create_on_open, verify_async, verify_fatal).
TEST(FioSuite, FileCreationAndVerifyOffloadAreNoted) {
  const FioImport im = import_text(
      "[global]\nsize=1m\ndirect=1\ncreate_serialize=0\nerror_dump=0\nfallocate=none\n"
      "[w]\nrw=randwrite\ncreate_on_open=1\nverify=crc32c\nverify_async=4\nverify_fatal=1\n");
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  EXPECT_EQ(im.suite.workloads[0].spec.verify, VerifyAlgorithm::Crc32c);
  for (const char* option : {"create_serialize", "error_dump", "fallocate", "create_on_open",
                             "verify_async", "verify_fatal"}) {
    const std::string want = std::string("option '") + option + "' ignored: ";
    EXPECT_TRUE(std::any_of(im.ignored.begin(), im.ignored.end(), [&](const std::string& n) {
      return n.find(want) != std::string::npos;
    })) << option;
  }
  // surface-scan.fio is then refused for its verify and fill_device options only.
  const std::string why = refusal(
      "[global]\nthread\nbs=64k\ndirect=1\nioengine=sync\nverify=meta\n"
      "verify_pattern=0xaa555aa5\nverify_interval=512\n[write-phase]\nfilename=datafile.tmp\n"
      "rw=write\nfill_device=1\ndo_verify=0\n[verify-phase]\nstonewall\ncreate_serialize=0\n"
      "filename=datafile.tmp\nrw=read\ndo_verify=1\n");
  EXPECT_NE(why.find("4 things"), std::string::npos) << why;
  EXPECT_EQ(why.find("create_serialize"), std::string::npos) << why;
}

}  // namespace
}  // namespace storqual::runner
