// SPDX-License-Identifier: Apache-2.0
// The one identification path of `run` and `identify` (runner/qualification/
// device_identification.hpp): which admin seam a device gets (none on a captured tree, captured
// pages for a look at an NVMe namespace only, a run's pages for any target, read in turn), NVMe
// identify applied to the identity, failures reported not thrown, and the <match> fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "devices/sysfs.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;
const fs::path kTrees = fs::path(STORQUAL_TEST_DATA) / "sysfs";
const fs::path kPages = fs::path(STORQUAL_TEST_DATA) / "nvme";

std::vector<std::uint8_t> bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool page_is(const devices::SmartLogPage& page, const fs::path& file) {
  const auto want = bytes_of(file);
  return want.size() == page.size() && std::equal(want.begin(), want.end(), page.begin());
}

bool has_source(const devices::DeviceIdentity& id, const std::string& prefix) {
  for (const auto& row : devices::identity_rows(id))
    if (row.source.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(DeviceIdentification, ACapturedTreeWithoutPagesHasNoAdmin) {
  devices::Sysfs sysfs(kTrees / "nvme" / "sys");
  ASSERT_FALSE(sysfs.is_live());
  for (const auto use : {NvmeAccess::Use::Look, NvmeAccess::Use::Run}) {
    NvmeAccess access;
    access.use = use;
    const auto d = read_full_identity(sysfs, "nvme0n1", access);
    EXPECT_FALSE(d.admin);
    EXPECT_EQ(d.admin_error, "");
    EXPECT_EQ(d.identify_error, "");
    EXPECT_EQ(d.identity.model.value, "Samsung SSD 980 PRO 1TB");
  }
}

TEST(DeviceIdentification, ALookAtANamespaceReadsWhatItReportsNow) {
  devices::Sysfs sysfs(kTrees / "nvme" / "sys");
  NvmeAccess access;
  access.captured = kPages;
  auto d = read_full_identity(sysfs, "nvme0n1", access);
  ASSERT_TRUE(d.admin);
  EXPECT_EQ(d.identify_error, "");
  EXPECT_TRUE(has_source(d.identity, "nvme:identify"));
  EXPECT_TRUE(page_is(d.admin->smart_log(), kPages / "smart-log.bin"));
}

TEST(DeviceIdentification, ALookGivesPagesToNvmeNamespacesOnly) {
  devices::Sysfs sysfs(kTrees / "loop" / "sys");
  NvmeAccess access;
  access.captured = kPages;
  const auto d = read_full_identity(sysfs, "loop3", access);
  EXPECT_FALSE(d.admin);
  EXPECT_FALSE(has_source(d.identity, "nvme:"));
}

TEST(DeviceIdentification, ARunsPagesStandForAnyTargetInTurn) {
  devices::Sysfs sysfs(kTrees / "loop" / "sys");
  NvmeAccess access;
  access.captured = kPages;
  access.use = NvmeAccess::Use::Run;
  auto d = read_full_identity(sysfs, "loop3", access);
  ASSERT_TRUE(d.admin);
  EXPECT_TRUE(has_source(d.identity, "nvme:identify"));
  EXPECT_TRUE(page_is(d.admin->smart_log(), kPages / "smart-before.bin"));
  EXPECT_TRUE(page_is(d.admin->smart_log(), kPages / "smart-after.bin"));
}

TEST(DeviceIdentification, PagesThatCannotBeReadAreANoteNotAnError) {
  storqual::testing::ScratchDir empty("identify-no-pages");
  devices::Sysfs sysfs(kTrees / "loop" / "sys");
  NvmeAccess access;
  access.captured = empty.path();
  access.use = NvmeAccess::Use::Run;
  const auto d = read_full_identity(sysfs, "loop3", access);
  EXPECT_FALSE(d.admin);
  EXPECT_NE(d.admin_error, "");
  EXPECT_EQ(d.identity.transport, devices::Transport::Loop);
}

TEST(DeviceIdentification, MatchFieldsAreTheSheetsFields) {
  devices::Sysfs sysfs(kTrees / "nvme" / "sys");
  const auto d = read_full_identity(sysfs, "nvme0n1", NvmeAccess{});
  const auto fields = match_fields(d.identity, devices::TargetKind::DirectoryOnDevice);
  ASSERT_EQ(fields.size(), kMatchFields.size());
  for (const auto f : kMatchFields) EXPECT_TRUE(fields.count(std::string(f))) << f;
  EXPECT_EQ(fields.at("model"), "Samsung SSD 980 PRO 1TB");
  EXPECT_EQ(fields.at("serial"), "S5GXNF0R123456A");
  EXPECT_EQ(fields.at("transport"), "nvme");
  EXPECT_EQ(fields.at("target"), match_target(devices::TargetKind::DirectoryOnDevice));
}

}  // namespace
}  // namespace storqual::runner
