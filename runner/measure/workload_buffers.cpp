// SPDX-License-Identifier: Apache-2.0
// A workload's written contents: write_contents (stamp, scramble, fixed, refill) and its
// compressible and deduplicable writes (fio's buffer_compress_percentage, buffer_compress_chunk
// and dedupe_* options, runner/measure/write_buffers.hpp): their names and checks, and how they
// are written back as fio's options (docs/formats.md, docs/fio-files.md).
#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

std::string_view fio_write_contents(WriteContents c) noexcept {
  switch (c) {
    case WriteContents::Fixed:
      return "scramble_buffers=0";
    case WriteContents::Refill:
      return "refill_buffers=1";
    case WriteContents::Stamp:
    case WriteContents::Scramble:
      break;
  }
  return "";
}

WriteContents parse_write_contents(std::string_view v) {
  if (v == "stamp") return WriteContents::Stamp;
  if (v == "scramble") return WriteContents::Scramble;
  if (v == "fixed") return WriteContents::Fixed;
  if (v == "refill") return WriteContents::Refill;
  throw UnitError("write_contents: expected stamp, scramble, fixed or refill, got '" +
                  std::string(v) + "'");
}

std::string_view write_contents_name(WriteContents c) noexcept {
  switch (c) {
    case WriteContents::Scramble:
      return "scramble";
    case WriteContents::Fixed:
      return "fixed";
    case WriteContents::Refill:
      return "refill";
    case WriteContents::Stamp:
      break;
  }
  return "stamp";
}

void validate_buffers(const WorkloadSpec& spec) {
  const BufferShape& b = spec.buffers;
  if (!b.active()) return;
  if (spec.verify != VerifyAlgorithm::None)
    throw UnitError(
        "buffer_compress_percentage or dedupe_percentage with verify: verify writes its own "
        "blocks (a checksummed header and an incompressible payload)");
  if (spec.write_contents == WriteContents::Fixed || spec.write_contents == WriteContents::Scramble)
    throw UnitError("buffer_compress_percentage or dedupe_percentage with write_contents=" +
                    std::string(write_contents_name(spec.write_contents)) +
                    ": they refill every write (fio sets refill_buffers for them)");
  if (!b.working_set()) return;
  if (!spec.params.size)
    throw UnitError("dedupe_mode=working_set needs a size (fio: the working set is a share of it)");
  if (b.dedupe_working_set_percentage + b.dedupe_percentage > 100)
    throw UnitError("dedupe_percentage " + std::to_string(b.dedupe_percentage) +
                    " cannot be reached with dedupe_working_set_percentage " +
                    std::to_string(b.dedupe_working_set_percentage) +
                    " of the size kept for unique pages (fio: their sum is at most 100)");
  const std::uint64_t min_write =
      spec.bs_mix[1].min_bs ? spec.bs_mix[1].min_bs : std::uint64_t{spec.params.bs};
  if (working_set_pages(b, spec.params.size, min_write) > kMaxWorkingSetStates)
    throw UnitError("dedupe working set of more than " + std::to_string(kMaxWorkingSetStates) +
                    " pages per job: lower dedupe_working_set_percentage or size");
}

std::vector<std::string> buffer_options(const WorkloadSpec& spec) {
  const BufferShape& b = spec.buffers;
  const BufferShape d;
  std::vector<std::string> out;
  if (!b.active()) return out;
  if (b.compress_percentage)
    out.push_back("buffer_compress_percentage=" + std::to_string(b.compress_percentage));
  if (b.compress_chunk != d.compress_chunk)
    out.push_back("buffer_compress_chunk=" + std::to_string(b.compress_chunk));
  if (b.dedupe_percentage) {
    out.push_back("dedupe_percentage=" + std::to_string(b.dedupe_percentage));
    if (b.dedupe_mode != d.dedupe_mode)
      out.push_back("dedupe_mode=" + std::string(dedupe_mode_name(b.dedupe_mode)));
    if (b.dedupe_working_set_percentage != d.dedupe_working_set_percentage)
      out.push_back("dedupe_working_set_percentage=" +
                    std::to_string(b.dedupe_working_set_percentage));
    if (b.dedupe_global) out.emplace_back("dedupe_global=1");
  }
  return out;
}

}  // namespace storqual::runner
