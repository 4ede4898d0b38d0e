// SPDX-License-Identifier: Apache-2.0
// A PostgreSQL server of the test's own (Debian's postgresql package): initdb and pg_ctl in a
// fresh directory under /tmp, run as the unprivileged user `nobody` when the test is root (as the
// test's own user otherwise), listening on a Unix socket in that directory only
// (listen_addresses=''), stopped and removed by the destructor (also when the test fails), and by a
// detached watchdog when the test process dies without running it (a crash, SIGKILL).
#pragma once

#include <memory>
#include <string>

namespace storqual::testing {

class PostgresServer {
 public:
  // A running server, or null with `why_not` set (no postgres binaries, initdb failed, ...).
  [[nodiscard]] static std::unique_ptr<PostgresServer> start(std::string& why_not);
  // The build tree's server (ctest fixture `postgres`, tests/support/postgres_fixture.sh) when it
  // runs: one server for every archive test process, which neither stops nor removes it; its
  // databases carry this process's id, so that processes beside each other never share one.
  // Without it (a test binary run by hand), a server of this process's own (start()).
  [[nodiscard]] static std::unique_ptr<PostgresServer> shared(std::string& why_not);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A libpq URI of database `db` over the socket (no password: trust on the socket).
  [[nodiscard]] std::string uri(const std::string& db) const;
  // Creates database `name` (letters, digits and '_') and returns its URI.
  [[nodiscard]] std::string create_database(const std::string& name) const;
  void stop();    // pg_ctl stop -m immediate (idempotent); not for a shared server
  bool resume();  // pg_ctl start again after stop(); false when it does not come up
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  PostgresServer(std::string bin, std::string dir) : bin_(std::move(bin)), dir_(std::move(dir)) {}
  [[nodiscard]] std::string as_server_user(const std::string& command) const;
  std::string bin_, dir_;
  bool running_ = false;
  bool owned_ = true;  // false for the shared server: the fixture stops it
};

}  // namespace storqual::testing
