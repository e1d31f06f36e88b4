#include "store/database.h"
#include "store/results.h"
#include "store/run_registry.h"
#include "store/run_writer.h"
#include "store/schema.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {
RunHeader header(const std::string& fp = "fp1") {
  return {"job-a", {"/x/trace.json"}, fp, "2026-01-01T00:00:00Z"};
}

int64_t count(Database& db, const std::string& table) {
  auto st = db.prepare("SELECT count(*) FROM " + table);
  st.step();
  return st.int64(0);
}
}  // namespace

TEST_CASE("a new store is migrated to the current schema version") {
  Database db(":memory:");
  CHECK(db.schema_version() == current_schema_version());
}

TEST_CASE("reopening a file store keeps data and does not re-run migrations") {
  perfsage::test::TempDir dir;
  auto path = (dir.path() / "s.db").string();
  {
    Database db(path);
    RunWriter w(db, header());
    OpTask t;
    t.name = "Cast1";
    t.type = "Cast";
    t.core_type = "AI_CPU";
    t.dur_ns = 1000;
    w.add(t);
    w.commit();
  }
  Database db(path);
  CHECK(db.schema_version() == current_schema_version());
  CHECK(count(db, "op_tasks") == 1);
  CHECK(count(db, "schema_version") == current_schema_version());
}

TEST_CASE("a store from a newer perfsage is refused, not damaged") {
  perfsage::test::TempDir dir;
  auto path = (dir.path() / "s.db").string();
  {
    Database db(path);
    db.exec("INSERT INTO schema_version VALUES(999, 'x')");
  }
  CHECK_THROWS_WITH(Database(path), Catch::Contains("newer than this perfsage"));
}

TEST_CASE("an ingest that is not committed leaves nothing behind") {
  Database db(":memory:");
  {
    RunWriter w(db, header());
    HostEvent e;
    e.kind = "runtime";
    e.name = "cudaLaunchKernel";
    e.start_ns = 5;
    e.dur_ns = 7;
    w.add(e);
    // no commit: simulates a parse error half-way through
  }
  CHECK(count(db, "runs") == 0);
  CHECK(count(db, "host_events") == 0);
}

TEST_CASE("runs are found again by fingerprint and summaries round-trip") {
  Database db(":memory:");
  int64_t id;
  {
    RunWriter w(db, header("abc"));
    id = w.run_id();
    w.add(IngestFile{"/x/trace.json", "kineto", 10, 2, {"skipped 2 record(s): bad"}});
    w.commit();
  }
  CHECK(find_run_by_fingerprint(db, "abc") == id);
  CHECK_FALSE(find_run_by_fingerprint(db, "other"));
  auto s = *load_run(db, id);
  s.framework = "pytorch";
  s.device = "cuda";
  s.steps = 3;
  s.step_time_us = 1500.5;
  update_run_summary(db, s);
  auto again = *load_run(db, id);
  CHECK(again.framework == "pytorch");
  CHECK(again.steps == 3);
  CHECK(again.step_time_us == Approx(1500.5));
  CHECK(again.inputs == std::vector<std::string>{"/x/trace.json"});
  auto files = load_ingest_files(db, id);
  REQUIRE(files.size() == 1);
  CHECK(files[0].skipped == 2);
  CHECK(files[0].warnings[0] == "skipped 2 record(s): bad");
}

TEST_CASE("results are replaced as a whole and read back in order") {
  Database db(":memory:");
  RunWriter w(db, header());
  w.commit();
  Recommendation r;
  r.pack = "aicpu";
  r.pack_version = "1.0.0";
  r.rule = "aicpu-op";
  r.severity = "low";
  r.title = "AI CPU op";
  r.message = "m \"quoted\"";
  r.subjects = {"trans_Cast_5", "trans_Cast_18"};
  r.evidence_json = R"({"total_us":785.1})";
  r.gain_us = 700;
  save_results(db, w.run_id(), {{"aicpu", "1.0.0", "ok", 1, "", 1.5}}, {r});
  save_results(db, w.run_id(), {{"aicpu", "1.0.0", "ok", 1, "", 1.5}}, {r});
  auto recs = load_recommendations(db, w.run_id());
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].subjects == r.subjects);
  CHECK(recs[0].message == r.message);
  CHECK(*recs[0].gain_us == Approx(700));
  CHECK_FALSE(recs[0].gain_share);
  CHECK(load_pack_results(db, w.run_id()).size() == 1);
  delete_run(db, w.run_id());
  CHECK(load_recommendations(db, w.run_id()).empty());
  CHECK(count(db, "runs") == 0);
}
