// Runs a real perfsaged (build/bin/perfsaged) on a temporary folder and an ephemeral loopback
// port, and talks to it over HTTP, for the daemon's integration tests.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "perfsage/v1/api.pb.h"
#include "spawn_process.h"
#include "test_support.h"

namespace perfsage::test {

// PERFSAGE_TEST_PERFSAGED names another perfsaged to run (an older build, to see a test fail).
inline std::filesystem::path perfsaged_binary() {
  if (const char* other = std::getenv("PERFSAGE_TEST_PERFSAGED"); other && *other) return other;
  return std::filesystem::path(PERFSAGE_BINARY_DIR) / "bin" / "perfsaged";
}
inline std::filesystem::path perfsage_binary() {
  return std::filesystem::path(PERFSAGE_BINARY_DIR) / "bin" / "perfsage";
}

// Polls `done` every 50 ms until it holds or `seconds` pass.
inline bool eventually(double seconds, const std::function<bool()>& done) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

struct HttpReply {
  int status = 0;
  std::string body;
};

// A JSON answer as the API's message (the test fails when it is not one).
template <class M>
M parse_reply(const HttpReply& r) {
  INFO(r.status << " " << r.body.substr(0, 500));
  M m;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.body, &m).ok());
  return m;
}

class DaemonProcess {
 public:
  // `config` is written to dir/perfsaged.yaml; the store is dir/perf.db unless it says otherwise.
  DaemonProcess(const std::filesystem::path& dir, const std::string& config,
                std::vector<std::string> extra_args = {})
      : dir_(dir), args_(std::move(extra_args)) {
    std::ofstream(dir / "perfsaged.yaml") << config;
  }
  ~DaemonProcess() { kill(SIGKILL); }

  // Starts it; false when it exits before listening (its log says why). With `ready` it also
  // waits for /readyz to answer 200 (a daemon on a damaged store listens but is never ready).
  bool start(bool ready = true) {
    std::filesystem::remove(dir_ / "port");
    std::vector<std::string> argv = {perfsaged_binary().string(), "--config",
                                     (dir_ / "perfsaged.yaml").string(), "--port-file",
                                     (dir_ / "port").string()};
    argv.insert(argv.end(), args_.begin(), args_.end());
    pid_ = spawn_logged(argv, dir_ / "perfsaged.log");
    bool up = eventually(30, [&] { return std::filesystem::exists(dir_ / "port") || !alive(); });
    if (!up || !alive()) return false;
    std::ifstream(dir_ / "port") >> port_;
    if (!ready) return true;
    return eventually(30, [&] { return get("/readyz").status == 200 || !alive(); }) && alive();
  }

  bool alive() {
    if (pid_ <= 0) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_status_ = status;
      pid_ = -1;
      return false;
    }
    return true;
  }

  // Sends `sig`; for SIGKILL and SIGTERM waits for the exit (bounded) and returns its status.
  int kill(int sig, double wait_s = 30) {
    if (pid_ <= 0) return exit_status_;
    ::kill(pid_, sig);
    if (sig != SIGKILL && sig != SIGTERM && sig != SIGINT) return 0;
    eventually(wait_s, [&] { return !alive(); });
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      exit_status_ = status;
      pid_ = -1;
    }
    return exit_status_;
  }
  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string log() const {
    std::ifstream in(dir_ / "perfsaged.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  HttpReply get(const std::string& path, const std::string& token = "") const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(30, 0);
    if (!token.empty()) c.set_bearer_token_auth(token);
    auto r = c.Get(path);
    return r ? HttpReply{r->status, r->body} : HttpReply{};
  }
  HttpReply post(const std::string& path, const std::string& body,
                 const std::string& token = "") const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    if (!token.empty()) c.set_bearer_token_auth(token);
    auto r = c.Post(path, body, "application/json");
    return r ? HttpReply{r->status, r->body} : HttpReply{};
  }

  template <class M>
  M get_json(const std::string& path) const {
    auto r = get(path);
    INFO(path << " -> " << r.status << " " << r.body.substr(0, 500));
    REQUIRE(r.status == 200);
    return parse_reply<M>(r);
  }

  perfsage::v1::QueueJob submit(const std::filesystem::path& path) const {
    auto r = post("/api/v1/submit", "{\"path\":\"" + path.string() + "\"}");
    INFO(r.body);
    REQUIRE((r.status == 201 || r.status == 200));
    perfsage::v1::SubmitResponse s;
    REQUIRE(google::protobuf::util::JsonStringToMessage(r.body, &s).ok());
    return s.job();
  }
  perfsage::v1::QueueJob job(int64_t id) const {
    return get_json<perfsage::v1::QueueJob>("/api/v1/queue/" + std::to_string(id));
  }
  // Waits until the queue job has ended (done, failed, quarantined) and returns it.
  perfsage::v1::QueueJob wait_job(int64_t id, double seconds = 60) const {
    perfsage::v1::QueueJob j;
    eventually(seconds, [&] {
      j = job(id);
      return j.state() == "done" || j.state() == "failed" || j.state() == "quarantined";
    });
    return j;
  }

 private:
  std::filesystem::path dir_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  int exit_status_ = -1;
  int port_ = 0;
};

// A kernel_details.csv of `repeats` copies of the daemon fixture's 50 rows: an input whose
// ingest takes a while (200k rows: about a second), made at test time, never committed.
inline std::filesystem::path write_big_run(const std::filesystem::path& dir, int repeats) {
  auto src = source_dir() / "tests/fixtures/daemon/ascend_run/ASCEND_PROFILER_OUTPUT";
  std::ifstream in(src / "kernel_details.csv");
  std::string header, line, rows;
  std::getline(in, header);
  while (std::getline(in, line)) rows += line + "\n";
  auto out_dir = dir / "ASCEND_PROFILER_OUTPUT";
  std::filesystem::create_directories(out_dir);
  std::ofstream out(out_dir / "kernel_details.csv");
  out << header << "\n";
  for (int i = 0; i < repeats; ++i) out << rows;
  return dir;
}

}  // namespace perfsage::test
