// SPDX-License-Identifier: Apache-2.0
// fio's JSON read into the result model (runner/specs/fio_json.hpp) on real fio 3.33 output
// (tests/data/fio-json/README.md): percentiles from json+ bins equal fio's own list exactly, global
// options under job options, group_reporting, numjobs copies summed, client/server output, text
// before the JSON, errors naming the file and the key; the matching rule; what fio's output cannot
// decide (runner/judge/fio_verdicts.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runner/base/xml_file.hpp"
#include "runner/judge/fio_verdicts.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/tail_samples.hpp"
#include "runner/specs/fio_json.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using runner::FileError;
using runner::FioJsonOutput;

const fs::path kData = fs::path(STORQUAL_TEST_DATA) / "fio-json";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// fio's JSON as a test reads it independently of the parser (after fio's text lines).
nlohmann::json raw(const std::string& name) {
  const std::string text = slurp(kData / name);
  return nlohmann::json::parse(text.substr(text.find('{')));
}

std::string refusal(const std::string& text) {
  try {
    (void)runner::parse_fio_json(text, "out.json");
  } catch (const FileError& e) {
    return e.what();
  }
  return "";
}

// Every latency kind with bins in every entry of every file: the bins, through the parser's own
// percentile function, give exactly fio's listed values (stat.c's calc_clat_percentiles).
TEST(FioJson, BinPercentilesEqualFiosOwnListExactly) {
  int compared = 0;
  for (const char* file :
       {"randread-jsonplus.json", "randwrite-numjobs2.json", "mix-group-reporting-lat.json"}) {
    const auto top = raw(file);
    for (const auto& job : top["jobs"])
      for (const char* dir : {"read", "write"})
        for (const char* kind : {"clat_ns", "lat_ns"}) {
          const auto& lat = job[dir][kind];
          if (!lat.contains("bins")) continue;
          std::vector<std::pair<std::uint64_t, std::uint64_t>> bins;
          for (const auto& [v, n] : lat["bins"].items())
            bins.emplace_back(std::stoull(v), n.get<std::uint64_t>());
          const auto mine = runner::fio_bin_percentiles(bins, lat["N"].get<std::uint64_t>(),
                                                        runner::kFioPercentiles);
          ASSERT_EQ(mine.size(), lat["percentile"].size()) << file << " " << dir << " " << kind;
          for (const auto& [p, ns] : mine) {
            char key[32];
            std::snprintf(key, sizeof key, "%f", p);
            EXPECT_EQ(ns, lat["percentile"][key].get<std::uint64_t>())
                << file << " " << dir << " " << kind << " p" << p;
            ++compared;
          }
        }
  }
  EXPECT_GE(compared, 17 * 5);  // randread clat; two copies' clat; mix read+write clat and lat
}

TEST(FioJson, JsonPlusAddsEveryClaimablePercentileAndKeepsFiosList) {
  const FioJsonOutput out = runner::load_fio_json(kData / "randread-jsonplus.json");
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.version, "fio-3.33");
  const auto& r = out.jobs[0].result;
  ASSERT_TRUE(r.read);
  EXPECT_FALSE(r.write);
  const auto& clat = r.read->clat;
  EXPECT_EQ(clat.percentiles.size(), runner::kClaimablePercentiles.size());
  const auto top = raw("randread-jsonplus.json");
  const auto& listed = top["jobs"][0]["read"]["clat_ns"]["percentile"];
  for (const auto& [p, ns] : clat.percentiles) {
    char key[32];
    std::snprintf(key, sizeof key, "%f", p);
    if (listed.contains(key)) {
      EXPECT_EQ(ns, listed[key].get<std::uint64_t>()) << p;
    }
  }
  EXPECT_EQ(clat.samples, top["jobs"][0]["read"]["clat_ns"]["N"].get<std::uint64_t>());
  EXPECT_EQ(r.read->ios, top["jobs"][0]["read"]["total_ios"].get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(r.read->iops, top["jobs"][0]["read"]["iops"].get<double>());
  EXPECT_TRUE(r.read->lat.percentiles.empty());  // lat_percentiles=0: clat's only
  EXPECT_EQ(r.params.rw, "randread");
  EXPECT_EQ(r.params.ioengine, "psync");
  EXPECT_TRUE(r.params.direct);
  EXPECT_EQ(r.params.size, 16u << 20);
  EXPECT_DOUBLE_EQ(r.params.runtime_s, 1);
}

TEST(FioJson, PlainJsonKeepsFiosListOnly) {
  const FioJsonOutput out = runner::load_fio_json(kData / "randread-json.json");
  const auto& clat = out.jobs.at(0).result.read->clat;
  EXPECT_EQ(clat.percentiles.size(), runner::kFioPercentiles.size());
  EXPECT_EQ(out.jobs[0].result.params.iodepth, 16u);
  EXPECT_EQ(out.jobs[0].result.params.ioengine, "libaio");
}

// fio's steady state (ss=iops:50% ss_dur=2): its "steadystate" object read as the result's, with
// the job's runtime as when it was attained (fio ends the job there).
TEST(FioJson, SteadyStateIsFiosObject) {
  const FioJsonOutput out = runner::load_fio_json(kData / "steadystate-null.json");
  const auto& r = out.jobs.at(0).result;
  ASSERT_TRUE(r.steadystate);
  const auto& ss = *r.steadystate;
  EXPECT_EQ(ss.ss, "iops:50.000000%");
  EXPECT_EQ(ss.duration, 2u);
  EXPECT_TRUE(ss.attained);
  EXPECT_DOUBLE_EQ(ss.attained_at_s, r.elapsed_s);
  EXPECT_NEAR(r.elapsed_s, 1.901, 1e-9);
  EXPECT_TRUE(ss.percent);
  EXPECT_DOUBLE_EQ(ss.criterion, 14.006352);
  EXPECT_DOUBLE_EQ(ss.max_deviation, 621197.5);
  EXPECT_EQ(ss.iops, (std::vector<std::uint64_t>{5056310, 3813915}));
  EXPECT_EQ(ss.bw, (std::vector<std::uint64_t>{20710648277ull, 15621797227ull}));
  EXPECT_EQ(ss.iops_mean, 4435112u);
  EXPECT_EQ(ss.bw_mean, 18166222752ull);
  EXPECT_FALSE(runner::load_fio_json(kData / "randread-json.json").jobs.at(0).result.steadystate);
}

TEST(FioJson, GlobalOptionsUnderJobOptionsAndGroupReporting) {
  const FioJsonOutput out = runner::load_fio_json(kData / "mix-group-reporting-lat.json");
  ASSERT_EQ(out.jobs.size(), 1u);  // group_reporting: one entry for the two jobs
  const auto& j = out.jobs[0];
  EXPECT_EQ(j.options.at("size"), "16m");      // from "global options"
  EXPECT_EQ(j.options.at("rwmixread"), "70");  // from "job options"
  const auto& p = j.result.params;
  EXPECT_EQ(p.rw, "randrw");
  EXPECT_EQ(p.rwmixread, 70u);
  EXPECT_EQ(p.numjobs, 2u);
  EXPECT_EQ(p.bs, 4096u);
  ASSERT_TRUE(j.result.read && j.result.write);
  EXPECT_GT(j.result.read->ios, j.result.write->ios);  // 70/30
  EXPECT_EQ(j.result.write->lat.percentiles.size(), runner::kClaimablePercentiles.size());
}

TEST(FioJson, CopiesOfOneJobWithoutGroupReportingAreSummed) {
  const FioJsonOutput out = runner::load_fio_json(kData / "randwrite-numjobs2.json");
  const auto top = raw("randwrite-numjobs2.json");
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.jobs[0].entries, 2u);
  const auto& w = *out.jobs[0].result.write;
  EXPECT_EQ(w.ios, top["jobs"][0]["write"]["total_ios"].get<std::uint64_t>() +
                       top["jobs"][1]["write"]["total_ios"].get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(w.iops, top["jobs"][0]["write"]["iops"].get<double>() +
                               top["jobs"][1]["write"]["iops"].get<double>());
  EXPECT_EQ(w.clat.samples, w.ios);
  EXPECT_EQ(w.clat.max_ns,
            std::max(top["jobs"][0]["write"]["clat_ns"]["max"].get<std::uint64_t>(),
                     top["jobs"][1]["write"]["clat_ns"]["max"].get<std::uint64_t>()));
  EXPECT_EQ(w.clat.percentiles.size(), runner::kClaimablePercentiles.size());  // merged bins
  ASSERT_FALSE(out.notes.empty());
  EXPECT_NE(out.notes[0].find("2 entries"), std::string::npos) << out.notes[0];
}

TEST(FioJson, ClientServerOutputWithTextBeforeIt) {
  const FioJsonOutput out = runner::load_fio_json(kData / "client-server-two-hosts.json");
  ASSERT_FALSE(out.notes.empty());
  EXPECT_NE(out.notes[0].find("bytes of text before the JSON"), std::string::npos);
  EXPECT_NE(out.notes[0].find("<vm> mix"), std::string::npos) << out.notes[0];
  const auto hosts = out.hosts();
  ASSERT_EQ(hosts.size(), 2u);
  ASSERT_EQ(out.jobs.size(), 3u);
  EXPECT_TRUE(out.jobs[2].all_clients);
  EXPECT_EQ(out.jobs[0].options.at("rwmixread"), "70");
  EXPECT_EQ(out.jobs[0].options.at("size"), "16m");
  EXPECT_NEAR(out.jobs[2].result.read->iops,
              out.jobs[0].result.read->iops + out.jobs[1].result.read->iops, 1);
}

TEST(FioJson, BadInputNamesTheFileAndWhatIsWrong) {
  EXPECT_NE(refusal("").find("out.json: no JSON object"), std::string::npos);
  EXPECT_NE(refusal("{ \"fio version\": ").find("out.json: not valid JSON"), std::string::npos);
  EXPECT_NE(refusal("{\"jobs\":[]}").find("out.json: no \"fio version\""), std::string::npos);
  EXPECT_NE(refusal("{\"fio version\":\"fio-3.33\",\"jobs\":[]}").find("no \"jobs\""),
            std::string::npos);
  const std::string bad_iops =
      refusal(R"({"fio version":"fio-3.33","jobs":[{"jobname":"a","read":{"iops":"x"}}]})");
  EXPECT_NE(bad_iops.find("out.json: jobs[0].read.iops: expected a number"), std::string::npos)
      << bad_iops;
  const std::string bad_bs =
      refusal(R"({"fio version":"fio-3.33","jobs":[{"jobname":"a","job options":{"bs":"lots"}}]})");
  EXPECT_NE(bad_bs.find("job 'a'"), std::string::npos) << bad_bs;
  EXPECT_NE(bad_bs.find("option 'bs=lots'"), std::string::npos) << bad_bs;
  // One percentile twice ("5.000000" and "05.000000"): found by fuzz_fio_json, whose input stays
  // in the corpus (crash-c5adccb0...).
  const std::string twice =
      refusal(R"({"fio version":"fio-3.33","jobs":[{"jobname":"a","read":{"clat_ns":{"N":1,)"
              R"("percentile":{"5.000000":1,"05.000000":2}}}}]})");
  EXPECT_NE(twice.find("jobs[0].read.clat_ns.percentile: '5.000000' lists the percentile "
                       "5.000000 again"),
            std::string::npos)
      << twice;
  EXPECT_NE(refusal("{\"fio version\":" + std::string(200, '['))
                .find("out.json: JSON nested deeper than 64"),
            std::string::npos);
}

// A job's sizes as fio read them: KiB is the other base than kb_base (fio's quirk), bs=R,W takes
// the direction the job does.
TEST(FioJson, SizesAsFioReadsThem) {
  auto bs_of = [](const std::string& options) {
    const auto out = runner::parse_fio_json(
        R"({"fio version":"fio-3.33","jobs":[{"jobname":"a","job options":{)" + options + "}}]}",
        "out.json");
    return out.jobs.at(0).result.params.bs;
  };
  EXPECT_EQ(bs_of(R"("bs":"4k")"), 4096u);
  EXPECT_EQ(bs_of(R"("bs":"4KiB")"), 4000u);
  EXPECT_EQ(bs_of(R"("bs":"4k","kb_base":"1000")"), 4000u);
  EXPECT_EQ(bs_of(R"("bs":"4k,16k,8k","rw":"randwrite")"), 16384u);
  EXPECT_EQ(bs_of(R"("bs":"4k,16k","rw":"randrw")"), 4096u);
}

runner::FioJsonJob job(const std::string& name, const std::string& rw, std::uint64_t bs,
                       unsigned iodepth, unsigned numjobs = 1, unsigned mix = 50) {
  runner::FioJsonJob j;
  j.name = name;
  j.result.id = name;
  j.result.params.rw = rw;
  j.result.params.bs = bs;
  j.result.params.iodepth = iodepth;
  j.result.params.numjobs = numjobs;
  j.result.params.rwmixread = mix;
  j.result.params.runtime_s = 1;
  j.result.params.size = 16u << 20;
  return j;
}

// Three different jobs fio ran together (one groupid): each its own entry, and one group of them,
// summed as numjobs copies are, with the readers' bins merged; a group workload whose jobs are
// those names takes the group by name, its jobs in the suite's order, differences per job.
TEST(FioJson, AGroupOfDifferentJobsIsAGroupWorkloadsResult) {
  const FioJsonOutput out = runner::load_fio_json(kData / "group-three-jobs.json");
  const auto top = raw("group-three-jobs.json");
  ASSERT_EQ(out.jobs.size(), 3u);
  ASSERT_EQ(out.groups.size(), 1u);
  const runner::FioJsonJob& g = out.groups[0];
  ASSERT_EQ(g.result.jobs.size(), 3u);
  EXPECT_EQ(g.result.jobs[0].id, "reader1");
  EXPECT_EQ(g.result.jobs[2].id, "writer");
  EXPECT_FALSE(g.result.jobs[0].write.has_value() && g.result.jobs[0].write->ios > 0);
  const std::uint64_t r1 = top["jobs"][0]["read"]["total_ios"].get<std::uint64_t>();
  const std::uint64_t r2 = top["jobs"][1]["read"]["total_ios"].get<std::uint64_t>();
  ASSERT_TRUE(g.result.read && g.result.write);
  EXPECT_EQ(g.result.read->ios, r1 + r2);
  EXPECT_EQ(g.result.read->clat.samples, r1 + r2);
  EXPECT_DOUBLE_EQ(g.result.read->iops, top["jobs"][0]["read"]["iops"].get<double>() +
                                            top["jobs"][1]["read"]["iops"].get<double>());
  EXPECT_EQ(g.result.write->ios, top["jobs"][2]["write"]["total_ios"].get<std::uint64_t>());
  EXPECT_EQ(g.result.read->clat.percentiles.size(), runner::kClaimablePercentiles.size());
  EXPECT_EQ(g.result.params.numjobs, 3u);

  const runner::Suite suite = runner::Suite::parse(R"(<suite name="s">
  <defaults direct="1" runtime="1s" size="16m" bs="4k"/>
  <workload id="mixed">
    <job name="writer" rw="randwrite" ioengine="libaio" iodepth="2"/>
    <job name="reader1" rw="randread" ioengine="psync"/>
    <job name="reader2" rw="randread" ioengine="libaio" iodepth="16"/>
  </workload>
</suite>)",
                                                   "s.xml");
  const auto jobs = runner::fold_fio_groups(suite, out.jobs, out.groups);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].name, "mixed");
  ASSERT_EQ(jobs[0].result.jobs.size(), 3u);
  EXPECT_EQ(jobs[0].result.jobs[0].id, "writer");  // the suite's order
  EXPECT_EQ(jobs[0].result.jobs[1].id, "reader1");
  const auto m = runner::match_fio_jobs(suite, jobs);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].workload, "mixed");
  EXPECT_EQ(m[0].how, "by its jobs' names");
  EXPECT_EQ(m[0].job, "writer, reader1, reader2 (fio group 0)");
  EXPECT_EQ(m[0].differences, std::vector<std::string>{"job reader2: iodepth 8 (suite: 16)"});
  // Other names: no group workload takes fio's group, its jobs stay as they are.
  const runner::Suite other = runner::Suite::parse(R"(<suite name="o">
  <workload id="m"><job name="a" rw="randread"/><job name="b" rw="write"/></workload>
</suite>)",
                                                   "o.xml");
  EXPECT_EQ(runner::fold_fio_groups(other, out.jobs, out.groups).size(), 3u);
}

TEST(FioJson, MatchingRule) {
  const runner::Suite suite = runner::Suite::parse(R"(<suite name="s" description="matching">
  <defaults direct="1" runtime="1s" size="16m"/>
  <workload id="rr" rw="randread" bs="4k" iodepth="16"/>
  <workload id="mix4k" rw="randrw" bs="4k" iodepth="4" numjobs="4" rwmixread="70"/>
  <workload id="mix8k" rw="randrw" bs="8k" iodepth="4" numjobs="4" rwmixread="70"/>
  <workload id="w1" rw="write" bs="1m" iodepth="1"/>
  <workload id="w2" rw="write" bs="1m" iodepth="1"/>
</suite>)",
                                                   "s.xml");
  const std::vector<runner::FioJsonJob> jobs = {
      job("rr", "randread", 8192, 1),      // by name, though its options differ
      job("a", "randrw", 8192, 4, 4, 70),  // by options: mix8k
      job("b", "randrw", 4096, 4, 4, 50),  // a 50/50 mix is no 70/30 one
      job("c", "write", 1 << 20, 1),       // fits w1 and w2
      job("d", "randread", 4096, 16),      // would be rr, which "rr" took by name
  };
  const auto m = runner::match_fio_jobs(suite, jobs);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].workload, "rr");
  EXPECT_EQ(m[0].how, "by name");
  EXPECT_EQ(m[0].differences.size(), 2u);  // bs and iodepth
  EXPECT_EQ(m[1].workload, "mix8k");
  EXPECT_EQ(m[2].workload, "");
  EXPECT_NE(m[2].how.find("no workload"), std::string::npos);
  EXPECT_EQ(m[3].workload, "");
  EXPECT_NE(m[3].how.find("2 workloads (w1, w2)"), std::string::npos) << m[3].how;
  EXPECT_EQ(m[4].workload, "");
}

// A claim fio's output cannot decide: inconclusive with the reason, not an error. fio's list here
// lacks p99.9, as with --percentile_list without it; p99.999 needs more I/Os than 1 s gave.
TEST(FioJson, WhatFiosOutputCannotDecide) {
  const runner::Suite suite = runner::Suite::parse(
      R"(<suite name="s" description="one"><workload id="randread-4k-qd16" rw="randread" bs="4k" iodepth="16" runtime="1s" size="16m"/></suite>)",
      "s.xml");
  const runner::SpecSheet sheet =
      runner::SpecSheet::parse(R"(<spec-sheet name="x" vendor="v" suite="s" source="test">
  <match model="*"/>
  <claims tolerance="10%">
    <claim workload="randread-4k-qd16" metric="lat.p99" value="100ms"/>
    <claim workload="randread-4k-qd16" metric="clat.p99.9" value="100ms"/>
    <claim workload="randread-4k-qd16" metric="clat.p99.999" value="100ms"/>
    <claim workload="randread-4k-qd16" metric="clat.p99" value="100ms"/>
    <claim workload="randread-4k-qd16" metric="iops" value="1"/>
  </claims>
</spec-sheet>)",
                               "x.xml");
  auto top = raw("randread-json.json");  // plain json: no bins
  top["jobs"][0]["read"]["clat_ns"]["percentile"].erase("99.900000");
  const auto out = runner::parse_fio_json(top.dump(), "out.json");
  std::vector<reporting::WorkloadResult> results = {out.jobs[0].result};
  ASSERT_LT(results[0].read->clat.samples, runner::samples_needed(99.999));
  ASSERT_GE(results[0].read->clat.samples, runner::samples_needed(99.9));
  auto verdicts = runner::judge(sheet, suite, results);
  runner::mark_fio_undecidable(sheet, results, verdicts);
  using reporting::VerdictStatus;
  EXPECT_EQ(verdicts[0].status, VerdictStatus::Inconclusive) << verdicts[0].message;
  EXPECT_NE(verdicts[0].message.find("--lat_percentiles=1"), std::string::npos);
  EXPECT_EQ(verdicts[1].status, VerdictStatus::Inconclusive) << verdicts[1].message;
  EXPECT_NE(verdicts[1].message.find("json+"), std::string::npos);
  EXPECT_EQ(verdicts[2].status, VerdictStatus::Inconclusive) << verdicts[2].message;
  EXPECT_NE(verdicts[2].message.find("too few samples"), std::string::npos);
  EXPECT_EQ(verdicts[3].status, VerdictStatus::Pass) << verdicts[3].message;
  EXPECT_EQ(verdicts[4].status, VerdictStatus::Pass);
  EXPECT_EQ(runner::exit_code_for(verdicts), 3);
}

}  // namespace
}  // namespace storqual
