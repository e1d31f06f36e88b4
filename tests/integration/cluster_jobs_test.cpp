// Cluster runs fanned out through the shared queue (app/cluster_jobs.h, on a real PostgreSQL):
// a folder of ranks is planned as rank jobs, fanned out, each rank analysed on its own and kept
// in the catalog, and the reduce job assembles the cluster run with the findings of a
// one-machine `perfsage analyze` of the folder. A rank job that failed makes the reduce name
// the rank and why; inputs that cannot be assembled from ranks are analysed as one job.
#include "app/cluster_jobs.h"

#include "app/actions_service.h"
#include "app/fleet_catalog.h"
#include "app/shared_queue.h"
#include "app_knowledge.h"
#include "cli_support.h"
#include "cluster_support.h"
#include "pg_server.h"
#include "store/pg/pg_catalog.h"
#include "store/run_registry.h"

using namespace perfsage;
using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

const std::string kNow = "2026-12-04T00:00:00Z";

int64_t far_lease() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() +
         600000;
}

// The cluster job enqueued, claimed by `owner`, planned and fanned out: its id.
int64_t fanned_out(app::JobQueue& queue, const fs::path& root, const std::string& owner) {
  auto job = queue.enqueue({"cluster", {root.string()}, "watch", "sig", false},
                           app::Dedup::same_signature, kNow);
  auto claimed = queue.claim(owner, kNow, far_lease());
  REQUIRE(claimed);
  REQUIRE(claimed->id == job.id);
  auto plan = app::plan_rank_jobs({root});
  REQUIRE(plan);
  REQUIRE(queue.fan_out(job.id, owner, *plan, kNow));
  return job.id;
}

// Claims the next rank job as daemon `owner` and does what its worker and the daemon do: the
// rank analysed in the spool beside `store_path` (never in the store), its extract kept for
// the reduce, the folder removed. The job.
app::QueuedJob analyse_next_rank(app::JobQueue& queue, app::FleetCatalog& catalog,
                                 const fs::path& store_path, const std::string& owner) {
  auto job = queue.claim(owner, kNow, far_lease());
  REQUIRE(job);
  REQUIRE(job->kind == app::JobKind::rank);
  app::AnalysisRequest req;
  for (const auto& in : job->spec.inputs) req.inputs.emplace_back(in);
  req.job = job->spec.job;
  auto folder =
      app::analyze_rank(req, app::rank_spool(store_path), job->id, *shipped_knowledge(), {});
  INFO((folder ? std::string() : folder.error().message));
  REQUIRE(folder);
  CHECK(folder->parent_path() == app::rank_spool(store_path));
  CHECK_FALSE(fs::exists(*folder / "rank.db"));
  CHECK(catalog.keep_rank_extract(job->id, owner, *folder / "extract", kNow));
  app::remove_rank_folders(app::rank_spool(store_path), job->id);
  CHECK_FALSE(fs::exists(*folder));
  return *job;
}

// The data-parallel cluster (tests/integration/cluster_support.h) under `dir`: its folder.
fs::path ddp_cluster(const TempDir& dir) {
  const fs::path root = dir.path() / "cluster";
  for (const auto& [rank, sample] : ddp_rank_samples()) add_rank(root, sample, rank);
  return root;
}

}  // namespace

TEST_CASE("a folder of Kineto ranks is planned as one rank job per rank; other inputs are not",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  const fs::path root = dir.path() / "cluster";
  for (const auto& [rank, sample] : four_rank_samples()) add_rank(root, sample, rank);
  auto plan = app::plan_rank_jobs({root});
  REQUIRE(plan);
  std::vector<int64_t> ranks;
  for (const auto& r : *plan) {
    ranks.push_back(r.rank);
    CHECK(r.inputs == std::vector<std::string>{
                          (root / ("rank_" + std::to_string(r.rank)) / "trace.json").string()});
  }
  CHECK(ranks == std::vector<int64_t>{0, 1, 2, 34});
  // One rank; a rank beside Ascend output or a file nothing reads; a missing input (left to the
  // analysis to report): one job each.
  CHECK_FALSE(app::plan_rank_jobs({root / "rank_1"}));
  fs::create_directories(dir.path() / "mixed");
  fs::copy(root / "rank_0", dir.path() / "mixed" / "rank_0");
  fs::copy(root / "rank_1", dir.path() / "mixed" / "rank_1");
  CHECK(app::plan_rank_jobs({dir.path() / "mixed"}));
  std::ofstream(dir.path() / "mixed" / "notes.txt") << "what was run\n";
  CHECK_FALSE(app::plan_rank_jobs({dir.path() / "mixed"}));
  fs::remove(dir.path() / "mixed" / "notes.txt");
  fs::copy(source_dir() / "examples" / "resnet50_rank0_ascend_pt", dir.path() / "mixed" / "npu",
           fs::copy_options::recursive);
  CHECK_FALSE(app::plan_rank_jobs({dir.path() / "mixed"}));
  CHECK_FALSE(app::plan_rank_jobs({dir.path() / "absent"}));
  // Two files of one rank are one rank job.
  for (const char* sub : {"a", "b", "c"}) fs::create_directories(dir.path() / "twice" / sub);
  fs::copy(root / "rank_0" / "trace.json", dir.path() / "twice" / "a" / "trace.json");
  fs::copy(root / "rank_0" / "trace.json", dir.path() / "twice" / "b" / "trace.json");
  fs::copy(root / "rank_1" / "trace.json", dir.path() / "twice" / "c" / "trace.json");
  auto twice = app::plan_rank_jobs({dir.path() / "twice"});
  REQUIRE(twice);
  REQUIRE(twice->size() == 2);
  CHECK(twice->at(0).rank == 0);
  CHECK(twice->at(0).inputs.size() == 2);
  CHECK(twice->at(1).inputs.size() == 1);
}

namespace {

// The cluster at `root` (in `dir`) fanned out through the shared queue, its ranks analysed on
// two daemons and reduced on one: the one-machine analysis' findings.
void check_fanned_out_equals_whole(perfsage::test::PgServer& server, const TempDir& dir,
                                   const fs::path& root, size_t ranks) {
  auto one = run_command("analyze", {root.string(), "--store", (dir.path() / "whole.db").string(),
                                     "--format", "json"});
  REQUIRE(one.code == 0);
  auto whole = parse_report(one.out);

  const std::string uri = server.fresh_database();
  auto queue = app::open_shared_queue(uri, {}, "");
  app::FleetCatalog a(uri, "host-a", dir.path() / "a.catalog");
  app::FleetCatalog b(uri, "host-b", dir.path() / "b.catalog");
  const int64_t reduce_id = fanned_out(*queue, root, "host-a");
  // The ranks go to two daemons, each into its own store.
  const fs::path store_a = dir.path() / "a.db", store_b = dir.path() / "b.db";
  REQUIRE(queue->rank_jobs(reduce_id).size() == ranks);
  for (size_t i = 0; i < ranks; ++i) {
    const bool on_a = i != 1;
    auto job = analyse_next_rank(*queue, on_a ? a : b, on_a ? store_a : store_b,
                                 on_a ? "host-a" : "host-b");
    CHECK(job.parent == reduce_id);
  }
  // The ranks' runs are not in the daemons' stores.
  CHECK_FALSE(fs::exists(store_a));
  // No rank's run is listed among the fleet's runs.
  CHECK(a.sync() == 0);
  auto reduce = queue->claim("host-b", kNow, far_lease());
  REQUIRE(reduce);
  REQUIRE(reduce->id == reduce_id);
  REQUIRE(reduce->kind == app::JobKind::reduce);
  store::Database db(store_b.string());
  const auto runs_before = store::list_runs(db).size();
  auto run = app::reduce_cluster_job(db, {uri, reduce_id, "cluster", {root}, [] { return kNow; }},
                                     *shipped_knowledge(), {});
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run);
  // Reduced again (the daemon died before it published), the run replaces its first assembly.
  run = app::reduce_cluster_job(db, {uri, reduce_id, "cluster", {root}, [] { return kNow; }},
                                *shipped_knowledge(), {});
  REQUIRE(run);
  CHECK(store::list_runs(db).size() == runs_before + 1);
  auto reduced = app::load_report(db, *run);
  REQUIRE(reduced);
  CHECK(reduced->run().ranks() == whole.run().ranks());
  CHECK(reduced->run().steps() == whole.run().steps());
  CHECK(reduced->run().inputs(0) == root.string());
  REQUIRE(whole.recommendations_size() > 0);
  check_same_findings(whole, *reduced);
  // Published as the cluster's run, it is the one run every replica lists; the ranks' results
  // have served and are gone.
  auto id = b.publish_job_run(reduce_id, "host-b", store_b, *run, kNow);
  REQUIRE(id);
  CHECK(a.sync() == 1);
  CHECK(queue->get(reduce_id)->run_id == *id);
  {
    auto replica = app::open_catalog_replica(a.replica_path());
    auto served = app::load_report(*replica, *id);
    REQUIRE(served);
    CHECK(served->run().kernels() == whole.run().kernels());
    CHECK(served->run().ops() == whole.run().ops());
    CHECK(served->recommendations_size() == whole.recommendations_size());
  }
  store::pg::PgCatalog catalog(uri);
  for (const auto& r : catalog.rank_results(reduce_id)) {
    CHECK(r.state == "done");
    CHECK_FALSE(r.kept);
    CHECK_FALSE(catalog.rank_extract(r.job_id));
  }
}

}  // namespace

TEST_CASE("a Kineto cluster fanned out through the shared queue is reduced to the one-machine run",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  TempDir dir;
  check_fanned_out_equals_whole(*server, dir, ddp_cluster(dir), 3);
}

TEST_CASE("an Ascend cluster fanned out by rank folder is reduced to the one-machine run",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  TempDir dir;
  const auto cluster = ascend_cluster(dir.path() / "cluster", ascend_rank_samples());
  // Each rank's inputs are its torch_npu folder, profiler_info and all.
  auto plan = app::plan_rank_jobs({cluster.root});
  REQUIRE(plan);
  REQUIRE(plan->size() == cluster.ranks.size());
  for (const auto& r : *plan)
    CHECK(r.inputs ==
          std::vector<std::string>{cluster.ranks.at(static_cast<int>(r.rank)).string()});
  // The output folder of one rank's torch_npu folder names a folder above it: one job.
  CHECK_FALSE(app::plan_rank_jobs({cluster.ranks.begin()->second / "ASCEND_PROFILER_OUTPUT",
                                   std::prev(cluster.ranks.end())->second}));
  check_fanned_out_equals_whole(*server, dir, cluster.root, cluster.ranks.size());
}

TEST_CASE("a rank job that failed makes the reduce name the rank and why, storing nothing",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  TempDir dir;
  const fs::path root = ddp_cluster(dir);
  const std::string uri = server->fresh_database();
  auto queue = app::open_shared_queue(uri, {}, "");
  app::FleetCatalog a(uri, "host-a", dir.path() / "a.catalog");
  const int64_t reduce_id = fanned_out(*queue, root, "host-a");
  const fs::path store_a = dir.path() / "a.db";
  for (int i = 0; i < 3; ++i) {
    if (i == 1) {
      auto job = queue->claim("host-a", kNow, far_lease());
      REQUIRE(job);
      CHECK(job->rank == 1);
      queue->fail(job->id, "host-a", app::FailureKind::error, "input error: trace.json truncated",
                  kNow);
      continue;
    }
    analyse_next_rank(*queue, a, store_a, "host-a");
  }
  store::Database db(store_a.string());
  const auto before = store::list_runs(db).size();
  auto reduce = queue->claim("host-a", kNow, far_lease());
  REQUIRE(reduce);
  CHECK(reduce->id == reduce_id);
  auto run = app::reduce_cluster_job(db, {uri, reduce_id, "cluster", {root}, [] { return kNow; }},
                                     *shipped_knowledge(), {});
  REQUIRE_FALSE(run);
  const std::string& why = run.error().message;
  CHECK(why.find("rank 1 could not be analysed; no partial cluster run is made") !=
        std::string::npos);
  CHECK(why.find("input error: trace.json truncated") != std::string::npos);
  CHECK(store::list_runs(db).size() == before);
}

TEST_CASE("actions applied on a reduced cluster run are judged on the job's next one", "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  TempDir dir;
  const std::string uri = server->fresh_database();
  auto queue = app::open_shared_queue(uri, {}, "");
  app::FleetCatalog catalog(uri, "host-a", dir.path() / "a.catalog");
  const fs::path store_path = dir.path() / "a.db";
  // Two runs of one job: the same four Ascend programs as rank folders, written twice.
  auto reduced = [&](const fs::path& root) {
    ascend_cluster(root, ascend_rank_samples());
    const int64_t reduce_id = fanned_out(*queue, root, "host-a");
    for (size_t i = 0; i < ascend_rank_samples().size(); ++i)
      analyse_next_rank(*queue, catalog, store_path, "host-a");
    REQUIRE(queue->claim("host-a", kNow, far_lease())->id == reduce_id);
    store::Database db(store_path.string());
    // The real clock: the next run is the one made after the action was applied.
    auto run =
        app::reduce_cluster_job(db, {uri, reduce_id, "cluster", {root}, app::system_clock_iso8601},
                                *shipped_knowledge(), {});
    INFO((run ? std::string() : run.error().message));
    REQUIRE(run);
    return *run;
  };
  const int64_t first = reduced(dir.path() / "run1");
  int64_t applied = 0;
  {
    store::Database db(store_path.string());
    auto plans = app::plan_run_actions(db, first, {}, app::default_actor());
    REQUIRE(plans);
    REQUIRE_FALSE(plans->plans.empty());
    auto apply = app::apply_planned_action(db, plans->plans.front().id(),
                                           {dir.path() / "actions", true}, app::default_actor());
    INFO((apply ? std::string() : apply.error().message));
    REQUIRE(apply);
    applied = apply->id();
  }
  const int64_t second = reduced(dir.path() / "run2");
  store::Database db(store_path.string());
  auto st = db.prepare(
      "SELECT count(*), min(before_run), min(after_run) FROM action_verdicts WHERE apply_id = ?1");
  st.bind(1, applied);
  REQUIRE(st.step());
  CHECK(st.int64(0) > 0);
  CHECK(st.int64(1) == first);
  CHECK(st.int64(2) == second);
}
