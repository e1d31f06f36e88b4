// Fact queries must stay near-linear in the run's size: a join whose inner loop rescans a table
// (or searches it only by run and kind) costs minutes on a 100 MB trace. SQLite's plans here
// depend on the schema and the query, not on data (the store keeps no statistics), so checking
// the plan of every registered query on an empty store guards the real thing.
#include <catch2/catch.hpp>

#include "engine/facts/registry.h"
#include "query_plan_check.h"
#include "store/database.h"
#include "test_support.h"

using namespace perfsage;

TEST_CASE("no fact query joins by rescanning a table") {
  test::TempDir dir;
  store::Database db((dir.path() / "plans.db").string());
  for (const auto& t : engine::facts::fact_types()) {
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
  store::Database db((dir.path() / "plans.db").string());
  // The memcpy fact's join as it was before its CTE was materialized: for every copy, SQLite
  // walked all runtime calls of the run (index on run_id and kind only).
  auto bad = test::nested_scans(db, R"sql(
    WITH h AS (SELECT correlation, name FROM host_events
               WHERE run_id = ?1 AND kind IN ('runtime','driver') AND correlation IS NOT NULL)
    SELECT d.name, h.name FROM device_events d LEFT JOIN h ON h.correlation = d.correlation
    WHERE d.run_id = ?1 AND d.kind IN ('memcpy','memset'))sql");
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].find("host_events") != std::string::npos);
  // Two materialized CTEs joined: the inner one is scanned per outer row.
  // The kernel-to-op join as it was: k used twice (so materialized) joined to the op CTE.
  auto scans = test::nested_scans(db, R"sql(
    WITH k AS (SELECT name, dur_ns, external_id FROM device_events
               WHERE run_id = ?1 AND kind = 'kernel'),
    o AS (SELECT external_id, min(name) AS name FROM host_events
          WHERE run_id = ?1 AND kind = 'cpu_op' GROUP BY external_id),
    ko AS (SELECT k.*, o.name AS op FROM k LEFT JOIN o ON o.external_id = k.external_id)
    SELECT name, op, sum(dur_ns) / (SELECT sum(dur_ns) FROM k) FROM ko GROUP BY name, op)sql");
  REQUIRE(scans.size() == 1);
  CHECK(scans[0].rfind("SCAN o", 0) == 0);
}
