// perfsaged's memory over many jobs: submits N copies of a small Ascend run (distinct paths,
// so each is ingested and analysed) and prints the daemon's and the forkserver's RSS and the
// store's size after every hundred finished jobs. The daemon must stay flat: jobs run in forked
// workers, results go to the store. The baseline, measured first in the same run: the same
// input analysed by `perfsage analyze --store` one process after another (wall time per run,
// peak RSS), i.e. what a cron job calling the CLI would cost. The jobs' throughput (jobs per
// minute from the first submission to the last job's end) is the daemon's for small runs;
// INPUT (a folder) replaces the fixture, e.g. the bundled example. PERFSAGE_BENCH_BIN=DIR runs
// the perfsage and perfsaged found there instead of this build's (old and new binaries
// alternately).
//
//   daemon_memory_bench [JOBS=1000] [WORKERS=2] [CLI_RUNS=20] [INPUT]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "bench/daemon_process.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct CliBaseline {
  double seconds_per_run = 0;
  long peak_rss_kb = 0;
};

// Runs `perfsage analyze` on `runs` copies, one after another, into one store.
CliBaseline cli_baseline(const fs::path& exe, const fs::path& dir, int runs) {
  CliBaseline b;
  auto start = Clock::now();
  for (int i = 0; i < runs; ++i) {
    std::vector<std::string> argv = {exe.string(),
                                     "analyze",
                                     (dir / "cli_inputs" / ("run" + std::to_string(i))).string(),
                                     "--store",
                                     (dir / "cli.db").string(),
                                     "-q",
                                     "-o",
                                     "/dev/null"};
    pid_t pid = perfsage::test::spawn_logged(argv, dir / "cli.log");
    int st = 0;
    rusage ru{};
    ::wait4(pid, &st, 0, &ru);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      throw std::runtime_error("perfsage analyze failed on run " + std::to_string(i));
    }
    b.peak_rss_kb = std::max(b.peak_rss_kb, ru.ru_maxrss);
  }
  b.seconds_per_run = std::chrono::duration<double>(Clock::now() - start).count() / runs;
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = argc > 1 ? std::atoi(argv[1]) : 1000;
  int workers = argc > 2 ? std::atoi(argv[2]) : 2;
  int cli_runs = argc > 3 ? std::atoi(argv[3]) : 20;
  const char* bin_env = std::getenv("PERFSAGE_BENCH_BIN");
  fs::path bin = bin_env && *bin_env ? fs::path(bin_env) : fs::path(PERFSAGE_BINARY_DIR) / "bin";
  fs::path fixture = argc > 4 ? fs::path(argv[4])
                              : fs::path(PERFSAGE_SOURCE_DIR) / "tests/fixtures/daemon/ascend_run";
  fs::path dir = fs::temp_directory_path() / ("perfsage-membench-" + std::to_string(::getpid()));
  for (const char* sub : {"inputs", "cli_inputs"}) fs::create_directories(dir / sub);
  for (int i = 0; i < jobs; ++i) {
    fs::copy(fixture, dir / "inputs" / ("run" + std::to_string(i)), fs::copy_options::recursive);
  }
  for (int i = 0; i < cli_runs; ++i) {
    fs::copy(fixture, dir / "cli_inputs" / ("run" + std::to_string(i)),
             fs::copy_options::recursive);
  }
  CliBaseline base = cli_baseline(bin / "perfsage", dir, cli_runs);
  std::printf(
      "baseline: perfsage analyze --store, %d runs one after another: %.3f s per run, "
      "peak RSS %ld kB\n",
      cli_runs, base.seconds_per_run, base.peak_rss_kb);
  double total_s = 0;
  long first_rss = 0, last_rss = 0, failed = 0;
  {
    auto launch = Clock::now();
    perfsage::bench::Perfsaged d(
        bin / "perfsaged", dir,
        "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  submit_roots: "
        "[inputs]\n  workers: " +
            std::to_string(workers) + "\n");
    auto start = Clock::now();  // the jobs' time, from a daemon that is listening
    std::printf("perfsaged listening after %.2f s\n",
                std::chrono::duration<double>(start - launch).count());
    httplib::Client c("127.0.0.1", d.port());
    c.set_read_timeout(60, 0);
    for (int i = 0; i < jobs; ++i) {
      auto r =
          c.Post("/api/v1/submit",
                 "{\"path\":\"" + (dir / "inputs" / ("run" + std::to_string(i))).string() + "\"}",
                 "application/json");
      if (!r || r->status != 201) {
        std::cerr << "submit " << i << " failed\n";
        return 1;
      }
    }
    std::printf("%6s %8s %12s %12s %12s %12s\n", "jobs", "time_s", "daemon_rss", "daemon_hwm",
                "forkserver", "store");
    long next = 0;
    for (;;) {
      long done = perfsage::bench::queue_count(c, "done");
      failed = perfsage::bench::queue_count(c, "failed") +
               perfsage::bench::queue_count(c, "quarantined");
      while (done + failed >= next) {
        double t = std::chrono::duration<double>(Clock::now() - start).count();
        long rss = d.status_kb("VmRSS");
        if (next == 100) first_rss = rss;
        last_rss = rss;
        std::error_code ec;
        auto store_kb = static_cast<long>(fs::file_size(dir / "perf.db", ec) / 1024);
        std::printf("%6ld %8.1f %9ld kB %9ld kB %9ld kB %9ld kB\n", next, t, rss,
                    d.status_kb("VmHWM"), d.status_kb("VmRSS", true), ec ? 0 : store_kb);
        std::fflush(stdout);
        next += 100;
      }
      if (done + failed >= jobs) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    total_s = std::chrono::duration<double>(Clock::now() - start).count();
  }
  double per_job = total_s / jobs;
  std::printf(
      "perfsaged, %d workers: %d jobs in %.1f s, %.3f s per job (%.0f jobs/min) = %.2fx the "
      "CLI's time per run; daemon RSS after the last hundred / after the first: %.3fx; %ld "
      "failed\n",
      workers, jobs, total_s, per_job, 60.0 / per_job, per_job / base.seconds_per_run,
      first_rss ? static_cast<double>(last_rss) / static_cast<double>(first_rss) : 0.0, failed);
  if (failed) {
    std::printf("failed jobs: see %s\n", dir.c_str());
    return 1;
  }
  fs::remove_all(dir);
  return 0;
}
