// SPDX-License-Identifier: Apache-2.0
// JUnit XML for CI (Jenkins, GitLab, GitHub actions, Azure): one <testsuite> per RunResult (one
// run of one device), one <testcase> per verdict. docs/reports.md has the full mapping and what
// each CI reader shows.
//
// Naming, so that every reader ties a testcase to its drive and nothing is merged away:
//   device label = the serial, else the target path ("S5X9NG0R123456", "/dev/loop3");
//   run tag      = the zoned start time ("2026-11-29T18:00:00Z"), plus " on <host>" and then
//                  " #2", " #3" where runs in one file would still share it;
//   testsuite    = "<model> <serial> <run tag>" (the target instead of a missing serial);
//   classname    = "storqual.<spec name>.<device label> <run tag>", with every '.' inside the
//                  spec name and the label written as '_' so that readers that split a classname
//                  at its last dot (Jenkins: package and class) split it only there;
//   testcase     = "<device label> <claim>" ("<label> <workload> measured only" for a workload
//                  without a claim), unique within its suite;
//   message      = "<device label> <claim>: " + the verdict's message (measured, claimed or
//                  reference, difference, tolerance).
// The failure/error body and system-out repeat the figures one per line, in the number format of
// the verdict messages (format_verdict_value()), with the spec sheet's file:line of the claim.
//
// The default form validates against the Jenkins xUnit plugin's junit-10.xsd and the JUnit 5
// project's jenkins-junit.xsd (both in tests/data/junit-xsd/). JunitOptions::rich adds what those
// schemas reject but GitLab, the GitHub actions and Jenkins' JUnit plugin read: testcase
// <properties>, testcase file= and line=, <skipped message=...> and testsuites skipped=.
// Every string is stripped of characters XML 1.0 forbids; pugixml does the escaping.
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

struct JunitOptions {
  bool rich = false;  // `--junit-rich`: testcase properties, file/line, skipped@message
};

[[nodiscard]] std::string render_junit(const std::vector<RunResult>& runs,
                                       const JunitOptions& options = {});
// render_junit() then write_file_atomically().
void write_junit(const std::string& path, const std::vector<RunResult>& runs,
                 const JunitOptions& options = {});

// "<model> <serial>" from the identity rows, falling back to the device name.
[[nodiscard]] std::string device_title(const RunResult& run);
// The serial, else the target path, else the device name: what names the drive in a testcase.
[[nodiscard]] std::string device_label(const RunResult& run);

}  // namespace storqual::reporting
