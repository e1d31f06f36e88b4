// Whole daemons: RUNS copies of examples/resnet50_rank0_ascend_pt submitted to perfsaged
// processes (release build), jobs per minute from the first submission to the last job done.
// The baseline, measured first in the same run: one perfsaged in SQLite mode. Then 1, 2 and 3
// perfsaged in shared mode on one PostgreSQL (a fresh database each time), each with its own
// store, port and WORKERS workers, the submissions spread over them in turn; also the time
// until every daemon's API lists every run (its replica caught up), how many jobs each daemon
// did, the server's CPU, and the CPU daemons and server use idle afterwards.
//
//   shared_daemons_bench [--commit durable|async|fast] [RUNS=30] [DAEMONS=1,2,3] [WORKERS=1]
#include <map>

#include "bench/daemon_process.h"
#include "bench/pg_bench_support.h"

using namespace perfsage::bench;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const fs::path kBin = fs::path(PERFSAGE_BINARY_DIR) / "bin";
constexpr int kIdleSeconds = 5;

long runs_listed(httplib::Client& c) {
  auto r = c.Get("/api/v1/runs?limit=500");
  if (!r || r->status != 200) return -1;
  long n = 0;
  for (size_t at = r->body.find("\"analyzed\""); at != std::string::npos;
       at = r->body.find("\"analyzed\"", at + 1))
    ++n;
  return n;
}

struct Outcome {
  double done_s = 0, listed_s = 0, server_cpu_s = 0;
  std::vector<long> per_daemon;
  long failed = 0, peak_daemon_kb = 0, peak_forkserver_kb = 0;
  double idle_cpu_share = 0, idle_server_share = 0;  // of one core, per daemon / the server
};

// Runs the inputs on `daemons` perfsaged (shared mode when `uri` is not empty).
Outcome run_fleet(const fs::path& dir, const std::vector<fs::path>& inputs, int daemons,
                  int workers, const std::string& uri, const perfsage::test::PgServer* server) {
  auto started =
      start_fleet(kBin / "perfsaged", dir, daemons, workers, inputs.front().parent_path(), uri);
  auto& fleet = started.daemons;
  auto& clients = started.clients;
  Outcome out;
  const double server0 = server ? server_cpu_seconds(*server) : 0;
  auto t0 = Clock::now();
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto& c = *clients[i % clients.size()];
    auto r =
        c.Post("/api/v1/submit", "{\"path\":\"" + inputs[i].string() + "\"}", "application/json");
    if (!r || r->status != 201) {
      throw std::runtime_error("submit " + std::to_string(i) + " failed; see " + dir.string());
    }
  }
  // The queue is shared: any daemon's counts are the fleet's.
  const long n = static_cast<long>(inputs.size());
  const auto deadline = t0 + std::chrono::seconds(60 + 10 * n);
  auto wait_for = [&](const char* what, const std::function<bool()>& done) {
    while (!done()) {
      if (Clock::now() > deadline)
        throw std::runtime_error(std::string("timed out waiting for ") + what + "; see " +
                                 dir.string());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  };
  wait_for("the jobs", [&] {
    const long done = queue_count(*clients[0], "done");
    out.failed = queue_count(*clients[0], "failed") + queue_count(*clients[0], "quarantined");
    return done + out.failed >= n;
  });
  out.done_s = seconds_since(t0);
  for (auto& c : clients)
    wait_for("the runs lists", [&] { return runs_listed(*c) >= n - out.failed; });
  out.listed_s = seconds_since(t0);
  out.server_cpu_s = server ? server_cpu_seconds(*server) - server0 : 0;
  // Idle: what a daemon costs with nothing to do (its loop, its replica's polling).
  double idle0 = 0, idle1 = 0;
  for (auto& d : fleet) idle0 += process_cpu_seconds(d->pid());
  const double idle_server0 = server ? server_cpu_seconds(*server) : 0;
  std::this_thread::sleep_for(std::chrono::seconds(kIdleSeconds));
  for (auto& d : fleet) idle1 += process_cpu_seconds(d->pid());
  out.idle_cpu_share = (idle1 - idle0) / kIdleSeconds / static_cast<double>(daemons);
  out.idle_server_share = server ? (server_cpu_seconds(*server) - idle_server0) / kIdleSeconds : 0;
  for (size_t i = 0; i < fleet.size(); ++i) {
    out.per_daemon.push_back(
        static_cast<long>(metric(*clients[i], "perfsage_jobs_finished_total{outcome=\"done\"}")));
    out.peak_daemon_kb = std::max(out.peak_daemon_kb, fleet[i]->status_kb("VmHWM"));
    out.peak_forkserver_kb = std::max(out.peak_forkserver_kb, fleet[i]->status_kb("VmHWM", true));
  }
  return out;
}

void print(const std::string& what, const Outcome& o, size_t runs, double baseline_per_min) {
  const double per_min = static_cast<double>(runs) / o.done_s * 60.0;
  std::printf("%-22s | %6.1f s | %6.1f jobs/min | %5.2fx | all listed everywhere after %6.1f s |",
              what.c_str(), o.done_s, per_min,
              baseline_per_min > 0 ? per_min / baseline_per_min : 1.0, o.listed_s);
  std::printf(" jobs per daemon");
  for (long d : o.per_daemon) std::printf(" %ld", d);
  std::printf(" | server CPU %.1f s | peak RSS daemon %.1f MiB, forkserver %.1f MiB | failed %ld\n",
              o.server_cpu_s, static_cast<double>(o.peak_daemon_kb) / 1024.0,
              static_cast<double>(o.peak_forkserver_kb) / 1024.0, o.failed);
  std::printf("%-22s | idle afterwards: %.1f %% of a core per daemon, server %.1f %%\n", "",
              o.idle_cpu_share * 100, o.idle_server_share * 100);
}

// Everything, so that the server and the daemons are stopped however it ends.
int run(const BenchArgs& args) {
  const int runs = args.number(0, 30);
  const std::vector<int> daemons = args.numbers(1, "1,2,3");
  const int workers = args.number(2, 1);
  auto server = start_postgres(args.commit);
  ScratchFolder scratch("perfsage-daemons-bench");
  const fs::path& dir = scratch.path();

  const fs::path example = fs::path(PERFSAGE_SOURCE_DIR) / "examples/resnet50_rank0_ascend_pt";
  std::vector<fs::path> inputs;
  for (int i = 0; i < runs; ++i) {
    inputs.push_back(dir / "inputs" / (std::string("run") + std::to_string(i)));
    fs::create_directories(inputs.back().parent_path());
    fs::copy(example, inputs.back(), fs::copy_options::recursive);
  }
  std::printf("%d runs, %d worker(s) per daemon, PostgreSQL commits: %s, %u hardware threads\n",
              runs, workers, args.commit.c_str(), std::thread::hardware_concurrency());
  auto base = run_fleet(dir / "sqlite", inputs, 1, workers, "", nullptr);
  const double base_per_min = static_cast<double>(runs) / base.done_s * 60.0;
  print("1 daemon, SQLite mode", base, inputs.size(), base_per_min);
  for (int n : daemons) {
    auto o = run_fleet(dir / (std::string("shared") + std::to_string(n)), inputs, n, workers,
                       server->fresh_database(), server.get());
    print(std::to_string(n) + " daemon(s), shared", o, inputs.size(), base_per_min);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(argc, argv, run);
}
