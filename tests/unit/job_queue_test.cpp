// The JobQueue contract (store/job_queue.h), run against both implementations: the SQLite
// queue of one perfsaged and the PostgreSQL queue several share (store/pg/pg_job_queue.h, on a
// real server started by tests/pg_server.h). Each case opens its queue through a Queues type;
// "reopen" is what a restarted daemon sees.
#include "store/job_queue.h"

#include <atomic>
#include <set>
#include <thread>

#include "pg_server.h"
#include "store/database.h"
#include "store/pg/pg_job_queue.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {
JobSpec spec(const std::string& path, const std::string& sig = "s1") {
  return {"job-a", {path}, "watch", sig, false};
}
const std::string kNow = "2026-01-01T00:00:00Z";

// One perfsaged's queue: a SQLite file with the store's schema (as the daemon's <store>.queue,
// whose runs table stays empty, so the run ids its jobs name are not foreign keys there).
struct SqliteQueues {
  perfsage::test::TempDir dir;
  std::unique_ptr<Database> db;
  bool available() { return true; }
  std::unique_ptr<JobQueue> open(QueuePolicy policy = {}) {
    db.reset();
    db = std::make_unique<Database>((dir.path() / "s.queue").string());
    db->exec("PRAGMA foreign_keys=OFF");
    return std::make_unique<SqliteJobQueue>(*db, policy);
  }
};

// The shared queue: a fresh database on the test server per case. Leases are offsets from a
// fixed local clock (0), applied to the server's clock.
struct PgQueues {
  std::string uri;
  bool available() {
    std::string why;
    auto* server = perfsage::test::PgServer::shared(&why);
    if (!server) {
      if (perfsage::test::samples_required()) FAIL("no PostgreSQL for the test: " << why);
      WARN("skipped: no PostgreSQL here: " << why);
      perfsage::test::note_skipped();
      return false;
    }
    uri = server->fresh_database();
    return true;
  }
  std::unique_ptr<JobQueue> open(QueuePolicy policy = {}) {
    return std::make_unique<pg::PgJobQueue>(uri, policy, [] { return int64_t{0}; });
  }
};
}  // namespace

#define QUEUE_CASE(name) TEMPLATE_TEST_CASE(name, "[queue]", SqliteQueues, PgQueues)
#define OPEN_QUEUES() \
  TestType queues;    \
  if (!queues.available()) return

QUEUE_CASE("jobs are claimed oldest first and complete with their run") {
  OPEN_QUEUES();
  auto queue = queues.open();
  auto& q = *queue;
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  auto b = q.enqueue(spec("/r/b"), Dedup::same_signature, kNow);
  REQUIRE(a.added);
  REQUIRE(b.added);
  auto first = q.claim("d1", kNow, 1000);
  REQUIRE(first);
  CHECK(first->id == a.id);
  CHECK(first->state == JobState::running);
  CHECK(first->attempts == 1);
  CHECK(first->owner == "d1");
  CHECK(first->spec.inputs == std::vector<std::string>{"/r/a"});

  const int64_t run_id = 42;
  CHECK_FALSE(q.complete(a.id, "someone-else", run_id, kNow));
  CHECK(q.complete(a.id, "d1", run_id, kNow));
  auto done = q.get(a.id);
  CHECK(done->state == JobState::done);
  CHECK(done->run_id == run_id);
  CHECK(done->owner.empty());
  CHECK(q.job_of_run(run_id) == a.id);
  CHECK_FALSE(q.job_of_run(run_id + 1));
  auto counts = q.counts();
  CHECK(counts[JobState::done] == 1);
  CHECK(counts[JobState::queued] == 1);
  CHECK(counts[JobState::running] == 0);
}

QUEUE_CASE("the same inputs with the same signature are one job; a new signature is a new job") {
  OPEN_QUEUES();
  auto queue = queues.open();
  auto& q = *queue;
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  auto again = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  CHECK_FALSE(again.added);
  CHECK(again.id == a.id);
  auto rewritten = q.enqueue(spec("/r/a", "s2"), Dedup::same_signature, kNow);
  CHECK(rewritten.added);
  CHECK(q.find({"/r/a"}, "s1") == a.id);
  CHECK(q.find({"/r/a"}, "s2") == rewritten.id);
  CHECK_FALSE(q.find({"/r/a"}, "s3"));

  // An explicit submission repeats a finished job, but not one still pending.
  auto pending = q.enqueue(spec("/r/a", "s2"), Dedup::pending, kNow);
  CHECK_FALSE(pending.added);
  auto job = q.claim("d1", kNow, 1);
  REQUIRE(job->id == a.id);
  q.fail(a.id, "d1", FailureKind::error, "bad input", kNow);
  CHECK(q.enqueue(spec("/r/a"), Dedup::pending, kNow).added);
  CHECK_FALSE(q.enqueue(spec("/r/a"), Dedup::same_signature, kNow).added);
}

QUEUE_CASE("a job that crashes twice is quarantined with its reason; an error is final") {
  OPEN_QUEUES();
  auto queue = queues.open({2, 5});
  auto& q = *queue;
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("d1", kNow, 1));
  CHECK(q.fail(a.id, "d1", FailureKind::crash, "worker killed by SIGSEGV", kNow) ==
        JobState::queued);
  auto retry = q.claim("d1", kNow, 1);
  REQUIRE(retry);
  CHECK(retry->attempts == 2);
  CHECK(retry->reason == "worker killed by SIGSEGV");
  CHECK(q.fail(a.id, "d1", FailureKind::crash, "timed out after 5 s", kNow) ==
        JobState::quarantined);
  auto j = q.get(a.id);
  CHECK(j->state == JobState::quarantined);
  CHECK(j->crashes == 2);
  CHECK(j->reason == "quarantined after 2 crashes; last: timed out after 5 s");
  CHECK_FALSE(q.claim("d1", kNow, 1));  // never retried

  auto b = q.enqueue(spec("/r/b"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("d1", kNow, 1));
  CHECK(q.fail(b.id, "d1", FailureKind::error, "no collector recognised /r/b", kNow) ==
        JobState::failed);
  CHECK_FALSE(q.claim("d1", kNow, 1));
}

QUEUE_CASE("an interrupted job is queued again without counting the attempt") {
  OPEN_QUEUES();
  auto queue = queues.open();
  auto& q = *queue;
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("d1", kNow, 1));
  CHECK(q.fail(a.id, "d1", FailureKind::interrupted, "daemon stopping", kNow) == JobState::queued);
  auto j = q.get(a.id);
  CHECK(j->attempts == 0);
  CHECK(j->crashes == 0);
  CHECK(j->owner.empty());
}

QUEUE_CASE("restart recovery queues the owner's running jobs; repeated interruptions quarantine") {
  OPEN_QUEUES();
  int64_t id = 0;
  {
    auto first = queues.open({2, 3});
    id = first->enqueue(spec("/r/a"), Dedup::same_signature, kNow).id;
    first->enqueue(spec("/r/b"), Dedup::same_signature, kNow);
    REQUIRE(first->claim("d1", kNow, 1)->id == id);
  }  // the daemon dies holding the job
  auto queue = queues.open({2, 3});
  auto& q = *queue;
  CHECK(q.recover("other", kNow) == 0);
  CHECK(q.recover("d1", kNow) == 1);
  auto j = q.get(id);
  CHECK(j->state == JobState::queued);
  CHECK(j->reason == "interrupted while running (daemon restarted); queued again");
  for (int i = 2; i <= 3; ++i) {
    auto c = q.claim("d1", kNow, 1);
    REQUIRE(c->id == id);
    CHECK(c->attempts == i);
    q.recover("d1", kNow);
  }
  j = q.get(id);
  CHECK(j->state == JobState::quarantined);
  CHECK(j->reason.find("3 attempts that never ended") != std::string::npos);
}

QUEUE_CASE("an expired lease lets another owner take the job; a renewed one does not") {
  OPEN_QUEUES();
  auto queue = queues.open();
  auto& q = *queue;
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  auto b = q.enqueue(spec("/r/b"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("d1", kNow, 1000)->id == a.id);
  REQUIRE(q.claim("d2", kNow, 1000)->id == b.id);
  CHECK(q.renew(b.id, "d2", 5000));
  CHECK_FALSE(q.renew(b.id, "d1", 5000));
  CHECK(q.reclaim_expired(2000, kNow) == 1);
  CHECK(q.get(a.id)->state == JobState::queued);
  CHECK(q.get(b.id)->state == JobState::running);
  // The old owner can no longer complete what it lost.
  CHECK_FALSE(q.complete(a.id, "d1", 1, kNow));
  CHECK(q.claim("d2", kNow, 9000)->id == a.id);
}

QUEUE_CASE("jobs list newest first with state, job and paging filters") {
  OPEN_QUEUES();
  auto queue = queues.open();
  auto& q = *queue;
  for (int i = 0; i < 5; ++i) {
    JobSpec s = spec(std::string("/r/") + std::to_string(i));
    s.job = i % 2 ? "odd" : "even";
    q.enqueue(s, Dedup::same_signature, kNow);
  }
  q.claim("d1", kNow, 1);
  auto all = q.list({});
  REQUIRE(all.size() == 5);
  CHECK(all.front().id > all.back().id);
  CHECK(q.list({JobState::running, "", 0, 10}).size() == 1);
  CHECK(q.list({std::nullopt, "odd", 0, 10}).size() == 2);
  auto page = q.list({std::nullopt, "", all[1].id, 2});
  REQUIRE(page.size() == 2);
  CHECK(page[0].id == all[2].id);
  CHECK(parse_job_state("quarantined") == JobState::quarantined);
  CHECK_FALSE(parse_job_state("bogus"));
}

// What only the shared queue has to hold: several daemons at once.

TEST_CASE("shared queue: concurrent claimers on their own connections take each job once") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  {
    pg::PgJobQueue q(uri);
    for (int i = 0; i < 200; ++i)
      q.enqueue(spec(std::string("/r/") + std::to_string(i)), Dedup::pending, kNow);
  }
  std::vector<std::vector<int64_t>> taken(4);
  std::vector<std::thread> claimers;
  for (int t = 0; t < 4; ++t) {
    claimers.emplace_back([&, t] {
      pg::PgJobQueue q(uri);
      const std::string owner = std::string("d") + std::to_string(t);
      while (auto job = q.claim(owner, kNow, pg::system_clock_ms() + 60000)) {
        taken[t].push_back(job->id);
        q.complete(job->id, owner, job->id, kNow);
      }
    });
  }
  for (auto& c : claimers) c.join();
  std::set<int64_t> all;
  size_t total = 0;
  for (const auto& ids : taken) {
    total += ids.size();
    all.insert(ids.begin(), ids.end());
  }
  CHECK(total == 200);
  CHECK(all.size() == 200);
  pg::PgJobQueue q(uri);
  CHECK(q.counts()[JobState::done] == 200);
}

TEST_CASE("shared queue: two daemons enqueueing the same run at once make one job") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  // Both start on the fresh database at once: the migrations run once (advisory lock).
  std::vector<std::unique_ptr<pg::PgJobQueue>> daemons(2);
  {
    std::thread a([&] { daemons[0] = std::make_unique<pg::PgJobQueue>(uri); });
    std::thread b([&] { daemons[1] = std::make_unique<pg::PgJobQueue>(uri); });
    a.join();
    b.join();
  }
  std::atomic<int> added{0};
  std::vector<std::thread> watchers;
  for (int t = 0; t < 2; ++t) {
    watchers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        if (daemons[t]
                ->enqueue(spec(std::string("/shared/run") + std::to_string(i)),
                          Dedup::same_signature, kNow)
                .added)
          ++added;
      }
    });
  }
  for (auto& w : watchers) w.join();
  CHECK(added == 50);
  CHECK(daemons[0]->counts()[JobState::queued] == 50);
  CHECK(server->psql("SELECT 1 FROM perfsage_schema HAVING count(*) = 1",
                     uri.substr(uri.find(":///") + 4, uri.find('?') - uri.find(":///") - 4)));
}

TEST_CASE("shared queue: a daemon paused past its lease cannot overwrite the new owner's end") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  // Times are the daemons' own clock readings (0 = now); the server applies them as offsets
  // to its clock, so "two minutes later" needs no waiting.
  pg::PgJobQueue q(uri, {}, [] { return int64_t{0}; });
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("stopped", kNow, 60000)->id == a.id);
  const int64_t later = 120000;  // "stopped" is SIGSTOPped for two minutes
  CHECK(q.reclaim_expired(later, kNow) == 1);
  auto taken = q.claim("other", kNow, later + 60000);
  REQUIRE(taken);
  CHECK(taken->id == a.id);
  CHECK(q.complete(a.id, "other", 7, kNow));
  // "stopped" resumes and tries to finish what it lost: nothing changes.
  CHECK_FALSE(q.renew(a.id, "stopped", later + 60000));
  CHECK_FALSE(q.complete(a.id, "stopped", 8, kNow));
  CHECK(q.fail(a.id, "stopped", FailureKind::crash, "late", kNow) == JobState::done);
  CHECK(q.get(a.id)->run_id == 7);
}

TEST_CASE("shared queue: an enqueue wakes a listening daemon; a restarted server is reconnected") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  pg::PgJobQueue q(uri);
  pg::JobNotifications idle(uri);
  CHECK_FALSE(idle.wait(std::chrono::milliseconds(0)));
  q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  CHECK(idle.wait(std::chrono::seconds(30)));

  REQUIRE(server->restart());
  // The next call finds its connection broken, connects again and runs.
  auto b = q.enqueue(spec("/r/b"), Dedup::same_signature, kNow);
  CHECK(b.added);
  CHECK(q.counts()[JobState::queued] == 2);
}

TEST_CASE("shared queue: errors name the server without its password") {
  CHECK(pg::redact_uri("postgresql://perfsage:s3cret@db.example:5432/perfsage") ==
        "postgresql://perfsage:***@db.example:5432/perfsage");
  CHECK(pg::redact_uri("host=db user=perfsage password=s3cret dbname=p") ==
        "host=db user=perfsage password=*** dbname=p");
  CHECK(pg::redact_uri("postgresql:///p?host=/run&password=s3cret&user=u") ==
        "postgresql:///p?host=/run&password=***&user=u");
  try {
    pg::PgJobQueue q("postgresql://u:s3cret@/nodb?host=/nonexistent-socket-dir");
    FAIL("connected to nothing");
  } catch (const pg::PgError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot connect") && !Catch::Contains("s3cret"));
  }
}

TEST_CASE("shared queue: a run id names a run of the daemon that completed the job") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  pg::PgJobQueue a(uri, {}, pg::system_clock_ms, "host:/a.db");
  pg::PgJobQueue b(uri, {}, pg::system_clock_ms, "host:/b.db");
  auto j1 = a.enqueue(spec("/r/1"), Dedup::same_signature, kNow);
  auto j2 = a.enqueue(spec("/r/2"), Dedup::same_signature, kNow);
  REQUIRE(a.claim("host:/a.db", kNow, pg::system_clock_ms() + 60000)->id == j1.id);
  REQUIRE(b.claim("host:/b.db", kNow, pg::system_clock_ms() + 60000)->id == j2.id);
  // Both daemons' stores call their first run 1.
  CHECK(a.complete(j1.id, "host:/a.db", 1, kNow));
  CHECK(b.complete(j2.id, "host:/b.db", 1, kNow));
  CHECK(a.job_of_run(1) == j1.id);
  CHECK(b.job_of_run(1) == j2.id);
}

TEST_CASE("shared queue: a cluster job fans out into rank jobs; its reduce waits for all of them") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  const std::string uri = server->fresh_database();
  pg::PgJobQueue q(uri, {}, [] { return int64_t{0}; });
  CHECK(q.fans_out());
  auto cluster = q.enqueue(spec("/r/cluster"), Dedup::same_signature, kNow);
  auto later = q.enqueue(spec("/r/later"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("a", kNow, 60000)->id == cluster.id);
  // Only the holder fans it out.
  CHECK_FALSE(q.fan_out(cluster.id, "b", {{0, {"/r/cluster/r0"}}}, kNow));
  REQUIRE(q.fan_out(
      cluster.id, "a",
      {{0, {"/r/cluster/r0/t.json"}}, {1, {"/r/cluster/r1/t.json"}}, {7, {"/r/cluster/r7/t.json"}}},
      kNow));
  auto reduce = q.get(cluster.id);
  CHECK(reduce->kind == JobKind::reduce);
  CHECK(reduce->state == JobState::queued);
  CHECK(reduce->attempts == 0);  // the claim that fanned it out is not an attempt at the reduce
  auto ranks = q.rank_jobs(cluster.id);
  REQUIRE(ranks.size() == 3);
  CHECK(ranks[2].rank == 7);
  CHECK(ranks[2].kind == JobKind::rank);
  CHECK(ranks[2].parent == cluster.id);
  CHECK(ranks[2].spec.inputs == std::vector<std::string>{"/r/cluster/r7/t.json"});
  CHECK(ranks[2].spec.job == "job-a");
  // The reduce is older but waits: the next claims take the other job and the ranks.
  std::vector<int64_t> claimed;
  for (int i = 0; i < 4; ++i) claimed.push_back(q.claim("b", kNow, 60000)->id);
  CHECK(claimed == std::vector<int64_t>{later.id, ranks[0].id, ranks[1].id, ranks[2].id});
  CHECK_FALSE(q.claim("b", kNow, 60000));
  CHECK(q.complete(ranks[0].id, "b", 1, kNow));
  CHECK(q.fail(ranks[1].id, "b", FailureKind::error, "input error: damaged", kNow) ==
        JobState::failed);
  CHECK_FALSE(q.claim("b", kNow, 60000));  // rank 7 still runs
  CHECK(q.fail(ranks[2].id, "b", FailureKind::crash, "killed", kNow) == JobState::queued);
  CHECK(q.claim("c", kNow, 60000)->id == ranks[2].id);  // retried: still not the reduce
  CHECK(q.complete(ranks[2].id, "c", 2, kNow));
  // Every rank job ended (one failed): the reduce is claimable, once, by anyone.
  auto r = q.claim("c", kNow, 60000);
  REQUIRE(r);
  CHECK(r->id == cluster.id);
  CHECK(r->kind == JobKind::reduce);
  CHECK(r->attempts == 1);
  // A reduce is never fanned out again.
  CHECK_FALSE(q.fan_out(cluster.id, "c", {{0, {"/x"}}}, kNow));
  // The folder dropped again is the same job, whatever it became.
  CHECK_FALSE(q.enqueue(spec("/r/cluster"), Dedup::same_signature, kNow).added);
}
