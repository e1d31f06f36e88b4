// A real PostgreSQL server for the shared mode's tests: a cluster made by initdb in a temporary
// folder and started by pg_ctl on a Unix socket there (no TCP), as the `postgres` user when the
// tests run as root (the server refuses root). Debian's `postgresql` package provides it
// (scripts/setup --test). Where it is missing, the cases that need it skip, loudly, and fail
// where the shared mode must be tested (CI or PERFSAGE_REQUIRE_SHARED=1).
#pragma once

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "test_support.h"

namespace perfsage::test {

class PgServer {
 public:
  // The running server of this test program (started on first use), or nullptr with `why`.
  static PgServer* shared(std::string* why = nullptr) {
    static std::string failure;
    static std::unique_ptr<PgServer> server = [] {
      std::unique_ptr<PgServer> s(new PgServer());
      if (!s->start(failure)) s.reset();
      return s;
    }();
    if (why) *why = failure;
    return server.get();
  }

  ~PgServer() {
    if (started_) run("pg_ctl -D " + q(data().string()) + " -m immediate stop");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A connection URI for database `db` over the server's socket.
  std::string uri(const std::string& db = "postgres") const {
    return "postgresql:///" + db + "?host=" + dir_.string() + std::string("&port=") +
           std::to_string(port_) + "&user=postgres";
  }

  // A new empty database; returns its URI.
  std::string fresh_database() {
    std::string name = std::string("t") + std::to_string(++databases_);
    psql("CREATE DATABASE " + name);
    return uri(name);
  }

  // Runs SQL through psql as the superuser; true when it succeeded.
  bool psql(const std::string& sql, const std::string& db = "postgres") {
    return run(bin("psql") + " -X -q -v ON_ERROR_STOP=1 -d " + q(uri(db)) + " -c " + q(sql));
  }

  // Stops the server (fast: clients are disconnected) and starts it again on the same socket.
  bool restart() {
    return run("pg_ctl -D " + q(data().string()) + " -m fast -w restart -o " + q(options()));
  }
  bool stop() { return run("pg_ctl -D " + q(data().string()) + " -m fast -w stop"); }
  bool start_again() {
    return run("pg_ctl -D " + q(data().string()) + " -w start -o " + q(options()));
  }

 private:
  PgServer() = default;

  static std::string q(const std::string& s) { return "'" + s + "'"; }
  std::filesystem::path data() const { return dir_ / "data"; }
  std::string bin(const std::string& tool) const { return (bindir_ / tool).string(); }
  std::string options() const {
    return "-k " + dir_.string() + std::string(" -p ") + std::to_string(port_) +
           " -c listen_addresses= -c fsync=off -c synchronous_commit=off";
  }

  // Runs a server program, as postgres when we are root; output goes to the folder's log.
  bool run(const std::string& command) const {
    std::string cmd = command.rfind("pg_ctl", 0) == 0 ? bin("pg_ctl") + command.substr(6) : command;
    if (::geteuid() == 0) cmd = "runuser -u postgres -- " + cmd;
    cmd += " >>" + q((dir_ / "server.log").string()) + " 2>&1";
    return std::system(cmd.c_str()) == 0;
  }

  bool start(std::string& why) {
    for (int v = 20; v >= 11 && bindir_.empty(); --v) {
      auto b = std::filesystem::path("/usr/lib/postgresql") / std::to_string(v) / "bin";
      if (std::filesystem::exists(b / "initdb")) bindir_ = b;
    }
    if (bindir_.empty()) {
      why =
          "PostgreSQL's server programs are not installed (Debian: postgresql; "
          "scripts/setup --test installs it)";
      return false;
    }
    char tmpl[] = "/tmp/perfsage-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      why = "cannot make a temporary folder";
      return false;
    }
    dir_ = tmpl;
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("postgres");
      if (!pw || ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        why = "running as root, and there is no postgres user to run the server as";
        return false;
      }
    }
    port_ = 20000 + static_cast<int>(::getpid() % 20000);
    if (!run(bin("initdb") + " -D " + q(data().string()) +
             " -A trust -U postgres -E UTF8 --no-sync --no-instructions")) {
      why = "initdb failed: " + log();
      return false;
    }
    if (!run("pg_ctl -D " + q(data().string()) + " -w -t 60 -l " +
             q((dir_ / "postgres.log").string()) + " start -o " + q(options()))) {
      why = "pg_ctl start failed: " + log();
      return false;
    }
    started_ = true;
    return true;
  }

  std::string log() const {
    std::ifstream in(dir_ / "server.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::filesystem::path dir_, bindir_;
  int port_ = 0;
  int databases_ = 0;
  bool started_ = false;
};

// Skips (or, where required, fails) the current case when no PostgreSQL server can run here.
#define PERFSAGE_REQUIRE_POSTGRES(server)                                                      \
  std::string pg_why_;                                                                         \
  perfsage::test::PgServer* server = perfsage::test::PgServer::shared(&pg_why_);               \
  do {                                                                                         \
    if (!server) {                                                                             \
      if (perfsage::test::samples_required()) FAIL("no PostgreSQL for the test: " << pg_why_); \
      WARN("skipped: no PostgreSQL here: " << pg_why_);                                        \
      perfsage::test::note_skipped();                                                          \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

}  // namespace perfsage::test
