// SPDX-License-Identifier: Apache-2.0
// The result file: round trip field by field, fio-style keys, and clear errors on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "reporting/result_json.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

void expect_latency_eq(const LatencySummary& a, const LatencySummary& b) {
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.min_ns, b.min_ns);
  EXPECT_EQ(a.max_ns, b.max_ns);
  EXPECT_EQ(a.mean_ns, b.mean_ns);
  EXPECT_EQ(a.stdev_ns, b.stdev_ns);
  EXPECT_EQ(a.percentiles, b.percentiles);
}

void expect_direction_eq(const std::optional<DirectionResult>& a,
                         const std::optional<DirectionResult>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->ios, b->ios);
  EXPECT_EQ(a->bytes, b->bytes);
  EXPECT_EQ(a->iops, b->iops);
  EXPECT_EQ(a->bw_bytes, b->bw_bytes);
  EXPECT_EQ(a->errors, b->errors);
  EXPECT_EQ(a->first_errno, b->first_errno);
  EXPECT_EQ(a->first_error_offset, b->first_error_offset);
  EXPECT_EQ(a->short_ios, b->short_ios);
  expect_latency_eq(a->slat, b->slat);
  expect_latency_eq(a->clat, b->clat);
  expect_latency_eq(a->lat, b->lat);
}

void expect_rows_eq(const std::vector<FieldRow>& a, const std::vector<FieldRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].field, b[i].field);
    EXPECT_EQ(a[i].value, b[i].value);
    EXPECT_EQ(a[i].source, b[i].source);
  }
}

void expect_run_eq(const RunResult& a, const RunResult& b) {
  const auto& ea = a.environment;
  const auto& eb = b.environment;
  EXPECT_EQ(ea.host, eb.host);
  EXPECT_EQ(ea.kernel, eb.kernel);
  EXPECT_EQ(ea.cpu_model, eb.cpu_model);
  EXPECT_EQ(ea.cpus, eb.cpus);
  EXPECT_EQ(ea.storqual_version, eb.storqual_version);
  EXPECT_EQ(ea.command_line, eb.command_line);
  EXPECT_EQ(ea.start_utc, eb.start_utc);
  EXPECT_EQ(ea.end_utc, eb.end_utc);
  EXPECT_EQ(a.device.name, b.device.name);
  EXPECT_EQ(a.device.path, b.device.path);
  expect_rows_eq(a.device.identity, b.device.identity);
  expect_rows_eq(a.device.health_before, b.device.health_before);
  expect_rows_eq(a.device.health_after, b.device.health_after);
  EXPECT_EQ(a.device.health_changes, b.device.health_changes);
  EXPECT_EQ(a.spec.name, b.spec.name);
  EXPECT_EQ(a.spec.vendor, b.spec.vendor);
  EXPECT_EQ(a.spec.source, b.spec.source);
  EXPECT_EQ(a.spec.path, b.spec.path);
  EXPECT_EQ(a.spec.sha256, b.spec.sha256);
  EXPECT_EQ(a.spec.suite, b.spec.suite);
  EXPECT_EQ(a.spec.suite_path, b.spec.suite_path);
  ASSERT_EQ(a.workloads.size(), b.workloads.size());
  for (std::size_t i = 0; i < a.workloads.size(); ++i) {
    const auto& wa = a.workloads[i];
    const auto& wb = b.workloads[i];
    EXPECT_EQ(wa.id, wb.id);
    EXPECT_EQ(wa.kind, wb.kind);
    EXPECT_EQ(wa.params.rw, wb.params.rw);
    EXPECT_EQ(wa.params.bs, wb.params.bs);
    EXPECT_EQ(wa.params.iodepth, wb.params.iodepth);
    EXPECT_EQ(wa.params.numjobs, wb.params.numjobs);
    EXPECT_EQ(wa.params.runtime_s, wb.params.runtime_s);
    EXPECT_EQ(wa.params.ramp_time_s, wb.params.ramp_time_s);
    EXPECT_EQ(wa.params.size, wb.params.size);
    EXPECT_EQ(wa.params.offset, wb.params.offset);
    EXPECT_EQ(wa.params.rwmixread, wb.params.rwmixread);
    EXPECT_EQ(wa.params.ioengine, wb.params.ioengine);
    EXPECT_EQ(wa.params.direct, wb.params.direct);
    EXPECT_EQ(wa.params.target, wb.params.target);
    expect_direction_eq(wa.read, wb.read);
    expect_direction_eq(wa.write, wb.write);
    EXPECT_EQ(wa.cpu.usr_pct, wb.cpu.usr_pct);
    EXPECT_EQ(wa.cpu.sys_pct, wb.cpu.sys_pct);
    EXPECT_EQ(wa.cpu.max_thread_pct, wb.cpu.max_thread_pct);
    EXPECT_EQ(wa.elapsed_s, wb.elapsed_s);
    ASSERT_EQ(wa.timeline.size(), wb.timeline.size());
    for (std::size_t t = 0; t < wa.timeline.size(); ++t) {
      EXPECT_EQ(wa.timeline[t].t_s, wb.timeline[t].t_s);
      EXPECT_EQ(wa.timeline[t].read_iops, wb.timeline[t].read_iops);
      EXPECT_EQ(wa.timeline[t].write_iops, wb.timeline[t].write_iops);
      EXPECT_EQ(wa.timeline[t].read_bw, wb.timeline[t].read_bw);
      EXPECT_EQ(wa.timeline[t].write_bw, wb.timeline[t].write_bw);
      EXPECT_EQ(wa.timeline[t].read_lat_mean_ns, wb.timeline[t].read_lat_mean_ns);
      EXPECT_EQ(wa.timeline[t].write_lat_mean_ns, wb.timeline[t].write_lat_mean_ns);
    }
    EXPECT_EQ(wa.errors, wb.errors);
    EXPECT_EQ(wa.interrupted, wb.interrupted);
    EXPECT_EQ(wa.fio_command, wb.fio_command);
    EXPECT_EQ(wa.steady, wb.steady);
    ASSERT_EQ(wa.latency_curve.size(), wb.latency_curve.size());
    for (std::size_t c = 0; c < wa.latency_curve.size(); ++c) {
      EXPECT_EQ(wa.latency_curve[c].iodepth, wb.latency_curve[c].iodepth);
      EXPECT_EQ(wa.latency_curve[c].iops, wb.latency_curve[c].iops);
      EXPECT_EQ(wa.latency_curve[c].latency_ns, wb.latency_curve[c].latency_ns);
      EXPECT_EQ(wa.latency_curve[c].within_limit, wb.latency_curve[c].within_limit);
    }
    EXPECT_EQ(wa.latency_limit_ns, wb.latency_limit_ns);
    EXPECT_EQ(wa.latency_stat, wb.latency_stat);
  }
  ASSERT_EQ(a.verdicts.size(), b.verdicts.size());
  for (std::size_t i = 0; i < a.verdicts.size(); ++i) {
    const auto& va = a.verdicts[i];
    const auto& vb = b.verdicts[i];
    EXPECT_EQ(va.workload, vb.workload);
    EXPECT_EQ(va.metric, vb.metric);
    EXPECT_EQ(va.status, vb.status);
    EXPECT_EQ(va.measured, vb.measured);
    EXPECT_EQ(va.claimed, vb.claimed);
    EXPECT_EQ(va.unit, vb.unit);
    EXPECT_EQ(va.tolerance_pct, vb.tolerance_pct);
    EXPECT_EQ(va.diff_pct, vb.diff_pct);
    EXPECT_EQ(va.message, vb.message);
    EXPECT_EQ(va.time_s, vb.time_s);
  }
  EXPECT_EQ(a.exit_code, b.exit_code);
}

RunResult rich_result() {
  RunResult r = sample::run(true);
  auto& w = r.workloads[1];
  w.errors = {"pwrite at 4096: Input/output error"};
  w.interrupted = true;
  w.steady = false;
  w.write->errors = 2;
  w.write->first_errno = 5;
  w.write->first_error_offset = 123456789;
  w.write->short_ios = 1;
  w.params.offset = 1ull << 40;
  w.params.rwmixread = 70;
  w.params.direct = false;
  w.cpu.usr_pct = 1.0 / 3.0;  // not representable in decimal: must survive exactly
  r.workloads[0].steady = true;
  r.workloads[0].kind = "latency-search";
  r.workloads[0].latency_curve = {{1, 9100.5, 109e3, true}, {64, 99000, 12.5e6, false}};
  r.workloads[0].latency_limit_ns = 10e6;
  r.workloads[0].latency_stat = "mean";
  r.device.identity.push_back({"odd", "tab\there \"quoted\" \\ unicode \u00b5s", "test"});
  return r;
}

TEST(ReportJson, RoundTripKeepsEveryField) {
  const RunResult original = rich_result();
  const RunResult loaded = run_result_from_json(to_json_text(original));
  expect_run_eq(original, loaded);
}

TEST(ReportJson, KeysFollowTheDesign) {
  const auto j = to_json(sample::run(false));
  for (const char* key :
       {"storqual_version", "environment", "device", "spec", "workloads", "verdicts", "exit_code"})
    EXPECT_TRUE(j.contains(key)) << key;
  const auto& read_only = j["workloads"][0];
  EXPECT_EQ(read_only["id"], "randread-4k-qd32");
  EXPECT_TRUE(read_only.contains("read"));
  EXPECT_FALSE(read_only.contains("write")) << "a workload with no write side omits \"write\"";
  for (const char* key : {"rw", "bs", "iodepth", "numjobs", "runtime_s", "ramp_time_s", "size",
                          "offset", "rwmixread", "ioengine", "direct", "target"})
    EXPECT_TRUE(read_only["params"].contains(key)) << key;
  const auto& clat = read_only["read"]["clat_ns"];
  for (const char* key : {"min", "max", "mean", "stdev", "samples", "percentiles"})
    EXPECT_TRUE(clat.contains(key)) << key;
  EXPECT_TRUE(clat["percentiles"].contains("99.900000"));
  EXPECT_TRUE(clat["percentiles"].contains("50.000000"));
  EXPECT_TRUE(clat["percentiles"].contains("1.000000"));
  EXPECT_TRUE(read_only["cpu"].contains("usr_pct"));
  EXPECT_TRUE(read_only["cpu"].contains("sys_pct"));
  EXPECT_EQ(read_only["timeline"].size(), 60u);
  EXPECT_EQ(j["verdicts"][0]["status"], "pass");
}

TEST(ReportJson, NonFiniteNumbersBecomeNullAndReadBackAsNaN) {
  RunResult r = sample::run(false);
  r.workloads[0].read->iops = std::nan("");
  r.verdicts[0].diff_pct = INFINITY;
  const std::string text = to_json_text(r);
  EXPECT_NE(text.find("\"iops\": null"), std::string::npos);
  const RunResult back = run_result_from_json(text);
  EXPECT_TRUE(std::isnan(back.workloads[0].read->iops));
  EXPECT_FALSE(back.verdicts[0].diff_pct.has_value());
}

std::string error_of(const std::string& text) {
  try {
    (void)run_result_from_json(text);
  } catch (const ResultJsonError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReportJson, BadInputNamesTheJsonPath) {
  auto j = to_json(sample::run(false));
  j["workloads"][1]["write"]["clat_ns"]["min"] = "fast";
  EXPECT_EQ(error_of(j.dump()),
            "workloads[1].write.clat_ns.min: expected a non-negative integer, got string");

  j = to_json(sample::run(false));
  j["workloads"][0]["read"]["ios"] = -5;
  EXPECT_NE(error_of(j.dump()).find("workloads[0].read.ios: expected a non-negative integer"),
            std::string::npos);

  j = to_json(sample::run(false));
  j["verdicts"][2]["status"] = "maybe";
  EXPECT_NE(error_of(j.dump()).find("verdicts[2].status: expected one of pass, fail"),
            std::string::npos);

  j = to_json(sample::run(false));
  j["workloads"][0]["read"]["clat_ns"]["percentiles"]["p99"] = 5;
  EXPECT_NE(error_of(j.dump()).find("workloads[0].read.clat_ns.percentiles.p99"),
            std::string::npos);

  j = to_json(sample::run(false));
  j.erase("workloads");
  EXPECT_EQ(error_of(j.dump()), "workloads: missing (required)");

  j = to_json(sample::run(false));
  j["workloads"][3]["params"]["iodepth"] = 1e12;
  EXPECT_NE(error_of(j.dump()).find("workloads[3].params.iodepth: expected an integer below 2^32"),
            std::string::npos);
}

TEST(ReportJson, HostileInputIsRefusedNotCrashedOn) {
  EXPECT_NE(error_of("").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("{\"workloads\": [").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1,2,3]").find("(top level): expected an object"), std::string::npos);
  EXPECT_NE(error_of("null").find("expected an object"), std::string::npos);
  EXPECT_NE(error_of(std::string(100000, '[') + std::string(100000, ']')).find("nested deeper"),
            std::string::npos);
  EXPECT_NE(error_of("{\"workloads\":{},\"verdicts\":[]}").find("workloads: expected an array"),
            std::string::npos);
  EXPECT_NE(
      error_of("{\"workloads\":[\"x\"],\"verdicts\":[]}").find("workloads[0]: expected an object"),
      std::string::npos);
  EXPECT_NE(error_of("{\"workloads\":[],\"verdicts\":[],\"device\":{\"identity\":[{\"field\":1}]}}")
                .find("device.identity[0].field: expected a string, got number"),
            std::string::npos);
  EXPECT_NE(error_of("{\"workloads\":[],\"verdicts\":[],\"exit_code\":99999999999}")
                .find("exit_code: expected an integer in the int range"),
            std::string::npos);
  // Invalid UTF-8 inside a string is a syntax error for nlohmann, not a crash.
  EXPECT_NE(error_of("{\"workloads\":[],\"verdicts\":[],\"spec\":{\"name\":\"\xff\xfe\"}}")
                .find("not valid JSON"),
            std::string::npos);
  // The minimal valid file.
  EXPECT_NO_THROW((void)run_result_from_json("{\"workloads\":[],\"verdicts\":[]}"));
}

TEST(ReportJson, LoadNamesTheFile) {
  testing::ScratchDir dir("report-json");
  const std::string path = (dir / "result.json").string();
  std::ofstream(path) << "{\"workloads\": 3, \"verdicts\": []}";
  try {
    (void)load_run_result(path);
    FAIL() << "no error";
  } catch (const ResultJsonError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": workloads: expected an array, got number");
  }
  EXPECT_THROW((void)load_run_result((dir / "missing.json").string()), ResultJsonError);
}

}  // namespace
}  // namespace storqual::reporting
