// SPDX-License-Identifier: Apache-2.0
// Identity of captured sysfs trees (tests/data/sysfs/<case>/sys) against their golden rows
// (tests/data/sysfs/<case>/golden/<device>.tsv), target resolution in captured trees, and
// sanitizing of a device that reports markup, control characters and invalid UTF-8.
// STORQUAL_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "devices/device_identity.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/sanitize.hpp"
#include "devices/sysfs.hpp"
#include "tests/support/test_devices.hpp"

namespace fs = std::filesystem;
using namespace storqual::devices;

namespace {

const fs::path kTrees = fs::path(STORQUAL_TEST_DATA) / "sysfs";

std::string to_tsv(const std::vector<IdentityRow>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.field + "\t" + r.value + "\t" + r.source + "\n";
  return out;
}

using storqual::testing::read_file;

std::string row_value(const std::vector<IdentityRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return "<absent>";
}

struct GoldenCase {
  std::string tree;
  std::string device;
};
void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.tree << "/" << c.device;
}

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> out;
  for (const auto& tree : fs::directory_iterator(kTrees)) {
    if (!fs::is_directory(tree.path() / "golden")) continue;
    for (const auto& g : fs::directory_iterator(tree.path() / "golden"))
      if (g.path().extension() == ".tsv")
        out.push_back({tree.path().filename().string(), g.path().stem().string()});
  }
  std::sort(out.begin(), out.end(),
            [](auto& a, auto& b) { return a.tree + a.device < b.tree + b.device; });
  return out;
}

}  // namespace

class GoldenIdentity : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenIdentity, RowsMatchGoldenFile) {
  const auto& c = GetParam();
  Sysfs sysfs(kTrees / c.tree / "sys");
  ASSERT_FALSE(sysfs.is_live());
  std::string actual = to_tsv(identity_rows(read_identity(sysfs, c.device)));
  fs::path golden = kTrees / c.tree / "golden" / (c.device + ".tsv");
  if (std::getenv("STORQUAL_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << golden;
  }
  EXPECT_EQ(actual, read_file(golden)) << "golden file " << golden;
}

INSTANTIATE_TEST_SUITE_P(CapturedTrees, GoldenIdentity, ::testing::ValuesIn(golden_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& param_info) {
                           std::string n = param_info.param.tree + "_" + param_info.param.device;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(CapturedTrees, EveryRequiredKindHasGoldenDisksAndPartitions) {
  std::set<std::string> have;
  for (const auto& c : golden_cases()) have.insert(c.tree + "/" + c.device);
  for (const char* need : {"nvme/nvme0n1",
                           "nvme/nvme0n1p1",
                           "nvme-multipath/nvme0n1",
                           "nvme-multipath/nvme0c0n1",
                           "nvme-multipath/nvme0n1p1",
                           "sata-ssd/sda",
                           "sata-ssd/sda2",
                           "sas-disk/sdb",
                           "sas-disk/sdb1",
                           "virtio/vda",
                           "virtio/vda1",
                           "mmc-sd/mmcblk0",
                           "mmc-sd/mmcblk0p2",
                           "usb-stick/sdc",
                           "usb-stick/sdc1",
                           "loop/loop3",
                           "loop/loop3p1",
                           "zram/zram1",
                           "hostile-model/sdb",
                           "virtio-scsi/sda",
                           "sata-ahci/sdb",
                           "scsi-udev/sdc",
                           "nvme-multipath-6.1/nvme0n1",
                           "nvme-multipath-6.1/nvme0c1n1"})
    EXPECT_TRUE(have.count(need)) << "missing golden output for " << need;
}

TEST(CapturedTrees, TransportsAreClassifiedFromTheDevicePath) {
  auto transport = [](const char* tree, const char* dev) {
    Sysfs s(kTrees / tree / "sys");
    return std::string(to_string(read_identity(s, dev).transport));
  };
  EXPECT_EQ(transport("nvme", "nvme0n1"), "nvme");
  EXPECT_EQ(transport("nvme-multipath", "nvme0c0n1"), "nvme");
  EXPECT_EQ(transport("sata-ssd", "sda"), "sata");
  EXPECT_EQ(transport("sas-disk", "sdb"), "scsi");
  EXPECT_EQ(transport("virtio", "vda"), "virtio");
  EXPECT_EQ(transport("mmc-sd", "mmcblk0p1"), "mmc");
  EXPECT_EQ(transport("usb-stick", "sdc"), "usb");
  EXPECT_EQ(transport("loop", "loop3"), "loop");
  EXPECT_EQ(transport("zram", "zram1"), "zram");
}

TEST(CapturedTrees, NvmeStringsAreTrimmedAndMultipathIsSeen) {
  Sysfs plain(kTrees / "nvme" / "sys");
  auto rows = identity_rows(read_identity(plain, "nvme0n1"));
  EXPECT_EQ(row_value(rows, "model"), "Samsung SSD 980 PRO 1TB");  // sysfs pads to 40
  EXPECT_EQ(row_value(rows, "serial"), "S5GXNF0R123456A");
  EXPECT_EQ(row_value(rows, "nvme_multipath"), "<absent>");
  Sysfs mp(kTrees / "nvme-multipath" / "sys");
  rows = identity_rows(read_identity(mp, "nvme0n1"));
  EXPECT_EQ(row_value(rows, "nvme_multipath"), "native");
  EXPECT_EQ(row_value(rows, "nvme_paths"), "nvme0c0n1");
  EXPECT_EQ(row_value(rows, "nvme_subsystem"), "nvme-subsys0");
  EXPECT_EQ(row_value(rows, "vendor"), "KIOXIA (0x1e0f)");
  EXPECT_EQ(row_value(rows, "capacity_bytes"), std::to_string(3750748848ULL * 512));
}

TEST(CapturedTrees, PartitionKeepsDiskIdentityAndAddsItsOwnRange) {
  Sysfs s(kTrees / "sata-ssd" / "sys");
  auto id = read_identity(s, "sda2");
  EXPECT_EQ(id.disk, "sda");
  ASSERT_TRUE(id.partition.has_value());
  EXPECT_EQ(id.partition->number.value, "2");
  EXPECT_EQ(id.partition->start_bytes.value, std::to_string(1050624ULL * 512));
  EXPECT_EQ(id.serial.value, "S6PTNZ0R123456X");
  EXPECT_EQ(id.serial.source, "sysfs:device/vpd_pg80");
}

TEST(CapturedTrees, ResolveByNameOrDevPathOnly) {
  Sysfs s(kTrees / "usb-stick" / "sys");
  auto r = s.resolve("/dev/sdc1");
  EXPECT_EQ(r.device, "sdc1");
  EXPECT_EQ(r.disk, "sdc");
  EXPECT_TRUE(r.is_partition);
  r = s.resolve("sdc");
  EXPECT_FALSE(r.is_partition);
  EXPECT_EQ(r.devnode, "/dev/sdc");
  // A real path on this machine means nothing in a captured tree.
  EXPECT_THROW((void)s.resolve("/etc/hostname"), ResolveError);
  EXPECT_THROW((void)s.resolve("sdz"), ResolveError);
  EXPECT_THROW((void)s.resolve("../sdc"), ResolveError);
}

TEST(CapturedTrees, DevnumLookupAndListing) {
  Sysfs s(kTrees / "nvme-multipath" / "sys");
  EXPECT_EQ(s.name_of_devnum(259, 1).value_or(""), "nvme0n1p1");
  EXPECT_FALSE(s.name_of_devnum(8, 0).has_value());
  EXPECT_EQ(s.disks(), (std::vector<std::string>{"nvme0c0n1", "nvme0n1"}));
  EXPECT_EQ(s.partitions("nvme0n1"), (std::vector<std::string>{"nvme0n1p1"}));
}

// Field and source of one identity row, for assertions that name both.
std::string field_of(const std::vector<IdentityRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value + " <- " + r.source;
  return "<absent>";
}

TEST(CapturedTrees, VirtioScsiDiskIsScsiWithItsInquiryAndVpdIdentity) {
  Sysfs s(kTrees / "virtio-scsi" / "sys");
  auto rows = identity_rows(read_identity(s, "sda"));
  EXPECT_EQ(field_of(rows, "transport"), "scsi <- derived:device path");
  EXPECT_EQ(field_of(rows, "vendor"), "SQLABVND <- sysfs:device/vendor");
  EXPECT_EQ(field_of(rows, "model"), "SQLAB-VSCSI <- sysfs:device/model");
  EXPECT_EQ(field_of(rows, "serial"), "SQVSCSI001 <- sysfs:device/vpd_pg80");
  EXPECT_EQ(field_of(rows, "firmware"), "SQV1 <- sysfs:device/rev");
  EXPECT_EQ(field_of(rows, "wwid"), "naa.5000c500aabbcc01 <- sysfs:device/vpd_pg83")
      << "the NAA designator, not the T10 vendor id before it";
  EXPECT_EQ(row_value(rows, "scsi_host"), "virtio_scsi");
  // A virtio-blk disk stays virtio.
  Sysfs blk(kTrees / "virtio" / "sys");
  EXPECT_EQ(read_identity(blk, "vda").transport, Transport::Virtio);
}

TEST(CapturedTrees, SataWithoutUdevTakesIdentityFromAtaIdentifyInVpd89) {
  Sysfs s(kTrees / "sata-ahci" / "sys");
  auto rows = identity_rows(read_identity(s, "sdb"));
  const std::string ata = " <- ata:identify (sysfs:device/vpd_pg89)";
  EXPECT_EQ(field_of(rows, "transport"), "sata <- derived:device path");
  EXPECT_EQ(field_of(rows, "firmware"), "SQFW0002" + ata) << "not the 4 characters of device/rev";
  EXPECT_EQ(field_of(rows, "model"), "SQLAB SATA SSD WITH A LONG MODEL NAME" + ata)
      << "not the 16 characters of device/model";
  EXPECT_EQ(field_of(rows, "serial"), "SQSATA0001" + ata);
  EXPECT_EQ(field_of(rows, "wwid"), "naa.5000c50012345678" + ata);
  EXPECT_EQ(row_value(rows, "scsi_host"), "ahci");
}

TEST(CapturedTrees, ScsiSerialIsTheUnitSerialNeverTheWwnFromUdev) {
  // The captured udev record has ID_SERIAL_SHORT=5000c500aabbcc02 (the NAA WWN) and
  // ID_SCSI_SERIAL=SQLSI00001; sysfs has no VPD page 0x80.
  Sysfs s(kTrees / "scsi-udev" / "sys");
  auto rows = identity_rows(read_identity(s, "sdc"));
  EXPECT_EQ(field_of(rows, "serial"), "SQLSI00001 <- udev:ID_SCSI_SERIAL");
  EXPECT_EQ(field_of(rows, "model"), "SQLAB-LSI <- udev:ID_MODEL_ENC");
  EXPECT_EQ(field_of(rows, "wwid"), "naa.5000c500aabbcc02 <- sysfs:device/wwid");
  // With VPD page 0x80 in sysfs, it wins over udev (the SAS tree has one and no udev record).
  Sysfs sas(kTrees / "sas-disk" / "sys");
  EXPECT_EQ(field_of(identity_rows(read_identity(sas, "sdb")), "serial"),
            "ZC1ABCDE <- sysfs:device/vpd_pg80");
}

TEST(CapturedTrees, NvmeMultipathWithoutMultipathLinksFindsTheHiddenPaths) {
  Sysfs s(kTrees / "nvme-multipath-6.1" / "sys");
  for (const char* head : {"nvme0n1", "nvme0n2"}) {
    auto rows = identity_rows(read_identity(s, head));
    const std::string n = std::string(head).substr(6);
    EXPECT_EQ(row_value(rows, "nvme_multipath"), "native") << head;
    EXPECT_EQ(row_value(rows, "nvme_paths"), "nvme0c0n" + n + " nvme0c1n" + n) << head;
    EXPECT_EQ(row_value(rows, "nvme_subsystem"), "nvme-subsys0");
    EXPECT_EQ(row_value(rows, "vendor"), "Red Hat/QEMU (0x1b36)");
    EXPECT_EQ(row_value(rows, "nvme_transport"), "pcie");
  }
  EXPECT_EQ(row_value(identity_rows(read_identity(s, "nvme0n2")), "logical_block_size"), "4096");
  // The hidden path devices have no device node.
  EXPECT_EQ(read_identity(s, "nvme0c1n1").devnode, "");
}

TEST(Sanitize, HostileModelIsNeutralized) {
  Sysfs s(kTrees / "hostile-model" / "sys");
  auto rows = identity_rows(read_identity(s, "sdb"));
  const std::string model = row_value(rows, "model");
  // Markup survives as text (escaping is the reports' job) but nothing raw gets through.
  EXPECT_EQ(model.rfind("<script>alert(1)</script>", 0), 0u) << model;
  for (const auto& r : rows) {
    for (unsigned char ch : r.value) {
      EXPECT_FALSE(ch < 0x20 || ch == 0x7f) << r.field << " holds control byte " << int(ch);
    }
    EXPECT_EQ(sanitize_device_string(r.value), r.value) << r.field << " is not stable";
  }
  EXPECT_NE(model.find("\xEF\xBF\xBD"), std::string::npos) << "invalid bytes must be replaced";
  EXPECT_EQ(row_value(rows, "serial"), "\xEF\xBF\xBDSER\xEF\xBF\xBDIAL\xEF\xBF\xBD");
}

TEST(Sanitize, IdentityTableVendorAndModelHaveNoDoubleSpace) {
  // A SCSI vendor field is 8 characters padded with spaces (the model 16); one that holds two
  // words keeps its padding between them too. Identifiers keep theirs (an NVMe NQN: golden files).
  storqual::testing::ScratchDir dir("storqual-padded-vendor");
  fs::copy(kTrees / "sas-disk", dir.path() / "sas-disk",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path vendor = dir.path() / "sas-disk" / "sys" / "devices" / "pci0000:00" /
                          "0000:00:01.0" / "0000:02:00.0" / "host2" / "port-2:0" /
                          "end_device-2:0" / "target2:0:0" / "2:0:0:0" / "vendor";
  ASSERT_TRUE(fs::exists(vendor));
  std::ofstream(vendor) << "HP  INC \n";
  std::ofstream(vendor.parent_path() / "model") << "EG0600    FBVFP  \n";
  Sysfs s(dir.path() / "sas-disk" / "sys");
  const auto rows = identity_rows(read_identity(s, "sdb"));
  EXPECT_EQ(row_value(rows, "vendor"), "HP INC");
  EXPECT_EQ(row_value(rows, "model"), "EG0600 FBVFP");
}

// A ZNS namespace: the kernel's zone rows, then the controller's own (ZNS Identify Namespace)
// over them; a conventional namespace has neither.
TEST(CapturedTrees, ZonedNamespaceTakesItsZonesFromZnsIdentify) {
  Sysfs s(kTrees / "nvme-zns" / "sys");
  auto id = read_identity(s, "nvme0n2");
  ASSERT_TRUE(id.zones.zoned());
  EXPECT_TRUE(id.zones.host_managed());
  CapturedNvmeAdmin admin(fs::path(STORQUAL_TEST_DATA) / "nvme-zns");
  const auto ns = parse_identify_namespace(admin.identify_namespace());
  const auto zns = parse_zns_identify_namespace(admin.zns_identify_namespace(), ns);
  EXPECT_EQ(zns.zone_size_lbas, 2048u);
  EXPECT_EQ(zns.zone_size_bytes, 8u << 20);
  EXPECT_EQ(zns.max_open_resources, 3u);  // 0's based
  apply_zns_identity(id, zns);
  const auto rows = identity_rows(id);
  auto source_of = [&](const std::string& field) {
    for (const auto& r : rows)
      if (r.field == field) return r.source;
    return std::string("<absent>");
  };
  EXPECT_EQ(row_value(rows, "zone_size_bytes"), "8388608");
  EXPECT_EQ(source_of("zone_size_bytes"), "nvme:zns-identify-ns");
  EXPECT_EQ(row_value(rows, "max_open_zones"), "4");
  EXPECT_EQ(row_value(rows, "max_active_zones"), "6");
  EXPECT_EQ(source_of("max_active_zones"), "nvme:zns-identify-ns");
  EXPECT_EQ(row_value(rows, "zones"), "8");
  EXPECT_EQ(source_of("zones"), "sysfs:queue/nr_zones");

  NvmeZnsNamespaceIdentity unlimited;  // MOR / MAR FFFFFFFFh
  unlimited.zone_size_bytes = 8u << 20;
  apply_zns_identity(id, unlimited);
  EXPECT_EQ(row_value(identity_rows(id), "max_open_zones"), "no limit");

  const auto conventional = identity_rows(read_identity(s, "nvme0n1"));
  EXPECT_EQ(row_value(conventional, "zone_model"), "<absent>");
  CapturedNvmeAdmin plain(fs::path(STORQUAL_TEST_DATA) / "nvme");
  EXPECT_THROW((void)plain.zns_identify_namespace(), NvmeError);
}
