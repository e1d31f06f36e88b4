// A throwaway PostgreSQL server: a cluster made by initdb in a temporary folder and started by
// pg_ctl on a Unix socket there (no TCP), as the `postgres` user when run as root (the server
// refuses root). Debian's `postgresql` package provides it (scripts/setup --test). The shared
// mode's tests use it through pg_server.h; its benchmarks (bench/) use it directly.
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

namespace perfsage::test {

class PgServer {
 public:
  // The running server of this test program (started on first use), or nullptr with `why`.
  static PgServer* shared(std::string* why = nullptr) {
    static std::string failure;
    static std::unique_ptr<PgServer> server = start_new(kTestSettings, failure);
    if (why) *why = failure;
    return server.get();
  }

  // The tests' server trades durability for speed.
  static constexpr const char* kTestSettings = "-c fsync=off -c synchronous_commit=off";

  // A server of its own with `settings` (postgres options: "-c name=value ..."; empty: the
  // defaults, durable commits), or nullptr with `why`.
  static std::unique_ptr<PgServer> start_new(const std::string& settings, std::string& why) {
    std::unique_ptr<PgServer> s(new PgServer());
    s->settings_ = settings;
    if (!s->start(why)) s.reset();
    return s;
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

  // The server's main process (its backends are its children).
  pid_t postmaster_pid() const {
    pid_t pid = -1;
    std::ifstream(data() / "postmaster.pid") >> pid;
    return pid;
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
           " -c listen_addresses= " + settings_;
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
  std::string settings_;
};

}  // namespace perfsage::test
