// Shared mode end to end (docs/scale-out.md): three perfsaged, each with its own store and
// port, share one job queue and catalog in a real PostgreSQL (tests/pg_server.h) and watch one
// folder where 20 runs are dropped: real samples, a 16-rank cluster run and generated copies.
// Every run is analysed exactly once, with the findings and gains of a one-machine analysis, by
// whichever daemon claims it, and every daemon serves every run (the catalog); a daemon killed
// while it holds a job gets it back when it starts again (as the same owner), so nothing is lost;
// one stopped (SIGSTOP) past its lease loses its job to another and drops its late result;
// PostgreSQL stopped and started again makes daemons not ready meanwhile, not stop; every local
// store and replica passes integrity_check.
#include <set>

#include "cluster_support.h"
#include "daemon_support.h"
#include "pg_server.h"
#include "store/database.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

std::string shared_config(const fs::path& dir, const fs::path& watch, const std::string& uri) {
  return "daemon:\n  store: " + (dir / "perf.db").string() +
         "\n  listen: 127.0.0.1:0\n  workers: 1\n  debounce: 200ms\n  quiet: 1s\n"
         "  shutdown_grace: 5s\n  lease: 3s\n  postgres: \"" +
         uri + "\"\n  watch:\n    - path: " + watch.string() +
         "\n      runs: \"*\"\n      job: \"{1}\"\n";
}

void copy_run(const fs::path& to) {
  fs::copy(source_dir() / "tests/fixtures/daemon/ascend_run", to, fs::copy_options::recursive);
}

std::map<std::string, int64_t> counts(const DaemonProcess& d) {
  auto q = d.get_json<v1::QueueState>("/api/v1/queue?limit=1");
  return {q.counts().begin(), q.counts().end()};
}

// The queue's jobs, all of them.
std::vector<v1::QueueJob> all_jobs(const DaemonProcess& d) {
  auto q = d.get_json<v1::QueueState>("/api/v1/queue?limit=500");
  return {q.jobs().begin(), q.jobs().end()};
}

// The input paths of the analysed runs a daemon serves: the whole fleet's.
std::vector<std::string> analysed_runs(const DaemonProcess& d) {
  auto runs = d.get_json<v1::RunList>("/api/v1/runs?limit=500");
  std::vector<std::string> out;
  for (const auto& r : runs.runs()) {
    if (r.status() != "analyzed") continue;
    for (const auto& in : r.inputs()) out.push_back(in);
  }
  return out;
}

// `perfsage analyze PATH --format json` in a store of its own: the one-machine analysis.
v1::AnalysisReport analyse_alone(const fs::path& input, const fs::path& dir) {
  static int n = 0;
  const fs::path out = dir / ("alone-" + std::to_string(++n) + ".json");
  const std::string cmd = perfsage_binary().string() + " analyze '" + input.string() +
                          "' --format json --store '" +
                          (dir / ("alone-" + std::to_string(n) + ".db")).string() + "' > '" +
                          out.string() + "' 2>/dev/null";
  int rc = std::system(cmd.c_str());
  INFO(cmd << " -> " << rc);
  v1::AnalysisReport report;
  REQUIRE(
      google::protobuf::util::JsonStringToMessage(perfsage::store::read_file(out), &report).ok());
  return report;
}

// finding id -> estimated gain, as a report states them.
std::map<std::string, double> gains_of(const v1::AnalysisReport& report) {
  std::map<std::string, double> out;
  for (const auto& f : report.recommendations()) out[f.id()] = f.estimated_gain_us();
  return out;
}

// Twenty runs under `staging`: every Kineto sample, the 8-rank msprof cluster folder, a
// graph-only Ascend folder, a 16-rank run made of one trace with its rank rewritten, and copies
// of the daemon fixture (which plans actions).
std::vector<fs::path> twenty_runs(const fs::path& staging) {
  fs::create_directories(staging);
  std::vector<fs::path> made;
  int k = 0;
  for (const auto& e : fs::directory_iterator(samples_dir() / "kineto")) {
    fs::path run = staging / ("kineto" + std::to_string(k++));
    fs::create_directories(run);
    fs::copy(e.path(), run / e.path().filename());
    made.push_back(run);
  }
  fs::copy(samples_dir() / "ascend" / "mstt", staging / "mstt", fs::copy_options::recursive);
  made.push_back(staging / "mstt");
  fs::copy(samples_dir() / "ascend" / "oam-tools", staging / "oam", fs::copy_options::recursive);
  made.push_back(staging / "oam");
  {
    const std::string trace = perfsage::store::read_file(
        samples_dir() / "kineto" /
        "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz");
    for (int r = 0; r < 16; ++r) {
      std::string own = trace;
      auto at = own.find("\"rank\": 0");
      REQUIRE(at != std::string::npos);
      own.replace(at, 9, "\"rank\": " + std::to_string(r));
      fs::path rank_dir = staging / "cluster16" / ("rank_" + std::to_string(r));
      fs::create_directories(rank_dir);
      std::ofstream(rank_dir / "trace.json") << own;
    }
    made.push_back(staging / "cluster16");
  }
  for (int i = 0; made.size() < 20; ++i) {
    fs::path run = staging / ("fixture" + std::to_string(i));
    copy_run(run);
    made.push_back(run);
  }
  REQUIRE(made.size() == 20);
  return made;
}

}  // namespace

TEST_CASE("shared mode: three daemons on one queue analyse 20 runs exactly once, each as alone") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  TempDir dir;
  const fs::path runs = dir.path() / "runs";
  fs::create_directories(runs);
  std::vector<std::unique_ptr<DaemonProcess>> daemons;
  for (int i = 0; i < 3; ++i) {
    fs::path home = dir.path() / ("d" + std::to_string(i));
    fs::create_directories(home);
    daemons.push_back(std::make_unique<DaemonProcess>(home, shared_config(home, runs, uri)));
  }
  // Daemon 0 holds every job it claims before its packs, until it is killed.
  ::setenv("PERFSAGE_TEST_PAUSE_AT", "packs", 1);
  bool first = daemons[0]->start();
  ::unsetenv("PERFSAGE_TEST_PAUSE_AT");
  REQUIRE(first);
  // Daemon 1 holds the first job it claims before its packs until the flag file is removed.
  const fs::path flag = dir.path() / "pause-flag";
  ::setenv("PERFSAGE_TEST_PAUSE_AT", "packs", 1);
  ::setenv("PERFSAGE_TEST_PAUSE_FLAG", flag.c_str(), 1);
  bool second = daemons[1]->start();
  ::unsetenv("PERFSAGE_TEST_PAUSE_AT");
  ::unsetenv("PERFSAGE_TEST_PAUSE_FLAG");
  REQUIRE(second);
  REQUIRE(daemons[2]->start());
  INFO(daemons[0]->log());
  INFO(daemons[1]->log());

  const int kRuns = 20;
  // The 16-rank cluster run fans out into 16 rank jobs beside its own (its reduce).
  const int kJobs = kRuns + 16;
  // Dropped in whole (a rename), so that no run is seen half copied.
  for (const auto& m : twenty_runs(dir.path() / "staging")) fs::rename(m, runs / m.filename());
  // Every daemon sees every run; the queue makes them one job each.
  REQUIRE(eventually(120, [&] {
    int runs = 0;
    for (const auto& j : all_jobs(*daemons[2])) runs += j.kind() != "rank";
    return runs == kRuns;
  }));
  // Daemon 0 claims one and holds it; it is killed while holding it.
  REQUIRE(eventually(120, [&] { return count_in(daemons[0]->log(), "paused at packs") > 0; }));
  daemons[0]->kill(SIGKILL);
  // Daemon 1 is stopped (SIGSTOP) while it holds its job, past the job's lease.
  REQUIRE(eventually(120, [&] { return count_in(daemons[1]->log(), "paused at packs") > 0; }));
  daemons[1]->kill(SIGSTOP);

  // PostgreSQL restarts under the two survivors.
  // PostgreSQL goes away under the two survivors: they say so (not ready, the gauge at 0) and
  // keep serving what their replicas hold; it comes back and they go on.
  REQUIRE(server->stop());
  REQUIRE(eventually(60, [&] {
    auto r = daemons[2]->get("/readyz");
    return r.status == 503 && r.body.find("\"database\":\"unreachable\"") != std::string::npos;
  }));
  CHECK(daemons[2]->get("/metrics").body.find("perfsage_database_up 0") != std::string::npos);
  CHECK(daemons[2]->get("/api/v1/runs").status == 200);
  REQUIRE(server->start_again());

  // The others finish what is left; the killed daemon, started again as the same owner, puts
  // the job it held back in the queue, and someone analyses it.
  REQUIRE(daemons[0]->start());
  REQUIRE(eventually(240, [&] {
    try {
      return counts(*daemons[2])["done"] == kJobs;
    } catch (...) {
      return false;
    }
  }));
  // Every job is done, daemon 1's by another daemon after its lease ran out. Now its worker
  // finishes the job too, and daemon 1 resumes: its late result must not replace the new
  // owner's, and it goes on working.
  fs::remove(flag);
  REQUIRE(eventually(60, [&] { return fs::exists(flag.string() + ".done"); }));
  daemons[1]->kill(SIGCONT);
  REQUIRE(eventually(60, [&] { return count_in(daemons[1]->log(), "dropped") > 0; }));
  REQUIRE(eventually(60, [&] { return daemons[1]->get("/readyz").status == 200; }));
  auto c = counts(*daemons[0]);
  CHECK(c["done"] == kJobs);
  CHECK(c["failed"] == 0);
  CHECK(c["quarantined"] == 0);
  CHECK(c["queued"] == 0);
  // The cluster run was fanned out: 16 rank jobs, one per rank, of its job, now their reduce.
  {
    std::map<int64_t, v1::QueueJob> jobs;
    for (const auto& j : all_jobs(*daemons[2])) jobs[j.id()] = j;
    std::set<int64_t> ranks, parents;
    for (const auto& [id, j] : jobs) {
      if (j.kind() != "rank") continue;
      ranks.insert(j.rank());
      parents.insert(j.parent());
    }
    CHECK(ranks.size() == 16);
    REQUIRE(parents.size() == 1);
    CHECK(jobs[*parents.begin()].kind() == "reduce");
    CHECK(jobs[*parents.begin()].inputs(0).find("cluster16") != std::string::npos);
  }

  // Exactly once: the catalog holds every run once, and every daemon serves all of them —
  // whichever daemon analysed it — with the same findings.
  std::map<int64_t, int64_t> findings_of;  // catalog run id -> findings, as daemon 0 says
  for (auto& d : daemons) {
    INFO("daemon " << d->port());
    REQUIRE(eventually(60, [&] { return analysed_runs(*d).size() == static_cast<size_t>(kRuns); }));
    std::multiset<std::string> analysed;
    for (const auto& p : analysed_runs(*d)) analysed.insert(p);
    for (const auto& e : fs::directory_iterator(runs))
      CHECK(analysed.count(e.path().string()) == 1);
    auto list = d->get_json<v1::RunList>("/api/v1/runs?limit=500");
    for (const auto& r : list.runs()) {
      // The queue job of each run is the job that made it (the catalog's run ids).
      auto job = d->job(r.queue_job());
      CHECK(job.run_id() == r.id());
      CHECK(job.inputs(0) == r.inputs(0));
      auto detail = d->get_json<v1::RunDetail>("/api/v1/runs/" + std::to_string(r.id()));
      CHECK(detail.report().recommendations_size() == r.findings());
      CHECK(r.findings() > 0);
      if (!findings_of.count(r.id())) findings_of[r.id()] = r.findings();
      CHECK(findings_of[r.id()] == r.findings());
      CHECK(d->get("/api/v1/runs/" + std::to_string(r.id()) + "/report.html").status == 200);
    }
    // Compare two runs, wherever they were analysed.
    auto cmp = d->get("/api/v1/compare?a=" + std::to_string(list.runs(0).id()) +
                      "&b=" + std::to_string(list.runs(1).id()));
    CHECK(cmp.status == 200);
    // Every daemon's packs, as each published them.
    auto fleet = d->get_json<v1::FleetStatus>("/api/v1/fleet");
    CHECK(fleet.shared());
    CHECK(fleet.daemons_size() == 3);
    CHECK(d->get("/readyz").body.find("\"database\":\"ok\"") != std::string::npos);
    auto metrics = d->get("/metrics").body;
    CHECK(metrics.find("perfsage_database_up 1") != std::string::npos);
    CHECK(metrics.find("perfsage_catalog_imported_total") != std::string::npos);
  }
  CHECK(findings_of.size() == static_cast<size_t>(kRuns));

  // Actions: planned on the daemon that analysed the run (its facts are there); another daemon
  // says which one to ask; every daemon then lists the plan under the API's ids.
  int64_t run = 0;
  const auto all_runs = daemons[0]->get_json<v1::RunList>("/api/v1/runs?limit=500");
  for (const auto& r : all_runs.runs())
    if (r.inputs(0).find("fixture") != std::string::npos) run = r.id();
  REQUIRE(run != 0);
  const std::string actions = "/api/v1/runs/" + std::to_string(run) + "/actions";
  int owner = -1;
  for (int i = 0; i < 3; ++i) {
    auto planned = daemons[static_cast<size_t>(i)]->post(actions + "/plan", "{}");
    INFO(planned.body);
    if (planned.status == 409) {
      CHECK(planned.body.find("analysed by daemon") != std::string::npos);
      continue;
    }
    REQUIRE(planned.status == 200);
    auto p = parse_reply<v1::PlanActionsResponse>(planned);
    CHECK(p.run_id() == run);
    REQUIRE(p.plans_size() > 0);
    CHECK(p.plans(0).run_id() == run);
    owner = i;
  }
  REQUIRE(owner >= 0);
  for (auto& d : daemons) {
    REQUIRE(eventually(30, [&] { return d->get_json<v1::ActionList>(actions).plans_size() > 0; }));
  }
  // Each run, from every daemon, has the findings and gains of a one-machine analysis; the
  // 16-rank cluster run among them.
  bool cluster_seen = false;
  for (const auto& r : all_runs.runs()) {
    INFO(r.inputs(0));
    auto alone = gains_of(analyse_alone(r.inputs(0), dir.path()));
    CHECK_FALSE(alone.empty());
    for (auto& d : daemons) {
      auto detail = d->get_json<v1::RunDetail>("/api/v1/runs/" + std::to_string(r.id()));
      auto served = gains_of(detail.report());
      CHECK(served.size() == alone.size());
      for (const auto& [id, gain] : alone) {
        INFO(id);
        REQUIRE(served.count(id));
        CHECK(served[id] == Approx(gain).epsilon(1e-9));
      }
      if (r.inputs(0).find("cluster16") != std::string::npos) {
        cluster_seen = true;
        CHECK(detail.report().run().ranks() == 16);
      }
    }
  }
  CHECK(cluster_seen);
  for (auto& d : daemons) CHECK(d->kill(SIGTERM) == 0);
  // Every daemon's own store is sound, and so is its replica of the catalog.
  for (int i = 0; i < 3; ++i) {
    fs::path home = dir.path() / ("d" + std::to_string(i));
    // The ranks were analysed beside the store, not in it, and nothing of them is left there.
    CHECK((!fs::exists(home / "perf.db.ranks") || fs::is_empty(home / "perf.db.ranks")));
    for (const auto& f : {home / "perf.db", home / "perf.db.catalog"}) {
      INFO(f);
      perfsage::store::Database db(f.string());
      CHECK(db.integrity_problems().empty());
    }
  }
}

namespace {

// One shared-mode daemon watching `runs` (config `extra` appended), and a cluster of `ranks`
// copies of one Kineto sample (rank rewritten) dropped into it whole as runs/<name>.
struct OneSharedDaemon {
  TempDir dir;
  fs::path runs = dir.path() / "runs", home = dir.path() / "d";
  std::unique_ptr<DaemonProcess> daemon;

  OneSharedDaemon(const std::string& uri, const std::string& extra) {
    fs::create_directories(runs);
    fs::create_directories(home);
    daemon = std::make_unique<DaemonProcess>(home, shared_config(home, runs, uri) + extra);
  }
  // The cluster's ranks' traces, before it is dropped in.
  fs::path stage_cluster(const std::string& name, int ranks) {
    const fs::path staging = dir.path() / "staging" / name;
    for (int r = 0; r < ranks; ++r)
      add_rank(staging,
               "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz", r);
    return staging;
  }
  void drop(const fs::path& staged) { fs::rename(staged, runs / staged.filename()); }
  // A cluster of `ranks` whose rank 1 trace was cut off while it was written (its head names
  // the rank, its end is gone), dropped in once the daemon has started.
  void drop_cluster_cut_at_rank_1(const std::string& name, int ranks) {
    REQUIRE(daemon->start());
    const fs::path staging = stage_cluster(name, ranks);
    const fs::path cut = staging / "rank_1" / "trace.json";
    fs::resize_file(cut, fs::file_size(cut) / 2);
    drop(staging);
  }
};

}  // namespace

TEST_CASE("shared mode with fan_out: false analyses a cluster folder as one job") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  OneSharedDaemon one(server->fresh_database(), "  fan_out: false\n");
  DaemonProcess& daemon = *one.daemon;
  REQUIRE(daemon.start());
  INFO(daemon.log());
  one.drop(one.stage_cluster("cluster2", 2));
  REQUIRE(eventually(120, [&] { return counts(daemon)["done"] == 1; }));
  auto jobs = all_jobs(daemon);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].kind() == "run");
  // Listed once the daemon's replica has imported it.
  REQUIRE(eventually(30, [&] { return analysed_runs(daemon).size() == 1; }));
  auto detail = daemon.get_json<v1::RunDetail>("/api/v1/runs/" + std::to_string(jobs[0].run_id()));
  CHECK(detail.report().run().ranks() == 2);
  CHECK(daemon.kill(SIGTERM) == 0);
}

TEST_CASE("shared mode: a rank job that fails makes the cluster's reduce fail naming the rank") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  OneSharedDaemon one(server->fresh_database(), "");
  DaemonProcess& daemon = *one.daemon;
  one.drop_cluster_cut_at_rank_1("cluster3", 3);
  INFO(daemon.log());
  REQUIRE(eventually(120, [&] {
    auto c = counts(daemon);
    return c["failed"] == 2 && c["queued"] + c["running"] == 0;
  }));
  std::map<std::string, std::vector<v1::QueueJob>> by_kind;
  for (const auto& j : all_jobs(daemon)) by_kind[j.kind()].push_back(j);
  REQUIRE(by_kind["rank"].size() == 3);
  REQUIRE(by_kind["reduce"].size() == 1);
  const auto& reduce = by_kind["reduce"][0];
  CHECK(reduce.state() == "failed");
  CHECK_THAT(reduce.reason(), Catch::Contains("rank 1 could not be analysed; no partial cluster "
                                              "run is made"));
  CHECK_THAT(reduce.reason(), Catch::Contains("rank 1 (job "));
  for (const auto& j : by_kind["rank"]) CHECK(j.state() == (j.rank() == 1 ? "failed" : "done"));
  // No cluster run is listed; the ranks' results that served nothing stay unlisted too.
  CHECK(analysed_runs(daemon).empty());
  CHECK(daemon.kill(SIGTERM) == 0);
}

TEST_CASE(
    "shared mode, lenient: a rank cut off is analysed as far as it goes, and so is its cluster") {
  PERFSAGE_REQUIRE_SAMPLES();
  PERFSAGE_REQUIRE_POSTGRES(server);
  OneSharedDaemon one(server->fresh_database(), "  lenient: true\n");
  DaemonProcess& daemon = *one.daemon;
  one.drop_cluster_cut_at_rank_1("cluster3", 3);
  INFO(daemon.log());
  // The job's leniency goes to its rank jobs: every rank is analysed, the cluster run made.
  REQUIRE(eventually(120, [&] {
    auto c = counts(daemon);
    return c["done"] + c["failed"] == 4 && c["queued"] + c["running"] == 0;
  }));
  for (const auto& j : all_jobs(daemon)) {
    INFO(j.kind() << " " << j.rank() << ": " << j.reason());
    CHECK(j.state() == "done");
  }
  REQUIRE(eventually(30, [&] { return analysed_runs(daemon).size() == 1; }));
  CHECK(daemon.kill(SIGTERM) == 0);
}
