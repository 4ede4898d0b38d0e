// SPDX-License-Identifier: Apache-2.0
// The result file: round trip field by field, fio-style keys, and clear errors on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "reporting/result_json.hpp"
#include "runner/methods/capacity/capacity_check.hpp"
#include "runner/methods/latency_search/latency_search.hpp"
#include "runner/methods/steady_state/steady_state.hpp"
#include "runner/methods/sustained_write/sustained_write.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using runner::CapacityReport;
using runner::SustainedWriteReport;

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
  EXPECT_EQ(a->eagain_retries, b->eagain_retries);
  expect_latency_eq(a->slat, b->slat);
  expect_latency_eq(a->clat, b->clat);
  expect_latency_eq(a->lat, b->lat);
}

void expect_findings_eq(const std::vector<IntegrityFinding>& a,
                        const std::vector<IntegrityFinding>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_EQ(a[i].offset, b[i].offset);
    EXPECT_EQ(a[i].found_offset, b[i].found_offset);
    EXPECT_EQ(a[i].expected_sequence, b[i].expected_sequence);
    EXPECT_EQ(a[i].found_sequence, b[i].found_sequence);
  }
}

template <class T>
std::optional<T> optional_of(const T* p) {
  return p ? std::optional<T>(*p) : std::nullopt;
}

std::optional<bool> steady_of(const WorkloadResult& w) {
  return w.method ? w.method->steady() : std::nullopt;
}

const runner::LatencySearchMethodReport* curve_of(const WorkloadResult& w) {
  return dynamic_cast<const runner::LatencySearchMethodReport*>(w.method.get());
}

std::shared_ptr<const runner::SteadyStateRoundsReport> rounds_report(
    std::optional<bool> steady, std::optional<SteadyStateReport> rounds) {
  auto report = std::make_shared<runner::SteadyStateRoundsReport>();
  report->steady_flag = steady;
  report->rounds = std::move(rounds);
  return report;
}

void expect_steady_state_eq(const std::optional<SteadyStateReport>& a,
                            const std::optional<SteadyStateReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->metric, b->metric);
  ASSERT_EQ(a->rounds.size(), b->rounds.size());
  for (std::size_t i = 0; i < a->rounds.size(); ++i) {
    EXPECT_EQ(a->rounds[i].value, b->rounds[i].value);
    EXPECT_EQ(a->rounds[i].elapsed_s, b->rounds[i].elapsed_s);
    EXPECT_EQ(a->rounds[i].steady, b->rounds[i].steady);
  }
  EXPECT_EQ(a->max_rounds, b->max_rounds);
  EXPECT_EQ(a->window, b->window);
  EXPECT_EQ(a->round_time_s, b->round_time_s);
  EXPECT_EQ(a->window_first, b->window_first);
  EXPECT_EQ(a->window_last, b->window_last);
  EXPECT_EQ(a->mean, b->mean);
  EXPECT_EQ(a->range, b->range);
  EXPECT_EQ(a->slope, b->slope);
  EXPECT_EQ(a->range_pct, b->range_pct);
  EXPECT_EQ(a->slope_pct, b->slope_pct);
  EXPECT_EQ(a->range_limit_pct, b->range_limit_pct);
  EXPECT_EQ(a->slope_limit_pct, b->slope_limit_pct);
  EXPECT_EQ(a->steady, b->steady);
}

void expect_sustained_eq(const std::optional<SustainedWriteReport>& a,
                         const std::optional<SustainedWriteReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->bytes_written, b->bytes_written);
  EXPECT_EQ(a->initial_bw, b->initial_bw);
  EXPECT_EQ(a->drop_fraction, b->drop_fraction);
  EXPECT_EQ(a->dropped, b->dropped);
  EXPECT_EQ(a->cache_bytes, b->cache_bytes);
  EXPECT_EQ(a->cache_time_s, b->cache_time_s);
  EXPECT_EQ(a->post_cache_bw, b->post_cache_bw);
}

void expect_host_limit_eq(const std::optional<HostLimitReport>& a,
                          const std::optional<HostLimitReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->limited, b->limited);
  EXPECT_EQ(a->reasons, b->reasons);
  EXPECT_EQ(a->max_thread_cpu_pct, b->max_thread_cpu_pct);
  EXPECT_EQ(a->engine_ceiling_iops, b->engine_ceiling_iops);
  EXPECT_EQ(a->link_speed, b->link_speed);
  EXPECT_EQ(a->link_width, b->link_width);
  EXPECT_EQ(a->max_link_speed, b->max_link_speed);
  EXPECT_EQ(a->max_link_width, b->max_link_width);
  EXPECT_EQ(a->link_bw_bytes, b->link_bw_bytes);
}

void expect_integrity_eq(const std::optional<IntegrityReport>& a,
                         const std::optional<IntegrityReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->algorithm, b->algorithm);
  EXPECT_EQ(a->run_id, b->run_id);
  EXPECT_EQ(a->blocks_written, b->blocks_written);
  EXPECT_EQ(a->verified_inline, b->verified_inline);
  EXPECT_EQ(a->verified_at_end, b->verified_at_end);
  EXPECT_EQ(a->corrupted, b->corrupted);
  EXPECT_EQ(a->misplaced, b->misplaced);
  EXPECT_EQ(a->stale, b->stale);
  EXPECT_EQ(a->foreign, b->foreign);
  EXPECT_EQ(a->read_errors, b->read_errors);
  EXPECT_EQ(a->bad_inline, b->bad_inline);
  expect_findings_eq(a->findings, b->findings);
  EXPECT_EQ(a->tracking_bytes, b->tracking_bytes);
}

void expect_capacity_eq(const std::optional<CapacityReport>& a,
                        const std::optional<CapacityReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->reported_bytes, b->reported_bytes);
  EXPECT_EQ(a->usable_bytes, b->usable_bytes);
  EXPECT_EQ(a->sample_interval, b->sample_interval);
  EXPECT_EQ(a->samples, b->samples);
  EXPECT_EQ(a->samples_good, b->samples_good);
  EXPECT_EQ(a->block_size, b->block_size);
  EXPECT_EQ(a->aliasing_start, b->aliasing_start);
  EXPECT_EQ(a->aliased_to, b->aliased_to);
  EXPECT_EQ(a->corrupted, b->corrupted);
  EXPECT_EQ(a->misplaced, b->misplaced);
  EXPECT_EQ(a->stale, b->stale);
  EXPECT_EQ(a->foreign, b->foreign);
  EXPECT_EQ(a->read_errors, b->read_errors);
  expect_findings_eq(a->findings, b->findings);
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
  EXPECT_EQ(a.spec.suite_sha256, b.spec.suite_sha256);
  EXPECT_EQ(a.measure_only, b.measure_only);
  EXPECT_EQ(a.strict, b.strict);
  ASSERT_EQ(a.deviations.size(), b.deviations.size());
  for (std::size_t i = 0; i < a.deviations.size(); ++i) {
    EXPECT_EQ(a.deviations[i].kind, b.deviations[i].kind);
    EXPECT_EQ(a.deviations[i].text, b.deviations[i].text);
    EXPECT_EQ(a.deviations[i].workloads, b.deviations[i].workloads);
  }
  ASSERT_EQ(a.workloads.size(), b.workloads.size());
  for (std::size_t i = 0; i < a.workloads.size(); ++i) {
    const auto& wa = a.workloads[i];
    const auto& wb = b.workloads[i];
    EXPECT_EQ(wa.id, wb.id);
    EXPECT_EQ(wa.kind(), wb.kind());
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
    EXPECT_EQ(wa.cpu.spin_pct, wb.cpu.spin_pct);
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
    EXPECT_EQ(steady_of(wa), steady_of(wb));
    const auto* ca = curve_of(wa);
    const auto* cb = curve_of(wb);
    ASSERT_EQ(ca == nullptr, cb == nullptr);
    if (ca) {
      ASSERT_EQ(ca->curve.size(), cb->curve.size());
      for (std::size_t c = 0; c < ca->curve.size(); ++c) {
        EXPECT_EQ(ca->curve[c].iodepth, cb->curve[c].iodepth);
        EXPECT_EQ(ca->curve[c].iops, cb->curve[c].iops);
        EXPECT_EQ(ca->curve[c].latency_ns, cb->curve[c].latency_ns);
        EXPECT_EQ(ca->curve[c].within_limit, cb->curve[c].within_limit);
      }
      EXPECT_EQ(ca->limit_ns, cb->limit_ns);
      EXPECT_EQ(ca->stat, cb->stat);
    }
    expect_steady_state_eq(optional_of(runner::steady_state_of(wa)),
                           optional_of(runner::steady_state_of(wb)));
    expect_sustained_eq(optional_of(runner::sustained_write_report(wa)),
                        optional_of(runner::sustained_write_report(wb)));
    expect_host_limit_eq(wa.host_limit, wb.host_limit);
    EXPECT_EQ(wa.preconditioning, wb.preconditioning);
    EXPECT_EQ(wa.skipped, wb.skipped);
    expect_integrity_eq(wa.integrity, wb.integrity);
    expect_capacity_eq(optional_of(runner::capacity_report_of(wa)),
                       optional_of(runner::capacity_report_of(wb)));
  }
  ASSERT_EQ(a.verdicts.size(), b.verdicts.size());
  for (std::size_t i = 0; i < a.verdicts.size(); ++i) {
    const auto& va = a.verdicts[i];
    const auto& vb = b.verdicts[i];
    EXPECT_EQ(va.workloads, vb.workloads);
    EXPECT_EQ(va.metric, vb.metric);
    EXPECT_EQ(va.status, vb.status);
    EXPECT_EQ(va.measured, vb.measured);
    EXPECT_EQ(va.claimed, vb.claimed);
    EXPECT_EQ(va.unit, vb.unit);
    EXPECT_EQ(va.tolerance_pct, vb.tolerance_pct);
    EXPECT_EQ(va.diff_pct, vb.diff_pct);
    EXPECT_EQ(va.message, vb.message);
    EXPECT_EQ(va.time_s, vb.time_s);
    EXPECT_EQ(va.kind, vb.kind);
  }
  EXPECT_EQ(a.exit_code, b.exit_code);
}

RunResult rich_result() {
  RunResult r = sample::run(true);
  auto& w = r.workloads[1];
  w.errors = {"pwrite at 4096: Input/output error"};
  w.interrupted = true;
  w.method = rounds_report(false, std::nullopt);
  w.write->errors = 2;
  w.write->first_errno = 5;
  w.write->first_error_offset = 123456789;
  w.write->short_ios = 1;
  w.write->eagain_retries = 17;
  w.params.offset = 1ull << 40;
  w.params.rwmixread = 70;
  w.params.direct = false;
  w.cpu.usr_pct = 1.0 / 3.0;  // not representable in decimal: must survive exactly
  auto search = std::make_shared<runner::LatencySearchMethodReport>();
  search->curve = {{1, 9100.5, 109e3, true}, {64, 99000, 12.5e6, false}};
  search->limit_ns = 10e6;
  search->stat = "mean";
  r.workloads[0].method = std::move(search);
  r.device.identity.push_back({"odd", "tab\there \"quoted\" \\ unicode \u00b5s", "test"});
  return r;
}

// rich_result plus every optional part of a workload and a verdict, each member away from its
// default, so that a key the writer or the reader forgets shows up as a difference.
RunResult full_result() {
  RunResult r = rich_result();
  auto& w = r.workloads[2];
  w.cpu.spin_pct = 12.75;
  SteadyStateReport ss;
  ss.metric = "bw";
  ss.rounds = {{5.0e8, 60, false}, {4.1e8, 60.25, false}, {4.0e8, 59.5, true}};
  ss.max_rounds = 11;
  ss.window = 3;
  ss.round_time_s = 61.5;
  ss.window_first = 1;
  ss.window_last = 2;
  ss.mean = 1.0 / 7.0;
  ss.range = 1e8;
  ss.slope = -5e7;
  ss.range_pct = 23.07;
  ss.slope_pct = -11.5;
  ss.range_limit_pct = 15;
  ss.slope_limit_pct = 7.5;
  ss.steady = true;
  w.method = rounds_report(true, ss);
  SustainedWriteReport sw;
  sw.bytes_written = (3ull << 40) + 17;
  sw.initial_bw = 1.9e9;
  sw.drop_fraction = 0.6;
  sw.dropped = true;
  sw.cache_bytes = 42ull << 30;
  sw.cache_time_s = 22.125;
  sw.post_cache_bw = 4.5e8;
  auto sustained = std::make_shared<runner::SustainedWriteMethodReport>();
  sustained->sustained = sw;
  r.workloads[3].method = std::move(sustained);  // a result holds one method's report
  HostLimitReport hl;
  hl.limited = true;
  hl.reasons = {"job thread CPU 98%", "IOPS at 85% of the engine's ceiling"};
  hl.max_thread_cpu_pct = 98.5;
  hl.engine_ceiling_iops = 1.25e6;
  hl.link_speed = "8.0 GT/s PCIe";
  hl.link_width = 2;
  hl.max_link_speed = "16.0 GT/s PCIe";
  hl.max_link_width = 4;
  hl.link_bw_bytes = 1.969e9;
  w.host_limit = hl;
  w.preconditioning = {"purge: BLKDISCARD of 5 GiB", "sequential 128k writes over 10 GiB"};
  w.skipped = "bs 512 is below the logical block size 4096";
  IntegrityReport ir;
  ir.algorithm = "xxh3";
  ir.run_id = 0xfeedfacecafebeefull;
  ir.blocks_written = 1000;
  ir.verified_inline = 10;
  ir.verified_at_end = 990;
  ir.corrupted = 1;
  ir.misplaced = 2;
  ir.stale = 3;
  ir.foreign = 4;
  ir.read_errors = 5;
  ir.bad_inline = 6;
  ir.findings = {{"corrupted", 4096, 0, 0, 0}, {"stale", 8192, 8192, 7, 3}};
  ir.tracking_bytes = 65536;
  w.integrity = ir;
  CapacityReport cr;
  cr.reported_bytes = 1ull << 40;
  cr.usable_bytes = 1ull << 36;
  cr.sample_interval = 1ull << 30;
  cr.samples = 1024;
  cr.samples_good = 64;
  cr.block_size = 4096;
  cr.aliasing_start = 1ull << 36;
  cr.aliased_to = 0;
  cr.corrupted = 7;
  cr.misplaced = 8;
  cr.stale = 9;
  cr.foreign = 10;
  cr.read_errors = 11;
  cr.findings = {{"misplaced", 1ull << 36, 0, 0, 0}};
  auto capacity = std::make_shared<runner::CapacityMethodReport>();
  capacity->capacity = cr;
  r.workloads[4].method = std::move(capacity);
  r.workloads[3].skipped = "";  // present but empty is not the same as absent
  r.verdicts[1].kind = reporting::VerdictKind::Baseline;
  r.verdicts[2].kind = reporting::VerdictKind::Lot;
  r.deviations = {{"runtime", "runtimes scaled by 0.05 (--runtime-scale 0.05)", {}},
                  {"busy-host", "host busy during randread-4k-qd32", {"randread-4k-qd32"}}};
  r.strict = true;
  return r;
}

TEST(ReportJson, RoundTripKeepsEveryField) {
  const RunResult original = rich_result();
  const RunResult loaded = run_result_from_json(to_json_text(original));
  expect_run_eq(original, loaded);
}

TEST(ReportJson, RoundTripKeepsEveryOptionalPart) {
  const RunResult original = full_result();
  const std::string text = to_json_text(original);
  const RunResult loaded = run_result_from_json(text);
  expect_run_eq(original, loaded);
  EXPECT_EQ(to_json_text(loaded), text) << "write -> read -> write changed the text";
  // The keys are where docs/reports.md says, by name.
  const auto j = to_json(original);
  const auto& w = j["workloads"][2];
  EXPECT_EQ(w["cpu"]["spin_pct"], 12.75);
  EXPECT_EQ(w["steady_state"]["metric"], "bw");
  EXPECT_EQ(w["steady_state"]["rounds"][2]["steady"], true);
  EXPECT_EQ(w["steady_state"]["window_first"], 1);
  EXPECT_EQ(w["steady_state"]["window_last"], 2);
  EXPECT_EQ(w["steady_state"]["slope_limit_pct"], 7.5);
  EXPECT_EQ(j["workloads"][3]["sustained"]["cache_bytes"], 42ull << 30);
  EXPECT_EQ(w["host_limit"]["reasons"][0], "job thread CPU 98%");
  EXPECT_EQ(w["host_limit"]["link_width"], 2);
  EXPECT_EQ(w["preconditioning"][1], "sequential 128k writes over 10 GiB");
  EXPECT_EQ(w["skipped"], "bs 512 is below the logical block size 4096");
  EXPECT_EQ(w["integrity"]["findings"][1]["found_sequence"], 3);
  EXPECT_EQ(j["workloads"][4]["capacity"]["aliasing_start"], 1ull << 36);
  EXPECT_EQ(j["workloads"][3]["skipped"], "");
  EXPECT_EQ(j["verdicts"][1]["kind"], "baseline");
  EXPECT_EQ(j["deviations"][1]["kind"], "busy-host");
  EXPECT_EQ(j["deviations"][1]["workloads"][0], "randread-4k-qd32");
  EXPECT_EQ(j["strict"], true);
  EXPECT_EQ(j["spec"]["suite_sha256"], original.spec.suite_sha256);
}

TEST(ReportJson, OptionalPartsAreAbsentWhenNotSet) {
  const auto j = to_json(sample::run(true));
  for (const auto& w : j["workloads"]) {
    for (const char* key : {"steady_state", "sustained", "host_limit", "preconditioning", "skipped",
                            "integrity", "capacity", "latency_curve"})
      EXPECT_FALSE(w.contains(key)) << w["id"] << " has " << key;
  }
  for (const auto& v : j["verdicts"]) EXPECT_FALSE(v.contains("kind")) << "a claim has no kind";
  // And null reads back as absent, as for "steady".
  auto k = to_json(full_result());
  for (const char* key : {"steady_state", "host_limit", "skipped"})
    k["workloads"][2][key] = nullptr;
  k["workloads"][3]["sustained"] = nullptr;
  k["workloads"][4]["capacity"] = {{"aliasing_start", nullptr}};
  const RunResult back = run_result_from_json(k.dump());
  const auto& w = back.workloads[2];
  EXPECT_FALSE(runner::steady_state_of(w) || w.host_limit || w.skipped);
  EXPECT_EQ(steady_of(w), true) << "\"steady\" is still there";
  EXPECT_FALSE(runner::sustained_write_report(back.workloads[3]));
  EXPECT_EQ(back.workloads[3].kind(), "sustained-write");
  const auto* capacity = runner::capacity_report_of(back.workloads[4]);
  ASSERT_TRUE(capacity);
  EXPECT_FALSE(capacity->aliasing_start.has_value());
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

// A method's report is read by its method's reader (reporting/method_reports.hpp): a kind no
// method writes is refused, naming it, rather than read with the method's part dropped; a report
// in the wrong shape names its path as any other part does.
TEST(ReportJson, AKindNoMethodWritesIsRefusedByName) {
  auto j = to_json(full_result());
  j["workloads"][1]["kind"] = "burn-in";
  EXPECT_EQ(error_of(j.dump()),
            "workloads[1].kind: unknown kind 'burn-in' (no method of this storqual writes it)");
  j = to_json(full_result());
  j["workloads"][0]["latency_curve"][1]["iodepth"] = "deep";
  EXPECT_EQ(error_of(j.dump()),
            "workloads[0].latency_curve[1].iodepth: expected a non-negative integer, got string");
  j = to_json(full_result());
  j["workloads"][0]["kind"] = "pts-wsat";  // a PTS result without its report
  EXPECT_EQ(error_of(j.dump()), "workloads[0].pts: missing (required)");
  // Each method's report comes back as its own type, with its kind.
  const RunResult back = run_result_from_json(to_json_text(full_result()));
  EXPECT_EQ(back.workloads[0].kind(), "latency-search");
  EXPECT_TRUE(curve_of(back.workloads[0]));
  EXPECT_EQ(back.workloads[2].kind(), "workload");
  EXPECT_TRUE(runner::steady_state_of(back.workloads[2]));
  EXPECT_EQ(back.workloads[3].kind(), "sustained-write");
  EXPECT_EQ(back.workloads[4].kind(), "capacity");
}

TEST(ReportJson, WrongTypesInOptionalPartsNameTheJsonPath) {
  struct Case {
    const char* pointer;  // JSON pointer into full_result()
    nlohmann::ordered_json value;
    const char* message;
  };
  const Case cases[] = {
      {"/workloads/2/cpu/spin_pct", "high",
       "workloads[2].cpu.spin_pct: expected a number, got string"},
      {"/workloads/2/steady_state", "steady",
       "workloads[2].steady_state: expected an object, got string"},
      {"/workloads/2/steady_state/metric", 3,
       "workloads[2].steady_state.metric: expected a string, got number"},
      {"/workloads/2/steady_state/rounds", nlohmann::ordered_json::object(),
       "workloads[2].steady_state.rounds: expected an array, got object"},
      {"/workloads/2/steady_state/rounds/1", 4.5,
       "workloads[2].steady_state.rounds[1]: expected an object, got number"},
      {"/workloads/2/steady_state/rounds/1/steady", "yes",
       "workloads[2].steady_state.rounds[1].steady: expected true or false, got string"},
      {"/workloads/2/steady_state/window", -5,
       "workloads[2].steady_state.window: expected a non-negative integer (negative number), got "
       "number"},
      {"/workloads/2/steady_state/max_rounds", 1e10,
       "workloads[2].steady_state.max_rounds: expected an integer below 2^32, got number"},
      {"/workloads/2/steady_state/window_last", 2.5,
       "workloads[2].steady_state.window_last: expected a non-negative integer (a fraction or out "
       "of range), got number"},
      {"/workloads/2/steady_state/mean", true,
       "workloads[2].steady_state.mean: expected a number, got boolean"},
      {"/workloads/3/sustained", nlohmann::ordered_json::array(),
       "workloads[3].sustained: expected an object, got array"},
      {"/workloads/3/sustained/cache_bytes", "42g",
       "workloads[3].sustained.cache_bytes: expected a non-negative integer, got string"},
      {"/workloads/3/sustained/dropped", 1,
       "workloads[3].sustained.dropped: expected true or false, got number"},
      {"/workloads/2/host_limit", 7, "workloads[2].host_limit: expected an object, got number"},
      {"/workloads/2/host_limit/reasons", "cpu",
       "workloads[2].host_limit.reasons: expected an array, got string"},
      {"/workloads/2/host_limit/reasons/1", nullptr,
       "workloads[2].host_limit.reasons[1]: expected a string, got null"},
      {"/workloads/2/host_limit/link_width", -1,
       "workloads[2].host_limit.link_width: expected a non-negative integer (negative number), "
       "got number"},
      {"/workloads/2/preconditioning", "purge",
       "workloads[2].preconditioning: expected an array, got string"},
      {"/workloads/2/preconditioning/0", nlohmann::ordered_json::object(),
       "workloads[2].preconditioning[0]: expected a string, got object"},
      {"/workloads/2/skipped", 5, "workloads[2].skipped: expected a string, got number"},
      {"/workloads/2/integrity/findings/0/offset", "0",
       "workloads[2].integrity.findings[0].offset: expected a non-negative integer, got string"},
      {"/workloads/4/capacity/aliased_to", "x",
       "workloads[4].capacity.aliased_to: expected a non-negative integer, got string"},
      {"/verdicts/1/kind", false, "verdicts[1].kind: expected a string, got boolean"},
  };
  for (const auto& c : cases) {
    auto j = to_json(full_result());
    j[nlohmann::ordered_json::json_pointer(c.pointer)] = c.value;
    EXPECT_EQ(error_of(j.dump()), c.message) << c.pointer;
  }
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
