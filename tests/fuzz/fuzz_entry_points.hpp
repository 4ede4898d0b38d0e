// SPDX-License-Identifier: Apache-2.0
// The hostile-input entry points shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp) and the
// regression test of the normal build (tests/unit/fuzz_regression_test.cpp).
//
// Contract: each feed_* takes arbitrary bytes and returns Accepted or Refused. Refused means the
// loader threw the error its header promises for bad input (FileError, UnitError, ResultJsonError;
// all derive from storqual::Error). Any other exception escapes, and a
// property broken on accepted input (a report that is not well-formed XML, a result JSON that does
// not read back) aborts: both are bugs the fuzzer must see as a crash. Header-only, so the fuzz
// build and the test build compile the very same code.
#pragma once

#include <stdlib.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <pugixml.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "archive/archive.hpp"
#include "archive/archive_location.hpp"
#include "devices/ata_health.hpp"
#include "devices/ata_smart.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/scsi_health.hpp"
#include "devices/scsi_log.hpp"
#include "devices/self_test.hpp"
#include "model/errors.hpp"
#include "reporting/console_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/result_json.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/measure/block_size_mix.hpp"
#include "runner/measure/powercut_journal.hpp"
#include "runner/measure/zbd_zones.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/power_cut/powercut_listener.hpp"
#include "runner/methods/surface_scan/scan_checkpoint.hpp"
#include "runner/methods/surface_scan/surface_scan.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/fio_json.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::fuzz {

enum class Outcome { Accepted, Refused };

// A property of accepted input does not hold: print it and abort, so libFuzzer keeps the input.
[[noreturn]] inline void broken(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz: property broken: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// A small fixed suite that accepted spec sheets are cross-checked against.
inline const runner::Suite& reference_suite() {
  static const runner::Suite suite = runner::Suite::parse(
      R"(<suite name="fuzz"><defaults runtime="1s" size="1m"/>
<workload id="randread-4k-qd32" rw="randread" bs="4k" iodepth="32"/>
<workload id="randwrite-4k-qd32" rw="randwrite" bs="4k" iodepth="32"/>
<workload id="seqread-1m-qd32" rw="read" bs="1m" iodepth="32"/>
<workload id="randrw70-4k" rw="randrw" rwmixread="70" bs="4k" iodepth="8"/>
<workload id="mixed"><job name="reader" rw="randread" iodepth="32"/><job name="writer" rw="write"/></workload>
</suite>)",
      "reference-suite.xml");
  return suite;
}

inline Outcome feed_spec_sheet(std::string_view bytes) {
  runner::register_method_reports();  // the methods\' figures and report readers, once
  runner::SpecSheet sheet;
  try {
    sheet = runner::SpecSheet::parse(std::string(bytes), "fuzz-spec.xml");
  } catch (const runner::FileError&) {
    return Outcome::Refused;
  }
  // What a run does next with a sheet: match it against an identity, cross-check its suite.
  (void)sheet.matches({{"model", "Example SSD 500GB"}, {"firmware", "1.0"}, {"transport", "sata"}});
  (void)runner::cross_check(sheet, reference_suite());
  for (const auto& claim : sheet.claims) (void)claim.workload_label();
  return Outcome::Accepted;
}

inline Outcome feed_suite(std::string_view bytes) {
  runner::register_method_reports();  // the methods\' figures and report readers, once
  runner::Suite suite;
  try {
    suite = runner::Suite::parse(std::string(bytes), "fuzz-suite.xml");
  } catch (const runner::FileError&) {
    return Outcome::Refused;
  }
  for (const auto& w : suite.workloads) {
    (void)w.fio_equivalent();
    if (suite.find(w.id()) == nullptr)
      broken("a suite workload is not found by its own id", w.id());
  }
  return Outcome::Accepted;
}

// A fio job file (or, when the first byte is '!', a fio command line) as `storqual suites import`
// reads it, on a fixed host without includes. An accepted one must write suite XML that the suite
// loader reads back to as many workloads, and its fio export (when fio can run it) must import
// again.
inline Outcome feed_fio_job(std::string_view bytes) {
  runner::FioEnvironment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    return name == "SIZE" ? std::optional<std::string>("64m") : std::nullopt;
  };
  runner::FioImport im;
  try {
    if (!bytes.empty() && bytes.front() == '!')
      im = runner::import_fio_jobs(runner::parse_fio_command_line(bytes.substr(1), env), "fuzz");
    else
      im = runner::import_fio_jobs(runner::parse_fio_job_text(bytes, "fuzz.fio", env), "fuzz");
  } catch (const runner::FileError&) {
    return Outcome::Refused;
  }
  const std::string xml = runner::suite_xml_text(im.suite);
  try {
    if (runner::Suite::parse(xml, "fuzz-import.xml").workloads.size() != im.suite.workloads.size())
      broken("the imported suite XML reads back to another number of workloads", xml);
  } catch (const runner::FileError& e) {
    broken("the suite XML of an imported job file does not load",
           std::string(e.what()) + "\n" + xml);
  }
  std::string job;
  try {
    job = runner::fio_job_text(im.suite, "/dev/null");
  } catch (const storqual::UsageError&) {
    return Outcome::Accepted;  // a workload fio cannot run as storqual does
  }
  try {
    (void)runner::import_fio_jobs(runner::parse_fio_job_text(job, "export.fio", env), "fuzz");
  } catch (const runner::FileError& e) {
    broken("an exported job file does not import", std::string(e.what()) + "\n" + job);
  }
  return Outcome::Accepted;
}

// A block-size mix (runner/measure/block_size_mix.hpp): the first byte chooses bssplit (even) or
// bsrange (odd), the rest is its text. Properties of accepted input: its text reads back to the
// same mix, and every size drawn is one the direction can give and fits the room it was drawn for.
// A BLKREPORTZONE answer (runner/measure/zbd_zones.hpp): decoded or refused, and what a
// sequential read of it takes stays inside the zones' readable bytes, in whole blocks.
inline Outcome feed_zone_report(std::string_view bytes) {
  std::vector<runner::ZbdZone> zones;
  try {
    zones = runner::decode_zone_report(
        std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()));
  } catch (const runner::UnitError&) {
    return Outcome::Refused;
  }
  constexpr std::uint64_t kBs = 4096;
  for (const runner::ZbdRun& r : runner::zbd_read_runs(zones, 0, UINT64_MAX >> 1, kBs)) {
    if (r.end <= r.start || (r.end - r.start) % kBs) broken("a read run of no whole blocks", "");
    bool inside = false;
    for (const runner::ZbdZone& z : zones)
      inside = inside || (r.start >= z.start && r.start < z.readable_end());
    if (!inside) broken("a read run starts outside every zone's written bytes", "");
  }
  return Outcome::Accepted;
}

inline Outcome feed_block_size_mix(std::string_view bytes) {
  if (bytes.empty()) return Outcome::Refused;
  const bool split = (static_cast<unsigned char>(bytes.front()) & 1) == 0;
  const std::string_view text = bytes.substr(1);
  const runner::SizeParser size = [](std::string_view s) { return runner::parse_size(s); };
  runner::BlockSizeMix mix;
  try {
    mix = split ? runner::parse_bssplit(text, size) : runner::parse_bsrange(text, size);
  } catch (const runner::UnitError&) {
    return Outcome::Refused;
  }
  const auto format = [](std::uint64_t b) { return runner::format_size_fio(b); };
  const std::string back =
      split ? runner::bssplit_text(mix, format) : runner::bsrange_text(mix, format);
  if (!back.empty()) {
    runner::BlockSizeMix again;
    try {
      again = split ? runner::parse_bssplit(back, size) : runner::parse_bsrange(back, size);
    } catch (const runner::UnitError& e) {
      broken("the text of an accepted mix does not parse", back + ": " + e.what());
    }
    for (unsigned d = 0; d < 3; ++d)
      if (mix[d].mixed() && !(again[d] == mix[d])) broken("a mix reads back another", back);
  }
  for (unsigned d = 0; d < 3; ++d) {
    const runner::BlockSizeChoice& c = mix[d];
    if (!c.mixed()) continue;  // one size: fio returns it without looking at the room
    runner::BlockSizeDraw draw(c, d + 1, d == 1);
    for (std::uint64_t room : {c.min_bs, c.max_bs, c.min_bs + c.max_bs / 3, c.min_bs - 1}) {
      const std::uint64_t len = draw.next(room);
      if (room < c.min_bs ? len != 0 : (len < c.min_bs || len > c.max_bs || len > room))
        broken("a drawn size is outside the mix or the room", std::string(text));
    }
  }
  return Outcome::Accepted;
}

// fio's JSON output (runner/specs/fio_json.hpp). Properties of accepted input: every job's result
// is written to the result JSON and reads back to as many workloads with the same percentiles, and
// every percentile computed from bins is one of the claimable ones.
inline Outcome feed_fio_json(std::string_view bytes) {
  runner::FioJsonOutput out;
  try {
    out = runner::parse_fio_json(bytes, "fuzz.json");
  } catch (const runner::FileError&) {
    return Outcome::Refused;
  }
  if (out.jobs.empty()) broken("accepted fio JSON without jobs");
  reporting::RunResult run;
  for (const auto& j : out.jobs) run.workloads.push_back(j.result);
  // fio's groups (several jobs of one groupid): each with its jobs, through the JSON as a group.
  for (const auto& g : out.groups) {
    if (g.result.jobs.size() < 2) broken("a fio group of fewer than two jobs", g.name);
    run.workloads.push_back(g.result);
  }
  (void)runner::match_fio_jobs(reference_suite(),
                               runner::fold_fio_groups(reference_suite(), out.jobs, out.groups));
  const std::string json = reporting::to_json_text(run);
  try {
    const reporting::RunResult back = reporting::run_result_from_json(json);
    if (back.workloads.size() != run.workloads.size())
      broken("fio's jobs read back to another number of workloads", json);
    for (std::size_t i = 0; i < back.workloads.size(); ++i)
      if (back.workloads[i].read.has_value() != run.workloads[i].read.has_value() ||
          back.workloads[i].jobs.size() != run.workloads[i].jobs.size() ||
          (run.workloads[i].read && back.workloads[i].read->clat.percentiles.size() !=
                                        run.workloads[i].read->clat.percentiles.size()))
        broken("a fio job's result does not read back the same", json);
  } catch (const reporting::ResultJsonError& e) {
    broken("the result JSON of fio's jobs does not read back", e.what());
  }
  return Outcome::Accepted;
}

// The first byte chooses the parser; the rest is its text. For claim values the text is
// "metric\nvalue" (an unparsable metric falls back to one of iops, bw, lat.p99).
inline Outcome feed_units(std::string_view bytes) {
  runner::register_method_reports();  // the methods\' figures and report readers, once
  if (bytes.empty()) return Outcome::Refused;
  const unsigned char selector = static_cast<unsigned char>(bytes.front());
  const std::string_view text = bytes.substr(1);
  try {
    switch (selector % 5) {
      case 0:
        (void)runner::format_size_fio(runner::parse_size(text));
        break;
      case 1: {
        const double s = runner::parse_duration(text);
        if (!(s >= 0)) broken("parse_duration accepted a negative or NaN duration", text);
        (void)runner::format_duration_fio(s);
        break;
      }
      case 2: {
        const double p = runner::parse_percent(text);
        if (!(p >= 0 && p <= 1000)) broken("parse_percent accepted a value outside 0..1000", text);
        break;
      }
      case 3: {
        const runner::Metric m = runner::parse_metric(text);
        (void)m.unit();
        break;
      }
      default: {
        const auto newline = text.find('\n');
        runner::Metric metric;
        try {
          metric = runner::parse_metric(text.substr(0, newline));
        } catch (const runner::UnitError&) {
          static const char* const kFallback[] = {"iops", "bw", "lat.p99"};
          metric = runner::parse_metric(kFallback[(selector / 5) % 3]);
        }
        const std::string_view value =
            newline == std::string_view::npos ? text : text.substr(newline + 1);
        const double v = runner::parse_claim_value(metric, value);
        if (!(v > 0)) broken("parse_claim_value accepted a value that is not positive", value);
        break;
      }
    }
  } catch (const runner::UnitError&) {
    return Outcome::Refused;
  }
  return Outcome::Accepted;
}

// The renderers of `storqual report`: the JUnit must be well-formed XML, the HTML complete.
inline void render_and_check(const reporting::RunResult& run) {
  const std::string junit = reporting::render_junit({run});
  pugi::xml_document doc;
  const auto parsed = doc.load_buffer(junit.data(), junit.size());
  if (!parsed) broken("render_junit wrote XML that does not parse", parsed.description());
  const std::string html = reporting::render_html(run);
  if (html.find("</html>") == std::string::npos) broken("render_html wrote no </html>");
  (void)reporting::format_verdict_table(run);
}

// What `storqual report` does with a result file: read it, then re-render JUnit, HTML, the console
// table and JSON. The JUnit must be well-formed XML and the JSON must read back.
inline Outcome feed_result_json(std::string_view bytes) {
  runner::register_method_reports();  // the methods\' figures and report readers, once
  reporting::RunResult run;
  try {
    run = reporting::run_result_from_json(bytes);
  } catch (const reporting::ResultJsonError&) {
    return Outcome::Refused;
  }
  render_and_check(run);
  const std::string json = reporting::to_json_text(run);
  try {
    // Written, read and written again: the same text (no key written but not read).
    if (reporting::to_json_text(reporting::run_result_from_json(json)) != json)
      broken("write -> read -> write changed the result JSON", json);
  } catch (const reporting::ResultJsonError& e) {
    broken("a result written by to_json_text does not read back", e.what());
  }
  return Outcome::Accepted;
}

// The archive's command-line parsers (archive/archive_location.hpp): the first byte
// chooses --archive/STORQUAL_ARCHIVE, --tag or --since/--until; the rest is the text.
// Properties of accepted input: a PostgreSQL location holds no password (no user:password@, no
// "password" in any case), a tag's key is 1..64
// characters of its alphabet and its value has no control character, a time is 10, 16, 17, 19 or
// 20 characters.
inline Outcome feed_archive_options(std::string_view bytes) {
  if (bytes.empty()) return Outcome::Refused;
  const unsigned char selector = static_cast<unsigned char>(bytes.front());
  const std::string text(bytes.substr(1));
  try {
    switch (selector % 3) {
      case 0: {
        const auto l = reporting::parse_archive_location(text, "--archive");
        if (l.kind == reporting::ArchiveLocation::Kind::Postgresql) {
          const std::string rest = l.target.substr(l.target.find("//") + 2);
          const auto at = rest.find('@'), slash = rest.find_first_of("/?");
          if (at != std::string::npos && (slash == std::string::npos || at < slash) &&
              rest.substr(0, at).find(':') != std::string::npos)
            broken("a PostgreSQL URI with a password was accepted", text);
          std::string lower = l.target;
          for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          if (lower.find("password") != std::string::npos)
            broken("a URI naming a password was accepted", text);
        }
        if (l.display().empty()) broken("an archive location with no name", text);
        break;
      }
      case 1: {
        const auto t = reporting::parse_archive_tag(text, "--tag");
        if (t.key.empty() || t.key.size() > 64) broken("a tag key of a wrong length", text);
        for (unsigned char c : t.value)
          if (c < 0x20 || c == 0x7f) broken("a tag value with a control character", text);
        break;
      }
      default: {
        const std::string t = reporting::parse_history_time(text, "--since");
        const std::size_t n = t.size();
        if (n != 10 && n != 16 && n != 17 && n != 19 && n != 20)
          broken("a time of a wrong length", text);
        break;
      }
    }
  } catch (const Error&) {
    return Outcome::Refused;
  }
  return Outcome::Accepted;
}

// The archive's opening checks and its canonical reader (archive/, docs/archive.md
// "Where" and "The chain"): the bytes as an SQLite archive file, opened read-only, its chain
// verified and a history read. Refused: ArchiveError (a file that is not a storqual archive, a
// damaged one). Properties: the file is byte for byte as it was (a reading open never writes),
// and a verify that answers gives a head of 64 hex digits.
inline Outcome feed_archive_file(std::string_view bytes) {
  // One file in a folder of this process's own, removed when the process ends.
  static const struct Scratch {
    std::string dir, path;
    Scratch() {
      char name[] = "/tmp/storqual-fuzz-archive-XXXXXX";
      if (!::mkdtemp(name)) broken("mkdtemp failed");
      dir = name;
      path = dir + "/archive.sqlite";
    }
    ~Scratch() {
      for (const char* f : {"", "-wal", "-shm", "-journal"}) (void)std::remove((path + f).c_str());
      (void)std::remove(dir.c_str());
    }
  } scratch;
  const std::string& path = scratch.path;
  for (const char* beside : {"-wal", "-shm", "-journal"})
    (void)std::remove((path + beside).c_str());
  auto write = [&](std::string_view b) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(b.data(), 1, b.size(), f) != b.size()) broken("cannot write", path);
    std::fclose(f);
  };
  write(bytes);
  Outcome outcome = Outcome::Accepted;
  try {
    auto archive =
        reporting::Archive::open_to_read(reporting::parse_archive_location(path, "fuzz"));
    const reporting::ChainCheck check = archive->verify();
    if (check.head_hash.size() != 64) broken("a head that is not 64 hex digits");
    reporting::HistoryQuery q;
    q.serial = "S1";
    (void)archive->history(q);
  } catch (const Error&) {
    outcome = Outcome::Refused;
  }
  std::string back;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) back.append(buf, n);
    std::fclose(f);
  }
  if (back != bytes) broken("a reading open changed the file");
  return outcome;
}

// ATA SMART pages (devices/ata_smart.hpp): the input is the SMART data page, then the thresholds
// page, then optionally the self-test log and the summary error log, 512 bytes each; anything
// else is refused as the captured-page loader refuses it (AtaError naming the size). Properties of
// accepted input: at most 30 attributes, none with id 0, a failing attribute has a nonzero
// threshold at or above its value, a raw48 value below 2^48, at most 21 self-test entries, every
// attribute has its report row, and the health functions run on the reading against itself with
// no finding but a failing status or attribute, or pending or offline-uncorrectable sectors.
inline Outcome feed_ata_pages(std::string_view bytes) {
  auto page = [&](std::size_t i) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data()) + i * 512;
    return devices::ata_page_from_bytes({p, std::min<std::size_t>(512, bytes.size() - i * 512)},
                                        "fuzz page " + std::to_string(i));
  };
  if (bytes.size() != 1024 && bytes.size() != 2048) {
    try {
      (void)devices::ata_page_from_bytes(
          {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, "fuzz input");
    } catch (const devices::AtaError&) {
      return Outcome::Refused;
    }
    if (bytes.size() != 512) broken("a page of a wrong size was accepted");
    return Outcome::Refused;  // one page alone is no reading
  }
  devices::HealthSnapshot snap;
  snap.source = "ata:smart";
  snap.ata = devices::parse_ata_smart(page(0), page(1), devices::AtaSmartStatus::Passed);
  devices::AtaSmart& s = *snap.ata;
  if (bytes.size() == 2048) {
    s.self_tests = devices::parse_ata_self_test_log(page(2));
    s.error_count = devices::parse_ata_error_count(page(3));
  }
  if (s.attributes.size() > 30) broken("more than 30 attributes");
  if (s.self_tests.size() > 21) broken("more than 21 self-test entries");
  std::size_t failing = 0;
  for (const auto& a : s.attributes) {
    if (a.id == 0) broken("an attribute with id 0");
    if (a.failing_now()) {
      ++failing;
      if (!a.threshold || *a.threshold == 0 || a.value > *a.threshold)
        broken("a failing attribute above its threshold or without one");
    }
    if (a.format == devices::AtaRawFormat::Raw48 && a.raw_value >= (std::uint64_t{1} << 48))
      broken("a raw48 value of more than 48 bits");
    if (a.raw_text.empty()) broken("an attribute without raw text");
  }
  for (const auto& t : s.self_tests) (void)t.test_name(), (void)t.status_text();
  const auto rows = devices::health_rows(snap);
  std::size_t attribute_rows = 0;
  for (const auto& r : rows) attribute_rows += r.field.rfind("attr.", 0) == 0;
  if (attribute_rows != s.attributes.size()) broken("an attribute without its report row");
  (void)devices::health_changes(snap, snap);
  const auto findings = devices::health_failures(snap, {snap}, {"again"});
  std::set<std::uint8_t> failing_ids;
  for (const auto& a : s.attributes)
    if (a.failing_now()) failing_ids.insert(a.id);
  for (const std::uint8_t id : {devices::kAtaPending, devices::kAtaOfflineUncorrectable})
    if (const auto n = s.sector_count(id); n && *n > 0) failing_ids.insert(id);
  if (findings.size() != failing_ids.size())
    broken(
        "a reading against itself found more than its failing attributes and unreadable "
        "sectors");
  (void)devices::ata_health_summary(s);
  return Outcome::Accepted;
}

// The NVMe admin pages identify decodes (devices/nvme_admin.hpp): the first byte chooses the
// decoder, the rest is its input: 0, Identify Controller (4096 bytes); 1, Identify Namespace
// (4096); 2, Identify Namespace then the ZNS Identify Namespace (8192); 3, the SMART / Health log
// (512). Refused: a page of another size. Properties of accepted input: strings without control
// characters, a block size that is 0 or a power of two up to 2^31, a zone size in bytes that is
// the zone's blocks times the block size.
inline Outcome feed_nvme_pages(std::string_view bytes) {
  if (bytes.empty()) return Outcome::Refused;
  const std::string_view in = bytes.substr(1);
  auto page_at = [&](std::size_t offset) {
    devices::IdentifyPage page;
    std::copy(in.begin() + static_cast<std::ptrdiff_t>(offset),
              in.begin() + static_cast<std::ptrdiff_t>(offset + page.size()),
              reinterpret_cast<char*>(page.data()));
    return page;
  };
  auto clean = [](const std::string& s, const char* what) {
    for (unsigned char c : s)
      if (c < 0x20 || c == 0x7f) broken("a control character in an NVMe identify string", what);
  };
  switch (static_cast<unsigned char>(bytes.front()) % 4) {
    case 0: {
      if (in.size() != 4096) return Outcome::Refused;
      const auto c = devices::parse_identify_controller(page_at(0));
      clean(c.model, "model");
      clean(c.serial, "serial");
      clean(c.firmware, "firmware");
      return Outcome::Accepted;
    }
    case 1:
    case 2: {
      const bool zns = static_cast<unsigned char>(bytes.front()) % 4 == 2;
      if (in.size() != (zns ? 8192u : 4096u)) return Outcome::Refused;
      const auto ns = devices::parse_identify_namespace(page_at(0));
      if (ns.lba_size != 0 && (ns.lba_size & (ns.lba_size - 1)) != 0)
        broken("an LBA size that is not a power of two");
      if (!zns) return Outcome::Accepted;
      const auto z = devices::parse_zns_identify_namespace(page_at(4096), ns);
      if (z.zone_size_bytes != z.zone_size_lbas * ns.lba_size)
        broken("a zone size in bytes other than its blocks times the block size");
      return Outcome::Accepted;
    }
    default: {
      if (in.size() != 512) return Outcome::Refused;
      devices::SmartLogPage page;
      std::copy(in.begin(), in.end(), reinterpret_cast<char*>(page.data()));
      (void)devices::parse_smart_log(page);
      return Outcome::Accepted;
    }
  }
}

// What a self-test's poll reads (devices/self_test.hpp): the first byte chooses the decoder, the
// rest is its input: 0, an ATA SMART READ DATA page (512 bytes: byte 363's execution status, the
// polling times, the capability byte); 1, SCSI sense data (its progress indication); 2, an NVMe
// Device Self-test log (06h, 564 bytes); 3, a MODE SENSE (10) response with the SCSI Control mode
// page (the extended self-test's time, at most 16 bits, never 0). Refused: a page of another size,
// a malformed mode page. Properties of accepted
// input: at most 150% remaining (a nibble times 10), progress in [0, 100), at most 20 NVMe entries,
// none of them an unused one, each with its result's words.
inline Outcome feed_self_test_pages(std::string_view bytes) {
  if (bytes.empty()) return Outcome::Refused;
  const std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(bytes.data()) + 1,
                                         bytes.size() - 1);
  switch (static_cast<unsigned char>(bytes.front()) % 4) {
    case 0: {
      if (in.size() != 512) return Outcome::Refused;
      const std::span<const std::uint8_t, 512> data(in.data(), 512);
      const auto x = devices::decode_ata_self_test_execution(data[363]);
      if (x.remaining_pct > 150) broken("more than 150% of an ATA self-test remaining");
      for (auto t : {devices::SelfTestType::Short, devices::SelfTestType::Extended,
                     devices::SelfTestType::Conveyance}) {
        const auto m = devices::ata_polling_minutes(data, t);
        if (m && (*m == 0 || *m > 0xFFFF)) broken("a polling time of 0 or above 16 bits");
        if (devices::ata_supports(data, t) && !(data[367] & 0x10))
          broken("a self-test supported without the capability bit");
      }
      return Outcome::Accepted;
    }
    case 1: {
      const auto p = devices::scsi_sense_progress(in);
      if (p && (*p < 0 || *p >= 100)) broken("a SCSI progress outside [0, 100)");
      (void)devices::scsi_sense_self_test_in_progress(in);
      return p ? Outcome::Accepted : Outcome::Refused;
    }
    case 3: {
      try {
        const auto seconds = devices::parse_extended_self_test_seconds(in);
        if (seconds && (*seconds == 0 || *seconds > 0xFFFF))
          broken("an extended self-test time of 0 or above 16 bits");
      } catch (const devices::ScsiError&) {
        return Outcome::Refused;
      }
      return Outcome::Accepted;
    }
    default: {
      if (in.size() != std::tuple_size_v<devices::SelfTestLogPage>) return Outcome::Refused;
      devices::SelfTestLogPage page;
      std::copy(in.begin(), in.end(), page.begin());
      const auto log = devices::parse_nvme_self_test_log(page);
      if (log.entries.size() > 20) broken("more than 20 NVMe self-test entries");
      if (log.percent_complete > 127) broken("an NVMe percent complete above 7 bits");
      for (const auto& e : log.entries) {
        if (e.result == 0xF) broken("an unused NVMe self-test entry was kept");
        if (e.result_text().empty()) broken("an NVMe self-test result without words");
      }
      return Outcome::Accepted;
    }
  }
}

// A SCSI LOG SENSE page (devices/scsi_log.hpp): the first byte chooses which page code it is
// read as (00h, 02h, 03h, 05h, 06h, 0Dh, 0Eh, 10h, 2Fh), or (selectors 9, 10, 11) a READ DEFECT
// DATA (10) or (12) header or REQUEST SENSE's sense data; the rest is the page. Refused:
// ScsiError. Properties of accepted input: at most 20 self-test entries, each with a result below
// 16; a defect count that is its list's bytes over a whole descriptor size; the health rows and
// the reading's failures against itself (only its failure predictions and a grown list at
// arrival) run.
inline Outcome feed_scsi_log_page(std::string_view bytes) {
  static constexpr std::uint8_t kCodes[] = {0x00, 0x02, 0x03, 0x05, 0x06, 0x0D, 0x0E, 0x10, 0x2F};
  constexpr unsigned kDefects10 = std::size(kCodes), kDefects12 = kDefects10 + 1,
                     kSense = kDefects10 + 2;
  if (bytes.empty()) return Outcome::Refused;
  const unsigned selector = static_cast<unsigned char>(bytes.front()) % (kSense + 1);
  const std::span<const std::uint8_t> page(reinterpret_cast<const std::uint8_t*>(bytes.data()) + 1,
                                           bytes.size() - 1);
  devices::HealthSnapshot snap;
  snap.source = "scsi:log-sense";
  snap.scsi.emplace();
  try {
    if (selector == kDefects10 || selector == kDefects12)
      snap.scsi->grown_defects = devices::parse_scsi_defect_header(page, selector == kDefects12);
    else if (selector == kSense)
      snap.scsi->request_sense = devices::parse_request_sense(page);
    else if (kCodes[selector] == 0x00)
      for (auto b : devices::scsi_log_body(page, 0x00, "fuzz")) snap.scsi->supported.push_back(b);
    else
      devices::apply_scsi_log_page(*snap.scsi, kCodes[selector], page);
  } catch (const devices::ScsiError&) {
    return Outcome::Refused;
  }
  if (snap.scsi->self_tests.size() > 20) broken("more than 20 SCSI self-test entries");
  for (const auto& t : snap.scsi->self_tests)
    if (t.result > 15) broken("a self-test result above 15");
  if (const auto& d = snap.scsi->grown_defects; d && d->count &&
                                                std::uint64_t{*d->count} * 4 != d->list_bytes &&
                                                std::uint64_t{*d->count} * 8 != d->list_bytes)
    broken("a grown defect count that is not its list's bytes over a descriptor size");
  (void)devices::health_rows(snap);
  (void)devices::health_changes(snap, snap);
  const auto findings = devices::health_failures(snap, {snap}, {"again"});
  const std::size_t expected =
      (snap.scsi->failure_predicted() ? 1u : 0u) +
      (snap.scsi->sense_failure_predicted() ? 1u : 0u) +
      (snap.scsi->grown_defects && snap.scsi->grown_defects->list_bytes > 0 ? 1u : 0u);
  if (findings.size() != expected)
    broken("a SCSI reading against itself found more than its failure predictions and defects");
  (void)devices::scsi_health_summary(*snap.scsi);
  return Outcome::Accepted;
}

// The surface scan's checkpoint file (runner/methods/surface_scan/scan_checkpoint.hpp). Properties
// of accepted input: its text written again reads back to the same text (nothing lost or changed in
// a round trip), and the report it would make renders (slow regions, HTML box, console table).
inline Outcome feed_scan_checkpoint(std::string_view bytes) {
  runner::ScanCheckpoint c;
  try {
    c = runner::parse_scan_checkpoint(bytes, "fuzz-checkpoint.json");
  } catch (const UsageError&) {
    return Outcome::Refused;
  }
  const std::string text = runner::checkpoint_text(c);
  runner::ScanCheckpoint again;
  try {
    again = runner::parse_scan_checkpoint(text, "again.json");
  } catch (const UsageError& e) {
    broken("a checkpoint written from an accepted one is refused", e.what());
  }
  if (runner::checkpoint_text(again) != text) broken("a checkpoint changed in a round trip", text);
  runner::SurfaceScanMethodReport report;
  report.scan = c.progress;
  report.scan->slow_regions = runner::find_slow_regions(c.progress.bins, c.progress.lba_size);
  std::string html;
  reporting::RunResult run;
  reporting::WorkloadResult w;
  report.render_html(html, run, w);
  (void)report.console_block(w);
  return Outcome::Accepted;
}

// The power-cut journal (runner/measure/powercut_journal.hpp) and the listener's stream checks
// (runner/methods/power_cut/powercut_listener.hpp). Selector even: the journal reader (refusal:
// JournalError; a recovered journal reads the same from its valid bytes alone, with no torn tail);
// odd: the listener's gate over the bytes as a client stream (never throws; a stream it takes
// frames from started with the right token).
inline Outcome feed_powercut_journal(std::string_view bytes) {
  if (bytes.empty()) return Outcome::Refused;
  const unsigned char selector = static_cast<unsigned char>(bytes.front());
  const std::string_view rest = bytes.substr(1);
  if (selector % 2 == 1) {
    std::string reason, kept;
    const std::uint64_t frames = runner::accept_journal_stream(rest, "fuzz-token", reason, &kept);
    if (frames > 0 && rest.find("fuzz-token") == std::string_view::npos)
      broken("the listener kept frames without the token", reason);
    if (frames > 0) {
      // What the listener keeps, check reads whole: every frame, no tail, no damage.
      const runner::JournalReading r = runner::read_journal_bytes(kept);
      if (r.damage || !r.contents.tail_problem.empty() || r.contents.frames != frames)
        broken("the listener kept a journal that does not read whole",
               r.damage ? r.damage->problem : r.contents.tail_problem);
    }
    return reason.empty() || frames > 0 ? Outcome::Accepted : Outcome::Refused;
  }
  try {
    const runner::JournalContents j = runner::parse_journal(rest, "fuzz");
    if (j.valid_bytes > j.total_bytes) broken("journal: valid bytes beyond its end");
    // Whole or torn at its last frame only: the bytes after the valid ones are fewer than a
    // frame's largest, or zeros.
    const std::string_view after = rest.substr(j.valid_bytes);
    if (after.size() > 8 + runner::kMaxJournalFrame &&
        after.find_first_not_of('\0') != std::string_view::npos)
      broken("journal: a torn tail longer than one frame", j.tail_problem);
    const runner::JournalContents again =
        runner::parse_journal(rest.substr(0, j.valid_bytes), "fuzz");
    if (!again.tail_problem.empty() || again.writes.size() != j.writes.size() ||
        again.flushes.size() != j.flushes.size())
      broken("journal: its valid bytes do not read the same", again.tail_problem);
    return Outcome::Accepted;
  } catch (const runner::JournalError&) {
    return Outcome::Refused;
  }
}

}  // namespace storqual::fuzz
