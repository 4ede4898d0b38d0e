// SPDX-License-Identifier: Apache-2.0
// The Debian package, as docs/fleet.md ("Packaging") builds it: a build of its own configured with
// CMAKE_INSTALL_PREFIX=/usr (<build>/package-build, kept between runs; only the storqual binary and
// its man page are built, through ccache when it is there), `cpack -G DEB`, `apt-get install
// ./storqual_*.deb`, then the installed storqual runs from /tmp with its installed suites and
// sheets, and its man page is there; finally `apt-get remove --purge` leaves no file behind. Needs
// root (it installs a package); skips otherwise, and never touches a storqual package that was
// installed before the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
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

// The value of `key` ("CMAKE_INSTALL_PREFIX:PATH") in a build tree's CMakeCache.txt, or "".
std::string cache_value(const fs::path& build, const std::string& key) {
  if (!fs::exists(build / "CMakeCache.txt")) return {};
  std::istringstream cache(read_file(build / "CMakeCache.txt"));
  for (std::string line; std::getline(cache, line);)
    if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  return {};
}

// A build tree configured for /usr with storqual and its man page built: this build when it is
// one (a packaging build), else <build>/package-build (made by the build, or configured here).
fs::path package_build(std::string& log) {
  if (cache_value(build_dir(), "CMAKE_INSTALL_PREFIX:PATH") == "/usr") return build_dir();
  const fs::path dir = build_dir() / "package-build";
  std::vector<std::string> configure = {"cmake",
                                        "-S",
                                        STORQUAL_SOURCE_DIR,
                                        "-B",
                                        dir.string(),
                                        "-G",
                                        "Ninja",
                                        "-DCMAKE_INSTALL_PREFIX=/usr",
                                        "-DSTORQUAL_TESTS=OFF"};
  // The same flags as this build where they change the compile line, so ccache finds its objects.
  for (const std::string key : {"CMAKE_BUILD_TYPE:STRING", "STORQUAL_WERROR:BOOL"})
    if (const auto v = cache_value(build_dir(), key); !v.empty())
      configure.push_back("-D" + key + "=" + v);
  if (run_shell("command -v ccache >/dev/null 2>&1").exit_code == 0)
    configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
  // Configured already (by the build's storqual_package_tree target, tests/CMakeLists.txt): as is.
  if (!fs::exists(dir / "CMakeCache.txt")) {
    const auto configured = run_command(configure);
    log += configured.out + configured.err;
    if (configured.exit_code != 0) return {};
  }
  const auto built = run_command(
      {"cmake", "--build", dir.string(), "-j", "2", "--target", "storqual", "storqual_manpage"});
  log += built.out + built.err;
  return built.exit_code == 0 ? dir : fs::path();
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
      GTEST_SKIP() << "needs " << tool << " (scripts/install-deps.sh test)";
  if (run_shell("dpkg -s storqual >/dev/null 2>&1").exit_code == 0)
    GTEST_SKIP() << "a storqual package is already installed; not replacing it";

  std::string log;
  const fs::path build = package_build(log);
  ASSERT_FALSE(build.empty()) << "the /usr build failed:\n" << log;
  ASSERT_EQ(cache_value(build, "CMAKE_INSTALL_PREFIX:PATH"), "/usr");

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

  // From an unrelated directory, with only the installed files.
  fs::create_directories(dir / "target");
  const auto run =
      run_shell("cd /tmp && /usr/bin/storqual run --target " + (dir / "target").string() +
                " --spec /usr/share/storqual/specs/demo.xml --runtime-scale 0.05 "
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
