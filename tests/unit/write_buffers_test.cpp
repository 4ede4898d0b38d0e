// SPDX-License-Identifier: Apache-2.0
// fio's compressible and deduplicable write buffers (runner/measure/write_buffers.hpp): the shape
// of a chunk, what repeats, the checks, and the options through the suite XML and fio's job file
// (tests/system/write_buffers_run_test.cpp holds the bytes against fio's own).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"
#include "runner/measure/write_buffers.hpp"
#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/fio_text.hpp"

namespace storqual::runner {
namespace {

std::size_t zeros(const unsigned char* p, std::size_t n) {
  std::size_t z = 0;
  for (std::size_t i = 0; i < n; ++i) z += p[i] == 0;
  return z;
}

TEST(WriteBuffers, AChunkIsRandomBytesThenZeros) {
  std::vector<unsigned char> buf(4096, 0xee);
  fill_random_percentage(0x9E3779B97F4A7C15ull, buf.data(), 50, 512, 4096);
  for (std::size_t at = 0; at < 4096; at += 512) {
    // Every segment: its share of random bytes from the one seed, then zeros.
    EXPECT_EQ(zeros(buf.data() + at + 256, 256), 256u) << "segment at " << at;
  }
  EXPECT_LT(zeros(buf.data(), 256), 8u) << "the random part is random";
  fill_random_percentage(1, buf.data(), 100, 512, 4096);
  EXPECT_EQ(zeros(buf.data(), 4096), 4096u);
  fill_random_percentage(0x2545F4914F6CDD1Dull, buf.data(), 0, 512, 4096);
  EXPECT_LT(zeros(buf.data(), 4096), 64u);
}

std::vector<std::string> writes(const BufferShape& shape, unsigned n, unsigned thread = 1,
                                unsigned threads = 1) {
  FioBufferFill fill(shape, {.size = 1u << 20,
                             .min_write = 4096,
                             .thread_number = thread,
                             .threads = threads,
                             .use64 = false});
  std::vector<std::string> out;
  std::string buf(4096, '\0');
  for (unsigned i = 0; i < n; ++i) {
    fill.fill(buf.data(), 4096);
    out.push_back(buf);
  }
  return out;
}

std::size_t distinct(const std::vector<std::string>& v) {
  return std::set<std::string>(v.begin(), v.end()).size();
}

TEST(WriteBuffers, WhatRepeats) {
  BufferShape compress;
  compress.compress_percentage = 25;
  EXPECT_EQ(distinct(writes(compress, 200)), 200u) << "compressible, never repeated";
  EXPECT_EQ(writes(compress, 3), writes(compress, 3)) << "fio's seeds: the same every run";
  EXPECT_NE(writes(compress, 3, 2), writes(compress, 3, 1)) << "each job its own seed";

  BufferShape all;
  all.dedupe_percentage = 100;
  EXPECT_EQ(distinct(writes(all, 50)), 1u);

  BufferShape half;
  half.dedupe_percentage = 50;
  const std::size_t unique = distinct(writes(half, 1000));
  EXPECT_GT(unique, 400u);
  EXPECT_LT(unique, 600u);

  // A working set of 5% of 1 MiB: 12 pages; repeated writes come from those only.
  BufferShape set = half;
  set.dedupe_mode = DedupeMode::WorkingSet;
  EXPECT_EQ(working_set_pages(set, 1u << 20, 4096), 12u);
  const auto w = writes(set, 400);
  EXPECT_LT(distinct(w), 400u);
  EXPECT_GT(distinct(w), 150u);

  // dedupe_global: job 2's set takes job 1's first state for its second half of the pages, so
  // the two jobs write some blocks alike; without it, none.
  set.dedupe_working_set_percentage = 50;
  const auto shared = [&](bool global) {
    set.dedupe_global = global;
    const auto a = writes(set, 300, 1, 2), b = writes(set, 300, 2, 2);
    const std::set<std::string> sa(a.begin(), a.end());
    std::size_t n = 0;
    for (const auto& x : b) n += sa.count(x);
    return n;
  };
  EXPECT_EQ(shared(false), 0u);
  EXPECT_GT(shared(true), 0u);
}

WorkloadSpec writer() {
  WorkloadSpec w;
  w.id = "w";
  w.params.rw = "write";
  w.params.bs = 4096;
  w.params.size = 1u << 20;
  return w;
}

std::string why_invalid(WorkloadSpec w) {
  try {
    validate(w);
  } catch (const UnitError& e) {
    return e.what();
  }
  return "valid";
}

TEST(WriteBuffers, Checks) {
  WorkloadSpec w = writer();
  set_workload_option(w, "dedupe_percentage", "60");
  set_workload_option(w, "dedupe_mode", "working_set");
  set_workload_option(w, "dedupe_working_set_percentage", "50");
  EXPECT_NE(why_invalid(w).find("cannot be reached"), std::string::npos) << why_invalid(w);
  set_workload_option(w, "dedupe_working_set_percentage", "40");
  EXPECT_EQ(why_invalid(w), "valid");
  w.params.size = 0;
  EXPECT_NE(why_invalid(w).find("needs a size"), std::string::npos) << why_invalid(w);
  w = writer();
  set_workload_option(w, "buffer_compress_percentage", "50");
  w.verify = VerifyAlgorithm::Xxh3;
  EXPECT_NE(why_invalid(w).find("with verify"), std::string::npos);
  w.verify = VerifyAlgorithm::None;
  w.write_contents = WriteContents::Fixed;
  EXPECT_NE(why_invalid(w).find("write_contents=fixed"), std::string::npos);
  EXPECT_THROW(set_workload_option(w, "buffer_compress_percentage", "101"), UnitError);
  EXPECT_THROW(set_workload_option(w, "dedupe_mode", "sometimes"), UnitError);
}

FioEnvironment test_env() {
  return testing::fio_test_environment();
}

// fio's examples/dedupe-global.fio's options: imported (two jobs alike, one workload of
// numjobs=2), through the suite XML and fio's job file back with the same values.
TEST(WriteBuffers, ImportAndExport) {
  const std::string text =
      "[global]\nioengine=libaio\niodepth=256\nsize=100m\ndedupe_mode=working_set\n"
      "dedupe_global=1\ndedupe_percentage=50\nblocksize=4k\nrw=write\n"
      "buffer_compress_percentage=50\ndedupe_working_set_percentage=50\n"
      "buffer_compress_chunk=1k\n[a]\n[b]\n";
  const FioImport im = import_fio_jobs(parse_fio_job_text(text, "d.fio", test_env()), "d");
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  const WorkloadSpec& w = im.suite.workloads[0].spec;
  EXPECT_EQ(w.params.numjobs, 2u);
  EXPECT_EQ(w.buffers.compress_percentage, 50u);
  EXPECT_EQ(w.buffers.compress_chunk, 1024u);
  EXPECT_EQ(w.buffers.dedupe_percentage, 50u);
  EXPECT_EQ(w.buffers.dedupe_mode, DedupeMode::WorkingSet);
  EXPECT_EQ(w.buffers.dedupe_working_set_percentage, 50u);
  EXPECT_TRUE(w.buffers.dedupe_global);
  EXPECT_EQ(w.write_contents, WriteContents::Refill) << "fio sets refill_buffers for them";
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  EXPECT_EQ(back.workloads.at(0).spec.buffers, w.buffers);
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  const FioImport again = import_fio_jobs(parse_fio_job_text(job, "e.fio", test_env()), "e");
  EXPECT_EQ(again.suite.workloads.at(0).spec.buffers, w.buffers) << job;
  const std::string cmd = fio_command(w);
  for (const char* o : {"--buffer_compress_percentage=50", "--buffer_compress_chunk=1024",
                        "--dedupe_mode=working_set", "--dedupe_global=1"})
    EXPECT_NE(cmd.find(o), std::string::npos) << o << " in " << cmd;
}

}  // namespace
}  // namespace storqual::runner
