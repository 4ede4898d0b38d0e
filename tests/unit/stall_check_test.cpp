// SPDX-License-Identifier: Apache-2.0
// The zero-completion check (runner/judge/stall_check.hpp): I/Os submitted and none completed is
// the device's stall; nothing submitted at all is the host's (the job threads never ran before the
// time ran out); either is an error, never a figure.
#include <gtest/gtest.h>

#include "runner/judge/stall_check.hpp"

namespace storqual::runner {
namespace {

reporting::WorkloadResult nothing_completed(std::uint64_t submitted) {
  reporting::WorkloadResult r;
  r.id = "w";
  r.read = reporting::DirectionResult{};
  r.elapsed_s = 0.3;
  r.io_depths.submitted.assign(7, 0);
  r.io_depths.submitted[5] = submitted;
  r.host_busy = reporting::HostBusyReport{};
  r.host_busy->cpu_pressure_pct = 97;
  return r;
}

TEST(StallCheck, SubmittedAndNoneCompletedIsTheDevice) {
  const auto e = stall_error(nothing_completed(32));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("the device stalled: 0 I/Os completed in 0.30 s"), std::string::npos) << *e;
}

TEST(StallCheck, NothingSubmittedIsTheHost) {
  const auto e = stall_error(nothing_completed(0));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->find("the device stalled"), std::string::npos) << *e;
  EXPECT_NE(e->find("no I/O was submitted in 0.30 s"), std::string::npos) << *e;
  EXPECT_NE(e->find("CPU pressure 97%"), std::string::npos) << *e;
  EXPECT_NE(e->find("the host, not the device"), std::string::npos) << *e;
}

TEST(StallCheck, AnyCompletionOrAnEarlierErrorIsNoStall) {
  auto r = nothing_completed(32);
  r.read->ios = 1;
  EXPECT_FALSE(stall_error(r));
  r = nothing_completed(32);
  r.errors = {"EIO"};
  EXPECT_FALSE(stall_error(r));
  r = nothing_completed(32);
  r.interrupted = true;
  EXPECT_FALSE(stall_error(r));
}

}  // namespace
}  // namespace storqual::runner
