// A perfsaged started as a separate process on an ephemeral loopback port, for the daemon's
// benchmarks (the tests have their own, with Catch2 checks).
#pragma once

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/spawn_process.h"

namespace perfsage::bench {

class Perfsaged {
 public:
  Perfsaged(const std::filesystem::path& exe, const std::filesystem::path& dir,
            const std::string& config)
      : dir_(dir) {
    std::ofstream(dir / "perfsaged.yaml") << config;
    std::vector<std::string> argv = {exe.string(), "--config", (dir / "perfsaged.yaml").string(),
                                     "--port-file", (dir / "port").string()};
    pid_ = test::spawn_logged(argv, dir / "perfsaged.log");
    for (int i = 0; i < 600 && !std::filesystem::exists(dir / "port"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::ifstream(dir / "port") >> port_;
    if (port_ == 0)
      throw std::runtime_error("perfsaged did not start; see " + (dir / "perfsaged.log").string());
  }
  ~Perfsaged() {
    ::kill(pid_, SIGTERM);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  // A /proc/PID/status field in kB (VmRSS, VmHWM) of the daemon, or of its first child (the
  // forkserver) with `child`.
  long status_kb(const std::string& field, bool child = false) const {
    pid_t pid = pid_;
    if (child) {
      std::ifstream kids("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(pid_) +
                         "/children");
      kids >> pid;
    }
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    }
    return -1;
  }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// Requests `limit` jobs from the queue and counts those in `state` (the counts map).
inline long queue_count(httplib::Client& c, const std::string& state) {
  auto r = c.Get("/api/v1/queue?limit=1");
  if (!r) return -1;
  auto at = r->body.find("\"" + state + "\":\"");
  if (at == std::string::npos) return -1;
  return std::stol(r->body.substr(at + state.size() + 4));
}

// A sample of a daemon's /metrics, 0 when absent (-1 when it did not answer).
inline double metric(httplib::Client& c, const std::string& series) {
  auto r = c.Get("/metrics");
  if (!r) return -1;
  auto at = r->body.find("\n" + series + " ");
  return at == std::string::npos ? 0 : std::stod(r->body.substr(at + series.size() + 2));
}

// `daemons` perfsaged with `workers` workers each, their stores in dir/d<i>, reading
// submissions below `submit_root`; in shared mode on `uri` when it is not empty. A client
// each.
struct Fleet {
  std::vector<std::unique_ptr<Perfsaged>> daemons;
  std::vector<std::unique_ptr<httplib::Client>> clients;
};
inline Fleet start_fleet(const std::filesystem::path& perfsaged, const std::filesystem::path& dir,
                         int daemons, int workers, const std::filesystem::path& submit_root,
                         const std::string& uri) {
  Fleet out;
  for (int i = 0; i < daemons; ++i) {
    const std::filesystem::path home = dir / (std::string("d") + std::to_string(i));
    std::filesystem::create_directories(home);
    std::string config = "daemon:\n  store: " + (home / "perf.db").string() +
                         "\n  listen: 127.0.0.1:0\n  submit_roots: [" + submit_root.string() +
                         "]\n  workers: " + std::to_string(workers) + "\n";
    if (!uri.empty()) config += "  postgres: \"" + uri + "\"\n";
    out.daemons.push_back(std::make_unique<Perfsaged>(perfsaged, home, config));
    out.clients.push_back(
        std::make_unique<httplib::Client>("127.0.0.1", out.daemons.back()->port()));
    out.clients.back()->set_read_timeout(60, 0);
  }
  return out;
}

}  // namespace perfsage::bench
