// SPDX-License-Identifier: Apache-2.0
// `storqual identify` on this machine's real devices (its virtio disk, and a loop and a zram device
// the tests create), on captured trees (--sysfs-root), including a hostile one whose JSON must stay
// valid, and the spec-sheet match.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "devices/device_identity.hpp"
#include "devices/sanitize.hpp"
#include "devices/sysfs.hpp"
#include "tests/support/test_devices.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using storqual::testing::LoopDevice;
using storqual::testing::run_command;
using storqual::testing::ScratchDir;
using storqual::testing::ZramDevice;

namespace {

const fs::path kTrees = fs::path(STORQUAL_TEST_DATA) / "sysfs";

json identify_json(std::vector<std::string> extra) {
  std::vector<std::string> argv = {STORQUAL_BINARY, "identify", "--json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto r = run_command(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);  // throws (and fails the test) on invalid JSON
}

std::string field(const json& identity, const std::string& name) {
  for (const auto& row : identity)
    if (row.at("field") == name) return row.at("value").get<std::string>();
  return "<absent>";
}

const json* listed(const json& list, const std::string& name) {
  for (const auto& d : list.at("devices"))
    if (d.at("name") == name) return &d;
  return nullptr;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

// Whether /proc/self/mountinfo lists a mount of the device that holds "/" (its third field is the
// st_dev of the files on it). A chroot does not see the mount its root directory lies on.
bool root_mount_visible() {
  struct stat st {};
  if (::stat("/", &st) != 0) return false;
  const std::string devno =
      std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  std::ifstream in("/proc/self/mountinfo");
  std::string id, parent, dev;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    if (fields >> id >> parent >> dev && dev == devno) return true;
  }
  return false;
}

}  // namespace

TEST(IdentifyLive, ListsTheVirtioDiskWithItsSysfsSize) {
  if (!fs::exists("/sys/block/vda")) GTEST_SKIP() << "this machine has no vda";
  json list = identify_json({});
  const json* vda = listed(list, "vda");
  ASSERT_NE(vda, nullptr) << list.dump(2);
  EXPECT_EQ(vda->at("transport"), "virtio");
  EXPECT_EQ(vda->at("capacity_bytes").get<std::uint64_t>(),
            std::stoull(read_text("/sys/block/vda/size")) * 512);
  EXPECT_EQ(field(vda->at("identity"), "serial"),
            storqual::devices::sanitize_device_string(read_text("/sys/block/vda/serial")));
  // The root filesystem is on it: a directory target resolves to it and it is in use.
  json root = identify_json({"--target", "/"});
  EXPECT_EQ(root.at("resolved").at("disk"), "vda");
  EXPECT_EQ(root.at("resolved").at("kind"), "directory");
  if (!root_mount_visible())
    GTEST_SKIP() << "no mount of the root filesystem's device is visible in /proc/self/mountinfo "
                    "(a chroot sees none): the disk cannot show as in use here";
  EXPECT_FALSE(root.at("in_use").empty());
}

TEST(IdentifyLive, LoopDeviceShowsItsBackingFileAndFilesOnItResolveToIt) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("identify-loop");
  ASSERT_EQ(run_command({"truncate", "-s", "32M", (dir / "backing.img").string()}).exit_code, 0);
  LoopDevice loop(dir / "backing.img");
  json list = identify_json({});
  const json* l = listed(list, loop.name());
  ASSERT_NE(l, nullptr) << list.dump(2);
  EXPECT_EQ(l->at("transport"), "loop");
  EXPECT_EQ(l->at("capacity_bytes"), 32u << 20);
  EXPECT_EQ(field(l->at("identity"), "backing"), fs::canonical(dir / "backing.img").string());

  // Through a symlink (as /dev/disk/by-id/... are).
  fs::create_symlink(loop.path(), dir / "by-id-link");
  json t = identify_json({"--target", (dir / "by-id-link").string()});
  EXPECT_EQ(t.at("resolved").at("device"), loop.name());
  EXPECT_EQ(t.at("resolved").at("kind"), "block device");

  // A file on a filesystem on it resolves to the loop device through st_dev.
  ASSERT_EQ(run_command({"mkfs.ext4", "-q", "-F", loop.path()}).exit_code, 0);
  fs::create_directories(dir / "mnt");
  ASSERT_EQ(run_command({"mount", loop.path(), (dir / "mnt").string()}).exit_code, 0);
  struct Unmount {
    fs::path dir;
    ~Unmount() { (void)run_command({"umount", dir.string()}); }
  } unmount{dir / "mnt"};
  std::ofstream(dir / "mnt" / "file") << "x";
  json f = identify_json({"--target", (dir / "mnt" / "file").string()});
  json listing = identify_json({});
  EXPECT_EQ(f.at("resolved").at("device"), loop.name());
  EXPECT_EQ(f.at("resolved").at("kind"), "file");
  EXPECT_FALSE(f.at("in_use").empty());
  ASSERT_NE(listed(listing, loop.name()), nullptr);
  EXPECT_EQ(listed(listing, loop.name())->at("in_use").size(), 1u);
}

TEST(IdentifyLive, ZramDeviceShowsItsCompression) {
  STORQUAL_REQUIRE_ROOT();
  std::optional<ZramDevice> zram;
  try {
    zram.emplace(64u << 20);
  } catch (const std::exception& e) {
    GTEST_FAIL() << "cannot run: " << e.what();
  }
  json t = identify_json({"--target", zram->path()});
  const json& id = t.at("identity");
  EXPECT_EQ(field(id, "transport"), "zram");
  EXPECT_EQ(field(id, "capacity_bytes"), std::to_string(64u << 20));
  EXPECT_EQ(field(id, "backing").rfind("compressed RAM (", 0), 0u) << field(id, "backing");
  json list = identify_json({});
  EXPECT_NE(listed(list, zram->name()), nullptr);
}

TEST(IdentifyCaptured, JsonRowsEqualTheGoldenRows) {
  json t = identify_json(
      {"--sysfs-root", (kTrees / "nvme-multipath/sys").string(), "--target", "/dev/nvme0n1p1"});
  std::ifstream golden(kTrees / "nvme-multipath/golden/nvme0n1p1.tsv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(golden, line);) lines.push_back(line);
  const json& id = t.at("identity");
  ASSERT_EQ(id.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(id[i].at("field").get<std::string>() + "\t" + id[i].at("value").get<std::string>() +
                  "\t" + id[i].at("source").get<std::string>(),
              lines[i]);
  }
  EXPECT_EQ(t.at("resolved").at("is_partition"), true);
  EXPECT_EQ(t.at("resolved").at("disk"), "nvme0n1");
}

TEST(IdentifyCaptured, HostileStringsYieldValidJsonAndCleanText) {
  const std::string root = (kTrees / "hostile-model/sys").string();
  json t = identify_json({"--sysfs-root", root, "--target", "sdb"});
  std::string model = field(t.at("identity"), "model");
  EXPECT_EQ(model.rfind("<script>alert(1)</script>", 0), 0u) << model;
  json list = identify_json({"--sysfs-root", root});
  ASSERT_NE(listed(list, "sdb"), nullptr);
  EXPECT_EQ(listed(list, "sdb")->at("model"), model);
  for (const auto& args :
       {std::vector<std::string>{"--target", "sdb"}, std::vector<std::string>{}}) {
    std::vector<std::string> argv = {STORQUAL_BINARY, "identify", "--sysfs-root", root};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (unsigned char c : r.out)
      EXPECT_TRUE(c >= 0x20 || c == '\n') << "control byte " << int(c) << " in text output";
  }
}

TEST(IdentifyCaptured, HiddenNvmePathsAreNotListedAsDevices) {
  json list = identify_json({"--sysfs-root", (kTrees / "nvme-multipath-6.1/sys").string()});
  std::vector<std::string> names;
  for (const auto& d : list["devices"]) names.push_back(d["name"].get<std::string>());
  EXPECT_EQ(names, (std::vector<std::string>{"nvme0n1", "nvme0n2"}));
  bool paths = false;
  for (const auto& row : list["devices"][0]["identity"])
    if (row["field"] == "nvme_paths") paths = row["value"] == "nvme0c0n1 nvme0c1n1";
  EXPECT_TRUE(paths) << list.dump(1);
}

TEST(IdentifyCaptured, UnknownTargetIsAUsageError) {
  auto r = run_command({STORQUAL_BINARY, "identify", "--sysfs-root",
                        (kTrees / "virtio/sys").string(), "--target", "sdq"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sdq"), std::string::npos) << r.err;
}

TEST(IdentifyCaptured, SpecSheetWhoseMatchFitsIsNamed) {
  ScratchDir dir("identify-specs");
  auto sheet = [&](const char* file, const char* name, const char* match) {
    std::ofstream(dir / file) << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                              << "<spec-sheet name=\"" << name
                              << "\" vendor=\"x\" suite=\"quick\" source=\"test\">\n  " << match
                              << "\n  <claims tolerance=\"10%\">\n"
                              << "    <claim workload=\"randread-4k-qd16\" metric=\"iops\" "
                                 "value=\"200\"/>\n  </claims>\n</spec-sheet>\n";
  };
  sheet("samsung.xml", "Samsung 870", "<match model=\"Samsung SSD 870*\" transport=\"sata\"/>");
  sheet("nvme.xml", "Any NVMe", "<match transport=\"nvme\"/>");
  json t = identify_json({"--sysfs-root", (kTrees / "sata-ssd/sys").string(), "--target", "sda1",
                          "--specs", dir.path().string()});
  ASSERT_TRUE(t.contains("spec_matches")) << t.dump(2);
  EXPECT_TRUE(t.at("spec_problems").empty()) << t.at("spec_problems").dump();
  ASSERT_EQ(t.at("spec_matches").size(), 1u) << t.dump(2);
  EXPECT_EQ(t.at("spec_matches")[0].at("name"), "Samsung 870");
}

TEST(IdentifyCaptured, SpecsDirTakesFilesByTheirRootElementAndReportsABrokenSheet) {
  // A sheet is a file whose root element is <spec-sheet>: a suite beside it whose comment
  // mentions <spec-sheet> is not one; a sheet that does not parse is reported, not dropped.
  ScratchDir dir("identify-specs-roots");
  std::ofstream(dir / "a-suite.xml")
      << "<?xml version=\"1.0\"?>\n<!-- used with a <spec-sheet suite=\"mine\"> -->\n"
         "<suite name=\"mine\"><workload id=\"r\" rw=\"randread\" bs=\"4k\"/></suite>\n";
  std::ofstream(dir / "good.xml")
      << "<?xml version=\"1.0\"?>\n<spec-sheet name=\"Samsung 870\" vendor=\"x\" "
         "suite=\"quick\" source=\"test\">\n  <match model=\"Samsung SSD 870*\"/>\n"
         "</spec-sheet>\n";
  const std::string root = (kTrees / "sata-ssd/sys").string();
  json t =
      identify_json({"--sysfs-root", root, "--target", "sda1", "--specs", dir.path().string()});
  EXPECT_TRUE(t.at("spec_problems").empty()) << t.at("spec_problems").dump();
  ASSERT_EQ(t.at("spec_matches").size(), 1u) << t.dump(2);
  std::ofstream(dir / "broken.xml")
      << "<?xml version=\"1.0\"?>\n<spec-sheet name=\"half\" vendor=\"x\">\n  <match\n";
  t = identify_json({"--sysfs-root", root, "--target", "sda1", "--specs", dir.path().string()});
  ASSERT_EQ(t.at("spec_problems").size(), 1u) << t.dump(2);
  EXPECT_NE(t.at("spec_problems")[0].dump().find("broken.xml"), std::string::npos)
      << t.at("spec_problems").dump();
  EXPECT_EQ(t.at("spec_matches").size(), 1u) << t.dump(2);
}

TEST(IdentifyCaptured, ListingWithSpecsSaysWhichSheetMatchesEachDeviceAndNeverTheDemo) {
  // The shipped specs/ directory: the demo sheet (scratch files only) beside real sheets.
  const std::string specs = std::string(STORQUAL_SOURCE_DIR) + "/specs";
  for (const char* tree : {"sata-ssd", "nvme", "virtio-scsi"}) {
    json list = identify_json({"--sysfs-root", (kTrees / tree / "sys").string(), "--specs", specs});
    ASSERT_FALSE(list["devices"].empty()) << tree;
    for (const auto& d : list["devices"]) {
      ASSERT_TRUE(d.contains("spec_matches")) << d.dump(1);
      for (const auto& m : d["spec_matches"])
        EXPECT_NE(m["name"], "storqual demo") << tree << "/" << d["name"] << " got the demo sheet";
    }
  }
  // A sheet that does match is named, in JSON and in text.
  ScratchDir dir("identify-list-specs");
  fs::copy_file(specs + "/demo.xml", dir / "demo.xml");
  std::ofstream(dir / "samsung.xml")
      << "<?xml version=\"1.0\"?>\n<spec-sheet name=\"Samsung 870\" vendor=\"x\" "
         "suite=\"quick\" source=\"test\">\n  <match model=\"Samsung SSD 870*\"/>\n"
         "</spec-sheet>\n";
  const std::string root = (kTrees / "sata-ssd/sys").string();
  json list = identify_json({"--sysfs-root", root, "--specs", dir.path().string()});
  ASSERT_EQ(list["devices"].size(), 1u);
  ASSERT_EQ(list["devices"][0]["spec_matches"].size(), 1u) << list.dump(1);
  EXPECT_EQ(list["devices"][0]["spec_matches"][0]["name"], "Samsung 870");
  auto text = run_command(
      {STORQUAL_BINARY, "identify", "--sysfs-root", root, "--specs", dir.path().string()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("spec sheets in "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("sda          Samsung 870 ("), std::string::npos) << text.out;
  // The demo sheet still matches what the demo targets: a directory (scratch file).
  json scratch = identify_json({"--target", dir.path().string(), "--specs", dir.path().string()});
  bool demo = false;
  for (const auto& m : scratch["spec_matches"]) demo = demo || m["name"] == "storqual demo";
  EXPECT_TRUE(demo) << scratch.dump(1);
}

TEST(IdentifyCaptured, NvmeAdminPagesOverrideSysfsAndAddHealth) {
  json t = identify_json({"--sysfs-root", (kTrees / "nvme/sys").string(), "--target", "nvme0n1",
                          "--nvme-pages", (fs::path(STORQUAL_TEST_DATA) / "nvme").string()});
  const json& id = t.at("identity");
  for (const auto& row : id) {
    if (row.at("field") == "model") {
      EXPECT_EQ(row.at("value"), "Samsung SSD 980 PRO 1TB");
      EXPECT_EQ(row.at("source"), "nvme:identify-ctrl");
    }
  }
  EXPECT_EQ(field(id, "nvme_lba_format"), "1 (4096 bytes + 8 metadata)");
  const json& health = t.at("health");
  EXPECT_EQ(field(health, "temperature_c"), "38");
  EXPECT_EQ(field(health, "percentage_used"), "104");
  EXPECT_EQ(field(health, "data_units_read"), "18446744073709551621");
  // Without the pages, a captured tree has no NVMe health.
  json plain =
      identify_json({"--sysfs-root", (kTrees / "nvme/sys").string(), "--target", "nvme0n1"});
  EXPECT_TRUE(plain.at("health").empty());
}

// A host-managed zoned namespace (docs/identity-and-safety.md, "Zoned devices"): a run whose
// plan writes, or fills before its reads, is refused before the device is opened, naming the
// zones and each workload that writes.
TEST(IdentifyCaptured, ZonedTargetRefusesWritingWorkloadsAndTheFillBeforeAnythingIsOpened) {
  const std::string tree = (kTrees / "nvme-zns/sys").string();
  ScratchDir dir("zoned-run");
  auto run = [&](const std::string& target, std::vector<std::string> extra) {
    std::vector<std::string> argv{STORQUAL_BINARY, "run",  "--sysfs-root", tree,
                                  "--target",      target, "--out",        (dir / "out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  };
  auto refused = run("nvme0n2", {"--suite", "quick", "--allow-destructive"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  for (const char* part :
       {"nvme0n2 is a zoned block device (host-managed, 8 zones of 8.00 MiB", "write pointer",
        "randwrite-4k-qd16", "seqwrite-1m-qd4", "the fill before reads (--no-fill)"})
    EXPECT_NE(refused.err.find(part), std::string::npos) << part << "\n" << refused.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "storqual-result.json"));

  std::ofstream(dir / "reads.xml") << "<suite name=\"reads\" description=\"one read\">\n"
                                   << "  <workload id=\"rr\" rw=\"randread\" bs=\"4k\" "
                                      "iodepth=\"1\" runtime=\"100ms\" size=\"1m\"/>\n</suite>\n";
  const std::string reads = (dir / "reads.xml").string();
  auto fills = run("nvme0n2", {"--suite", reads, "--allow-destructive"});
  EXPECT_EQ(fills.exit_code, 2) << fills.err;
  EXPECT_NE(fills.err.find("refusing the fill before reads (--no-fill)"), std::string::npos)
      << fills.err;
  EXPECT_EQ(fills.err.find("workloads that write"), std::string::npos) << fills.err;
  // Runs that get past the guard would open /dev/nvme0n2 or /dev/nvme0n1 of this host, which the
  // test did not create: not run here (the lab's zoned namespace runs its reads).
}
