// SPDX-License-Identifier: Apache-2.0
// Scratch files and the guard's rules for file and directory targets, on real files in a scratch
// directory (no privileges needed).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "devices/safety_guard.hpp"
#include "devices/scratch_file.hpp"
#include "tests/support/test_devices.hpp"

namespace fs = std::filesystem;
using namespace storqual::devices;
using storqual::testing::ScratchDir;

namespace {

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

std::string refusal(const GuardRequest& request) {
  try {
    auto admitted = SafetyGuard().admit(request);
    return "";
  } catch (const SafetyRefusal& e) {
    return e.what();
  }
}

}  // namespace

TEST(ScratchFile, UniqueSizedAndRemovedByItsDestructor) {
  ScratchDir dir("scratch");
  fs::path first, second;
  {
    ScratchFile a(dir.path(), 1 << 20);
    ScratchFile b(dir.path(), 4096);
    first = a.path();
    second = b.path();
    EXPECT_NE(first, second);
    EXPECT_EQ(first.parent_path(), dir.path());
    EXPECT_EQ(first.filename().string().rfind("storqual-scratch-", 0), 0u);
    EXPECT_EQ(fs::file_size(first), 1u << 20);
    EXPECT_EQ(fs::file_size(second), 4096u);
    struct stat st {};
    ASSERT_EQ(stat(first.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  EXPECT_FALSE(fs::exists(first));
  EXPECT_FALSE(fs::exists(second));
  EXPECT_EQ(entries(dir.path()), 0u);
}

TEST(ScratchFile, SignalPathRemovesEveryLiveFile) {
  ScratchDir dir("scratch-signal");
  ScratchFile a(dir.path(), 4096);
  ScratchFile b(dir.path(), 4096);
  ASSERT_EQ(entries(dir.path()), 2u);
  remove_scratch_files_now();
  EXPECT_EQ(entries(dir.path()), 0u);
  // The destructors that follow find nothing left and do not fail.
}

TEST(ScratchFile, MissingDirectoryIsAClearError) {
  ScratchDir dir("scratch-missing");
  try {
    ScratchFile a(dir / "absent", 4096);
    FAIL() << "created a scratch file in a directory that does not exist";
  } catch (const ScratchFileError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "absent").string()), std::string::npos);
  }
}

TEST(GuardFiles, DirectoryTargetGetsAScratchFileThatGoesAway) {
  ScratchDir dir("guard-dir");
  GuardRequest req;
  req.target = dir.path().string();
  req.writes = true;  // writing to our own scratch file needs no flag
  req.offset = 4096;
  req.size = 1 << 20;
  std::string path;
  {
    auto admitted = SafetyGuard().admit(req);
    EXPECT_EQ(admitted.kind, AdmittedKind::ScratchFile);
    path = admitted.path;
    EXPECT_EQ(fs::file_size(path), 4096u + (1u << 20));
    EXPECT_EQ(admitted.offset, 4096u);
    EXPECT_EQ(admitted.size, 1u << 20);
    AdmittedTarget moved = std::move(admitted);  // ownership moves with the target
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
  req.size = 0;
  EXPECT_NE(refusal(req).find("needs a size"), std::string::npos);
}

TEST(GuardFiles, ExistingFileIsOnlyReadUnlessAllowedDestructive) {
  ScratchDir dir("guard-file");
  fs::path file = dir / "precious.dat";
  storqual::testing::write_random_file(file, 1 << 20);
  GuardRequest req;
  req.target = file.string();
  req.writes = true;
  std::string msg = refusal(req);
  EXPECT_NE(msg.find("existing file " + file.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("--allow-destructive"), std::string::npos) << msg;
  req.writes = false;
  auto read = SafetyGuard().admit(req);
  EXPECT_EQ(read.kind, AdmittedKind::ExistingFile);
  EXPECT_EQ(read.size, 1u << 20);
  req.writes = true;
  req.allow_destructive = true;
  EXPECT_EQ(refusal(req), "");
  req.offset = 512 << 10;
  req.size = 1 << 20;
  EXPECT_NE(refusal(req).find("past the end of file"), std::string::npos);
}

TEST(GuardFiles, MissingTargetIsRefusedWithAHint) {
  GuardRequest req;
  req.target = "/nonexistent/storqual-target";
  EXPECT_NE(refusal(req).find("No such file or directory"), std::string::npos);
}
