// SPDX-License-Identifier: Apache-2.0
// The tests' own PostgreSQL server (tests/support/postgres_server.hpp) is gone after a test that
// dies without its destructor: a child process starts one and kills itself with SIGKILL; the
// watchdog must stop the server and remove its directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/support/postgres_server.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::testing {
namespace {

TEST(PostgresServer, AKilledTestLeavesNoServerBehind) {
  std::string why;
  if (!PostgresServer::start(why))
    GTEST_FAIL() << "cannot run: no PostgreSQL server: "
                 << why;  // destroyed at once: the plain path
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);  // the server and the watchdog must not hold it open
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    std::string child_why;
    auto server = PostgresServer::start(child_why);
    const std::string dir = server ? server->dir() : std::string();
    (void)!write(fds[1], dir.data(), dir.size());
    close(fds[1]);
    raise(SIGKILL);  // no destructor runs
  }
  close(fds[1]);
  std::string dir;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) dir.append(buf, n);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_FALSE(dir.empty()) << "the child could not start its server";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::filesystem::exists(dir) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir << " is still there";
  // No postgres process serves that directory any more ("-k[ ]DIR": a pattern that does not match
  // pgrep's own shell).
  const auto left = run_shell("pgrep -f -- '-k[ ]" + dir + "'");
  EXPECT_NE(left.exit_code, 0) << left.out;
}

}  // namespace
}  // namespace storqual::testing
