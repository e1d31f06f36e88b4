// perfsaged's API under load on loopback. The baseline, measured first in the same run: one
// client sending the same requests one after another to an idle daemon (PRELOAD runs analysed,
// nothing queued); then CLIENTS clients, still with nothing queued, to tell the cost of
// concurrency from that of analysis. Then CLIENTS threads send them for SECONDS while the daemon
// analyses JOBS submitted at that moment. Latency percentiles and errors of each endpoint are
// printed for both, with the loaded/idle ratios. Bounded in time and count.
//
//   daemon_load_bench [CLIENTS=8] [SECONDS=20] [JOBS=40] [PRELOAD=20] [WORKERS=2]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <random>

#include "bench/daemon_process.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const std::vector<std::string> kEndpoints = {
    "/api/v1/runs?limit=50",      "/api/v1/runs/{id}", "/api/v1/queue?limit=50",
    "/api/v1/jobs/bench/history", "/metrics",          "/api/v1/status"};

struct Sample {
  std::map<std::string, std::vector<double>> latency_ms;  // endpoint -> ms
  std::map<std::string, long> errors;
  double seconds = 0;
};

bool submit(httplib::Client& c, const fs::path& path) {
  auto r = c.Post("/api/v1/submit", "{\"path\":\"" + path.string() + "\",\"job\":\"bench\"}",
                  "application/json");
  return r && r->status == 201;
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  return v[i];
}

// `clients` threads, each cycling through the endpoints (run ids drawn from 1..runs) for
// `seconds` on its own keep-alive connection.
Sample measure(int port, int clients, double seconds, int runs) {
  Sample s;
  std::mutex mu;
  auto start = Clock::now();
  auto until = start + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client cl("127.0.0.1", port);
      cl.set_read_timeout(30, 0);
      cl.set_keep_alive(true);
      std::mt19937 rng(static_cast<unsigned>(t));
      std::map<std::string, std::vector<double>> mine;
      std::map<std::string, long> bad;
      for (size_t i = static_cast<size_t>(t); Clock::now() < until; ++i) {
        const std::string& ep = kEndpoints[i % kEndpoints.size()];
        std::string path = ep;
        if (auto at = path.find("{id}"); at != std::string::npos) {
          path.replace(at, 4, std::to_string(1 + rng() % static_cast<unsigned>(runs)));
        }
        auto t0 = Clock::now();
        auto r = cl.Get(path);
        mine[ep].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!r || r->status != 200) ++bad[ep];
      }
      std::lock_guard lock(mu);
      for (auto& [ep, v] : mine) {
        s.latency_ms[ep].insert(s.latency_ms[ep].end(), v.begin(), v.end());
      }
      for (auto& [ep, n] : bad) s.errors[ep] += n;
    });
  }
  for (auto& th : threads) th.join();
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

long total_requests(const Sample& s) {
  long n = 0;
  for (auto& [ep, v] : s.latency_ms) n += static_cast<long>(v.size());
  return n;
}

long total_errors(const Sample& s) {
  long n = 0;
  for (auto& [ep, e] : s.errors) n += e;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int clients = argc > 1 ? std::atoi(argv[1]) : 8;
  double seconds = argc > 2 ? std::atof(argv[2]) : 20;
  int jobs = argc > 3 ? std::atoi(argv[3]) : 40;
  int preload = argc > 4 ? std::atoi(argv[4]) : 20;
  int workers = argc > 5 ? std::atoi(argv[5]) : 2;
  fs::path exe = fs::path(PERFSAGE_BINARY_DIR) / "bin" / "perfsaged";
  fs::path fixture = fs::path(PERFSAGE_SOURCE_DIR) / "tests/fixtures/daemon/ascend_run";
  fs::path dir = fs::temp_directory_path() / ("perfsage-loadbench-" + std::to_string(::getpid()));
  fs::create_directories(dir / "inputs");
  for (int i = 0; i < preload + jobs; ++i) {
    fs::copy(fixture, dir / "inputs" / ("run" + std::to_string(i)), fs::copy_options::recursive);
  }
  Sample idle, concurrent, loaded;
  long jobs_during = 0;
  {
    perfsage::bench::Perfsaged d(
        exe, dir,
        "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  submit_roots: "
        "[inputs]\n  workers: " +
            std::to_string(workers) + "\n");
    httplib::Client c("127.0.0.1", d.port());
    c.set_read_timeout(60, 0);
    for (int i = 0; i < preload; ++i) submit(c, dir / "inputs" / ("run" + std::to_string(i)));
    while (perfsage::bench::queue_count(c, "done") < preload) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    idle = measure(d.port(), 1, std::min(seconds, 5.0), preload);
    concurrent = measure(d.port(), clients, std::min(seconds, 5.0), preload);
    for (int i = preload; i < preload + jobs; ++i) {
      submit(c, dir / "inputs" / ("run" + std::to_string(i)));
    }
    long done_before = perfsage::bench::queue_count(c, "done");
    loaded = measure(d.port(), clients, seconds, preload);
    jobs_during = perfsage::bench::queue_count(c, "done") - done_before;
  }
  fs::remove_all(dir);
  std::printf("%-28s %8s %8s %8s %8s %8s %8s %7s %6s %9s\n", "endpoint", "idle_p50", "conc_p50",
              "requests", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors", "p50/idle");
  for (auto& [ep, v] : loaded.latency_ms) {
    double base = pct(idle.latency_ms[ep], 0.5);
    std::printf("%-28s %8.2f %8.2f %8zu %8.2f %8.2f %8.2f %7.1f %6ld %8.1fx\n", ep.c_str(), base,
                pct(concurrent.latency_ms[ep], 0.5), v.size(), pct(v, 0.5), pct(v, 0.9),
                pct(v, 0.99), *std::max_element(v.begin(), v.end()), loaded.errors[ep],
                base > 0 ? pct(v, 0.5) / base : 0.0);
  }
  std::printf("idle, 1 client, %.1f s: %ld requests (%.0f/s), %ld errors\n", idle.seconds,
              total_requests(idle), static_cast<double>(total_requests(idle)) / idle.seconds,
              total_errors(idle));
  std::printf("%d clients, nothing queued, %.1f s: %ld requests (%.0f/s), %ld errors\n", clients,
              concurrent.seconds, total_requests(concurrent),
              static_cast<double>(total_requests(concurrent)) / concurrent.seconds,
              total_errors(concurrent));
  std::printf(
      "%d clients, %.1f s: %ld requests (%.0f/s), %ld errors; %ld jobs analysed "
      "meanwhile by %d workers\n",
      clients, loaded.seconds, total_requests(loaded),
      static_cast<double>(total_requests(loaded)) / loaded.seconds, total_errors(loaded),
      jobs_during, workers);
  return total_errors(idle) + total_errors(concurrent) + total_errors(loaded) == 0 ? 0 : 1;
}
