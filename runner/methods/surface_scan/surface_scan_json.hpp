// SPDX-License-Identifier: Apache-2.0
// The surface scan's structs as JSON keys (reporting/json_codec.hpp), listed once for the report in
// a result (surface_scan_report.cpp) and for the checkpoint (scan_checkpoint.cpp).
#pragma once

#include "reporting/json_codec.hpp"
#include "runner/methods/surface_scan/scan_report.hpp"

namespace storqual::runner {

void visit_fields(reporting::json::Either<ScanBin> auto& b, auto&& visit) {
  using reporting::json::kRequired;
  visit({"offset", kRequired}, b.offset);
  visit({"bytes", kRequired}, b.bytes);
  visit("write_bytes", b.write_bytes);
  visit("write_ns", b.write_ns);
  visit("read_bytes", b.read_bytes);
  visit("read_ns", b.read_ns);
}

void visit_fields(reporting::json::Either<SlowRegion> auto& s, auto&& visit) {
  visit("first_lba", s.first_lba);
  visit("last_lba", s.last_lba);
  visit("read_bw", s.read_bw);
  visit("share_of_median", s.share_of_median);
}

void visit_fields(reporting::json::Either<SlowBlock> auto& s, auto&& visit) {
  visit("lba", s.lba);
  visit("ns", s.ns);
  visit("error", s.error);
}

void visit_fields(reporting::json::Either<SurfaceScanReport> auto& r, auto&& visit) {
  using reporting::json::kRequired;
  visit({"region_offset", kRequired}, r.region_offset);
  visit({"region_size", kRequired}, r.region_size);
  visit({"block_size", kRequired}, r.block_size);
  visit("lba_size", r.lba_size);
  visit("iodepth", r.iodepth);
  visit({"run_id", kRequired}, r.run_id);
  visit({"algorithm", kRequired}, r.algorithm);
  visit("bytes_written", r.bytes_written);
  visit("bytes_read", r.bytes_read);
  visit("write_errors", r.write_errors);
  visit("read_errors", r.read_errors);
  visit("write_seconds", r.write_seconds);
  visit("read_seconds", r.read_seconds);
  visit({"read_classes", kRequired}, r.read_classes);
  visit({"bins", kRequired}, r.bins);
  visit("slow_regions", r.slow_regions);
  visit("slowest", r.slowest);
  visit("sessions", r.sessions);
}

}  // namespace storqual::runner
