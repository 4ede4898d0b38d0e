// SPDX-License-Identifier: Apache-2.0
// The power-cut classifier (powercut_check.hpp): the journal's acknowledged writes against what
// each sector holds after the cut.
#include "runner/methods/power_cut/powercut_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "runner/measure/powercut_record.hpp"

namespace storqual::runner {

namespace {

constexpr std::uint64_t kNoBarrier = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kCorruptVersion = std::numeric_limits<std::uint64_t>::max();

// When a write became durable: its own FUA completion, or the first completed flush of a later
// epoch; `barrier` is the next record id at that completion (kNoBarrier: never durable).
std::vector<std::uint64_t> durable_barriers(const JournalContents& j) {
  std::map<std::uint64_t, std::uint64_t> flush_barrier;  // epoch -> next record id
  for (const auto& f : j.flushes) flush_barrier.emplace(f.epoch, f.next_record_id);
  std::vector<std::uint64_t> out;
  out.reserve(j.writes.size());
  for (const auto& w : j.writes) {
    if (w.fua) {
      out.push_back(w.next_record_id);
      continue;
    }
    const auto f = flush_barrier.upper_bound(w.epoch);
    out.push_back(f == flush_barrier.end() ? kNoBarrier : f->second);
  }
  return out;
}

struct SectorState {
  CutClass cls = CutClass::Intact;
  std::uint64_t version = 0;  // the record id found, 0 for old data, kCorruptVersion
  std::uint64_t found = 0;
  std::uint64_t barrier = kNoBarrier;  // of the earliest durable write lost here
};

struct PendingSector {
  std::uint64_t sector = 0;
  SectorState state{};
  std::uint64_t expected = 0;  // the last acknowledged write's record id
};

class Classifier {
 public:
  Classifier(const JournalContents& j, bool plp)
      : j_(j),
        barriers_(durable_barriers(j)),
        unit_(std::max<std::uint32_t>(kPowercutSector, j.header.atomic_unit)) {
    check_.plp = plp;
    check_.journal_ended = j.ended;
    check_.journal_note = j.tail_problem;
    check_.flushes = j.flushes.size();
    check_.acknowledged_writes = j.writes.size();
    for (std::uint32_t i = 0; i < j.writes.size(); ++i) {
      const auto& w = j.writes[i];
      if (w.fua) ++check_.fua_writes;
      for (std::uint64_t s = w.offset; s < w.offset + w.length; s += kPowercutSector)
        history_[s].push_back(i);
    }
    check_.sectors = history_.size();
  }

  CutCheck run(const SectorSource& read) {
    std::uint32_t longest = 0;
    for (const auto& w : j_.writes) longest = std::max(longest, w.length);
    const std::size_t size = (static_cast<std::size_t>(longest) + 4095) / 4096 * 4096;
    std::unique_ptr<unsigned char, decltype(&std::free)> buf(
        static_cast<unsigned char*>(std::aligned_alloc(4096, std::max<std::size_t>(size, 4096))),
        &std::free);
    for (std::uint32_t i = 0; i < j_.writes.size(); ++i) check_request(i, read, buf.get());
    scan_unnamed_units(read);
    // Only now is every misdirected write known: the sectors it explains are misplaced, not lost.
    for (const auto& p : pending_) tally(p.sector, resolve_misplaced(p), p.expected);
    pending_.clear();
    count_unserializable();
    std::sort(check_.findings.begin(), check_.findings.end(),
              [](const CutFinding& a, const CutFinding& b) { return a.offset < b.offset; });
    return std::move(check_);
  }

 private:
  void check_request(std::uint32_t index, const SectorSource& read, unsigned char* buf) {
    const JournalWrite& w = j_.writes[index];
    std::vector<std::uint64_t> sectors;  // of this request that no later write covers
    for (std::uint64_t s = w.offset; s < w.offset + w.length; s += kPowercutSector)
      if (history_[s].back() == index) sectors.push_back(s);
    if (sectors.empty()) return;
    const bool readable = read(w.offset, w.length, buf);
    std::map<std::uint64_t, SectorState> states;
    for (const std::uint64_t s : sectors) {
      states[s] = readable ? classify(s, buf + (s - w.offset)) : SectorState{CutClass::Unreadable};
    }
    mark_shorn(states);
    for (const auto& [s, st] : states) pending_.push_back({s, st, w.record_id});
  }

  // A sector whose last acknowledged write was found at another sector (a misdirected write) is
  // misplaced with it: one cause, one class; no flush lied there.
  SectorState resolve_misplaced(const PendingSector& p) const {
    const bool missing = p.state.cls == CutClass::LostAfterFlush ||
                         p.state.cls == CutClass::LostBeforeFlush || p.state.cls == CutClass::Shorn;
    if (!missing || !misdirected_.count({p.sector, p.expected})) return p.state;
    SectorState st = p.state;
    st.cls = CutClass::Misplaced;
    st.barrier = kNoBarrier;
    return st;
  }

  SectorState classify(std::uint64_t sector, const unsigned char* bytes) {
    const SectorRead r = read_powercut_sector(bytes, j_.header.run_id);
    const auto& h = history_.at(sector);
    const JournalWrite& latest = j_.writes[h.back()];
    SectorState st;
    if (r.content == SectorContent::Corrupted) return {CutClass::Corrupted, kCorruptVersion, 0};
    std::uint64_t found = 0;
    if (r.content == SectorContent::Record) {
      found = r.record.record_id;
      if (r.record.offset != sector) {
        misdirected_.insert({r.record.offset, found});
        return {CutClass::Misplaced, kCorruptVersion, found};
      }
      if (found >= latest.record_id) return {CutClass::Intact, found, found};
    }
    st.version = found;
    st.found = found;
    st.cls = CutClass::LostBeforeFlush;
    for (const std::uint32_t i : h) {
      if (j_.writes[i].record_id <= found || barriers_[i] == kNoBarrier) continue;
      st.cls = CutClass::LostAfterFlush;
      st.barrier = std::min(st.barrier, barriers_[i]);
    }
    return st;
  }

  // Within an atomic write unit every sector must hold the same version.
  void mark_shorn(std::map<std::uint64_t, SectorState>& states) const {
    auto it = states.begin();
    while (it != states.end()) {
      const std::uint64_t unit = it->first / unit_;
      auto end = it;
      std::set<std::uint64_t> versions;
      for (; end != states.end() && end->first / unit_ == unit; ++end)
        if (end->second.version != kCorruptVersion && end->second.cls != CutClass::Unreadable)
          versions.insert(end->second.version);
      if (versions.size() > 1) {
        const std::uint64_t newest = *versions.rbegin();
        for (auto s = it; s != end; ++s)
          if (s->second.version != newest && s->second.version != kCorruptVersion &&
              s->second.cls != CutClass::Unreadable) {
            s->second.cls = CutClass::Shorn;
            s->second.barrier = kNoBarrier;
          }
      }
      it = end;
    }
  }

  void tally(std::uint64_t sector, const SectorState& st, std::uint64_t expected) {
    ++check_.counts[static_cast<std::size_t>(st.cls)];
    if (st.cls == CutClass::Intact) {
      present_.insert(st.found);
      return;
    }
    if (st.cls == CutClass::LostAfterFlush)
      earliest_barrier_ = std::min(earliest_barrier_, st.barrier);
    add_finding({st.cls, sector, expected, st.found});
  }

  void add_finding(const CutFinding& f) {
    auto& v = check_.findings;
    if (v.size() < CutCheck::kMaxFindings) {
      v.push_back(f);
      return;
    }
    auto highest = std::max_element(
        v.begin(), v.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    if (highest->offset > f.offset) *highest = f;
  }

  // The units of the region no acknowledged write names: a request in flight at the cut may have
  // landed there in part. A unit holding a record of this run beside sectors of another version
  // is shorn too.
  void scan_unnamed_units(const SectorSource& read) {
    constexpr std::uint64_t kChunk = 1 << 20;
    const std::uint64_t begin = j_.header.region_offset / unit_ * unit_;
    const std::uint64_t end = j_.header.region_offset + j_.header.region_size;
    std::unique_ptr<unsigned char, decltype(&std::free)> buf(
        static_cast<unsigned char*>(std::aligned_alloc(4096, kChunk)), &std::free);
    for (std::uint64_t at = begin; at < end; at += kChunk) {
      const auto length = static_cast<std::uint32_t>(std::min(kChunk, end - at) / unit_ * unit_);
      if (length == 0 || !read(at, length, buf.get())) continue;  // unreadable: not named anyway
      for (std::uint64_t u = at; u < at + length; u += unit_) {
        if (history_.count(u)) continue;  // a unit is named whole or not at all
        scan_unit(u, buf.get() + (u - at));
      }
    }
  }

  void scan_unit(std::uint64_t unit, const unsigned char* bytes) {
    std::vector<std::uint64_t> versions;
    bool ours = false;
    for (std::uint32_t s = 0; s < unit_; s += kPowercutSector) {
      const SectorRead r = read_powercut_sector(bytes + s, j_.header.run_id);
      const bool valid = r.content == SectorContent::Record;
      if (valid && r.record.offset != unit + s) {  // a write meant for another sector landed here
        misdirected_.insert({r.record.offset, r.record.record_id});
        ++check_.counts[static_cast<std::size_t>(CutClass::Misplaced)];
        add_finding({CutClass::Misplaced, unit + s, 0, r.record.record_id});
      }
      const bool record = valid && r.record.offset == unit + s;
      ours |= record;
      versions.push_back(record ? r.record.record_id : 0);
    }
    const std::uint64_t newest = *std::max_element(versions.begin(), versions.end());
    if (!ours ||
        std::all_of(versions.begin(), versions.end(), [&](std::uint64_t v) { return v == newest; }))
      return;
    for (std::size_t i = 0; i < versions.size(); ++i) {
      if (versions[i] == newest) continue;
      ++check_.counts[static_cast<std::size_t>(CutClass::Shorn)];
      add_finding({CutClass::Shorn, unit + i * kPowercutSector, newest, versions[i]});
    }
  }

  // Requests present that were issued after a lost write had been made durable.
  void count_unserializable() {
    if (earliest_barrier_ == kNoBarrier) return;
    for (auto it = present_.lower_bound(earliest_barrier_); it != present_.end(); ++it) {
      ++check_.counts[static_cast<std::size_t>(CutClass::Unserializable)];
      if (check_.findings.size() < CutCheck::kMaxFindings) {
        for (const auto& w : j_.writes)
          if (w.record_id == *it) {
            check_.findings.push_back({CutClass::Unserializable, w.offset, *it, *it});
            break;
          }
      }
    }
  }

  const JournalContents& j_;
  std::vector<std::uint64_t> barriers_;
  std::uint32_t unit_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> history_;
  std::set<std::uint64_t> present_;  // record ids found intact
  // (the sector it was meant for, record id) of every valid record found at another sector
  std::set<std::pair<std::uint64_t, std::uint64_t>> misdirected_;
  std::vector<PendingSector> pending_;  // classified, counted once misdirected_ is complete
  std::uint64_t earliest_barrier_ = kNoBarrier;
  CutCheck check_;
};

}  // namespace

std::string_view to_string(CutClass c) noexcept {
  switch (c) {
    case CutClass::Intact:
      return "intact";
    case CutClass::LostAfterFlush:
      return "lost-after-flush";
    case CutClass::LostBeforeFlush:
      return "lost-before-flush";
    case CutClass::Shorn:
      return "shorn";
    case CutClass::Unserializable:
      return "unserializable";
    case CutClass::Corrupted:
      return "corrupted";
    case CutClass::Misplaced:
      return "misplaced";
    case CutClass::Unreadable:
      break;
  }
  return "unreadable";
}

bool CutCheck::fails(CutClass c) const noexcept {
  if (c == CutClass::Intact) return false;
  if (c == CutClass::LostBeforeFlush) return plp;
  return true;
}

std::uint64_t CutCheck::failures() const noexcept {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kCutClasses; ++i)
    if (fails(static_cast<CutClass>(i))) n += counts[i];
  return n;
}

CutCheck classify_cut(const JournalContents& journal, const SectorSource& read, bool plp) {
  return Classifier(journal, plp).run(read);
}

std::string cut_summary(const CutCheck& check) {
  std::string s = std::to_string(check.sectors) + " sectors of " +
                  std::to_string(check.acknowledged_writes) + " acknowledged writes (" +
                  std::to_string(check.flushes) + " flushes, " + std::to_string(check.fua_writes) +
                  " FUA)";
  for (std::size_t i = 0; i < kCutClasses; ++i) {
    const auto c = static_cast<CutClass>(i);
    if (check.counts[i] == 0) continue;
    s += ", " + std::to_string(check.counts[i]) + " " + std::string(to_string(c));
    if (c == CutClass::Unserializable) s += " requests";
    for (const auto& f : check.findings)
      if (f.cls == c) {
        s += " (first at " + std::to_string(f.offset) + ")";
        break;
      }
    if (c == CutClass::LostBeforeFlush)
      s += check.plp ? " [fail: the sheet claims power-loss protection]"
                     : " [allowed: volatile write cache]";
  }
  if (check.journal_ended) s += "; the run ended without a cut";
  if (!check.journal_note.empty()) s += "; journal torn tail recovered: " + check.journal_note;
  return s;
}

reporting::ClaimVerdict cut_verdict(const CutCheck& check, const std::string& name) {
  reporting::ClaimVerdict v;
  v.workloads = {name};
  v.metric = "powercut";
  v.kind = reporting::VerdictKind::Claim;
  v.measured = static_cast<double>(check.failures());
  v.claimed = 0;
  v.unit = "sectors";
  v.higher_is_better = false;
  v.status =
      check.failures() == 0 ? reporting::VerdictStatus::Pass : reporting::VerdictStatus::Fail;
  v.message = cut_summary(check);
  if (check.acknowledged_writes == 0) {
    // Nothing acknowledged, nothing to keep: no evidence either way (a journal cut to its header,
    // a run cut before its first completion).
    v.status = reporting::VerdictStatus::Inconclusive;
    v.message +=
        "; inconclusive: the journal holds no acknowledged write, so the cut tested nothing";
  }
  v.figure =
      "sectors lost after a completed flush or FUA, shorn, unserializable, corrupted, "
      "misplaced or unreadable" +
      std::string(check.plp ? ", or lost before a flush (power-loss protection claimed)" : "");
  return v;
}

std::vector<reporting::ClaimVerdict> cut_class_verdicts(const CutCheck& check,
                                                        const std::string& name) {
  std::vector<reporting::ClaimVerdict> out;
  for (std::size_t i = 0; i < kCutClasses; ++i) {
    if (check.counts[i] == 0) continue;
    const auto c = static_cast<CutClass>(i);
    reporting::ClaimVerdict v;
    v.workloads = {name};
    v.metric = "powercut." + std::string(to_string(c));
    v.kind = reporting::VerdictKind::Claim;
    v.status = reporting::VerdictStatus::MeasuredOnly;
    v.measured = static_cast<double>(check.counts[i]);
    v.unit = c == CutClass::Unserializable ? "requests" : "sectors";
    v.higher_is_better = c == CutClass::Intact;
    v.message = std::to_string(check.counts[i]) + " " + v.unit + " " + std::string(to_string(c));
    v.figure = c == CutClass::Unserializable ? "requests present that were issued after a lost "
                                               "write had been made durable"
                                             : "sectors of the journal's region in this class";
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

std::string shutdown_reading(std::uint64_t before, std::uint64_t after) {
  return std::to_string(before) + " before arm, " + std::to_string(after) + " at check";
}

}  // namespace

reporting::ClaimVerdict unsafe_shutdown_verdict(const JournalContents& journal,
                                                const JournalShutdowns& after,
                                                const std::string& name) {
  reporting::ClaimVerdict v;
  v.workloads = {name};
  v.metric = "powercut.unsafe_shutdowns";
  v.kind = reporting::VerdictKind::Health;
  v.unit = "shutdowns";
  v.higher_is_better = false;
  const std::string not_readable = "unsafe-shutdown count not readable: ";
  if (!journal.shutdowns_before) {
    v.status = reporting::VerdictStatus::Skipped;
    v.message = not_readable + "the journal holds no count from before the cut";
    return v;
  }
  const JournalShutdowns& before = *journal.shutdowns_before;
  if (!before.readable || !after.readable) {
    v.status = reporting::VerdictStatus::Skipped;
    v.message = not_readable +
                (before.readable ? "at check: " + after.source : "before arm: " + before.source);
    return v;
  }
  const std::uint64_t want = journal.ended ? 0 : 1;
  v.claimed = static_cast<double>(want);
  v.figure = "rise of the drive's unsafe-shutdown count (" + after.source + ") over the cut";
  const auto rise = [](std::uint64_t b, std::uint64_t a) {
    return a >= b ? std::to_string(a - b) : "-" + std::to_string(b - a);
  };
  v.measured = after.count >= before.count ? static_cast<double>(after.count - before.count)
                                           : -static_cast<double>(before.count - after.count);
  bool ok = after.count == before.count + want && before.source == after.source;
  v.message = "unsafe-shutdown count (" + after.source + ") " +
              shutdown_reading(before.count, after.count) + ": rose by " +
              rise(before.count, after.count);
  if (before.source != after.source)
    v.message += " [read from " + before.source + " before arm: not comparable]";
  if (before.has_ocp && after.has_ocp) {
    const bool ocp_ok = after.ocp_incomplete == before.ocp_incomplete + want;
    ok = ok && ocp_ok;
    v.message += "; OCP incomplete shutdowns " +
                 shutdown_reading(before.ocp_incomplete, after.ocp_incomplete) + ": rose by " +
                 rise(before.ocp_incomplete, after.ocp_incomplete);
  }
  v.message += journal.ended ? " (the run ended without a cut: expected no rise)"
                             : " (one cut: expected exactly 1)";
  v.status = ok ? reporting::VerdictStatus::Pass : reporting::VerdictStatus::Fail;
  return v;
}

reporting::ClaimVerdict missing_device_verdict(const std::string& name, const std::string& reason) {
  reporting::ClaimVerdict v;
  v.workloads = {name};
  v.metric = "powercut";
  v.kind = reporting::VerdictKind::Claim;
  v.status = reporting::VerdictStatus::Fail;
  v.claimed = 0;
  v.unit = "sectors";
  v.higher_is_better = false;
  v.message = "the device did not come back after the cut: " + reason;
  return v;
}

}  // namespace storqual::runner
