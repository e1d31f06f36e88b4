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
  update_run_totals(db, s);
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
  // The payload is opaque to the store (a serialized finding, bytes that may hold NULs).
  StoredFinding a{"00000000000000aa", "aicpu", "aicpu_op", 2, 700, 0.01, std::string("x\0y", 3)};
  StoredFinding b{"00000000000000bb", "aicpu", "aicpu_dtype", 4, 10, 0.2, "payload b"};
  PackResult ok{"aicpu", "1.0.0", "ok", 2, "", 1.5, "builtin", false};
  save_results(db, w.run_id(), {ok}, {b, a});
  save_results(db, w.run_id(), {ok}, {b, a});  // replaces, never appends
  auto found = load_findings(db, w.run_id());
  REQUIRE(found.size() == 2);
  CHECK(found[0].id == b.id);  // in the order given (the ranking)
  CHECK(found[1].payload == a.payload);
  CHECK(found[1].severity == 2);
  CHECK(found[1].gain_us == Approx(700));
  auto packs = load_pack_results(db, w.run_id());
  REQUIRE(packs.size() == 1);
  CHECK(packs[0].source == "builtin");
  delete_run(db, w.run_id());
  CHECK(load_findings(db, w.run_id()).empty());
  CHECK(count(db, "runs") == 0);
}
