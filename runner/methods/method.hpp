// SPDX-License-Identifier: Apache-2.0
// A method: the test procedure one suite element asks for (docs/architecture.md, "Where to add":
// a method). The plain run, rounds to steady state, the latency search, the sustained write, the
// capacity check, each SNIA PTS test and the drive's self-test are methods. A method
//  - reads its suite element (`MethodEntry::load`: its own attributes, the workload options through
//    the one option table, the defaults its procedure implies),
//  - adjusts its planned workload (`plan`, before scaling and validation),
//  - runs itself, every pass through the qualification's `RunWorkload` seam (progress line, busy
//    host, thermal sampler, fault injection) or, when it drives the engine itself, with the run's
//    `RunOptions` (stop flag and engine wrapper) from the context,
//  - says what it is for a reader: its fio equivalent, its line in `storqual suites`.
// Its result (reporting::WorkloadResult) carries its figures by name (WorkloadResult::figures)
// and its own report (WorkloadResult::method).
//
// The registry (method_registry.cpp) lists every method's suite element; the suite loader and the
// qualification know methods only through this interface.
#pragma once

#include <pugixml.hpp>

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "devices/self_test.hpp"
#include "model/metric.hpp"
#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

// Where a long method keeps its progress so that an interrupted run can continue (the surface
// scan, docs/burn-in.md): a file beside the reports, and who it belongs to, which the method checks
// before it continues from it.
struct MethodCheckpoint {
  std::string path;     // "" = none: the method starts over and keeps no file
  bool resume = false;  // --resume: continue from the file (which must exist)
  std::string device;   // the target's identity in one line (model, serial, size, ...)
  std::string suite;    // the suite's name and the SHA-256 of its file
};

// What a method's run gets from the qualification.
struct MethodContext {
  RunWorkload measure;  // every pass of a method that runs workloads
  RunOptions direct;    // stop flag, engine wrapper and live counters, for a method that drives
                        // the engine itself
  double runtime_scale = 1;     // --runtime-scale, for a method with timed steps of its own
  MethodCheckpoint checkpoint;  // for a method that can resume
  // The drive's own self-test, for <self-test> (runner/methods/self_test/self_test.hpp): null when
  // the run may not start one (no --allow-self-test) or the target has no health seam,
  // `self_test_gap` saying which.
  devices::DeviceSelfTest* self_test = nullptr;
  std::string self_test_gap;
  bool self_test_gap_is_consent = false;
  std::FILE* console = nullptr;  // progress lines of a method that prints its own
  // Sleeps between a method's polls (null: the real clock, waking early on direct.stop).
  std::function<void(double seconds)> wait;
};

// An option of a fio job that a method takes in place of a plain run (fio's latency_target for a
// latency search; docs/fio-files.md): fio's canonical name, the value as written, "file:line".
struct FioMethodOption {
  std::string name, value, location;
};

class Method {
 public:
  virtual ~Method() = default;
  // The suite element ("workload", "latency-search", "wsat", ...).
  [[nodiscard]] virtual std::string_view element() const noexcept = 0;
  // Adjusts a planned workload (the target set, before scaling and validation): a latency search
  // plans at its deepest step (at most 32), so that the safety guard and the plan see that depth.
  virtual void plan(WorkloadSpec& /*workload*/) const {}
  // Whether --early-stop applies to it: false for a method with its own stopping rule.
  [[nodiscard]] virtual bool takes_early_stop() const noexcept { return true; }
  // Whether it takes time of its own even with runtime 0 (rounds, passes, a PTS test), so that
  // --runtime-scale changes what it measures.
  [[nodiscard]] virtual bool timed() const noexcept { return false; }
  // Whether it runs through RunWorkload passes: preconditioning before it and the busy-host
  // report merged over its passes. False for a method that drives the engine itself.
  [[nodiscard]] virtual bool runs_workloads() const noexcept { return true; }
  // Whether a read of it must find data the run wrote (runner/qualification/read_fill.hpp: a fill
  // before it where nothing wrote its region yet). False for a method that purges and
  // preconditions as its own definition says (a SNIA PTS test) or drives the engine itself.
  [[nodiscard]] virtual bool reads_need_written_data() const noexcept { return runs_workloads(); }
  // Whether a spec sheet's claim may name it: false for a method whose result is a testcase in
  // itself with no figure to claim (the self-test); `storqual check` and a run refuse the claim.
  [[nodiscard]] virtual bool claimable() const noexcept { return true; }
  // Whether a method that drives the engine itself runs under the live progress line (false for
  // one that prints its own progress, a self-test's polls).
  [[nodiscard]] virtual bool shows_progress_line() const noexcept { return true; }
  // Whether the console prints fio's layout of `result` after it (false for a method whose result
  // is not one workload's counts: its own report section says what it measured).
  [[nodiscard]] virtual bool prints_fio_summary(const reporting::WorkloadResult& /*result*/) const {
    return true;
  }
  // The result's fio command: fio_command(as_run) (a latency search's chosen depth in as_run), or a
  // method's own description of what it ran (the capacity check's, in `result`).
  [[nodiscard]] virtual std::string fio_command_as_run(
      const WorkloadSpec& as_run, const reporting::WorkloadResult& result) const;
  // Runs the method on a planned workload `w` (its id, target and region final).
  [[nodiscard]] virtual reporting::WorkloadResult run(const WorkloadSpec& w,
                                                      const MethodContext& context) const = 0;
  // The equivalent fio command (with a comment where fio has none), for `storqual suites -v`.
  [[nodiscard]] virtual std::string fio_equivalent(const WorkloadSpec& spec) const;
  // Its line in `storqual suites`, after the id: "randread  4k    QD32 x1, 1m".
  [[nodiscard]] virtual std::string summary_line(const WorkloadSpec& spec) const;
  // The element's own attributes as its loader reads them back (a latency search's limit, stat,
  // max_iodepth, latency, search), for the suite writer; empty (the default) for a method the
  // writer cannot write.
  [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> element_attributes()
      const {
    return {};
  }
  // The fio options that make fio run the method as its own feature ("latency_target=500ms"),
  // with `spec` made what that fio job needs (the latency search's deepest iodepth); empty (the
  // default) where fio has no such feature.
  [[nodiscard]] virtual std::vector<std::string> fio_job_options(WorkloadSpec& /*spec*/) const {
    return {};
  }
};

// The plain run: the workload once, through `context.measure` (an early stop is the run's own).
[[nodiscard]] std::shared_ptr<const Method> plain_method();

// How a suite element becomes a method: `spec` holds the suite's <defaults> and the element's id;
// `load` applies the element's attributes (to its own configuration and, through the option table,
// to `spec`) and returns the method. Throws FileError at the attribute or element at fault.
struct MethodEntry {
  std::string_view element;
  // Whether the element may hold a <precondition> (capacity drives the device itself: no).
  bool takes_precondition = true;
  std::shared_ptr<const Method> (*load)(const XmlFile& file, pugi::xml_node node,
                                        WorkloadSpec& spec);
  // The method run in rounds to steady state (dependent preconditioning, SNIA PTS: the workload
  // itself until steady), the method itself when it already runs in rounds; null for an element
  // that cannot (only <workload> can).
  std::shared_ptr<const Method> (*in_rounds)(const std::shared_ptr<const Method>& method) = nullptr;
  // Reads its report back from a result's JSON (reporting/method_reports.hpp); null for a method
  // without a report (the plain run). Elements of one method share it.
  reporting::MethodReportReader read_report = nullptr;
  // The named figures it publishes (model/metric.hpp figure_table()); null for none.
  std::span<const reporting::FigureInfo> (*figure_rows)() noexcept = nullptr;
  // fio's options the method takes from a fio job (fio's canonical names), and the method made
  // from those a job gave (with `spec` the job's workload, changed as the method needs; a note
  // per difference from fio added to `notes`; FileError naming the option for what it cannot
  // take). Null for a method fio has no feature of.
  std::span<const std::string_view> (*fio_options)() noexcept = nullptr;
  std::shared_ptr<const Method> (*from_fio)(const std::vector<FioMethodOption>& options,
                                            WorkloadSpec& spec,
                                            std::vector<std::string>& notes) = nullptr;
};

// Registers, once, what the methods' entries carry: the run's and every method's named figures
// (model/metric.hpp add_figure_rows) and report readers (reporting/method_reports.hpp); before a
// claim is parsed or a result read (the command line does it first; method_entries() too).
void register_method_reports();

// Every method's suite element, in documentation order (method_registry.cpp).
[[nodiscard]] std::span<const MethodEntry> method_entries() noexcept;
[[nodiscard]] const MethodEntry* find_method_entry(std::string_view element) noexcept;

// ---- methods run in steps of their own ----

// A method whose phases run apart, each a command of its own on a machine and at a moment of its
// own (the power-cut method: arm before the cut, check after the power came back): not a suite
// element. Its entry names the command and its steps; the command line parses a step's options
// and runs the phase the method's face declares for it (runner/methods/power_cut/power_cut.hpp).
struct MethodStep {
  std::string_view name;      // "arm"
  std::string_view operands;  // after the name in the help: " RESULT.json..." ("" for none)
  std::string_view about;     // one line
};
struct SteppedMethodEntry {
  std::string_view command;           // "powercut"
  std::span<const MethodStep> steps;  // in the order of its help
  std::string_view doc;               // the help's last line: where the method is described
};

// Every stepped method (method_registry.cpp), and one by its command (null: none).
[[nodiscard]] std::span<const SteppedMethodEntry> stepped_method_entries() noexcept;
[[nodiscard]] const SteppedMethodEntry* find_stepped_method(std::string_view command) noexcept;
// A step of `method` by name; null when it has none of that name.
[[nodiscard]] const MethodStep* find_method_step(const SteppedMethodEntry& method,
                                                 std::string_view name) noexcept;
// The help: "storqual COMMAND STEP[OPERANDS]  about" a line each (the about at column 8 after the
// command, at least two spaces after the step), then the doc line; no newline at the end.
[[nodiscard]] std::string stepped_method_help(const SteppedMethodEntry& method);
// "arm, check, listen, indicators or summary".
[[nodiscard]] std::string stepped_method_step_names(const SteppedMethodEntry& method);

// ---- helpers for a method's `load` ----

// Applies every attribute of `node` except `own` (the method's own, handled by the caller) through
// the workload option table; `allow_iodepth` false refuses iodepth (a method that chooses it).
void apply_workload_attributes(const XmlFile& file, pugi::xml_node node, WorkloadSpec& spec,
                               std::initializer_list<std::string_view> own, bool allow_iodepth);
// "bs, iodepth, ...": the option table's names, for messages.
[[nodiscard]] std::string workload_option_names(bool with_iodepth);
// The plain line of `storqual suites` with `depth` for the queue depth: "randread  4k    QD32 x1,
// 1m".
[[nodiscard]] std::string plain_summary_line(const WorkloadSpec& spec, const std::string& depth);
// A whole number attribute lo..hi; throws FileError naming it.
[[nodiscard]] unsigned parse_count_attribute(const XmlFile& file, pugi::xml_attribute a,
                                             unsigned lo, unsigned hi);

}  // namespace storqual::runner
