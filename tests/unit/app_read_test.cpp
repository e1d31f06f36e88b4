// app/'s read side on an in-memory store with runs written through store::RunWriter: the one
// gain tolerance, runs and jobs, a job's history and its trend, the queue view, the reuse rule
// and the findings part of a run comparison.
#include <catch2/catch.hpp>

#include "app/gain_tolerance.h"
#include "app/job_history.h"
#include "app/queue_view.h"
#include "app/run_comparison.h"
#include "app/run_listing.h"
#include "app/stored_run.h"
#include "perfsage/v1/finding.pb.h"
#include "store/database.h"
#include "store/job_queue.h"
#include "store/results.h"
#include "store/run_registry.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
namespace v1 = perfsage::v1;

namespace {

store::StoredFinding finding(const std::string& id, double share, int severity = 3) {
  v1::Finding f;
  f.set_title("title of " + id);
  return {id, "pack", "rule_" + id, severity, share * 1000, share, f.SerializeAsString()};
}

// A run of `job` created at `created`, analysed, with `findings`.
int64_t add_run(store::Database& db, const std::string& job, const std::string& created,
                const std::vector<store::StoredFinding>& findings) {
  store::RunWriter w(db, {job, {"/in/" + job + created}, "fp-" + job + created, created});
  int64_t id = w.run_id();
  w.commit();
  store::set_run_status(db, id, store::kRunAnalyzed);
  store::save_results(db, id, {}, findings);
  return id;
}

}  // namespace

TEST_CASE("one tolerance: a gain share moves by more than 10 % of the earlier one") {
  CHECK(app::kGainShareTolerance == 0.1);
  CHECK(app::share_move(0.2, 0.2) == app::ShareMove::steady);
  CHECK(app::share_move(0.2, 0.219) == app::ShareMove::steady);
  CHECK(app::share_move(0.2, 0.22) == app::ShareMove::steady);  // exactly 10 %: not moved
  CHECK(app::share_move(0.2, 0.221) == app::ShareMove::rising);
  CHECK(app::share_move(0.2, 0.181) == app::ShareMove::steady);
  CHECK(app::share_move(0.2, 0.179) == app::ShareMove::falling);
  CHECK(app::share_move(0, 0) == app::ShareMove::steady);
  CHECK(app::share_move(0, 0.01) == app::ShareMove::rising);

  CHECK(app::gain_trend({0.2, 0.3}, false, false) == "resolved");
  CHECK(app::gain_trend({0.2}, true, true) == "new");
  CHECK(app::gain_trend({0.2}, true, false) == "new");
  CHECK(app::gain_trend({0.2, 0.5, 0.25}, true, false) == "rising");
  CHECK(app::gain_trend({0.2, 0.1, 0.15}, true, false) == "falling");
  CHECK(app::gain_trend({0.2, 0.5, 0.21}, true, false) == "steady");  // first against latest

  // A run comparison says "changed" for exactly the moves a history calls rising or falling.
  for (double b : {0.2, 0.219, 0.221, 0.181, 0.179}) {
    std::vector<store::FindingRow> a(1);
    a[0].id = std::string(1, 'f');  // not = "f": GCC 12 -Wrestrict false positive
    a[0].gain_share = 0.2;
    a[0].severity = 3;
    std::vector<store::FindingRow> bb = a;
    bb[0].gain_share = b;
    auto c = app::compare_findings(a, bb);
    REQUIRE(c.size() == 1);
    bool moved = app::share_move(0.2, b) != app::ShareMove::steady;
    CHECK(c[0].change() == (moved ? "changed" : "unchanged"));
  }
}

TEST_CASE("runs are listed newest first, filtered and paged; jobs with their counts") {
  store::Database db(":memory:");
  int64_t a1 = add_run(db, "a", "2026-01-01T10:00:00Z", {finding("x", 0.3, 4)});
  int64_t b1 = add_run(db, "b", "2026-01-02T10:00:00Z", {});
  int64_t a2 = add_run(db, "a", "2026-01-03T10:00:00Z", {finding("x", 0.2, 4), finding("y", 0.1)});

  auto all = app::list_runs(db, {});
  REQUIRE(all);
  REQUIRE(all->runs_size() == 3);
  CHECK(all->runs(0).id() == a2);
  CHECK(all->runs(2).id() == a1);
  CHECK(all->next_page_token().empty());

  app::RunQuery q;
  q.job = "a";
  auto of_a = app::list_runs(db, q);
  REQUIRE(of_a);
  CHECK(of_a->runs_size() == 2);

  q = {};
  q.since = "2026-01-02";
  auto since = app::list_runs(db, q);
  REQUIRE(since);
  REQUIRE(since->runs_size() == 2);
  CHECK(since->runs(1).id() == b1);

  q = {};
  q.limit = 2;
  auto page = app::list_runs(db, q);
  REQUIRE(page);
  REQUIRE(page->runs_size() == 2);
  CHECK(page->next_page_token() == std::to_string(b1));
  q.before_id = b1;
  auto next = app::list_runs(db, q);
  REQUIRE(next);
  REQUIRE(next->runs_size() == 1);
  CHECK(next->runs(0).id() == a1);

  q = {};
  q.until = "yesterday";
  auto bad = app::list_runs(db, q);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == app::ErrorKind::usage);
  CHECK(app::valid_time_prefix("2026-01-31T12:00:00Z"));
  CHECK(app::valid_time_prefix(""));
  CHECK_FALSE(app::valid_time_prefix("26"));

  CHECK(app::run_exists(db, a1));
  CHECK_FALSE(app::run_exists(db, 99));

  auto jobs = app::list_jobs(db);
  REQUIRE(jobs.jobs_size() == 2);
  CHECK(jobs.jobs(0).name() == "a");  // the job of the newest run first
  CHECK(jobs.jobs(0).runs() == 2);
  CHECK(jobs.jobs(0).last_run() == "2026-01-03T10:00:00Z");

  // Which queue job produced each run comes from the queue (the daemon's is a file of its own).
  store::Database& queue_db = db;
  store::SqliteJobQueue queue(queue_db);
  auto e = queue.enqueue({"a", {"/in/a"}, "api", "sig", false}, store::Dedup::pending, "t0");
  REQUIRE(queue.claim("me", "t1", INT64_MAX));
  REQUIRE(queue.complete(e.id, "me", a2, "t2"));
  app::add_queue_jobs(queue, *all->mutable_runs());
  CHECK(all->runs(0).queue_job() == e.id);
  CHECK(all->runs(1).queue_job() == 0);
}

TEST_CASE("a job's history: first and last seen, gains per run, trend by the one tolerance") {
  store::Database db(":memory:");
  int64_t r1 = add_run(
      db, "j", "2026-01-01T00:00:00Z",
      {finding("up", 0.1), finding("down", 0.4), finding("flat", 0.2), finding("gone", 0.1)});
  add_run(db, "other", "2026-01-01T12:00:00Z", {finding("up", 0.9)});
  int64_t r2 = add_run(db, "j", "2026-01-02T00:00:00Z",
                       {finding("up", 0.3), finding("down", 0.3), finding("flat", 0.21)});
  int64_t r3 = add_run(
      db, "j", "2026-01-03T00:00:00Z",
      {finding("up", 0.2), finding("down", 0.2), finding("flat", 0.215), finding("fresh", 0.05)});

  CHECK_FALSE(app::job_history(db, "nobody", 50));
  auto h = app::job_history(db, "j", 50);
  REQUIRE(h);
  CHECK(h->job() == "j");
  REQUIRE(h->runs_size() == 3);
  CHECK(h->runs(0).id() == r1);  // oldest first
  CHECK(h->runs(2).id() == r3);
  std::map<std::string, v1::FindingHistory> by_id;
  for (const auto& f : h->findings()) by_id[f.id()] = f;
  REQUIRE(by_id.size() == 5);
  CHECK(by_id["up"].trend() == "rising");
  CHECK(by_id["up"].runs_seen() == 3);
  CHECK(by_id["up"].gains_size() == 3);
  CHECK(by_id["up"].first_seen_run() == r1);
  CHECK(by_id["up"].last_seen_run() == r3);
  CHECK(by_id["up"].title() == "title of up");
  CHECK(by_id["down"].trend() == "falling");
  CHECK(by_id["flat"].trend() == "steady");
  CHECK(by_id["gone"].trend() == "resolved");
  CHECK_FALSE(by_id["gone"].open());
  CHECK(by_id["fresh"].trend() == "new");
  CHECK(by_id["fresh"].open());

  // The newest two runs only: "gone" is out of sight, "up" now starts at r2.
  auto last2 = app::job_history(db, "j", 2);
  REQUIRE(last2);
  REQUIRE(last2->runs_size() == 2);
  CHECK(last2->runs(0).id() == r2);
  for (const auto& f : last2->findings()) {
    CHECK(f.id() != "gone");
    if (f.id() == "up") CHECK(f.trend() == "falling");  // 0.3 -> 0.2
  }
}

TEST_CASE("the queue view: counts, a page of jobs, progress of running ones, bad states") {
  store::Database queue_db(":memory:");
  store::SqliteJobQueue queue(queue_db);
  auto j1 = queue.enqueue({"a", {"/in/1"}, "watch", "s1", false}, store::Dedup::pending, "t0");
  auto j2 = queue.enqueue({"b", {"/in/2"}, "api", "s2", true}, store::Dedup::pending, "t1");
  auto claimed = queue.claim("me", "t2", INT64_MAX);
  REQUIRE(claimed);
  CHECK(claimed->id == j1.id);

  auto counts = app::queue_counts(queue);
  REQUIRE(counts.size() == 5);
  CHECK(counts[0] == std::pair<std::string, int64_t>{"queued", 1});
  CHECK(counts[1] == std::pair<std::string, int64_t>{"running", 1});
  CHECK(counts[4] == std::pair<std::string, int64_t>{"quarantined", 0});

  std::vector<app::JobProgress> running{{j1.id, "analyzers", 0.5, 4242}};
  auto view = app::queue_view(queue, {}, running);
  REQUIRE(view);
  CHECK(view->counts().at("queued") == 1);
  REQUIRE(view->jobs_size() == 2);
  CHECK(view->jobs(0).id() == j2.id);  // newest first
  CHECK(view->jobs(0).progress() == -1);
  CHECK(view->jobs(1).state() == "running");
  CHECK(view->jobs(1).stage() == "analyzers");
  CHECK(view->jobs(1).progress() == 0.5);
  CHECK(view->jobs(1).pid() == 4242);

  app::QueueQuery q;
  q.state = "queued";
  auto queued = app::queue_view(queue, q, running);
  REQUIRE(queued);
  REQUIRE(queued->jobs_size() == 1);
  CHECK(queued->jobs(0).job() == "b");

  q = {};
  q.limit = 1;
  auto page = app::queue_view(queue, q, running);
  REQUIRE(page);
  CHECK(page->next_page_token() == std::to_string(j2.id));

  q = {};
  q.state = "sleeping";
  CHECK_FALSE(app::valid_queue_state("sleeping"));
  CHECK(app::valid_queue_state(""));
  auto bad = app::queue_view(queue, q, running);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == app::ErrorKind::usage);

  auto one = app::queue_job(queue, j2.id, running);
  REQUIRE(one);
  CHECK(one->source() == "api");
  CHECK(one->inputs(0) == "/in/2");
  CHECK_FALSE(app::queue_job(queue, 99, running));
}

TEST_CASE("a stored run stands for its inputs only when its analysis finished") {
  store::RunRecord run;
  run.status = store::kRunAnalyzed;
  CHECK(app::reusable(run));
  run.status = "ingested";
  CHECK_FALSE(app::reusable(run));

  test::TempDir dir;
  store::Database db(":memory:");
  auto input = dir.path() / "nothing_stored.json";
  std::ofstream(input) << "{}";
  auto none = app::reusable_run_of(db, input);
  REQUIRE(none);
  CHECK_FALSE(*none);
}

TEST_CASE("run comparison: findings appear, disappear, change by severity or gain share") {
  store::Database db(":memory:");
  int64_t a = add_run(db, "j", "2026-01-01T00:00:00Z",
                      {finding("same", 0.2), finding("moved", 0.2), finding("worse", 0.1, 2),
                       finding("fixed", 0.3)});
  int64_t b = add_run(db, "j", "2026-01-02T00:00:00Z",
                      {finding("new", 0.4), finding("moved", 0.3), finding("same", 0.21),
                       finding("worse", 0.1, 4)});
  auto changes =
      app::compare_findings(store::run_finding_rows(db, a), store::run_finding_rows(db, b));
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& c : changes) got.emplace_back(c.id(), c.change());
  std::vector<std::pair<std::string, std::string>> want{{"new", "appeared"},
                                                        {"fixed", "disappeared"},
                                                        {"moved", "changed"},
                                                        {"worse", "changed"},
                                                        {"same", "unchanged"}};
  CHECK(got == want);
  CHECK(changes[2].detail() == "gain share 20.0 % -> 30.0 %");
  CHECK(changes[3].detail() == "severity low -> high");
  CHECK(changes[1].gain_share_a() == 0.3);
  CHECK(app::finding_title(store::run_finding_rows(db, a).front()) == "title of same");

  auto missing = app::compare_runs(db, a, 99);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == app::ErrorKind::usage);
}
