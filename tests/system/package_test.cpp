// SPDX-License-Identifier: Apache-2.0
// The Debian package, as docs/fleet.md ("Packaging") builds it: `cpack -G DEB` of this very build
// tree (whatever its CMAKE_INSTALL_PREFIX: the package installs under /usr and the binary finds
// its suites beside itself), `apt-get install ./storqual_*.deb`, then the installed storqual runs
// from /tmp with its installed suites and sheets (not this build's or the source tree's), and its
// man page is there; finally `apt-get remove --purge` leaves no file behind. Needs root (it
// installs a package); skips otherwise, and never touches a storqual package that was installed
// before the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::run_command;
using testing::run_shell;
using testing::ScratchDir;

using storqual::testing::read_file;

// The build tree of STORQUAL_BINARY (<build>/app/storqual) and its install prefix.
fs::path build_dir() {
  return fs::path(STORQUAL_BINARY).parent_path().parent_path();
}

// Removes the package when the test installed it, whatever happens in between.
struct InstalledPackage {
  bool installed = false;
  ~InstalledPackage() {
    if (installed)
      (void)run_shell(
          "DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -o DPkg::Lock::Timeout=120 "
          "storqual >/dev/null 2>&1");
  }
};

TEST(DebianPackage, InstallsRunsFromAnyDirectoryAndRemovesCleanly) {
  if (!testing::is_root())
    GTEST_SKIP() << "needs root: the test installs and removes the package with apt-get";
  for (const char* tool : {"cmake", "cpack", "ninja", "apt-get", "dpkg-deb", "dpkg-shlibdeps"})
    if (run_shell(std::string("command -v ") + tool + " >/dev/null 2>&1").exit_code != 0)
      GTEST_FAIL() << "cannot run: " << tool << " is missing (scripts/install-deps.sh test)";
  if (run_shell("dpkg -s storqual >/dev/null 2>&1").exit_code == 0)
    GTEST_SKIP() << "a storqual package is already installed; not replacing it";

  const fs::path build = build_dir();
  ASSERT_TRUE(fs::exists(build / "CPackConfig.cmake")) << build;
  ASSERT_TRUE(fs::exists(build / "storqual.1")) << "the man page is built with `all`";

  ScratchDir dir("package");
  const auto packed = run_command({"cpack", "-G", "DEB", "-B", dir.path().string(), "--config",
                                   (build / "CPackConfig.cmake").string()});
  ASSERT_EQ(packed.exit_code, 0) << packed.out << packed.err;
  fs::path deb;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << packed.out;
  const auto depends = run_command({"dpkg-deb", "-f", deb.string(), "Depends"});
  for (const char* lib :
       {"liburing2", "libaio1", "libnvme1", "libboost-program-options1.74.0", "libpugixml1v5",
        "libblkid1", "libmount1", "libudev1", "libxxhash0", "libssl3"})
    EXPECT_NE(depends.out.find(lib), std::string::npos) << lib << " missing in " << depends.out;

  InstalledPackage package;
  const auto install =
      run_shell("DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=120 " +
                deb.string() + " 2>&1");
  package.installed = true;
  ASSERT_EQ(install.exit_code, 0) << install.out;
  EXPECT_TRUE(fs::exists("/usr/bin/storqual"));
  EXPECT_TRUE(fs::exists("/usr/share/storqual/suites/quick.xml"));
  EXPECT_TRUE(fs::exists("/usr/share/man/man1/storqual.1"));
  const auto version = run_command({"/usr/bin/storqual", "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("storqual ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("(git "), std::string::npos) << version.out;

  // From an unrelated directory, with only the installed files. A quarter of the runtimes: the
  // demo sheet's p99 claim needs 1000 I/Os, which a 0.2 s workload on a slow disk (3125 IOPS on
  // a CI machine's virtio disk at --runtime-scale 0.05) does not give: it was inconclusive, exit 3.
  fs::create_directories(dir / "target");
  const auto run =
      run_shell("cd /tmp && /usr/bin/storqual run --target " + (dir / "target").string() +
                " --spec /usr/share/storqual/specs/demo.xml --runtime-scale 0.25 "
                "--size 16m --out " +
                (dir / "out").string() + " 2>&1");
  EXPECT_LT(run.exit_code, 2) << run.out;
  const auto result =
      nlohmann::json::parse(read_file(dir / "out" / "storqual-result.json"), nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << run.out;
  EXPECT_EQ(result["spec"]["suite_path"], "/usr/share/storqual/suites/quick.xml");
  EXPECT_EQ(result["workloads"].size(), 4u);

  const auto removed = run_shell(
      "DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -o DPkg::Lock::Timeout=120 "
      "storqual 2>&1");
  package.installed = false;
  EXPECT_EQ(removed.exit_code, 0) << removed.out;
  EXPECT_FALSE(fs::exists("/usr/bin/storqual"));
  EXPECT_FALSE(fs::exists("/usr/share/storqual"));
  EXPECT_FALSE(fs::exists("/usr/share/man/man1/storqual.1"));
}

}  // namespace
}  // namespace storqual
