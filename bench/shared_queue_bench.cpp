// Claims per second of the shared job queue (store/pg/pg_job_queue.h) against the daemon's
// SQLite queue. The baseline, measured first in the same run: one claimer on a SQLite queue
// file (store::SqliteJobQueue, as perfsaged keeps `<store>.queue`), claiming and completing
// JOBS enqueued jobs. Then 1, 4 and 16 claimers on PostgreSQL, each a thread with its own
// connection (its own PgJobQueue, as each daemon has), claiming and completing JOBS enqueued
// jobs of a fresh database until the queue is empty. Prints, per configuration, the enqueue
// rate of one connection, claims (claim + complete) per second, the ratio to the baseline, CPU
// of this process and of the server per job, and WAL bytes per job.
//
//   shared_queue_bench [--commit durable|async|fast] [JOBS=4000] [CLAIMERS=1,4,16]
#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "bench/pg_bench_support.h"
#include "store/database.h"
#include "store/job_queue.h"
#include "store/pg/pg_job_queue.h"

using namespace perfsage;
using namespace perfsage::bench;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* kNow = "2026-12-04T00:00:00Z";

store::JobSpec spec(int i) {
  return {"bench",
          {std::string("/runs/run") + std::to_string(i)},
          "api",
          std::string("sig") + std::to_string(i),
          false};
}

int64_t lease_until() {
  return store::pg::system_clock_ms() + 3600 * 1000;
}

struct Measure {
  std::string what;
  int claimers = 0;
  long jobs = 0;
  double enqueue_s = 0, claim_s = 0, client_cpu_s = 0, server_cpu_s = 0;
  int64_t wal = 0;
};

// Claims and completes until the queue says it has nothing; returns how many.
long drain(store::JobQueue& q, const std::string& owner) {
  long n = 0;
  while (auto job = q.claim(owner, kNow, lease_until())) {
    if (!q.complete(job->id, owner, job->id, kNow))
      throw std::runtime_error(owner + " lost job " + std::to_string(job->id));
    ++n;
  }
  return n;
}

Measure sqlite_baseline(const fs::path& dir, int jobs) {
  Measure m{"SQLite queue (baseline)", 1, 0};
  store::Database db((dir / "bench.db.queue").string());
  db.exec("PRAGMA foreign_keys=OFF");  // as perfsaged opens it: the runs are in another file
  store::SqliteJobQueue q(db);
  auto t0 = Clock::now();
  for (int i = 0; i < jobs; ++i) q.enqueue(spec(i), store::Dedup::pending, kNow);
  m.enqueue_s = seconds_since(t0);
  const double cpu0 = own_cpu_seconds();
  t0 = Clock::now();
  m.jobs = drain(q, "bench-0");
  m.claim_s = seconds_since(t0);
  m.client_cpu_s = own_cpu_seconds() - cpu0;
  return m;
}

Measure postgres_claims(test::PgServer& server, int claimers, int jobs) {
  Measure m{"PostgreSQL queue", claimers, 0};
  const std::string uri = server.fresh_database();
  {
    store::pg::PgJobQueue q(uri);
    auto t0 = Clock::now();
    for (int i = 0; i < jobs; ++i) q.enqueue(spec(i), store::Dedup::pending, kNow);
    m.enqueue_s = seconds_since(t0);
  }
  // Connected (and migrated) before the clock starts, as running daemons are.
  std::vector<std::unique_ptr<store::pg::PgJobQueue>> queues;
  for (int k = 0; k < claimers; ++k) queues.push_back(std::make_unique<store::pg::PgJobQueue>(uri));
  std::atomic<long> claimed{0};
  auto cost = run_concurrently(server, uri, claimers, [&](int k) {
    claimed += drain(*queues[static_cast<size_t>(k)], std::string("bench-") + std::to_string(k));
  });
  m.claim_s = cost.wall_s;
  m.client_cpu_s = cost.client_cpu_s;
  m.server_cpu_s = cost.server_cpu_s;
  m.wal = cost.wal;
  m.jobs = claimed;
  auto counts = queues[0]->counts();
  if (m.jobs != jobs || counts[store::JobState::done] != jobs)
    throw std::runtime_error(std::string("claimed ") + std::to_string(m.jobs) + " of " +
                             std::to_string(jobs) + " jobs, " +
                             std::to_string(counts[store::JobState::done]) + " done");
  return m;
}

void print(const Measure& m, double baseline_rate) {
  const double rate = static_cast<double>(m.jobs) / m.claim_s;
  const double per_job_us = 1e6 / static_cast<double>(m.jobs);
  std::printf("%-26s %3d | %7.0f enq/s | %8.0f claims/s | %5.2fx | client %6.0f us/job |",
              m.what.c_str(), m.claimers, static_cast<double>(m.jobs) / m.enqueue_s, rate,
              rate / baseline_rate, m.client_cpu_s * per_job_us);
  if (m.server_cpu_s > 0)
    std::printf(" server %6.0f us/job | WAL %5.0f B/job", m.server_cpu_s * per_job_us,
                static_cast<double>(m.wal) / static_cast<double>(m.jobs));
  std::printf("\n");
}

// Everything, so that the server is stopped however it ends.
int run(const BenchArgs& args) {
  const int jobs = args.number(0, 4000);
  const std::vector<int> claimers = args.numbers(1, "1,4,16");
  auto server = start_postgres(args.commit);
  ScratchFolder dir("perfsage-queue-bench");

  std::printf("%d jobs, PostgreSQL commits: %s, %u hardware threads\n", jobs, args.commit.c_str(),
              std::thread::hardware_concurrency());
  Measure base = sqlite_baseline(dir.path(), jobs);
  const double base_rate = static_cast<double>(base.jobs) / base.claim_s;
  print(base, base_rate);
  for (int k : claimers) print(postgres_claims(*server, k, jobs), base_rate);
  std::printf("peak RSS %.1f MiB\n", peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(argc, argv, run);
}
