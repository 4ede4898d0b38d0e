// SPDX-License-Identifier: Apache-2.0
// The power-cut classifier on constructed device images: one image per class (intact, lost before
// and after a flush or FUA, shorn, unserializable, corrupted, misplaced, unreadable), built from
// the same sub-records arm writes and the same journal entries it keeps.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runner/measure/powercut_record.hpp"
#include "runner/methods/power_cut/powercut_check.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kRun = 0x1234;
constexpr std::uint64_t kImage = 1 << 20;

// A device image and the journal of what it acknowledged.
class CutScene {
 public:
  CutScene() : image_(kImage, 0xEE), pool_(kRun) {
    journal_.header.run_id = kRun;
    journal_.header.region_size = kImage;
    journal_.header.atomic_unit = 4096;
  }

  // A request of `bytes` at `offset`: its bytes (as arm writes them) and, when `acked`, its
  // journal entry. Returns the bytes; `land` puts them on the image.
  std::vector<unsigned char> write(std::uint64_t offset, std::uint32_t bytes, bool acked, bool land,
                                   bool fua = false) {
    std::vector<unsigned char> data(bytes);
    PowercutRecord r;
    r.offset = offset;
    r.run_id = kRun;
    r.record_id = next_id_++;
    r.epoch = epoch_;
    r.flags = fua ? kPowercutFlagFua : 0;
    fill_powercut_request(data.data(), bytes, r, pool_);
    if (land) std::memcpy(image_.data() + offset, data.data(), bytes);
    if (acked) {
      JournalWrite w;
      w.record_id = r.record_id;
      w.offset = offset;
      w.length = bytes;
      w.fua = fua;
      w.epoch = epoch_;
      w.next_record_id = next_id_;
      journal_.writes.push_back(w);
    }
    return data;
  }
  void flush() { journal_.flushes.push_back({++epoch_, next_id_, 0}); }

  CutCheck check(bool plp = false, bool readable = true) {
    return classify_cut(
        journal_,
        [&](std::uint64_t offset, std::uint32_t length, void* buf) {
          if (!readable) return false;
          std::memcpy(buf, image_.data() + offset, length);
          return true;
        },
        plp);
  }

  std::vector<unsigned char> image_;
  JournalContents journal_;

 private:
  PayloadPool pool_;
  std::uint64_t next_id_ = 1;
  std::uint64_t epoch_ = 0;
};

TEST(PowercutCheck, EveryAcknowledgedSectorPresentIsIntactAndPasses) {
  CutScene s;
  s.write(0, 4096, true, true);
  s.write(65536, 65536, true, true);
  s.flush();
  s.write(8192, 4096, true, true, true);
  const CutCheck c = s.check(true);
  EXPECT_EQ(c.count(CutClass::Intact), 8u + 128u + 8u);
  EXPECT_EQ(c.failures(), 0u);
  EXPECT_EQ(cut_verdict(c, "cut 1").status, reporting::VerdictStatus::Pass);
}

TEST(PowercutCheck, UnflushedLossIsAllowedForAVolatileCacheAndFailsUnderPlp) {
  CutScene s;
  s.write(0, 4096, true, true);
  s.flush();
  s.write(4096, 4096, true, false);  // acknowledged, never flushed, not on the image
  const CutCheck volatile_cache = s.check(false);
  EXPECT_EQ(volatile_cache.count(CutClass::LostBeforeFlush), 8u);
  EXPECT_EQ(volatile_cache.failures(), 0u);
  EXPECT_EQ(cut_verdict(volatile_cache, "c").status, reporting::VerdictStatus::Pass);
  const CutCheck plp = s.check(true);
  EXPECT_EQ(plp.failures(), 8u);
  EXPECT_EQ(cut_verdict(plp, "c").status, reporting::VerdictStatus::Fail);
  EXPECT_NE(cut_verdict(plp, "c").message.find("power-loss protection"), std::string::npos);
}

TEST(PowercutCheck, LossAfterACompletedFlushFails) {
  CutScene s;
  s.write(0, 4096, true, false);
  s.flush();
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::LostAfterFlush), 8u);
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].offset, 0u);
  EXPECT_EQ(cut_verdict(c, "c").status, reporting::VerdictStatus::Fail);
}

TEST(PowercutCheck, LossOfAFuaWriteFails) {
  CutScene s;
  s.write(0, 4096, true, false, /*fua=*/true);
  EXPECT_EQ(s.check().count(CutClass::LostAfterFlush), 8u);
}

TEST(PowercutCheck, AnOlderVersionAfterAFlushIsLostAfterFlush) {
  CutScene s;
  s.write(0, 4096, true, true);   // the old version stays on the image
  s.write(0, 4096, true, false);  // the new one is lost...
  s.flush();                      // ...after a flush covered it
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::LostAfterFlush), 8u);
  EXPECT_EQ(c.findings[0].found_record, 1u);
  EXPECT_EQ(c.findings[0].expected_record, 2u);
}

TEST(PowercutCheck, APartlyWrittenAtomicUnitIsShorn) {
  CutScene s;
  auto data = s.write(0, 4096, true, false);
  std::memcpy(s.image_.data(), data.data(), 2048);  // half of the unit landed
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Shorn), 4u);
  EXPECT_EQ(c.count(CutClass::Intact), 4u);
  EXPECT_EQ(cut_verdict(c, "c").status, reporting::VerdictStatus::Fail);
}

TEST(PowercutCheck, ATornRequestInFlightAtTheCutIsShornWhereNothingWasAcknowledged) {
  CutScene s;
  s.write(0, 4096, true, true);
  auto in_flight = s.write(65536, 8192, false, false);                  // never acknowledged
  std::memcpy(s.image_.data() + 65536, in_flight.data(), 4096 + 1024);  // one unit and a bit
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Intact), 8u);
  EXPECT_EQ(c.count(CutClass::Shorn), 6u);  // the second unit: 2 sectors new, 6 old
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].offset, 65536u + 4096 + 1024);
}

TEST(PowercutCheck, ALargeUnflushedRequestKeptInWholeUnitsIsNotShorn) {
  CutScene s;
  auto data = s.write(0, 16384, true, false);
  std::memcpy(s.image_.data(), data.data(), 8192);  // two whole 4 KiB units of four
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Shorn), 0u);
  EXPECT_EQ(c.count(CutClass::LostBeforeFlush), 16u);
  EXPECT_EQ(c.failures(), 0u);
}

TEST(PowercutCheck, ALaterWritePresentWhereAFlushedOneIsMissingIsUnserializable) {
  CutScene s;
  s.write(0, 4096, true, false);  // lost although flushed
  s.flush();
  s.write(8192, 4096, true, true);  // issued after the flush, present
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::LostAfterFlush), 8u);
  EXPECT_EQ(c.count(CutClass::Unserializable), 1u);
  EXPECT_NE(cut_summary(c).find("unserializable"), std::string::npos);
}

TEST(PowercutCheck, OrderWithinAnUnflushedEpochIsFree) {
  CutScene s;
  s.write(0, 4096, true, false);
  s.write(8192, 4096, true, true);  // later, present; no flush between: allowed
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Unserializable), 0u);
  EXPECT_EQ(c.failures(), 0u);
}

TEST(PowercutCheck, AFlippedBitIsCorruption) {
  CutScene s;
  s.write(0, 4096, true, true);
  s.image_[512 + 300] ^= 0x10;
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Corrupted), 1u);
  EXPECT_EQ(c.count(CutClass::Intact), 7u);
}

TEST(PowercutCheck, ARecordAtAnotherOffsetIsMisplaced) {
  CutScene s;
  auto a = s.write(0, 4096, true, true);
  s.write(8192, 4096, true, false);
  std::memcpy(s.image_.data() + 8192, a.data(), 4096);  // a misdirected write
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Misplaced), 8u);
}

// One cause, one class: a write that landed at another sector is misplaced there and where it was
// meant to go; no flush lied, so nothing is lost after a flush and nothing is unserializable.
TEST(PowercutCheck, AMisdirectedWriteIsMisplacedOnlyNotAlsoLostOrUnserializable) {
  CutScene s;
  s.write(8192, 4096, true, true);  // Y
  s.flush();
  auto x = s.write(0, 4096, true, false);               // X, meant for 0, acknowledged and flushed
  std::memcpy(s.image_.data() + 8192, x.data(), 4096);  // ... written over Y instead
  s.flush();
  s.write(16384, 4096, true, true);  // a later request, present
  s.flush();
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Misplaced), 16u);  // at 8192 (X's record) and at 0 (X missing)
  EXPECT_EQ(c.count(CutClass::LostAfterFlush), 0u);
  EXPECT_EQ(c.count(CutClass::LostBeforeFlush), 0u);
  EXPECT_EQ(c.count(CutClass::Unserializable), 0u);
  EXPECT_EQ(c.count(CutClass::Intact), 8u);
  EXPECT_EQ(cut_verdict(c, "c").status, reporting::VerdictStatus::Fail);
}

TEST(PowercutCheck, AWriteMisdirectedIntoAnUnwrittenUnitIsMisplacedThere) {
  CutScene s;
  auto x = s.write(0, 4096, true, false);
  std::memcpy(s.image_.data() + 65536, x.data(), 4096);  // a unit no acknowledged write names
  s.flush();
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Misplaced), 16u);
  EXPECT_EQ(c.count(CutClass::LostAfterFlush), 0u);
  EXPECT_EQ(c.count(CutClass::Shorn), 0u);
}

TEST(PowercutCheck, AWriteLostWhileAnotherWasMisdirectedIsStillLost) {
  CutScene s;
  auto x = s.write(0, 4096, true, false);
  std::memcpy(s.image_.data() + 8192 + 0, x.data(), 4096);  // X misdirected onto 8192 ...
  s.write(4096, 4096, true, false);                         // ... and Z simply lost
  s.flush();
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Misplaced), 16u);
  EXPECT_EQ(c.count(CutClass::LostAfterFlush), 8u);  // Z's: another cause, its own class
}

TEST(PowercutCheck, ALaterUnacknowledgedWriteIsIntact) {
  CutScene s;
  s.write(0, 4096, true, true);
  s.flush();
  s.write(0, 4096, false, true);  // in flight at the cut, landed
  const CutCheck c = s.check();
  EXPECT_EQ(c.count(CutClass::Intact), 8u);
  EXPECT_EQ(c.failures(), 0u);
}

TEST(PowercutCheck, AJournalWithNoAcknowledgedWriteIsInconclusive) {
  CutScene s;  // a journal cut to its header: nothing was asked of the drive
  const CutCheck c = s.check();
  EXPECT_EQ(c.failures(), 0u);
  const reporting::ClaimVerdict v = cut_verdict(c, "c");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Inconclusive);
  EXPECT_NE(v.message.find("holds no acknowledged write"), std::string::npos) << v.message;
}

TEST(PowercutCheck, AnUnreadableDeviceFailsEverySector) {
  CutScene s;
  s.write(0, 4096, true, true);
  const CutCheck c = s.check(false, false);
  EXPECT_EQ(c.count(CutClass::Unreadable), 8u);
  EXPECT_EQ(cut_verdict(c, "c").status, reporting::VerdictStatus::Fail);
  EXPECT_EQ(missing_device_verdict("c", "gone").status, reporting::VerdictStatus::Fail);
}

}  // namespace
}  // namespace storqual::runner
