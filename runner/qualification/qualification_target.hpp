// SPDX-License-Identifier: Apache-2.0
// Steps 1 to 3 of a qualification run, before anything is measured: the target and its identity,
// the spec sheet and suite, the plan and its admission (qualification_target.cpp); internal to
// runner/qualification/ (qualification.cpp runs them in order).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/ata_smart.hpp"
#include "devices/device_identity.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/safety_guard.hpp"
#include "devices/scsi_log.hpp"
#include "devices/sysfs.hpp"
#include "model/result.hpp"
#include "runner/qualification/qualification.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

struct SpecChoice {
  std::optional<SpecSheet> sheet;
  std::string why;              // how it was chosen, for the console
  bool does_not_match = false;  // --spec given, and its <match> does not fit the device
};

// Step 1: who the target is. Resolves it (a block device, or a file or directory on one), reads its
// identity (sysfs, udev, NVMe identify through the admin seam when there is one) into run.device.
struct IdentifiedTarget {
  devices::ResolvedTarget resolved;
  devices::DeviceIdentity identity;
  std::unique_ptr<devices::NvmeAdmin> admin;
  std::unique_ptr<devices::AtaAdmin> ata;  // an ATA drive's health seam (devices/ata_smart.hpp)
  std::unique_ptr<devices::ScsiLogSource> scsi;  // a SCSI disk's (devices/scsi_log.hpp)
};

// Step 2: the spec sheet that matches the identity (or none) and the suite to run.
struct ChosenSuite {
  SpecChoice choice;
  Suite suite;
};
// The identity rows as the result model's field rows.
std::vector<reporting::FieldRow> to_field_rows(const std::vector<devices::IdentityRow>& rows);
// "model 'X', vendor 'Y', ..., target 'block'": the identity fields a <match> may name.
std::string identity_summary(const std::map<std::string, std::string>& fields);
// The identity's capacity in bytes, 0 when unknown.
double device_capacity(const devices::DeviceIdentity& identity);
// Step 1: who the target is (into run.device).
IdentifiedTarget identify_device(const QualificationOptions& o, reporting::RunResult& run,
                                 std::vector<std::string>& notes);
// Step 2: the spec sheet that matches the identity (or none) and the suite to run.
ChosenSuite choose_suite(const QualificationOptions& o, const IdentifiedTarget& target,
                         reporting::RunResult& run);
// Step 3: the plan, every suite workload on the target, scaled and validated.
std::vector<WorkloadSpec> plan_workloads(const Suite& suite, const QualificationOptions& o);
// The safety guard over the whole region the plan touches; the caller keeps what it returns.
[[nodiscard]] devices::AdmittedTarget admit_plan(std::vector<WorkloadSpec>& plan,
                                                 const QualificationOptions& o, bool fills,
                                                 std::vector<std::string>& notes);

}  // namespace storqual::runner
