// Fact queries must stay near-linear in the run's size: a join whose inner loop rescans a table
// (or searches it only by run and kind) costs minutes on a 100 MB trace. SQLite's plans here
// depend on the schema and the query, not on data (the store keeps no statistics), so checking
// the plan of every registered query on an empty store guards the real thing.
#include <catch2/catch.hpp>

#include "analyzer_resources.h"
#include "engine/facts/registry.h"
#include "kb_support.h"
#include "query_plan_check.h"
#include "store/database.h"
#include "test_support.h"

using namespace perfsage;

TEST_CASE("no fact query joins by rescanning a table") {
  test::TempDir dir;
  test::AnalysisStore db((dir.path() / "plans.db").string());
  for (const auto& t : perfsage::test::catalog()->types()) {
    INFO("fact type " << t.name);
    auto problems = test::rescanning_joins(db, t.query);
    std::string all;
    for (const auto& p : problems) all += "\n  " + p;
    INFO("inner loops without a join key:" << all);
    CHECK(problems.empty());
  }
}

TEST_CASE("the plan check catches a copy-to-API join that rescans the runtime calls") {
  test::TempDir dir;
  test::AnalysisStore db((dir.path() / "plans.db").string());
  // A copy joined straight to its runtime call: for every copy, SQLite walks all runtime calls
  // of the run (the event tables answer only run and kind).
  auto bad = test::nested_scans(db, R"sql(
    SELECT d.name, h.name FROM device_events d
    LEFT JOIN host_events h ON h.run_id = ?1 AND h.kind IN ('runtime','driver')
                           AND h.correlation = d.correlation
    WHERE d.run_id = ?1 AND d.kind IN ('memcpy','memset'))sql");
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].rfind("SCAN h VIRTUAL TABLE", 0) == 0);
  // The same join through a materialized CTE is probed by key: not reported.
  auto good = test::nested_scans(db, R"sql(
    WITH h AS MATERIALIZED (SELECT correlation, name FROM host_events
               WHERE run_id = ?1 AND kind IN ('runtime','driver') AND correlation IS NOT NULL)
    SELECT d.name, h.name FROM device_events d LEFT JOIN h ON h.correlation = d.correlation
    WHERE d.run_id = ?1 AND d.kind IN ('memcpy','memset'))sql");
  CHECK(good.empty());
}
