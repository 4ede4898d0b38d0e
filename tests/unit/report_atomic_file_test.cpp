// SPDX-License-Identifier: Apache-2.0
// Report files appear whole or not at all; no temporary is left behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include "reporting/atomic_file.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::reporting {
namespace {

using storqual::testing::read_file;

std::size_t entries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(ReportAtomicFile, WritesAndReplacesWithoutLeavingTemporaries) {
  testing::ScratchDir dir("report-atomic");
  const auto path = (dir / "report.html").string();
  write_file_atomically(path, "first");
  EXPECT_EQ(read_file(path), "first");
  const std::string big(3 << 20, 'x');
  write_file_atomically(path, big);
  EXPECT_EQ(read_file(path), big);
  EXPECT_EQ(entries(dir.path()), 1u);
  EXPECT_EQ(temp_name_for(path), path + ".tmp." + std::to_string(::getpid()));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(
      st.st_mode & 0777, 0644u & ~[] {
        const mode_t m = ::umask(0);
        ::umask(m);
        return m;
      }());
}

TEST(ReportAtomicFile, FailureLeavesTheOldFileAndNoTemporary) {
  testing::ScratchDir dir("report-atomic");
  const auto target = dir / "old.xml";
  write_file_atomically(target.string(), "old");
  // Renaming a file over a non-empty directory fails after the temporary was written.
  const auto blocked = dir / "blocked";
  std::filesystem::create_directories(blocked / "inside");
  EXPECT_THROW(write_file_atomically(blocked.string(), "new"), std::system_error);
  EXPECT_FALSE(std::filesystem::exists(temp_name_for(blocked.string())));
  EXPECT_EQ(read_file(target), "old");
  try {
    write_file_atomically((dir / "no-such-dir" / "x.json").string(), "x");
    FAIL() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-dir"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(dir.path()), 2u);  // old.xml and blocked/
  remove_pending_temp_file();          // nothing pending: a no-op
  EXPECT_TRUE(std::filesystem::exists(target));
}

TEST(ReportAtomicFile, ADeviceOrFifoIsWrittenInPlaceNeverReplaced) {
  // `--json /dev/null`: as root, a rename over it would make /dev/null a regular file for every
  // process on the machine.
  write_file_atomically("/dev/null", "{}\n");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  storqual::testing::ScratchDir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);
    std::stringstream all;
    all << in.rdbuf();
    got = all.str();
  });
  write_file_atomically(fifo.string(), "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_FALSE(std::filesystem::exists(temp_name_for(fifo.string())));
}

}  // namespace
}  // namespace storqual::reporting
