// SPDX-License-Identifier: Apache-2.0
// `storqual powercut check`'s classifier (docs/power-cut.md, "What check finds"): every sector the
// journal names is read back and classified against what the drive acknowledged before the cut.
//
// Per sector, with the journal's acknowledged writes to it in order (w1..wk) and what it holds:
//   wk's sub-record, or a later request's (issued, never acknowledged)      -> intact
//   a valid sub-record of this run whose offset is another sector          -> misplaced
//   (and where that record's write was meant to go, when it is missing there: the same cause,
//   misplaced too, never also lost or a barrier for unserializable)
//   this run's magic and id, checksum wrong                                 -> corrupted
//   an older write's sub-record, or no sub-record of this run (old data): the writes after it
//   were lost; if one of them was covered by a completed flush or was FUA -> lost after flush
//                                                                  (fail: the flush lied)
//                                            otherwise             -> lost before flush
//                       (allowed for a volatile write cache; a fail when the sheet claims PLP)
//   an unreadable sector                                                    -> unreadable (fail)
// Within one atomic write unit (the journal header's, aligned to the device), sectors holding
// different versions (two records, or a record and old data) are shorn: the unit's sectors that
// are not its newest version are counted shorn instead of lost (fail). The units of the region no
// acknowledged write names are read too: a request in flight at the cut that landed there in part
// (a record of this run beside another version in one unit) is shorn as well.
// Unserializable (fail): a request issued after the completion that made a lost write durable
// (its flush, or its own FUA completion) is present on the device; counted per such request.
//
// Memory: the writes' history per sector (a vector per named sector): about 40 bytes per sector
// written; a 1 GiB region fully written takes ~80 MiB.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"
#include "runner/measure/powercut_journal.hpp"

namespace storqual::runner {

enum class CutClass : std::uint8_t {
  Intact,
  LostAfterFlush,
  LostBeforeFlush,
  Shorn,
  Unserializable,
  Corrupted,
  Misplaced,
  Unreadable,
};
inline constexpr std::size_t kCutClasses = 8;
// "intact", "lost-after-flush", "lost-before-flush", "shorn", "unserializable", "corrupted",
// "misplaced", "unreadable".
[[nodiscard]] std::string_view to_string(CutClass c) noexcept;

struct CutFinding {
  CutClass cls = CutClass::Intact;
  std::uint64_t offset = 0;           // the sector
  std::uint64_t expected_record = 0;  // the last acknowledged write's record id
  std::uint64_t found_record = 0;     // the record found (0: none of this run)
};

struct CutCheck {
  std::array<std::uint64_t, kCutClasses> counts{};  // sectors; unserializable in requests
  std::vector<CutFinding> findings;                 // the first kMaxFindings, in offset order
  std::uint64_t sectors = 0;                        // sectors the journal names
  std::uint64_t acknowledged_writes = 0, flushes = 0, fua_writes = 0;
  bool plp = false;            // judged as a drive that claims power-loss protection
  bool journal_ended = false;  // the run ended without a cut
  std::string journal_note;    // the journal's torn tail, if any
  static constexpr std::size_t kMaxFindings = 64;

  [[nodiscard]] std::uint64_t count(CutClass c) const noexcept {
    return counts[static_cast<std::size_t>(c)];
  }
  // Whether the class fails this check (lost before flush only with plp).
  [[nodiscard]] bool fails(CutClass c) const noexcept;
  [[nodiscard]] std::uint64_t failures() const noexcept;
};

// Reads `length` bytes at byte `offset` of the device into `buffer` (aligned to 4096); false when
// the read failed.
using SectorSource = std::function<bool(std::uint64_t offset, std::uint32_t length, void* buffer)>;

// Classifies every sector `journal` names. `plp`: the sheet claims power-loss protection.
[[nodiscard]] CutCheck classify_cut(const JournalContents& journal, const SectorSource& read,
                                    bool plp);

// "312 intact, 8 lost after flush (first at 1052672), ..."; the classes with a count only.
[[nodiscard]] std::string cut_summary(const CutCheck& check);

// The cut's testcase: metric "powercut", measured = failing sectors (and requests), claimed 0;
// pass when none, fail otherwise, with cut_summary as the message; inconclusive when the journal
// holds no acknowledged write (nothing was asked of the drive). `name` is the testcase's
// workload ("cut 3").
[[nodiscard]] reporting::ClaimVerdict cut_verdict(const CutCheck& check, const std::string& name);
// The cut's class counts as measured-only verdicts (metric "powercut.<class>", one per class with
// a count; unit sectors, requests for unserializable), which `storqual powercut summary` adds up.
[[nodiscard]] std::vector<reporting::ClaimVerdict> cut_class_verdicts(const CutCheck& check,
                                                                      const std::string& name);
// The cut's unsafe-shutdown testcase (metric "powercut.unsafe_shutdowns", kind Health): the count
// arm journalled before its first write against `after`, read by check. One cut must raise it by
// exactly one (and OCP's incomplete shutdowns by one where both readings have them); a run that
// ended without a cut by none. Pass or fail; when either reading is missing, status Skipped with
// the message "unsafe-shutdown count not readable: <why>" (never silence).
[[nodiscard]] reporting::ClaimVerdict unsafe_shutdown_verdict(const JournalContents& journal,
                                                              const JournalShutdowns& after,
                                                              const std::string& name);
// The testcase of a device that did not come back (fail, the reason as message).
[[nodiscard]] reporting::ClaimVerdict missing_device_verdict(const std::string& name,
                                                             const std::string& reason);

}  // namespace storqual::runner
