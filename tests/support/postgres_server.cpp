// SPDX-License-Identifier: Apache-2.0
// A PostgreSQL server of the test's own (postgres_server.hpp).
#include "tests/support/postgres_server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "archive/sql_connection.hpp"
#include "tests/support/test_devices.hpp"

namespace fs = std::filesystem;

namespace storqual::testing {
namespace {

// Debian's server binaries: /usr/lib/postgresql/<major>/bin, the newest there.
std::string postgres_bin() {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec))
    if (fs::exists(e.path() / "bin" / "initdb") && fs::exists(e.path() / "bin" / "pg_ctl"))
      found.push_back(e.path() / "bin");
  if (found.empty()) return {};
  std::sort(found.begin(), found.end());
  return found.back().string();
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string PostgresServer::as_server_user(const std::string& command) const {
  const std::string line = "cd " + quoted(dir_) + " && " + command;
  if (geteuid() != 0) return line;
  return "runuser -u nobody -- /bin/sh -c " + quoted(line);
}

std::unique_ptr<PostgresServer> PostgresServer::start(std::string& why_not) {
  const std::string bin = postgres_bin();
  if (bin.empty()) {
    why_not =
        "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)";
    return nullptr;
  }
  char tmpl[] = "/tmp/storqual-pg-XXXXXX";
  if (!mkdtemp(tmpl)) {
    why_not = "mkdtemp failed";
    return nullptr;
  }
  std::unique_ptr<PostgresServer> s(new PostgresServer(bin, tmpl));
  if (geteuid() == 0 && chown(tmpl, 65534, 65534) != 0) {
    why_not = "cannot give the server directory to nobody";
    return nullptr;
  }
  const CommandResult init = run_shell(
      s->as_server_user(quoted(bin + "/initdb") +
                        " -D data -U storqual -A trust -E UTF8 --no-sync >initdb.log 2>&1"));
  if (init.exit_code != 0) {
    why_not = "initdb failed: " + read_file(s->dir_ + "/initdb.log");
    return nullptr;
  }
  // A watchdog outlives a test that crashes or is killed (no destructor runs then): once this
  // process is gone it stops the server and removes its directory. Detached (its own session, no
  // output), so that ctest does not wait for it.
  const std::string stop_and_remove =
      s->as_server_user(quoted(bin + "/pg_ctl") + " -D data -m immediate -w stop") +
      " >/dev/null 2>&1; rm -rf " + quoted(std::string(s->dir_));
  (void)run_shell("setsid /bin/sh -c " +
                  quoted("while kill -0 " + std::to_string(getpid()) +
                         " 2>/dev/null; do sleep 1; done; " + stop_and_remove) +
                  " </dev/null >/dev/null 2>&1 &");
  if (!s->resume()) {
    why_not = "pg_ctl start failed: " + read_file(s->dir_ + "/server.log");
    return nullptr;
  }
  return s;
}

std::unique_ptr<PostgresServer> PostgresServer::shared(std::string& why_not) {
  const std::string dir = STORQUAL_TEST_POSTGRES_DIR;
  std::error_code ec;
  if (!fs::exists(dir + "/.s.PGSQL.5432", ec)) return start(why_not);
  std::unique_ptr<PostgresServer> s(new PostgresServer(postgres_bin(), dir));
  s->running_ = true;
  s->owned_ = false;
  return s;
}

bool PostgresServer::resume() {
  if (running_) return true;
  const CommandResult up = run_shell(as_server_user(
      quoted(bin_ + "/pg_ctl") + " -D data -l server.log -w -t 60 -o " +
      quoted("-c listen_addresses='' -k " + dir_ + " -c fsync=off -c max_connections=60") +
      " start >>pg_ctl.log 2>&1"));
  running_ = up.exit_code == 0;
  return running_;
}

void PostgresServer::stop() {
  if (!running_ || !owned_) return;
  (void)run_shell(
      as_server_user(quoted(bin_ + "/pg_ctl") + " -D data -m immediate -w stop >>pg_ctl.log 2>&1"));
  running_ = false;
}

PostgresServer::~PostgresServer() {
  if (!owned_) return;
  std::error_code ec;
  if (fs::exists(dir_ + "/data/postmaster.pid", ec)) running_ = true;  // a start that timed out
  stop();
  fs::remove_all(dir_, ec);
}

std::string PostgresServer::uri(const std::string& db) const {
  return "postgresql:///" + db + "?host=" + dir_ + "&user=storqual";
}

std::string PostgresServer::create_database(const std::string& name) const {
  const std::string db_name = owned_ ? name : name + "_p" + std::to_string(getpid());
  auto db = reporting::open_postgresql(uri("postgres"), reporting::ArchiveAccess::Record);
  db->execute_script("CREATE DATABASE " + db_name);
  return uri(db_name);
}

}  // namespace storqual::testing
