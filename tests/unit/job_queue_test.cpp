#include "store/job_queue.h"

#include "store/database.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {
JobSpec spec(const std::string& path, const std::string& sig = "s1") {
  return {"job-a", {path}, "watch", sig, false};
}
const std::string kNow = "2026-01-01T00:00:00Z";
}  // namespace

TEST_CASE("jobs are claimed oldest first and complete with their run") {
  Database db(":memory:");
  SqliteJobQueue q(db);
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

  RunWriter w(db, {"job-a", {"/r/a"}, "fp", kNow});
  w.commit();
  CHECK_FALSE(q.complete(a.id, "someone-else", w.run_id(), kNow));
  CHECK(q.complete(a.id, "d1", w.run_id(), kNow));
  auto done = q.get(a.id);
  CHECK(done->state == JobState::done);
  CHECK(done->run_id == w.run_id());
  CHECK(done->owner.empty());
  CHECK(q.job_of_run(w.run_id()) == a.id);
  CHECK_FALSE(q.job_of_run(w.run_id() + 1));
  auto counts = q.counts();
  CHECK(counts[JobState::done] == 1);
  CHECK(counts[JobState::queued] == 1);
  CHECK(counts[JobState::running] == 0);
}

TEST_CASE("the same inputs with the same signature are one job; a new signature is a new job") {
  Database db(":memory:");
  SqliteJobQueue q(db);
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

TEST_CASE("a job that crashes twice is quarantined with its reason; an error is final") {
  Database db(":memory:");
  SqliteJobQueue q(db, {2, 5});
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

TEST_CASE("an interrupted job is queued again without counting the attempt") {
  Database db(":memory:");
  SqliteJobQueue q(db);
  auto a = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow);
  REQUIRE(q.claim("d1", kNow, 1));
  CHECK(q.fail(a.id, "d1", FailureKind::interrupted, "daemon stopping", kNow) == JobState::queued);
  auto j = q.get(a.id);
  CHECK(j->attempts == 0);
  CHECK(j->crashes == 0);
  CHECK(j->owner.empty());
}

TEST_CASE("restart recovery queues the owner's running jobs; repeated interruptions quarantine") {
  perfsage::test::TempDir dir;
  auto path = (dir.path() / "s.db").string();
  int64_t id = 0;
  {
    Database db(path);
    SqliteJobQueue q(db, {2, 3});
    id = q.enqueue(spec("/r/a"), Dedup::same_signature, kNow).id;
    q.enqueue(spec("/r/b"), Dedup::same_signature, kNow);
    REQUIRE(q.claim("d1", kNow, 1)->id == id);
  }  // the daemon dies holding the job
  Database db(path);
  SqliteJobQueue q(db, {2, 3});
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

TEST_CASE("an expired lease lets another owner take the job; a renewed one does not") {
  Database db(":memory:");
  SqliteJobQueue q(db);
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

TEST_CASE("jobs list newest first with state, job and paging filters") {
  Database db(":memory:");
  SqliteJobQueue q(db);
  for (int i = 0; i < 5; ++i) {
    JobSpec s = spec("/r/" + std::to_string(i));
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
