// What shared mode adds around one small job, against SQLite mode, in the same run. RUNS copies
// of examples/resnet50_rank0_ascend_pt (an Ascend PyTorch run, rank 0) are analysed into a
// local store first (the job itself, timed for scale: the same in both modes). Then, for each:
//
// * SQLite mode (the baseline): enqueue, claim and complete on the daemon's SQLite queue file;
// * shared mode: enqueue and claim on the PostgreSQL queue, publish_job_run (the run's extract,
//   store::extract_run, and its findings published with the job's completion in one
//   transaction), and the import of that publication into a second daemon's replica
//   (FleetCatalog::sync), which every other daemon does for every run.
//
// Then a new daemon's replica imports every publication at once, and the publication ceiling:
// PUBLISHERS threads, each with its own connection, publish prebuilt copies of one extract with
// their jobs' completions (store::pg::PgCatalog, no extract work on the client), serialised by
// the catalog's advisory lock.
//
//   shared_job_bench [--commit durable|async|fast] [RUNS=20] [PUBLICATIONS=400]
//                    [PUBLISHERS=1,4]
#include <algorithm>
#include <numeric>
#include <thread>

#include "app/analysis.h"
#include "app/fleet_catalog.h"
#include "app/knowledge.h"
#include "app/resources.h"
#include "app/shared_queue.h"
#include "bench/pg_bench_support.h"
#include "store/database.h"
#include "store/job_queue.h"
#include "store/pg/pg_catalog.h"
#include "store/pg/pg_job_queue.h"
#include "store/run_extract.h"

using namespace perfsage;
using namespace perfsage::bench;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* kNow = "2026-12-04T00:00:00Z";

int64_t lease_until() {
  return store::pg::system_clock_ms() + 3600 * 1000;
}

// Milliseconds of each repetition of one step.
struct Step {
  std::vector<double> ms;
  void add(Clock::time_point t0) { ms.push_back(seconds_since(t0) * 1e3); }
  double mean() const { return std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size(); }
  double median() const {
    auto v = ms;
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
};

void print(const char* what, const Step& s) {
  std::printf("  %-44s mean %8.2f ms   median %8.2f ms\n", what, s.mean(), s.median());
}

std::shared_ptr<const app::Knowledge> knowledge() {
  app::ResourceHints hints = app::ResourceHints::from_environment();
  hints.compiled_kb_dir = fs::path(PERFSAGE_SOURCE_DIR) / "knowledge_bases";
  auto k = app::load_knowledge({}, app::locate_resources(hints));
  if (!k) throw std::runtime_error("cannot load the knowledge: " + k.error().message);
  return *k;
}

struct Analysed {
  fs::path input;
  int64_t run_id = 0;
};

// RUNS copies of the example analysed into `store`, one after another.
std::vector<Analysed> analyse_copies(const fs::path& dir, const fs::path& store, int runs) {
  const fs::path example = fs::path(PERFSAGE_SOURCE_DIR) / "examples/resnet50_rank0_ascend_pt";
  auto kn = knowledge();
  store::Database db(store.string());
  std::vector<Analysed> out;
  Step analysis;
  const double cpu0 = own_cpu_seconds();
  for (int i = 0; i < runs; ++i) {
    const fs::path copy = dir / "runs" / (std::string("run") + std::to_string(i));
    fs::create_directories(copy.parent_path());
    fs::copy(example, copy, fs::copy_options::recursive);
    app::AnalysisRequest req;
    req.inputs = {copy};
    req.job = "resnet";
    auto t0 = Clock::now();
    auto res = app::analyze(db, req, *kn, {});
    analysis.add(t0);
    if (!res) throw std::runtime_error("analysis failed: " + res.error().message);
    out.push_back({copy, res->run_id});
  }
  std::printf(
      "analysis of one run (the job itself, both modes): mean %.0f ms, median %.0f ms, "
      "CPU %.0f ms per run\n",
      analysis.mean(), analysis.median(), (own_cpu_seconds() - cpu0) * 1e3 / runs);
  return out;
}

store::JobSpec spec_of(const Analysed& a) {
  return {"resnet", {a.input.string()}, "watch", "sig-" + a.input.filename().string(), false};
}

// Per job, both modes, alternating so that both see the same machine. Returns the database.
std::string per_job(test::PgServer& server, const fs::path& dir, const fs::path& store_path,
                    const std::vector<Analysed>& runs) {
  const std::string uri = server.fresh_database();
  store::Database qdb((dir / "local.db.queue").string());
  qdb.exec("PRAGMA foreign_keys=OFF");  // as perfsaged opens it: the runs are in another file
  store::SqliteJobQueue local(qdb);
  auto shared = app::open_shared_queue(uri, {}, "");
  app::FleetCatalog a(uri, "host-a", dir / "a.catalog");
  app::FleetCatalog b(uri, "host-b", dir / "b.catalog");
  Step s_enqueue, s_claim, s_complete, p_enqueue, p_claim, p_publish, p_import, p_extract;
  Step p_open_store, p_open_replica;
  size_t extract_bytes = 0;
  int64_t wal_publish = 0;
  for (const auto& run : runs) {
    auto t0 = Clock::now();
    auto job = local.enqueue(spec_of(run), store::Dedup::same_signature, kNow);
    s_enqueue.add(t0);
    t0 = Clock::now();
    auto claimed = local.claim("host-a", kNow, lease_until());
    s_claim.add(t0);
    t0 = Clock::now();
    if (!claimed || claimed->id != job.id || !local.complete(job.id, "host-a", run.run_id, kNow))
      throw std::runtime_error("SQLite queue: the job did not complete");
    s_complete.add(t0);

    t0 = Clock::now();
    auto pjob = shared->enqueue(spec_of(run), store::Dedup::same_signature, kNow);
    p_enqueue.add(t0);
    t0 = Clock::now();
    auto pclaimed = shared->claim("host-a", kNow, lease_until());
    p_claim.add(t0);
    const int64_t wal0 = wal_bytes(uri);
    t0 = Clock::now();
    auto id = a.publish_job_run(pjob.id, "host-a", store_path, run.run_id, kNow);
    p_publish.add(t0);
    wal_publish += wal_bytes(uri) - wal0;
    if (!pclaimed || pclaimed->id != pjob.id || !id)
      throw std::runtime_error("shared queue: the job was not published");
    t0 = Clock::now();
    const int imported = b.sync();
    p_import.add(t0);
    if (imported != 1) throw std::runtime_error("the replica imported " + std::to_string(imported));

    // Parts of the publication and of the import above, for the split: opening the store,
    // the extract alone (and its size), opening the replica.
    t0 = Clock::now();
    store::Database db(store_path.string());
    p_open_store.add(t0);
    t0 = Clock::now();
    extract_bytes += store::extract_run(db, run.run_id).size();
    p_extract.add(t0);
    t0 = Clock::now();
    app::open_catalog_replica(b.replica_path());
    p_open_replica.add(t0);
  }
  const double n = static_cast<double>(runs.size());
  std::printf("\nper job, %zu jobs (mean and median of each step):\nSQLite mode (baseline):\n",
              runs.size());
  print("enqueue", s_enqueue);
  print("claim", s_claim);
  print("complete", s_complete);
  const double sqlite = s_enqueue.mean() + s_claim.mean() + s_complete.mean();
  std::printf("  %-44s mean %8.2f ms\nshared mode:\n", "total", sqlite);
  print("enqueue", p_enqueue);
  print("claim", p_claim);
  print("publish with completion (extract + write)", p_publish);
  print("  of which opening the store", p_open_store);
  print("  of which extract_run", p_extract);
  print("import into another daemon's replica", p_import);
  print("  of which opening the replica", p_open_replica);
  const double shared_ms = p_enqueue.mean() + p_claim.mean() + p_publish.mean();
  std::printf("  %-44s mean %8.2f ms (%.2fx SQLite), +%.2f ms per job\n",
              "total on the analysing daemon", shared_ms, shared_ms / sqlite, shared_ms - sqlite);
  std::printf("  %-44s +%.2f ms per job per other daemon\n", "imports elsewhere", p_import.mean());
  std::printf(
      "extract: %.1f kB compressed per run; WAL per publication %.1f kB; replica %.1f "
      "kB per run\n",
      static_cast<double>(extract_bytes) / n / 1024.0,
      static_cast<double>(wal_publish) / n / 1024.0,
      static_cast<double>(fs::file_size(b.replica_path())) / n / 1024.0);

  // A daemon joining late imports everything at once.
  app::FleetCatalog c(uri, "host-c", dir / "c.catalog");
  auto t0 = Clock::now();
  const int all = c.sync();
  std::printf("a new replica imports all %d publications in %.0f ms (%.2f ms per run)\n", all,
              seconds_since(t0) * 1e3, seconds_since(t0) * 1e3 / all);
  return uri;
}

// One publication as PgCatalog takes it, copied from what host-a published first.
store::pg::CatalogRun published_run(const std::string& uri) {
  store::pg::PgCatalog catalog(uri);
  auto first = catalog.since(0, 1).at(0);
  store::pg::CatalogRun run;
  run.origin = first.origin;
  run.extract = first.extract;
  store::pg::Connection c(uri);
  auto r = c.exec("SELECT job, status, created, store_schema FROM catalog_runs WHERE id = $1",
                  {store::pg::param(first.id)});
  run.job = r.text(0, 0);
  run.status = r.text(0, 1);
  run.created = r.text(0, 2);
  run.store_schema = static_cast<int>(r.int64(0, 3));
  run.inputs = {"/runs/run0"};
  auto f = c.exec(
      "SELECT ord, id, pack, rule, severity, gain_us FROM catalog_findings WHERE run_id = $1 "
      "ORDER BY ord",
      {store::pg::param(first.id)});
  for (int i = 0; i < f.rows(); ++i) {
    store::pg::CatalogFinding x{f.int64(i, 0), f.text(i, 1), f.text(i, 2),
                                f.text(i, 3),  f.text(i, 4), std::nullopt};
    if (!f.is_null(i, 5)) x.gain_us = std::stod(f.text(i, 5));
    run.findings.push_back(std::move(x));
  }
  return run;
}

// `publishers` threads publish `total` runs with their jobs' completions.
void publication_ceiling(test::PgServer& server, const store::pg::CatalogRun& run, int publishers,
                         int total) {
  const std::string uri = server.fresh_database();
  std::vector<std::unique_ptr<store::pg::PgCatalog>> catalogs;
  std::vector<std::vector<int64_t>> jobs(static_cast<size_t>(publishers));
  {
    store::pg::PgJobQueue q(uri);
    for (int i = 0; i < total; ++i)
      q.enqueue({"resnet", {"/runs/p" + std::to_string(i)}, "api", "s", false},
                store::Dedup::pending, kNow);
    for (int i = 0; i < total; ++i) {
      const int k = i % publishers;
      auto j = q.claim(std::string("pub-") + std::to_string(k), kNow, lease_until());
      jobs[static_cast<size_t>(k)].push_back(j->id);
    }
  }
  for (int k = 0; k < publishers; ++k)
    catalogs.push_back(std::make_unique<store::pg::PgCatalog>(uri));
  auto cost = run_concurrently(server, uri, publishers, [&](int k) {
    const std::string owner = std::string("pub-") + std::to_string(k);
    store::pg::CatalogRun mine = run;
    for (int64_t job : jobs[static_cast<size_t>(k)]) {
      mine.origin = {owner, job};
      if (!catalogs[static_cast<size_t>(k)]->publish_and_complete(job, owner, mine, kNow))
        std::cerr << owner << " lost job " << job << "\n";
    }
  });
  std::printf(
      "  %2d publisher(s): %6.1f publications/s | client %5.2f ms, server %5.2f ms CPU "
      "per publication | WAL %.1f kB per publication\n",
      publishers, total / cost.wall_s, cost.client_cpu_s * 1e3 / total,
      cost.server_cpu_s * 1e3 / total, static_cast<double>(cost.wal) / total / 1024.0);
}

// Everything, so that the server is stopped however it ends.
int run(const BenchArgs& args) {
  const int runs = args.number(0, 20);
  const int publications = args.number(1, 400);
  const std::vector<int> publishers = args.numbers(2, "1,4");
  auto server = start_postgres(args.commit);
  ScratchFolder scratch("perfsage-job-bench");
  const fs::path& dir = scratch.path();
  const fs::path store_path = dir / "local.db";
  std::printf("%d runs, PostgreSQL commits: %s, %u hardware threads\n", runs, args.commit.c_str(),
              std::thread::hardware_concurrency());

  auto analysed = analyse_copies(dir, store_path, runs);
  const std::string uri = per_job(*server, dir, store_path, analysed);
  std::printf("\npublication ceiling (%d publications of one extract with their completions):\n",
              publications);
  auto run = published_run(uri);
  std::printf("  extract %.1f kB, %zu findings\n", run.extract.size() / 1024.0,
              run.findings.size());
  for (int p : publishers) publication_ceiling(*server, run, p, publications);
  std::printf("peak RSS %.1f MiB\n", peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(argc, argv, run);
}
